package dev.lvg.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every list, string, map and number a request may hold has a bound in the documents requests are
 * checked against: the upstream contract's and the gateway's own. Found by walking every schema of
 * both, wherever it sits.
 */
class BoundsTest {
  @Test
  void everySchemaOfEveryRequestHasABound() throws Exception {
    List<String> unbounded = new ArrayList<>();
    walk("spec", ContractValidation.specDocument("test"), unbounded);
    walk(
        "admin",
        ContractValidation.requestsOnly(ContractValidation.json(AdminContract.text())),
        unbounded);
    assertThat(unbounded).isEmpty();
  }

  @Test
  void theGatewaysOwnDocumentDeclaresTheFeedFiltersTightBounds() throws Exception {
    JsonObject query =
        ContractValidation.json(AdminContract.text())
            .getJsonObject("paths")
            .getJsonObject("/v1/events")
            .getJsonObject("post")
            .getJsonObject("requestBody")
            .getJsonObject("content")
            .getJsonObject("application/json")
            .getJsonObject("schema")
            .getJsonObject("properties");
    assertThat(query.getJsonObject("catalog-objects-by-name").getInteger("maxItems"))
        .isEqualTo(100);
    assertThat(query.getJsonObject("operation-types").getInteger("maxItems")).isEqualTo(32);
    assertThat(query.getJsonObject("continuation-token").getInteger("maxLength")).isEqualTo(64);
  }

  @Test
  void aSchemaWithABoundKeepsItsOwn() {
    JsonObject document =
        new JsonObject()
            .put(
                "components",
                new JsonObject()
                    .put(
                        "schemas",
                        new JsonObject()
                            .put(
                                "Short", new JsonObject().put("type", "string").put("maxLength", 8))
                            .put("Long", new JsonObject().put("type", "string"))));
    Bounds.declare(document);
    JsonObject schemas = document.getJsonObject("components").getJsonObject("schemas");
    assertThat(schemas.getJsonObject("Short").getInteger("maxLength")).isEqualTo(8);
    assertThat(schemas.getJsonObject("Long").getInteger("maxLength")).isEqualTo(Bounds.MAX_STRING);
  }

  /** Collects, under {@code where}, every schema in {@code node} that lacks the bound it needs. */
  private static void walk(String where, Object node, List<String> unbounded) {
    if (node instanceof JsonArray list) {
      for (int i = 0; i < list.size(); i++) {
        walk(where + "[" + i + "]", list.getValue(i), unbounded);
      }
      return;
    }
    if (!(node instanceof JsonObject object)) {
      return;
    }
    if (object.getValue("type") instanceof String || object.getValue("type") instanceof JsonArray) {
      check(where, object, unbounded);
    }
    for (Map.Entry<String, Object> entry : object) {
      // Answers are not checked (their schemas are the served document's business).
      if (!List.of("example", "examples", "responses").contains(entry.getKey())) {
        walk(where + "/" + entry.getKey(), entry.getValue(), unbounded);
      }
    }
  }

  private static void check(String where, JsonObject schema, List<String> unbounded) {
    boolean fixed = schema.containsKey("enum") || schema.containsKey("const");
    if (Bounds.declares(schema, "string") && !fixed && !schema.containsKey("maxLength")) {
      unbounded.add(where + " (string without maxLength)");
    }
    if (Bounds.declares(schema, "array") && !schema.containsKey("maxItems")) {
      unbounded.add(where + " (array without maxItems)");
    }
    if (Bounds.declares(schema, "object")
        && !Boolean.FALSE.equals(schema.getValue("additionalProperties"))
        && !schema.containsKey("maxProperties")) {
      unbounded.add(where + " (object without maxProperties)");
    }
    if ((Bounds.declares(schema, "integer") || Bounds.declares(schema, "number"))
        && !fixed
        && (!schema.containsKey("maximum") || !schema.containsKey("minimum"))) {
      unbounded.add(where + " (number without minimum and maximum)");
    }
  }
}
