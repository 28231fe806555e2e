package dev.lvg.feed;

import dev.lvg.http.ApiException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The CloudEvents {@code type} of each catalog operation the feed carries (the database's {@code
 * feed_operation} names the same operations).
 */
public final class EventTypes {
  private static final Map<String, String> BY_OPERATION = new LinkedHashMap<>();

  static {
    BY_OPERATION.put("CreateNamespace", "io.lance.namespace.created");
    BY_OPERATION.put("DropNamespace", "io.lance.namespace.dropped");
    BY_OPERATION.put("DeclareTable", "io.lance.table.declared");
    BY_OPERATION.put("RegisterTable", "io.lance.table.registered");
    BY_OPERATION.put("RenameTable", "io.lance.table.renamed");
    BY_OPERATION.put("DeregisterTable", "io.lance.table.deregistered");
    BY_OPERATION.put("DropTable", "io.lance.table.dropped");
    BY_OPERATION.put("CreateTableVersion", "io.lance.table.version.created");
    BY_OPERATION.put("BatchDeleteTableVersions", "io.lance.table.version.deleted");
    BY_OPERATION.put("PruneTableVersion", "io.lance.table.version.pruned");
    BY_OPERATION.put("CreateTableBranch", "io.lance.table.branch.created");
    BY_OPERATION.put("DeleteTableBranch", "io.lance.table.branch.deleted");
    BY_OPERATION.put("CreateTableTag", "io.lance.table.tag.created");
    BY_OPERATION.put("UpdateTableTag", "io.lance.table.tag.updated");
    BY_OPERATION.put("DeleteTableTag", "io.lance.table.tag.deleted");
    BY_OPERATION.put("BatchCreateTableVersions", "io.lance.batch.committed");
    BY_OPERATION.put("BatchCommitTables", "io.lance.batch.committed");
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
