package dev.lvg.feed;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.lvg.Api;
import dev.lvg.TestGateway;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.ToIntFunction;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/**
 * Webhooks against a real receiver: every event delivered in order after the receiver was down for
 * 30 seconds, signatures that verify with an HMAC computed here (also the two of a rotation),
 * Retry-After honoured, a 410 that disables the endpoint, dead letters after the last attempt, and
 * loopback, private and link-local targets refused.
 */
class WebhookIT {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final String ADMIN = "admin-" + UUID.randomUUID();

  /** One request the receiver got: its headers, body and when. */
  record Received(Map<String, String> headers, String body, long at) {
    JsonNode json() throws IOException {
      return MAPPER.readTree(body);
    }
  }

  /** A receiver on a port of its own that can go away and come back on the same port. */
  static final class Receiver implements AutoCloseable {
    final List<Received> received = new CopyOnWriteArrayList<>();
    volatile ToIntFunction<Received> answer = r -> 200;
    volatile String retryAfter;
    private HttpServer server;
    final int port;

    Receiver() throws IOException {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      port = server.getAddress().getPort();
      serve();
    }

    private void serve() {
      server.createContext("/hook", this::handle);
      server.start();
    }

    private void handle(HttpExchange exchange) throws IOException {
      Map<String, String> headers = new HashMap<>();
      exchange.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(), v.get(0)));
      Received one =
          new Received(
              headers,
              new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8),
              System.currentTimeMillis());
      int status = answer.applyAsInt(one);
      if (status == 200) {
        received.add(one);
      }
      if (retryAfter != null) {
        exchange.getResponseHeaders().add("Retry-After", retryAfter);
      }
      exchange.sendResponseHeaders(status, -1);
      exchange.close();
    }

    void down() {
      server.stop(0);
    }

    void up() throws IOException {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
      serve();
    }

    String url() {
      return "http://127.0.0.1:" + port + "/hook";
    }

    @Override
    public void close() {
      server.stop(0);
    }
  }

  private static TestGateway delivering(String... settings) {
    Map<String, String> all = new HashMap<>();
    all.put("LVG_DB_URL", TestGateway.shared().databaseUrl());
    all.put("LVG_ADMIN_API_KEY", ADMIN);
    all.put("LVG_WEBHOOK_DELIVER", "true");
    all.put("LVG_WEBHOOK_ALLOW_PRIVATE_TARGETS", "true");
    all.put("LVG_WEBHOOK_POLL_MILLIS", "50");
    all.put("LVG_WEBHOOK_BACKOFF_MILLIS", "100");
    all.put("LVG_WEBHOOK_MAX_BACKOFF_MILLIS", "1000");
    for (int i = 0; i < settings.length; i += 2) {
      all.put(settings[i], settings[i + 1]);
    }
    return TestGateway.dedicated(all);
  }

  /** A gateway that administers webhooks and delivers none. */
  private static TestGateway administering() {
    return TestGateway.dedicated(
        Map.of("LVG_DB_URL", TestGateway.shared().databaseUrl(), "LVG_ADMIN_API_KEY", ADMIN));
  }

  private static Api.Response admin(TestGateway gw, String method, String path, String body) {
    return Api.call(gw.baseUrl, method, path, body, ADMIN);
  }

  private static JsonNode register(TestGateway gw, String tenant, String body) {
    return admin(gw, "POST", "/admin/v1/tenants/" + tenant + "/webhooks", body).assertOk();
  }

  /** Checks a Standard Webhooks signature header with an HMAC computed here. */
  static boolean verifies(String secret, Received request) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(
        new SecretKeySpec(
            Base64.getDecoder().decode(secret.substring("whsec_".length())), "HmacSHA256"));
    String signed =
        request.headers().get("webhook-id")
            + "."
            + request.headers().get("webhook-timestamp")
            + "."
            + request.body();
    String expected =
        "v1,"
            + Base64.getEncoder()
                .encodeToString(mac.doFinal(signed.getBytes(StandardCharsets.UTF_8)));
    for (String signature : request.headers().get("webhook-signature").split(" ")) {
      if (signature.equals(expected)) {
        return true;
      }
    }
    return false;
  }

  private static void await(java.util.function.BooleanSupplier done, long millis)
      throws InterruptedException {
    long deadline = System.nanoTime() + millis * 1_000_000;
    while (!done.getAsBoolean() && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertThat(done.getAsBoolean()).as("done within %d ms", millis).isTrue();
  }

  @Test
  void everyEventArrivesInOrderAfterTheReceiverWasDownAndSignaturesVerify() throws Exception {
    TestGateway gw = delivering("LVG_WEBHOOK_MAX_ATTEMPTS", "200");
    try (Receiver receiver = new Receiver()) {
      String tenant = "hook-" + UUID.randomUUID().toString().substring(0, 8);
      Api api = gw.api(gw.tenantWithKey(tenant));
      JsonNode hook = register(gw, tenant, "{\"url\":\"" + receiver.url() + "\"}");
      String secret = hook.get("secret").asText();
      assertThat(secret).startsWith("whsec_");
      api.post("/v1/namespace/ns/create", "{}").assertOk();
      api.post("/v1/table/ns%24t/declare", "{}").assertOk();
      await(() -> receiver.received.size() == 2, 10_000);
      // Down only once the gateway has recorded both deliveries (see the restart test).
      String list = "/admin/v1/tenants/" + tenant + "/webhooks";
      await(
          () ->
              admin(gw, "GET", list, null)
                      .assertOk()
                      .get("webhooks")
                      .get(0)
                      .get("delivered_through")
                      .asLong()
                  == 2,
          10_000);

      receiver.down();
      long downAt = System.currentTimeMillis();
      for (int v = 1; v <= 20; v++) {
        api.post("/v1/table/ns%24t/version/create", Api.createBody(v, "t/" + v)).assertOk();
      }
      Thread.sleep(30_000);
      JsonNode state =
          admin(gw, "GET", "/admin/v1/tenants/" + tenant + "/webhooks", null).assertOk();
      assertThat(state.get("webhooks").get(0).get("attempts").asInt()).isPositive();
      assertThat(state.get("webhooks").get(0).get("last_error").asText())
          .isEqualTo("connection refused by 127.0.0.1:" + receiver.port);
      receiver.up();
      await(() -> receiver.received.size() == 22, 20_000);

      List<Long> sequence = new ArrayList<>();
      for (Received request : receiver.received) {
        assertThat(verifies(secret, request)).as(request.headers().toString()).isTrue();
        assertThat(request.headers().get("webhook-id"))
            .isEqualTo(request.json().get("id").asText());
        assertThat(Long.parseLong(request.headers().get("webhook-timestamp")))
            .isBetween(downAt / 1000 - 60, System.currentTimeMillis() / 1000 + 1);
        assertThat(request.headers().get("content-type"))
            .startsWith("application/cloudevents+json");
        sequence.add(Long.parseLong(request.json().get("sequence").asText()));
      }
      assertThat(sequence).isSorted().doesNotHaveDuplicates().hasSize(22);
      assertThat(sequence.get(21) - sequence.get(0)).isEqualTo(21);
      assertThat(
              receiver.received.get(21).json().get("data").get("version").get("version").asLong())
          .isEqualTo(20);

      // A rotation: both secrets sign until the previous one lapses.
      String rotated =
          admin(
                  gw,
                  "POST",
                  "/admin/v1/tenants/"
                      + tenant
                      + "/webhooks/"
                      + hook.get("id").asText()
                      + "/rotate-secret",
                  null)
              .assertOk()
              .get("secret")
              .asText();
      api.post("/v1/namespace/after-rotation/create", "{}").assertOk();
      await(() -> receiver.received.size() == 23, 10_000);
      Received last = receiver.received.get(22);
      assertThat(last.headers().get("webhook-signature").split(" ")).hasSize(2);
      assertThat(verifies(rotated, last)).isTrue();
      assertThat(verifies(secret, last)).isTrue();
    } finally {
      gw.gateway.close();
    }
  }

  @Test
  void retryAfterIsHonouredA410DisablesAndTheLastAttemptDeadLetters() throws Exception {
    TestGateway gw = delivering("LVG_WEBHOOK_MAX_ATTEMPTS", "3");
    try (Receiver receiver = new Receiver()) {
      String tenant = "hook-" + UUID.randomUUID().toString().substring(0, 8);
      Api api = gw.api(gw.tenantWithKey(tenant));
      String hooks = "/admin/v1/tenants/" + tenant + "/webhooks";
      String id =
          register(
                  gw,
                  tenant,
                  "{\"url\":\""
                      + receiver.url()
                      + "\",\"event_types\":[\"io.lance.namespace.created\"]}")
              .get("id")
              .asText();
      List<Long> refusedAt = new CopyOnWriteArrayList<>();
      receiver.retryAfter = "2";
      receiver.answer =
          r -> {
            if (refusedAt.size() < 1) {
              refusedAt.add(r.at());
              return 429;
            }
            return 200;
          };
      api.post("/v1/namespace/a/create", "{}").assertOk();
      api.post("/v1/table/a%24t/declare", "{}").assertOk(); // not of the endpoint's types
      await(() -> receiver.received.size() == 1, 15_000);
      assertThat(receiver.received.get(0).at() - refusedAt.get(0)).isGreaterThanOrEqualTo(1_900);
      receiver.retryAfter = null;

      // An event the endpoint never accepts is dead-lettered after the third attempt.
      receiver.answer = r -> r.body().contains("\"subject\":\"poison\"") ? 500 : 200;
      api.post("/v1/namespace/poison/create", "{}").assertOk();
      api.post("/v1/namespace/b/create", "{}").assertOk();
      await(() -> receiver.received.size() == 2, 15_000);
      assertThat(receiver.received.get(1).json().get("subject").asText()).isEqualTo("b");
      JsonNode letters = admin(gw, "GET", hooks + "/" + id + "/dead-letters", null).assertOk();
      assertThat(letters.get("dead_letters")).hasSize(1);
      assertThat(letters.get("dead_letters").get(0).get("attempts").asInt()).isEqualTo(3);
      assertThat(letters.get("dead_letters").get(0).get("last_error").asText()).contains("500");

      // 410 Gone disables the endpoint: nothing more is sent until it is enabled again.
      receiver.answer = r -> 410;
      api.post("/v1/namespace/c/create", "{}").assertOk();
      await(
          () ->
              admin(gw, "GET", hooks, null)
                  .assertOk()
                  .get("webhooks")
                  .get(0)
                  .get("state")
                  .asText()
                  .equals("disabled"),
          10_000);
      receiver.answer = r -> 200;
      api.post("/v1/namespace/d/create", "{}").assertOk();
      Thread.sleep(1_000);
      assertThat(receiver.received).hasSize(2);
      admin(gw, "POST", hooks + "/" + id + "/enable", null).assertOk();
      await(() -> receiver.received.size() == 4, 10_000);
      assertThat(receiver.received.get(2).json().get("subject").asText()).isEqualTo("c");
      assertThat(receiver.received.get(3).json().get("subject").asText()).isEqualTo("d");
      admin(gw, "DELETE", hooks + "/" + id, null).assertOk();
      admin(gw, "DELETE", hooks + "/" + id, null).assertError(404, 1);
    } finally {
      gw.gateway.close();
    }
  }

  @Test
  void deliveryStateSurvivesARestartOfTheGateway() throws Exception {
    // A delivery cut short by the stop leaves its lease, which lasts three timeouts.
    TestGateway first =
        delivering("LVG_WEBHOOK_MAX_ATTEMPTS", "200", "LVG_WEBHOOK_TIMEOUT_MILLIS", "1000");
    TestGateway second = null;
    try (Receiver receiver = new Receiver()) {
      String tenant = "hook-" + UUID.randomUUID().toString().substring(0, 8);
      String key = first.tenantWithKey(tenant);
      Api api = first.api(key);
      register(first, tenant, "{\"url\":\"" + receiver.url() + "\"}");
      api.post("/v1/namespace/before/create", "{}").assertOk();
      String hooks = "/admin/v1/tenants/" + tenant + "/webhooks";
      TestGateway started = first;
      // Down only once the gateway has recorded the delivery: a receiver that goes away before
      // its answer is out gets the event again (at least once).
      await(
          () ->
              admin(started, "GET", hooks, null)
                      .assertOk()
                      .get("webhooks")
                      .get(0)
                      .get("delivered_through")
                      .asLong()
                  == 1,
          10_000);
      assertThat(receiver.received).hasSize(1);
      receiver.down();
      for (int i = 0; i < 5; i++) {
        api.post("/v1/namespace/during" + i + "/create", "{}").assertOk();
      }
      await(
          () ->
              admin(started, "GET", hooks, null)
                      .assertOk()
                      .get("webhooks")
                      .get(0)
                      .get("attempts")
                      .asInt()
                  > 0,
          10_000);
      first.gateway.close();
      first = null;
      receiver.up();
      second = delivering("LVG_WEBHOOK_MAX_ATTEMPTS", "200");
      await(() -> receiver.received.size() == 6, 20_000);
      List<String> subjects = new ArrayList<>();
      for (Received request : receiver.received) {
        subjects.add(request.json().get("subject").asText());
      }
      assertThat(subjects)
          .containsExactly("before", "during0", "during1", "during2", "during3", "during4");
    } finally {
      if (first != null) {
        first.gateway.close();
      }
      if (second != null) {
        second.gateway.close();
      }
    }
  }

  @Test
  void aLongTurnDeliversABacklogOfThirtyThousandEventsAndTheNextEventAfterIt() throws Exception {
    // A minute's turn, so that one turn sends the whole backlog to a receiver that keeps up.
    TestGateway gw = delivering("LVG_WEBHOOK_TIMEOUT_MILLIS", "60000");
    int backlog = 30_000;
    try (Receiver receiver = new Receiver()) {
      String tenant = "hook-" + UUID.randomUUID().toString().substring(0, 8);
      Api api = gw.api(gw.tenantWithKey(tenant));
      register(gw, tenant, "{\"url\":\"" + receiver.url() + "\"}");
      // The backlog is written as the gateway writes namespace creates: audit rows numbered by the
      // feed's trigger, in one transaction.
      try (java.sql.Connection db = gw.jdbc();
          java.sql.PreparedStatement insert =
              db.prepareStatement(
                  """
                  INSERT INTO audit_events (tenant_id, at, operation, credential, object, version,
                                            transaction_id, request_id, context)
                  SELECT t.id, now(), 'CreateNamespace', ARRAY['k'], ARRAY['backlog' || g],
                         ARRAY[NULL::bigint], ARRAY[gen_random_uuid()], ARRAY['r'], ARRAY['{}']
                  FROM tenants t CROSS JOIN generate_series(1, ?) g WHERE t.name = ?""")) {
        insert.setInt(1, backlog);
        insert.setString(2, tenant);
        assertThat(insert.executeUpdate()).isEqualTo(backlog);
      }
      await(() -> receiver.received.size() == backlog, 120_000);
      api.post("/v1/namespace/after/create", "{}").assertOk();
      await(() -> receiver.received.size() == backlog + 1, 10_000);
      for (int i = 0; i < backlog; i += 997) {
        assertThat(receiver.received.get(i).json().get("subject").asText())
            .isEqualTo("backlog" + (i + 1));
      }
      assertThat(receiver.received.get(backlog).json().get("subject").asText()).isEqualTo("after");
    } finally {
      gw.gateway.close();
    }
  }

  @Test
  void aTargetIsCheckedAgainWhenItsEventsAreSent() throws Exception {
    // Registered where loopback targets are allowed, delivered by a gateway where they are not:
    // the delivering gateway's own check refuses the target, and the receiver hears nothing.
    TestGateway registering = delivering("LVG_WEBHOOK_DELIVER", "false");
    TestGateway sending = delivering("LVG_WEBHOOK_ALLOW_PRIVATE_TARGETS", "false");
    try (Receiver receiver = new Receiver()) {
      String tenant = "hook-" + UUID.randomUUID().toString().substring(0, 8);
      Api api = registering.api(registering.tenantWithKey(tenant));
      register(registering, tenant, "{\"url\":\"" + receiver.url() + "\"}");
      api.post("/v1/namespace/a/create", "{}").assertOk();
      String hooks = "/admin/v1/tenants/" + tenant + "/webhooks";
      await(
          () ->
              admin(sending, "GET", hooks, null)
                      .assertOk()
                      .get("webhooks")
                      .get(0)
                      .get("attempts")
                      .asInt()
                  >= 2,
          10_000);
      JsonNode hook = admin(sending, "GET", hooks, null).assertOk().get("webhooks").get(0);
      assertThat(hook.get("last_error").asText()).contains("127.0.0.1", "loopback");
      assertThat(hook.get("delivered_through").asLong()).isZero();
      assertThat(receiver.received).isEmpty();
    } finally {
      sending.gateway.close();
      registering.gateway.close();
    }
  }

  @Test
  void loopbackPrivateAndLinkLocalTargetsAreRefused() {
    TestGateway gw = administering();
    try {
      String tenant = "hook-" + UUID.randomUUID().toString().substring(0, 8);
      gw.tenantWithKey(tenant);
      String hooks = "/admin/v1/tenants/" + tenant + "/webhooks";
      for (String url :
          List.of(
              "http://127.0.0.1:9/hook",
              "http://localhost/hook",
              "http://10.1.2.3/hook",
              "http://192.168.0.1/hook",
              "http://172.16.0.1/hook",
              "http://169.254.169.254/latest/meta-data",
              "http://100.64.0.1/hook",
              "http://[::1]/hook",
              "http://[fd00::1]/hook",
              "http://[::ffff:127.0.0.1]/hook",
              "http://[::127.0.0.1]/hook",
              "http://[64:ff9b::7f00:1]/hook",
              "http://0177.0.0.1/hook",
              "http://0.0.0.0/hook",
              "ftp://93.184.216.34/hook",
              "http://user:pw@93.184.216.34/hook",
              "not a url")) {
        admin(gw, "POST", hooks, "{\"url\":\"" + url + "\"}").assertError(400, 13);
      }
      admin(gw, "POST", hooks, "{\"url\":\"https://93.184.216.34/hook\"}").assertOk();
      admin(gw, "POST", hooks, "{\"url\":\"https://93.184.216.34/\",\"event_types\":[\"nope\"]}")
          .assertError(400, 13);
      admin(
              gw,
              "POST",
              "/admin/v1/tenants/no-such-tenant/webhooks",
              "{\"url\":\"https://93.184.216.34/hook\"}")
          .assertError(404, 1);
      JsonNode listed = admin(gw, "GET", hooks, null).assertOk();
      assertThat(listed.get("webhooks")).hasSize(1);
      assertThat(listed.get("webhooks").get(0).has("secret")).isFalse();
    } finally {
      gw.gateway.close();
    }
  }

  @Test
  void webhookAdministrationIsAuditedWithoutItsSecrets() {
    TestGateway gw = administering();
    try {
      String tenant = "hook-" + UUID.randomUUID().toString().substring(0, 8);
      gw.tenantWithKey(tenant);
      String hooks = "/admin/v1/tenants/" + tenant + "/webhooks";
      JsonNode created =
          admin(
                  gw,
                  "POST",
                  hooks,
                  "{\"url\":\"https://93.184.216.34/hook\",\"from\":\"start\","
                      + "\"event_types\":[\"io.lance.table.version.created\"]}")
              .assertOk();
      String id = created.get("id").asText();
      String rotated =
          admin(gw, "POST", hooks + "/" + id + "/rotate-secret", null)
              .assertOk()
              .get("secret")
              .asText();
      admin(gw, "POST", hooks + "/" + id + "/enable", null).assertOk();
      admin(gw, "DELETE", hooks + "/" + id, null).assertOk();
      admin(gw, "DELETE", hooks + "/" + id, null).assertError(404, 1);

      JsonNode trail =
          admin(gw, "GET", "/admin/v1/tenants/" + tenant + "/audit?limit=1000", null).assertOk();
      List<JsonNode> webhookEvents = new ArrayList<>();
      trail
          .get("events")
          .forEach(
              event -> {
                if (event.get("object").asText().equals(id)) {
                  webhookEvents.add(event);
                }
              });
      assertThat(webhookEvents)
          .extracting(event -> event.get("operation").asText())
          .containsExactly(
              "CreateWebhook", "RotateWebhookSecret", "EnableWebhook", "DeleteWebhook");
      for (JsonNode event : webhookEvents) {
        assertThat(event.get("credential").asText()).isEqualTo("operator");
        assertThat(event.get("request_id").asText()).isNotBlank();
      }
      JsonNode context = webhookEvents.get(0).get("context");
      assertThat(context.get("url").asText()).isEqualTo("https://93.184.216.34/hook");
      assertThat(context.get("from").asText()).isEqualTo("start");
      assertThat(context.get("event_types").toString())
          .isEqualTo("[\"io.lance.table.version.created\"]");
      assertThat(trail.toString())
          .doesNotContain(created.get("secret").asText())
          .doesNotContain(rotated)
          .doesNotContain(ADMIN);
    } finally {
      gw.gateway.close();
    }
  }
}
