package dev.lvg.auth;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lvg.Api;
import dev.lvg.ManifestFiles;
import dev.lvg.TestGateway;
import dev.lvg.http.SpecOperations;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Every operation of the spec, run with one tenant's key against another tenant's namespace, table
 * and transaction and against names that exist nowhere: the two answers are the same (status, code
 * and message, the names aside), so nothing tells a tenant what another one has, and the other
 * tenant's data is untouched afterwards.
 */
class CrossTenantIT {
  private static final String THEIRS = "xt_theirs";
  private static final String NOWHERE = "xt_nowhere";

  @Test
  void anotherTenantsObjectsLookExactlyLikeObjectsThatDoNotExist() throws Exception {
    TestGateway gw = TestGateway.finalizing();
    Api owner = gw.api(gw.newTenant("owner"));
    Api other = gw.api(gw.newTenant("other"));
    owner.declare(THEIRS, "t");
    String location =
        owner
            .post("/v1/table/" + THEIRS + "%24t/describe", "{}")
            .assertOk()
            .get("location")
            .asText();
    Path staging = Path.of(location, "_versions", "1.manifest-x");
    Files.createDirectories(staging.getParent());
    Files.write(staging, ManifestFiles.of("theirs"));
    JsonNode committed =
        owner
            .post(
                "/v1/table/" + THEIRS + "%24t/version/create",
                "{\"version\":1,\"manifest_path\":\""
                    + staging.toString().substring(1)
                    + "\",\"naming_scheme\":\"V1\"}")
            .assertOk();
    String transaction = committed.get("transaction_id").asText();

    List<String> differences = new ArrayList<>();
    int compared = 0;
    for (SpecOperations.Operation op : SpecOperations.all()) {
      if (!op.path().contains("{id}")) {
        continue;
      }
      String theirs = idFor(op, THEIRS, transaction);
      String nowhere = idFor(op, NOWHERE, UUID.randomUUID().toString());
      for (String body : new String[] {"{}", Api.createBody(2, "x/2")}) {
        Api.Response a = call(other, op, theirs, body);
        Api.Response b = call(other, op, nowhere, body);
        compared++;
        String left = normalized(a, THEIRS);
        String right = normalized(b, NOWHERE);
        if (!left.equals(right)) {
          differences.add(op.id() + " " + body + ":\n  theirs:  " + left + "\n  nowhere: " + right);
        }
        if (a.status() == 200) {
          assertThat(a.text()).as(op.id()).doesNotContain(location).doesNotContain(transaction);
        }
      }
    }
    assertThat(compared).isGreaterThan(40);
    assertThat(differences).isEmpty();

    Api.Response all = other.get("/v1/table");
    assertThat(all.text()).doesNotContain(location).doesNotContain(THEIRS);
    JsonNode still =
        owner.post("/v1/table/" + THEIRS + "%24t/version/describe", "{}").assertOk().get("version");
    assertThat(still.get("version").asLong()).isEqualTo(1);
    owner.post("/v1/namespace/" + THEIRS + "/describe", "{}").assertOk();
  }

  private static String idFor(SpecOperations.Operation op, String name, String transaction) {
    if (op.path().startsWith("/v1/transaction/")) {
      return transaction;
    }
    return op.path().startsWith("/v1/namespace/") ? name : name + "%24t";
  }

  private static Api.Response call(Api api, SpecOperations.Operation op, String id, String body) {
    String path = op.path().replace("{id}", id).replace("{index_name}", "by_id");
    return op.method().equals("GET") ? api.get(path) : api.post(path, body);
  }

  /** Status and body with the names and ids that differ between the two calls made alike. */
  private static String normalized(Api.Response response, String name) {
    String text = response.text().replace(name, "<name>");
    text =
        text.replaceAll("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<uuid>");
    return response.status() + " " + text;
  }
}
