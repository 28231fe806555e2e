package dev.lvg.restore;

import dev.lvg.audit.Actor;
import dev.lvg.catalog.Branches;
import dev.lvg.catalog.TableRecord;
import dev.lvg.http.ApiException;
import dev.lvg.http.ErrorCode;
import dev.lvg.http.TableId;
import dev.lvg.storage.Manifests;
import dev.lvg.storage.ObjectStore;
import dev.lvg.storage.StorageRoot;
import dev.lvg.version.NewVersion;
import dev.lvg.version.TableVersion;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import java.time.Clock;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Writes what a restore commits: the restored manifest, staged in the table's (or branch's) {@code
 * _versions/}, and the restore's transaction file in its {@code _transactions/}; answers the {@code
 * version/create} that commits it as the next version, through the commit path like any writer's,
 * which finalizes it.
 */
final class Restores {
  private static final Pattern V2_NAME = Pattern.compile("\\d{20}\\.manifest");

  private final StorageRoot root;
  private final ObjectStore store;
  private final boolean served;
  private final Clock clock;

  /** Restores into the storage of {@code manifests}; served only where the gateway finalizes. */
  Restores(Manifests manifests, Clock clock) {
    this.root = manifests.root();
    this.store = manifests.store();
    this.served = manifests.finalizes();
    this.clock = clock;
  }

  /**
   * Fails with 406 code 0 in record mode: a restore writes a manifest into the dataset's storage,
   * which a recording gateway does not touch, and which Lance's clients then finalize through calls
   * a namespace does not serve.
   */
  void requireServed() {
    if (!served) {
      throw new ApiException(
          ErrorCode.UNSUPPORTED,
          "a restore writes into the dataset's storage, which this gateway does not touch in record"
              + " mode");
    }
  }

  /**
   * Stages {@code old} of {@code table} as the version after {@code latest}; the request it answers
   * names the staged manifest and the restore's Lance transaction.
   */
  Future<NewVersion> stage(
      Actor actor,
      TableId id,
      String branch,
      TableRecord table,
      TableVersion old,
      TableVersion latest) {
    String tableKey = root.keyOf(table.location());
    if (tableKey == null) {
      return Future.failedFuture(
          new ApiException(
              ErrorCode.UNSUPPORTED,
              "table " + id + " lies outside the gateway's storage root, where it cannot write"));
    }
    String directory =
        Branches.MAIN.equals(branch) ? tableKey + "/" : tableKey + "/tree/" + branch + "/";
    long version = latest.version() + 1;
    UUID transaction = UUID.randomUUID();
    String transactionFile = latest.version() + "-" + transaction + ".txn";
    String oldKey = root.manifestKey(old.manifestPath());
    String scheme =
        V2_NAME.matcher(oldKey.substring(oldKey.lastIndexOf('/') + 1)).matches() ? "V2" : "V1";
    String stagingKey =
        directory
            + "_versions/"
            + Manifests.finalName(version, scheme)
            + "."
            + transaction
            + ".restore";
    return read(oldKey, old)
        .compose(
            oldFile ->
                read(root.manifestKey(latest.manifestPath()), latest)
                    .map(
                        latestFile ->
                            RestoredManifest.restore(
                                oldFile,
                                version,
                                clock.instant(),
                                transactionFile,
                                RestoredManifest.maxFragmentId(latestFile))))
        .compose(
            manifest ->
                store
                    .createIfAbsent(
                        directory + "_transactions/" + transactionFile,
                        RestoredManifest.transaction(latest.version(), transaction, old.version()))
                    .compose(written -> store.createIfAbsent(stagingKey, manifest))
                    .map(
                        written ->
                            new NewVersion(
                                actor,
                                id,
                                version,
                                branch,
                                root.inFormOf(stagingKey, old.manifestPath()),
                                (long) manifest.length(),
                                null,
                                null,
                                scheme,
                                UUID.randomUUID(),
                                transaction,
                                null)));
  }

  /** The manifest file of {@code version}; 404 code 11 when it is gone from storage. */
  private Future<Buffer> read(String key, TableVersion version) {
    return store
        .read(key)
        .recover(
            failure ->
                Future.failedFuture(
                    failure instanceof ObjectStore.NoSuchObjectException
                        ? new ApiException(
                            ErrorCode.TABLE_VERSION_NOT_FOUND,
                            "the manifest of version "
                                + version.version()
                                + " is gone from storage")
                        : failure));
  }

  /** Removes what {@link #stage} wrote for a restore that was not committed. */
  Future<Void> discard(NewVersion request) {
    String stagingKey = root.manifestKey(request.manifestPath());
    String directory = stagingKey.substring(0, stagingKey.lastIndexOf("_versions/"));
    return store
        .deleteIfExists(stagingKey)
        .compose(
            gone ->
                store.deleteIfExists(
                    directory
                        + "_transactions/"
                        + (request.version() - 1)
                        + "-"
                        + request.lanceTransaction()
                        + ".txn"));
  }
}
