package dev.lvg.tag;

import dev.lvg.http.ApiException;
import dev.lvg.http.ErrorCode;
import dev.lvg.storage.ObjectStore;
import dev.lvg.storage.StorageRoot;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * Tags where Lance keeps them: one JSON file per tag, {@code _refs/tags/<tag>.json} under the
 * table's location, holding {@code branch} (null for main), {@code version}, {@code createdAt},
 * {@code updatedAt}, {@code manifestSize} and {@code metadata}. Tags made by Lance writers and by
 * the gateway are the same files, so each side sees the other's.
 */
final class TagFiles {
  private static final String DIRECTORY = "/_refs/tags";
  private static final String SUFFIX = ".json";

  private final StorageRoot root;
  private final ObjectStore store;

  TagFiles(StorageRoot root, ObjectStore store) {
    this.root = root;
    this.store = store;
  }

  private String directory(String location) {
    String table = root.keyOf(location);
    if (table == null) {
      throw new ApiException(
          ErrorCode.UNSUPPORTED,
          "the table's tags live in its dataset, outside this gateway's storage root");
    }
    return table + DIRECTORY;
  }

  private String key(String location, String tag) {
    return directory(location) + "/" + tag + SUFFIX;
  }

  /** The tags of the table, sorted by name. */
  Future<List<String>> names(String location) {
    return store
        .list(directory(location))
        .map(
            files ->
                files.stream()
                    .filter(name -> name.endsWith(SUFFIX))
                    .map(name -> name.substring(0, name.length() - SUFFIX.length()))
                    .sorted()
                    .toList());
  }

  /** The tag's contents; 404 code 8 when it does not exist. */
  Future<JsonObject> read(String location, String tag) {
    return store
        .read(key(location, tag))
        .recover(
            error ->
                Future.failedFuture(
                    error instanceof ObjectStore.NoSuchObjectException ? notFound(tag) : error))
        .compose(
            bytes -> {
              try {
                return Future.succeededFuture(new JsonObject(bytes));
              } catch (DecodeException | ClassCastException unreadable) {
                return Future.failedFuture(
                    new IllegalStateException("tag " + tag + " is not a JSON object"));
              }
            });
  }

  /** Creates the tag; 409 code 9 when it exists. */
  Future<Void> create(String location, String tag, JsonObject contents) {
    return store
        .createIfAbsent(key(location, tag), Buffer.buffer(contents.encodePrettily()))
        .compose(
            created ->
                created
                    ? Future.succeededFuture()
                    : Future.failedFuture(
                        new ApiException(
                            ErrorCode.TABLE_TAG_ALREADY_EXISTS, "tag " + tag + " already exists")));
  }

  /** Replaces an existing tag's contents. */
  Future<Void> replace(String location, String tag, JsonObject contents) {
    return store.replace(key(location, tag), Buffer.buffer(contents.encodePrettily()));
  }

  /** Deletes the tag; 404 code 8 when it does not exist. */
  Future<Void> delete(String location, String tag) {
    return read(location, tag).compose(found -> store.deleteIfExists(key(location, tag)));
  }

  static ApiException notFound(String tag) {
    return new ApiException(ErrorCode.TABLE_TAG_NOT_FOUND, "tag " + tag + " not found");
  }
}
