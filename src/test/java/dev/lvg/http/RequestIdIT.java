package dev.lvg.http;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lvg.Api;
import dev.lvg.TestGateway;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Every answer carries the request's id (the client's when valid, a new one otherwise), and the
 * access log line of the request names it with the route template, status, code and tenant, as
 * fields of their own in JSON logs; never the key.
 */
class RequestIdIT {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static TestGateway gw;
  private static String key;
  private static final ListAppender<ILoggingEvent> ACCESS = new ListAppender<>();

  @BeforeAll
  static void start() {
    Logger access = (Logger) LoggerFactory.getLogger("dev.lvg.access");
    ACCESS.start();
    access.addAppender(ACCESS);
    gw =
        TestGateway.dedicated(
            Map.of("LVG_DB_URL", TestGateway.shared().databaseUrl(), "LVG_ACCESS_LOG", "true"));
    key = gw.newTenant("ids");
    gw.api(key).declare("r", "t");
  }

  @AfterAll
  static void stop() {
    gw.gateway.close();
    ((Logger) LoggerFactory.getLogger("dev.lvg.access")).detachAppender(ACCESS);
  }

  private static Api.Response describe(String table, String requestId) {
    var request = gw.api(key).request("/v1/table/r%24" + table + "/describe", "{}");
    if (requestId != null) {
      request.header("x-request-id", requestId);
    }
    return Api.send(request.build());
  }

  private static String idOf(Api.Response response) {
    return response.raw().headers().firstValue("x-request-id").orElse(null);
  }

  @Test
  void aValidIdIsEchoedOnSuccessAndOnError() {
    assertThat(idOf(describe("t", "client-id_1.2:3"))).isEqualTo("client-id_1.2:3");
    Api.Response missing = describe("missing", "another/id=");
    missing.assertError(404, 4);
    assertThat(idOf(missing)).isEqualTo("another/id=");
  }

  @Test
  void anAbsentOrInvalidIdIsReplacedByANewOne() {
    String generated = idOf(describe("t", null));
    assertThat(generated).matches("[0-9a-f]{32}");
    assertThat(idOf(describe("t", null))).isNotEqualTo(generated);
    assertThat(idOf(describe("t", "has space"))).matches("[0-9a-f]{32}");
    assertThat(idOf(describe("t", "x".repeat(129)))).matches("[0-9a-f]{32}");
    assertThat(idOf(describe("t", "x".repeat(128)))).isEqualTo("x".repeat(128));
  }

  @Test
  void unroutedAndUnauthenticatedAnswersCarryItToo() {
    Api.Response unknown =
        Api.send(
            gw.api(key)
                .request("/v1/no/such/operation", "{}")
                .header("x-request-id", "lost-1")
                .build());
    assertThat(unknown.status()).isEqualTo(406);
    assertThat(idOf(unknown)).isEqualTo("lost-1");
    Api.Response anonymous =
        Api.send(
            new Api(gw.baseUrl, null)
                .request("/v1/table/r%24t/describe", "{}")
                .header("x-request-id", "anon-1")
                .build());
    anonymous.assertError(401, 16);
    assertThat(idOf(anonymous)).isEqualTo("anon-1");
  }

  @Test
  void theAccessLogLineNamesTheRequestAndNeverTheKey() throws Exception {
    describe("missing", "find-me-42").assertError(404, 4);
    ILoggingEvent line = awaitLine("find-me-42");
    Map<String, String> fields = fields(line);
    assertThat(fields)
        .containsEntry("method", "POST")
        .containsEntry("route", "/v1/table/:id/describe")
        .containsEntry("status", "404")
        .containsEntry("code", "4")
        .containsEntry("request_id", "find-me-42")
        .containsKey("duration_ms");
    assertThat(fields.get("tenant")).startsWith("ids-");

    JsonEncoder encoder = new JsonEncoder();
    encoder.setContext(((Logger) LoggerFactory.getLogger("dev.lvg.access")).getLoggerContext());
    encoder.start();
    String json = new String(encoder.encode(line), StandardCharsets.UTF_8);
    JsonNode parsed = MAPPER.readTree(json);
    assertThat(parsed.path("level").asText()).isEqualTo("INFO");
    assertThat(json).contains("\"request_id\"").contains("find-me-42").doesNotContain(key);
  }

  private static ILoggingEvent awaitLine(String requestId) throws InterruptedException {
    for (int i = 0; i < 200; i++) {
      for (ILoggingEvent event : List.copyOf(ACCESS.list)) {
        if (requestId.equals(fields(event).get("request_id"))) {
          return event;
        }
      }
      Thread.sleep(10);
    }
    throw new AssertionError("no access log line for " + requestId);
  }

  private static Map<String, String> fields(ILoggingEvent event) {
    return event.getKeyValuePairs() == null
        ? new HashMap<>()
        : event.getKeyValuePairs().stream()
            .collect(Collectors.toMap(pair -> pair.key, pair -> String.valueOf(pair.value)));
  }
}
