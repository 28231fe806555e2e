package dev.lvg.feed;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lvg.Api;
import dev.lvg.TestGateway;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The change feed below the tenant: while 8 writers commit across three namespaces, a reader whose
 * key may read one namespace, and a webhook acting as the same role, each get exactly that
 * namespace's events, in position order, and nothing else.
 */
class ScopedFeedIT {
  private static final String ADMIN = "admin-" + UUID.randomUUID();
  private static final int WRITERS = 8;
  private static final int VERSIONS = 10;

  private static Api.Response admin(TestGateway gw, String method, String path, String body) {
    return Api.call(gw.baseUrl, method, path, body, ADMIN);
  }

  @Test
  void aScopedReaderAndAScopedWebhookGetExactlyTheirNamespacesEvents() throws Exception {
    TestGateway gw =
        TestGateway.dedicated(
            Map.of(
                "LVG_DB_URL", TestGateway.shared().databaseUrl(),
                "LVG_ADMIN_API_KEY", ADMIN,
                "LVG_WEBHOOK_DELIVER", "true",
                "LVG_WEBHOOK_ALLOW_PRIVATE_TARGETS", "true",
                "LVG_WEBHOOK_POLL_MILLIS", "50"));
    ExecutorService writers = Executors.newFixedThreadPool(WRITERS);
    try (WebhookIT.Receiver receiver = new WebhookIT.Receiver()) {
      String tenant = "scopedfeed-" + UUID.randomUUID().toString().substring(0, 8);
      Api owner = gw.api(gw.tenantWithKey(tenant));
      admin(
              gw,
              "POST",
              "/admin/v1/tenants/" + tenant + "/grants",
              "{\"grantee\":\"role:team-a\",\"right\":\"read\",\"namespace\":[\"team_a\"]}")
          .assertOk();
      Api reader =
          gw.api(
              admin(gw, "POST", "/admin/v1/tenants/" + tenant + "/keys", "{\"roles\":[\"team-a\"]}")
                  .assertOk()
                  .get("api_key")
                  .asText());
      admin(
              gw,
              "POST",
              "/admin/v1/tenants/" + tenant + "/webhooks",
              "{\"url\":\"" + receiver.url() + "\",\"grantee\":\"role:team-a\",\"from\":\"start\"}")
          .assertOk();

      List<String> namespaces = List.of("team_a", "team_b", "team_c");
      for (String namespace : namespaces) {
        owner.post("/v1/namespace/" + namespace + "/create", "{}").assertOk();
      }
      List<Future<?>> done = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        String table = namespaces.get(w % 3) + "%24t" + w;
        done.add(
            writers.submit(
                () -> {
                  owner.post("/v1/table/" + table + "/declare", "{}").assertOk();
                  for (int v = 1; v <= VERSIONS; v++) {
                    owner
                        .post("/v1/table/" + table + "/version/create", Api.createBody(v, "v/" + v))
                        .assertOk();
                  }
                }));
      }
      for (Future<?> one : done) {
        one.get();
      }

      List<JsonNode> everything = FeedIT.all(owner, 50, "");
      List<String> expected = new ArrayList<>();
      for (JsonNode event : everything) {
        String subject = event.path("subject").asText();
        if (subject.equals("team_a") || subject.startsWith("team_a$")) {
          expected.add(event.get("id").asText());
        }
      }
      // team_a was created, and writers 0, 3 and 6 each declared a table and committed to it.
      assertThat(expected).hasSize(1 + 3 * (1 + VERSIONS));

      List<String> pulled =
          FeedIT.all(reader, 7, "").stream().map(event -> event.get("id").asText()).toList();
      assertThat(pulled).isEqualTo(expected);

      long deadline = System.nanoTime() + 20_000_000_000L;
      while (receiver.received.size() < expected.size() && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      Thread.sleep(500); // anything more would have arrived by now
      List<String> pushed = new ArrayList<>();
      for (WebhookIT.Received request : receiver.received) {
        pushed.add(request.json().get("id").asText());
      }
      assertThat(pushed).isEqualTo(expected);
    } finally {
      writers.shutdownNow();
      gw.gateway.close();
    }
  }
}
