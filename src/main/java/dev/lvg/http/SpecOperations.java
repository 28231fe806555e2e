package dev.lvg.http;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The operations of the Lance Namespace REST spec ({@code spec-operations.tsv}), so that a request
 * for one the gateway does not serve is told which operation it asked for and why it is refused.
 */
public final class SpecOperations {
  /** Operations on a table's rows, columns, indices or statistics, which Lance writers run. */
  private static final Set<String> DATA_PLANE_PATHS =
      Set.of(
          "insert",
          "merge_insert",
          "update",
          "delete",
          "query",
          "count_rows",
          "create",
          "explain_plan",
          "analyze_plan",
          "add_columns",
          "alter_columns",
          "drop_columns",
          "backfill_column",
          "update_field_metadata",
          "schema_metadata",
          "stats",
          "create_index",
          "create_scalar_index",
          "index");

  /** One operation of the spec. */
  public record Operation(String id, String method, String path, Pattern pattern) {
    /** The operation {@code id} on {@code method path}; {@code {name}} matches one path segment. */
    static Operation of(String id, String method, String path) {
      String regex = Pattern.quote(path).replaceAll("\\{[a-z_]+\\}", "\\\\E[^/]+\\\\Q");
      return new Operation(id, method, path, Pattern.compile(regex));
    }

    /** True for the operations a Lance writer runs itself against the table's storage. */
    public boolean dataPlane() {
      String[] parts = path.split("/");
      return path.startsWith("/v1/table/{id}/") && parts.length > 4
          ? DATA_PLANE_PATHS.contains(parts[4])
          : path.startsWith("/v1/materialized_view/");
    }
  }

  private static final List<Operation> OPERATIONS = load();

  private SpecOperations() {}

  private static List<Operation> load() {
    List<Operation> operations = new ArrayList<>();
    try (InputStream in = SpecOperations.class.getResourceAsStream("/spec-operations.tsv");
        BufferedReader lines =
            new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      for (String line = lines.readLine(); line != null; line = lines.readLine()) {
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        String[] fields = line.split("\t");
        operations.add(Operation.of(fields[0], fields[1], fields[2]));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return List.copyOf(operations);
  }

  /** Every operation of the spec, in the spec's order. */
  public static List<Operation> all() {
    return OPERATIONS;
  }

  /** The spec operation {@code operationId}; an unknown id is a programming error. */
  public static Operation byId(String operationId) {
    return OPERATIONS.stream()
        .filter(op -> op.id().equals(operationId))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no spec operation " + operationId));
  }

  /** The spec operation a request names, if any. */
  public static Optional<Operation> of(String method, String path) {
    return OPERATIONS.stream()
        .filter(op -> op.method().equals(method) && op.pattern().matcher(path).matches())
        .findFirst();
  }

  /** Why a request that no route serves is refused, naming its spec operation when it has one. */
  public static String refusal(String method, String path) {
    return of(method, path)
        .map(
            op ->
                op.id()
                    + " ("
                    + op.method()
                    + " "
                    + op.path()
                    + ") is not served by this gateway"
                    + (op.dataPlane()
                        ? ": it is a data-plane operation, which Lance writers run themselves"
                            + " against the table's storage before committing a version"
                        : ""))
        .orElse("no such operation: " + method + " " + path);
  }
}
