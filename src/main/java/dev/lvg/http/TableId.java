package dev.lvg.http;

import java.util.ArrayList;
import java.util.List;

/**
 * A table of a tenant's catalog: the namespace that holds it and its name, already checked and in
 * NFC (made by {@link ObjectId} at the edge). The wire's form, a list of names whose last is the
 * table's, is {@link #names()}.
 */
public record TableId(NamespaceId namespace, String name) {
  /** The table a wire id names: 400 when it has no part for the table's name. */
  public static TableId of(List<String> names) {
    if (names.isEmpty()) {
      throw ApiException.invalidInput("a table id needs at least one part: the table name");
    }
    return new NamespaceId(names.subList(0, names.size() - 1)).table(names.get(names.size() - 1));
  }

  /** The namespace's names and then the table's. */
  public List<String> names() {
    List<String> names = new ArrayList<>(namespace.names().size() + 1);
    names.addAll(namespace.names());
    names.add(name);
    return List.copyOf(names);
  }

  /**
   * The names joined by {@code delimiter}, without making a list of them (the commit path's key).
   */
  public String joined(String delimiter) {
    StringBuilder joined = new StringBuilder();
    for (String part : namespace.names()) {
      joined.append(part).append(delimiter);
    }
    return joined.append(name).toString();
  }

  /** The names joined by the default delimiter: for messages, the audit trail and the feed. */
  @Override
  public String toString() {
    return joined(ObjectId.DEFAULT_DELIMITER);
  }
}
