package dev.lvg.http;

import java.util.List;

/**
 * A namespace of a tenant's catalog: its names from the root down, each already checked and in NFC
 * (made by {@link ObjectId} at the edge). The root namespace has no names.
 */
public record NamespaceId(List<String> names) {
  public static final NamespaceId ROOT = new NamespaceId(List.of());

  public NamespaceId {
    names = List.copyOf(names);
  }

  public boolean isRoot() {
    return names.isEmpty();
  }

  /** The namespace that holds this one; the root has none. */
  public NamespaceId parent() {
    if (isRoot()) {
      throw new IllegalStateException("the root namespace has no parent");
    }
    return new NamespaceId(names.subList(0, names.size() - 1));
  }

  /** The table {@code name} in this namespace. */
  public TableId table(String name) {
    return new TableId(this, name);
  }

  /** The names as a SQL {@code text[]} parameter takes them. */
  public String[] array() {
    return names.toArray(String[]::new);
  }

  /** The names joined by the default delimiter, {@code (root)} for the root: for messages. */
  @Override
  public String toString() {
    return ObjectId.display(names);
  }
}
