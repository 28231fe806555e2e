package dev.lvg.http;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.RoutingContext;

/** JSON reading and writing for the API: one strict mapper, one way to answer. */
public final class Json {
  public static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
          .build();

  private Json() {}

  public static ObjectNode object() {
    return MAPPER.createObjectNode();
  }

  /**
   * Parses a request body that may be absent. Absent, empty, whitespace or the literal {@code null}
   * give {@code null}; anything but a JSON object is invalid input.
   */
  public static ObjectNode parseOptionalObject(Buffer body) {
    if (body == null || body.length() == 0) {
      return null;
    }
    JsonNode node;
    try {
      node = MAPPER.readTree(body.getBytes());
    } catch (JsonProcessingException e) {
      throw ApiException.invalidInput("request body is not valid JSON: " + e.getOriginalMessage());
    } catch (java.io.IOException e) {
      throw ApiException.invalidInput("request body cannot be read: " + e.getMessage());
    }
    if (node == null || node.isMissingNode() || node.isNull()) {
      return null;
    }
    if (!node.isObject()) {
      throw ApiException.invalidInput("request body must be a JSON object");
    }
    return (ObjectNode) node;
  }

  public static void respond(RoutingContext ctx, int status, JsonNode body) {
    byte[] bytes;
    try {
      bytes = MAPPER.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      ctx.fail(e);
      return;
    }
    ctx.response()
        .setStatusCode(status)
        .putHeader("Content-Type", "application/json")
        .end(Buffer.buffer(bytes));
  }

  public static void ok(RoutingContext ctx, JsonNode body) {
    respond(ctx, 200, body);
  }
}
