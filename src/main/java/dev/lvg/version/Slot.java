package dev.lvg.version;

/**
 * What decides a {@code version/create} that did not insert: the table's location, whether the
 * branch exists, the row in the version's slot (or {@code null}), and the branch's latest version
 * ({@code null} for an empty chain; a new branch's latest is the version it starts from), and the
 * version of the branch that already holds the request's Lance transaction ({@code null} if none).
 */
record Slot(
    String location, boolean branchExists, TableVersion row, Long latest, Long transactionVersion) {
  Slot(String location, boolean branchExists, TableVersion row, Long latest) {
    this(location, branchExists, row, latest, null);
  }
}
