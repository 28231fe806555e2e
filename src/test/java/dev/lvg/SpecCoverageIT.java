package dev.lvg;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.lvg.http.SpecOperations;
import java.net.URI;
import java.net.http.HttpRequest;
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
          "RestoreTable",
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

  /** The operations a read key may run: those that change nothing. */
  private static final Set<String> READS =
      Set.of(
          "ListNamespaces",
          "DescribeNamespace",
          "NamespaceExists",
          "ListTables",
          "ListAllTables",
          "DescribeTable",
          "TableExists",
          "ListTableVersions",
          "DescribeTableVersion",
          "ListTableBranches",
          "ListTableTags",
          "GetTableTagVersion",
          "DescribeTransaction");

  @Test
  void aReadKeyRunsExactlyTheOperationsDeclaredAsReadsAndIsRefusedEveryOther() throws Exception {
    TestGateway gw = TestGateway.finalizing();
    String tenant = "rights-" + java.util.UUID.randomUUID().toString().substring(0, 8);
    gw.tenantWithKey(tenant);
    Api api = gw.api(gw.readKey(tenant));
    List<String> refused = new ArrayList<>();
    for (SpecOperations.Operation op : SpecOperations.all()) {
      if (!SERVED.contains(op.id())) {
        continue;
      }
      String path = op.path().replace("{id}", "ns%24missing");
      Api.Response answer = op.method().equals("GET") ? api.get(path) : api.post(path, "{}");
      if (answer.status() == 403) {
        answer.assertError(403, 15);
        refused.add(op.id());
      }
    }
    List<String> writes = SERVED.stream().filter(id -> !READS.contains(id)).toList();
    assertThat(refused).containsExactlyInAnyOrderElementsOf(writes);
  }

  @Test
  void theOpenApiDocumentServesEachServedOperationAsTheUpstreamSpecDeclaresIt() throws Exception {
    TestGateway gw = TestGateway.finalizing();
    String yaml =
        Api.send(
                HttpRequest.newBuilder(URI.create(gw.managementUrl + "/openapi.yaml"))
                    .GET()
                    .build())
            .text();
    YAMLMapper mapper = new YAMLMapper();
    JsonNode document = mapper.readTree(yaml);
    JsonNode upstream =
        mapper.readTree(
            java.nio.file.Path.of("src/main/resources/openapi/lance-namespace-0.11.1.yaml")
                .toFile());
    List<String> listed = new ArrayList<>();
    document
        .path("paths")
        .fields()
        .forEachRemaining(
            path ->
                path.getValue()
                    .fields()
                    .forEachRemaining(
                        operation -> {
                          if (operation.getKey().equals("parameters")) {
                            return;
                          }
                          String id = operation.getValue().path("operationId").asText();
                          assertThat(operation.getValue())
                              .as("%s as the upstream spec declares it", id)
                              .isEqualTo(
                                  upstream
                                      .path("paths")
                                      .path(path.getKey())
                                      .path(operation.getKey()));
                          listed.add(id);
                        }));
    assertThat(listed).containsExactlyInAnyOrderElementsOf(SERVED);
    // Every reference resolves inside the document, and no request body is a bare object.
    java.util.regex.Matcher refs =
        java.util.regex.Pattern.compile("\\$ref: \"?#/components/([A-Za-z]+)/([A-Za-z0-9_.-]+)")
            .matcher(yaml);
    int resolved = 0;
    while (refs.find()) {
      assertThat(document.path("components").path(refs.group(1)).has(refs.group(2)))
          .as("%s/%s", refs.group(1), refs.group(2))
          .isTrue();
      resolved++;
    }
    assertThat(resolved).isGreaterThan(SERVED.size());
    assertThat(
            document
                .path("paths")
                .path("/v1/table/{id}/version/create")
                .path("post")
                .path("requestBody")
                .path("content")
                .path("application/json")
                .path("schema")
                .path("$ref")
                .asText())
        .isEqualTo("#/components/schemas/CreateTableVersionRequest");
  }
}
