package dev.lvg.feed;

import dev.lvg.http.ApiException;
import dev.lvg.operation.GatewayOperation;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The CloudEvents {@code type} of each catalog operation the feed carries, from the operation
 * catalogue ({@link GatewayOperation#eventType}); the database's {@code feed_operation} names the
 * same operations.
 */
public final class EventTypes {
  private static final Map<String, String> BY_OPERATION = new LinkedHashMap<>();

  static {
    for (GatewayOperation operation : GatewayOperation.inFeed()) {
      BY_OPERATION.put(operation.id(), operation.eventType());
    }
  }

  private EventTypes() {}

  /** The type of an event recorded by {@code operation}. */
  public static String of(String operation) {
    String type = BY_OPERATION.get(operation);
    if (type == null) {
      throw new IllegalStateException("the feed carries no operation " + operation);
    }
    return type;
  }

  /** Every operation the feed carries. */
  public static List<String> operations() {
    return List.copyOf(BY_OPERATION.keySet());
  }

  /** The operations recorded under {@code types}; 400 code 13 for a type the feed never carries. */
  public static List<String> operations(List<String> types) {
    List<String> operations = new ArrayList<>();
    for (String type : types) {
      int before = operations.size();
      BY_OPERATION.forEach(
          (operation, its) -> {
            if (its.equals(type)) {
              operations.add(operation);
            }
          });
      if (operations.size() == before) {
        throw ApiException.invalidInput(
            "'" + type + "' is not an event type; the types are " + List.copyOf(types()));
      }
    }
    return operations;
  }

  private static java.util.Set<String> types() {
    return new java.util.LinkedHashSet<>(BY_OPERATION.values());
  }
}
