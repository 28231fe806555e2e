package dev.lvg.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The gateway's own OpenAPI document for its admin API ({@code openapi/gateway-admin.yaml}): the
 * operations an admin declaration names, and the document served as it is.
 */
public final class AdminContract {
  private static final String RESOURCE = "/openapi/gateway-admin.yaml";
  private static final String TEXT = read();
  private static final List<SpecOperations.Operation> OPERATIONS = operations(TEXT);

  private AdminContract() {}

  /** The document, as served. */
  public static String text() {
    return TEXT;
  }

  /** Every admin operation, in the document's order. */
  public static List<SpecOperations.Operation> all() {
    return OPERATIONS;
  }

  /** The admin operation {@code operationId}; an unknown id is a programming error. */
  public static SpecOperations.Operation byId(String operationId) {
    return OPERATIONS.stream()
        .filter(op -> op.id().equals(operationId))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no admin operation " + operationId));
  }

  private static String read() {
    try (InputStream in = AdminContract.class.getResourceAsStream(RESOURCE)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<SpecOperations.Operation> operations(String text) {
    JsonNode paths;
    try {
      paths = new YAMLMapper().readTree(text).path("paths");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<SpecOperations.Operation> operations = new ArrayList<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = paths.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> path = it.next();
      path.getValue()
          .fields()
          .forEachRemaining(
              method ->
                  operations.add(
                      SpecOperations.Operation.of(
                          method.getValue().path("operationId").asText(),
                          method.getKey().toUpperCase(Locale.ROOT),
                          path.getKey())));
    }
    return List.copyOf(operations);
  }
}
