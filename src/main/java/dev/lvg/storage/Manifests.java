package dev.lvg.storage;

import dev.lvg.http.ApiException;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Where a version's manifest goes. A Lance writer sends the path of a staging manifest relative to
 * the store root; it must lie in {@code _versions/} of the table, or of one of its branches under
 * {@code tree/<branch>/}. The final name follows the naming scheme: V1 {@code <v>.manifest}, V2
 * {@code <u64::MAX - v, 20 digits>.manifest}. {@code store} holds the objects of {@code root};
 * without {@code finalizes} every version is recorded as given and storage is never touched.
 */
public record Manifests(StorageRoot root, ObjectStore store, boolean finalizes) {
  private static final String VERSIONS = "_versions/";
  private static final String MANIFEST_SUFFIX = ".manifest";

  /**
   * When finalizing: writes and deletes a small object at the storage root, so that a root that
   * cannot be reached or written stops start-up with one clear message instead of failing every
   * commit later. Record mode never touches storage and checks nothing.
   */
  public Future<Void> checkWritable() {
    if (!finalizes) {
      return Future.succeededFuture();
    }
    String key = root.keyOf(root.locationPrefix() + ".lvg-write-check-" + UUID.randomUUID());
    return store
        .createIfAbsent(key, Buffer.buffer("lance-version-gateway write check\n"))
        .compose(created -> store.deleteIfExists(key))
        .recover(
            failure ->
                Future.failedFuture(
                    new IllegalStateException(
                        "LVG_STORAGE_ROOT "
                            + root.uri()
                            + " cannot be written: "
                            + (failure.getMessage() == null
                                ? failure.toString()
                                : failure.getMessage()),
                        failure)));
  }

  /**
   * Of the manifest paths recorded for versions, those whose manifest no longer exists (a writer's
   * cleanup removed it): one listing per directory involved. Never reports a path outside the
   * root's store, and nothing in record mode, where storage is never touched.
   */
  public Future<Set<String>> missing(Collection<String> manifestPaths) {
    if (!finalizes) {
      return Future.succeededFuture(Set.of());
    }
    String storePrefix = root.keyOf(root.locationPrefix());
    Map<String, Map<String, String>> byDirectory = new HashMap<>();
    for (String path : manifestPaths) {
      String key;
      try {
        key = root.manifestKey(path);
      } catch (ApiException notAKey) {
        continue;
      }
      int slash = key.lastIndexOf('/');
      if (storePrefix == null || !key.startsWith(storePrefix) || slash < 0) {
        continue;
      }
      byDirectory
          .computeIfAbsent(key.substring(0, slash), directory -> new HashMap<>())
          .put(key.substring(slash + 1), path);
    }
    List<Future<List<String>>> listings = new ArrayList<>(byDirectory.size());
    byDirectory.forEach(
        (directory, paths) ->
            listings.add(
                store
                    .list(directory)
                    .map(
                        present ->
                            paths.entrySet().stream()
                                .filter(name -> !present.contains(name.getKey()))
                                .map(Map.Entry::getValue)
                                .toList())));
    return Future.all(listings)
        .map(
            done -> {
              Set<String> missing = new HashSet<>();
              listings.forEach(listing -> missing.addAll(listing.result()));
              return missing;
            });
  }

  /**
   * What a staging manifest says of the Lance transaction that wrote it: its uuid; or that the file
   * is no Lance manifest (answered only once the path is known to lie in the request's table); or
   * nothing, when the manifest names no transaction ({@code namesNone}) or was not read (record
   * mode, a path outside the root, a file that is not there: the commit's own checks answer those).
   */
  public record Staged(UUID transaction, ApiException unreadable, boolean namesNone) {
    static final Staged UNREAD = new Staged(null, null, false);
  }

  /**
   * Reads the transaction of each staging manifest at {@code manifestPaths} (see {@link
   * LanceManifest}) when finalizing, their tails in one call to the store; one answer per path, in
   * order, failed only where the store failed.
   */
  public List<Future<Staged>> staged(List<String> manifestPaths) {
    List<Future<Staged>> answers = new ArrayList<>(manifestPaths.size());
    List<String> keys = new ArrayList<>();
    for (String path : manifestPaths) {
      String key = stagingKey(path);
      answers.add(key == null ? Future.succeededFuture(Staged.UNREAD) : null);
      if (key != null) {
        keys.add(key);
      }
    }
    List<Future<ObjectStore.Range>> tails =
        keys.isEmpty() ? List.of() : store.readTails(keys, LanceManifest.TAIL);
    for (int i = 0, k = 0; i < answers.size(); i++) {
      if (answers.get(i) == null) {
        String key = keys.get(k);
        answers.set(
            i,
            tails
                .get(k++)
                .compose(tail -> LanceManifest.transactionOf(store, key, tail))
                .map(uuid -> new Staged(uuid, null, uuid == null))
                .recover(Manifests::unread));
      }
    }
    return answers;
  }

  /**
   * The key of a staging manifest to read: when finalizing, a key in the root's store in a {@code
   * _versions/} directory; {@code null} for any other path, which the commit's own checks answer.
   */
  private String stagingKey(String manifestPath) {
    String storePrefix = root.keyOf(root.locationPrefix());
    if (!finalizes || storePrefix == null) {
      return null;
    }
    String key;
    try {
      key = root.manifestKey(manifestPath);
    } catch (ApiException notAKey) {
      return null;
    }
    int slash = key.lastIndexOf('/');
    return key.startsWith(storePrefix)
            && slash >= VERSIONS.length()
            && key.startsWith(VERSIONS, slash + 1 - VERSIONS.length())
        ? key
        : null;
  }

  /** A read that failed: not a manifest, or no file (the copy answers that); else the failure. */
  private static Future<Staged> unread(Throwable failure) {
    return failure instanceof ApiException notAManifest
        ? Future.succeededFuture(new Staged(null, notAManifest, false))
        : failure instanceof ObjectStore.NoSuchObjectException
            ? Future.succeededFuture(Staged.UNREAD)
            : Future.failedFuture(failure);
  }

  /** A staging manifest and the final manifest it becomes, as keys of one store. */
  public record Target(
      ObjectStore store, String stagingKey, String finalKey, String clientFinalPath) {}

  /**
   * The finalization target of a {@code version/create}, or {@code null} when the table's versions
   * are recorded as given (record mode, or a location outside the root's store).
   */
  public Target target(
      String location, String manifestPath, String branch, long version, String namingScheme) {
    if (!finalizes) {
      return null;
    }
    String tableKey = root.keyOf(location);
    if (tableKey == null) {
      return null;
    }
    String key = root.manifestKey(manifestPath);
    String name = stagingName(StorageRoot.requireInside(tableKey, key, "'manifest_path'"));
    String versionsDir =
        "main".equals(branch)
            ? tableKey + "/" + VERSIONS
            : tableKey + "/tree/" + branch + "/" + VERSIONS;
    String finalKey =
        versionsDir + finalName(version, namingScheme == null ? schemeOf(name) : namingScheme);
    return new Target(store, key, finalKey, root.inFormOf(finalKey, manifestPath));
  }

  /**
   * The file name, once the path is known to be {@code _versions/<name>} of the table or a branch.
   */
  private static String stagingName(String inTable) {
    String rest = inTable;
    if (rest.startsWith("tree/")) {
      int branchEnd = rest.indexOf('/', "tree/".length());
      rest = branchEnd < 0 ? "" : rest.substring(branchEnd + 1);
    }
    if (!rest.startsWith(VERSIONS)
        || rest.length() == VERSIONS.length()
        || rest.indexOf('/', VERSIONS.length()) >= 0) {
      throw ApiException.invalidInput(
          "'manifest_path' must name a file in _versions/ of the table or of a branch");
    }
    return rest.substring(VERSIONS.length());
  }

  static String schemeOf(String stagingName) {
    return stagingName.matches("\\d{20}\\.manifest.*") ? "V2" : "V1";
  }

  public static String finalName(long version, String namingScheme) {
    if ("V1".equals(namingScheme)) {
      return version + MANIFEST_SUFFIX;
    }
    String inverted = Long.toUnsignedString(-1L - version);
    return "0".repeat(20 - inverted.length()) + inverted + MANIFEST_SUFFIX;
  }
}
