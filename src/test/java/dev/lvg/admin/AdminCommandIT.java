package dev.lvg.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lvg.TestGateway;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The admin operations from the command line: the built jar, run as an operator would. */
class AdminCommandIT {
  private record Run(int status, String out, String err) {}

  private static Run jar(String... args) throws Exception {
    List<String> command =
        new java.util.ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar",
                Path.of("target", "lance-version-gateway.jar").toAbsolutePath().toString()));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().put("LVG_DB_URL", TestGateway.shared().databaseUrl());
    builder.environment().put("LVG_CONFIG", "");
    builder.directory(Files.createTempDirectory("lvg-cli-").toFile());
    Process process = builder.start();
    assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
    return new Run(
        process.exitValue(),
        new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8),
        new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
  }

  @Test
  void anOperatorScopesAKeyToANamespaceThroughARole() throws Exception {
    String tenant = "cli-" + UUID.randomUUID().toString().substring(0, 8);
    assertThat(jar("tenants", "create", tenant).status()).isZero();
    var owner =
        TestGateway.shared()
            .api(
                new ObjectMapper()
                    .readTree(jar("keys", "create", "--tenant", tenant).out())
                    .get("api_key")
                    .asText());
    owner.post("/v1/namespace/team_a/create", "{}").assertOk();
    owner.post("/v1/namespace/team_b/create", "{}").assertOk();

    Run granted =
        jar(
            "grants",
            "create",
            "--tenant",
            tenant,
            "--grantee",
            "role:team-a",
            "--right",
            "write",
            "--namespace",
            "team_a");
    assertThat(granted.status()).as(granted.err()).isZero();
    JsonNode grant = new ObjectMapper().readTree(granted.out());
    assertThat(grant.get("namespace").toString()).isEqualTo("[\"team_a\"]");
    Run issued = jar("keys", "create", "--tenant", tenant, "--roles", "team-a");
    assertThat(issued.status()).as(issued.err()).isZero();
    JsonNode key = new ObjectMapper().readTree(issued.out());
    assertThat(key.get("scopes")).isEmpty();
    var scoped = TestGateway.shared().api(key.get("api_key").asText());
    scoped.post("/v1/table/team_a%24t/declare", "{}").assertError(403, 15);
    scoped.post("/v1/namespace/team_a/describe", "{}").assertOk();
    scoped.post("/v1/namespace/team_b/describe", "{}").assertError(404, 1);

    Run listed = jar("grants", "list", "--tenant", tenant, "--grantee", "role:team-a");
    assertThat(new ObjectMapper().readTree(listed.out()).get("grants")).hasSize(1);
    Run removed =
        jar(
            "roles",
            "remove-member",
            "--tenant",
            tenant,
            "--role",
            "team-a",
            "--member",
            "key:" + key.get("key_id").asText());
    assertThat(removed.status()).as(removed.err()).isZero();
    assertThat(scoped.statusWithin("/v1/namespace/team_a/describe", 403, 2_000)).isEqualTo(403);
    Run deleted =
        jar("grants", "delete", "--tenant", tenant, "--grant-id", grant.get("grant_id").asText());
    assertThat(deleted.status()).as(deleted.err()).isZero();
    assertThat(
            jar("grants", "create", "--tenant", tenant, "--grantee", "nobody", "--right", "read")
                .status())
        .isEqualTo(1);
  }

  @Test
  void anOperatorCreatesATenantAndAReadKeyThatTheGatewayHonours() throws Exception {
    String tenant = "cli-" + UUID.randomUUID().toString().substring(0, 8);
    Run created = jar("tenants", "create", tenant);
    assertThat(created.status()).as(created.err()).isZero();
    assertThat(jar("tenants", "create", tenant).status()).isEqualTo(1);

    Run issued = jar("keys", "create", "--tenant", tenant, "--scopes", "read");
    assertThat(issued.status()).as(issued.err()).isZero();
    JsonNode key = new ObjectMapper().readTree(issued.out());
    assertThat(key.get("scopes").toString()).isEqualTo("[\"read\"]");
    var api = TestGateway.shared().api(key.get("api_key").asText());
    api.post("/v1/namespace/cli/describe", "{}").assertError(404, 1);
    api.post("/v1/namespace/cli/create", "{}").assertError(403, 15);

    Run listed = jar("keys", "list", "--tenant", tenant);
    assertThat(listed.status()).isZero();
    assertThat(listed.out()).contains(key.get("key_id").asText());
    assertThat(listed.out()).doesNotContain(key.get("api_key").asText());

    Run revoked = jar("keys", "revoke", "--tenant", tenant, "--key-id", key.get("key_id").asText());
    assertThat(revoked.status()).as(revoked.err()).isZero();
    assertThat(api.statusWithin("/v1/namespace/cli/describe", 401, 2_000)).isEqualTo(401);

    Run audit = jar("audit", "list", "--tenant", tenant);
    assertThat(audit.status()).as(audit.err()).isZero();
    JsonNode events = new ObjectMapper().readTree(audit.out()).get("events");
    assertThat(events).hasSize(3);
    assertThat(events.get(0).get("operation").asText()).isEqualTo("CreateTenant");
    assertThat(events.get(1).get("operation").asText()).isEqualTo("IssueKey");
    assertThat(events.get(2).get("operation").asText()).isEqualTo("RevokeKey");
    assertThat(events.get(2).get("object").asText()).isEqualTo(key.get("key_id").asText());
    assertThat(events.get(2).get("credential").asText()).startsWith("cli:");
    assertThat(audit.out()).doesNotContain(key.get("api_key").asText());

    Run wrong = jar("keys", "create", "--tenant", tenant, "--scopes", "root");
    assertThat(wrong.status()).isEqualTo(2);
    assertThat(wrong.err()).contains("usage:");
  }

  @Test
  void anOperatorListsTenantsAndDeletesOne() throws Exception {
    String tenant = "cli-gone-" + UUID.randomUUID().toString().substring(0, 8);
    assertThat(jar("tenants", "create", tenant).status()).isZero();
    JsonNode key = new ObjectMapper().readTree(jar("keys", "create", "--tenant", tenant).out());
    var api = TestGateway.shared().api(key.get("api_key").asText());
    api.post("/v1/namespace/cli/create", "{}").assertOk();

    Run page =
        jar(
            "tenants",
            "list",
            "--after",
            tenant.substring(0, tenant.length() - 1),
            "--limit",
            "1000");
    assertThat(page.status()).as(page.err()).isZero();
    assertThat(new ObjectMapper().readTree(page.out()).get("tenants").toString())
        .contains("\"name\":\"" + tenant + "\"");

    Run refused = jar("tenants", "delete", tenant);
    assertThat(refused.status()).isEqualTo(1);
    assertThat(refused.err()).contains("has 1 namespace(s) and 0 table(s)");
    assertThat(jar("tenants", "delete", tenant, "--behavior", "all").status()).isEqualTo(2);

    Run deleted = jar("tenants", "delete", tenant, "--behavior", "Cascade");
    assertThat(deleted.status()).as(deleted.err()).isZero();
    JsonNode removed = new ObjectMapper().readTree(deleted.out()).get("removed");
    assertThat(removed.get("namespaces").asInt()).isEqualTo(1);
    assertThat(removed.get("api_keys").asInt()).isEqualTo(1);
    assertThat(api.statusWithin("/v1/namespace/cli/describe", 401, 2_000)).isEqualTo(401);
    assertThat(jar("tenants", "delete", tenant).status()).isEqualTo(1);
  }
}
