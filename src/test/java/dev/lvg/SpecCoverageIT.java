package dev.lvg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lvg.http.SpecOperations;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Every operation of the spec is either served by a gateway in the default (finalizing) mode (the
 * README's operation table) or refused with 406 code 0 naming it; none falls through as an unnamed
 * route.
 */
class SpecCoverageIT {
  private static final Set<String> SERVED =
      Set.of(
          "CreateNamespace",
          "ListNamespaces",
          "DescribeNamespace",
          "DropNamespace",
          "NamespaceExists",
          "ListTables",
          "ListAllTables",
          "RegisterTable",
          "DescribeTable",
          "TableExists",
          "DropTable",
          "DeregisterTable",
          "RenameTable",
          "ListTableVersions",
          "CreateTableVersion",
          "DescribeTableVersion",
          "BatchDeleteTableVersions",
          "BatchCreateTableVersions",
          "BatchCommitTables",
          "DeclareTable",
          "ListTableBranches",
          "CreateTableBranch",
          "DeleteTableBranch",
          "DescribeTransaction",
          "ListTableTags",
          "GetTableTagVersion",
          "CreateTableTag",
          "DeleteTableTag",
          "UpdateTableTag");

  @Test
  void everySpecOperationIsServedOrRefusedByName() {
    TestGateway gw = TestGateway.finalizing();
    Api api = gw.api(gw.newTenant("coverage"));
    List<String> served = new ArrayList<>();
    for (SpecOperations.Operation op : SpecOperations.all()) {
      String path = op.path().replace("{id}", "cov%24missing").replace("{index_name}", "by_id");
      Api.Response answer = op.method().equals("GET") ? api.get(path) : api.post(path, "{}");
      boolean refused = answer.status() == 406;
      if (refused) {
        answer.assertError(406, 0);
        assertThat(answer.json().get("error").asText())
            .as(op.id())
            .startsWith(op.id() + " (" + op.method() + " " + op.path() + ") is not served");
      } else {
        served.add(op.id());
      }
    }
    assertThat(served).containsExactlyInAnyOrderElementsOf(SERVED);
  }
}
