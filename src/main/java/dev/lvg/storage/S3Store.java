package dev.lvg.storage;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Objects in one bucket of an S3-compatible store, through the AWS SDK v2 async client; keys are
 * object keys.
 *
 * <p>Create-if-absent looks for the key first and then PUTs with {@code If-None-Match: *}. On a
 * store that honours the header (AWS S3, MinIO, R2, ...) the PUT alone is race-free; the look-up
 * keeps a store that ignores it (s3proxy does) from overwriting an existing object. Between gateway
 * requests the version's slot in PostgreSQL already lets only one request create a given final
 * manifest. A final manifest carries the transaction id of its version row as the user metadata
 * {@code lvg-attempt} (its mark) until that row commits.
 */
public record S3Store(Vertx vertx, S3AsyncClient client, String bucket) implements ObjectStore {
  private static final int PRECONDITION_FAILED = 412;
  private static final int CONDITIONAL_REQUEST_CONFLICT = 409;
  private static final int NOT_FOUND = 404;
  private static final int RANGE_NOT_SATISFIABLE = 416;
  private static final String MARK = "lvg-attempt";

  /** Completes on the caller's Vert.x context, never on an SDK thread. */
  private <T> Future<T> onContext(CompletableFuture<T> call) {
    Context context = vertx.getOrCreateContext();
    return Future.fromCompletionStage(call, context)
        .recover(error -> Future.failedFuture(unwrap(error)));
  }

  /** A failure that is not an answer the caller handles becomes a storage failure. */
  private static <T> Future<T> failed(String operation, String key, Throwable error) {
    return Future.failedFuture(
        error instanceof NoSuchObjectException
            ? error
            : new StorageException(operation, key, error));
  }

  private static Throwable unwrap(Throwable error) {
    return error instanceof CompletionException && error.getCause() != null
        ? error.getCause()
        : error;
  }

  private static boolean notFound(Throwable error) {
    return error instanceof NoSuchKeyException
        || error instanceof S3Exception s3 && s3.statusCode() == NOT_FOUND;
  }

  @Override
  public Future<Buffer> read(String key) {
    return onContext(
            client.getObject(
                get -> get.bucket(bucket).key(key), AsyncResponseTransformer.toBytes()))
        .map(bytes -> Buffer.buffer(bytes.asByteArray()))
        .recover(
            error -> failed("read", key, notFound(error) ? new NoSuchObjectException(key) : error));
  }

  @Override
  public Future<Range> readTail(String key, int length) {
    return get(key, "bytes=-" + length);
  }

  @Override
  public Future<Range> readRange(String key, long offset, int length) {
    return get(key, "bytes=" + offset + "-" + (offset + length - 1));
  }

  /**
   * A ranged GET. A store answers a suffix longer than the object with all of it, with or without a
   * {@code Content-Range}; a range past the end is 416, read as no bytes.
   */
  private Future<Range> get(String key, String range) {
    return onContext(
            client.getObject(
                get -> get.bucket(bucket).key(key).range(range),
                AsyncResponseTransformer.toBytes()))
        .map(
            bytes -> {
              String contentRange = bytes.response().contentRange();
              long size =
                  contentRange == null || contentRange.lastIndexOf('/') < 0
                      ? bytes.asByteArrayUnsafe().length
                      : Long.parseLong(contentRange.substring(contentRange.lastIndexOf('/') + 1));
              return new Range(Buffer.buffer(bytes.asByteArray()), size);
            })
        .recover(
            error ->
                error instanceof S3Exception s3 && s3.statusCode() == RANGE_NOT_SATISFIABLE
                    ? Future.succeededFuture(new Range(Buffer.buffer(), 0))
                    : failed(
                        "read", key, notFound(error) ? new NoSuchObjectException(key) : error));
  }

  private Future<HeadObjectResponse> head(String key) {
    return onContext(client.headObject(head -> head.bucket(bucket).key(key)))
        .recover(
            error -> failed("stat", key, notFound(error) ? new NoSuchObjectException(key) : error));
  }

  @Override
  public Future<ObjectInfo> stat(String key) {
    return head(key).map(head -> new ObjectInfo(head.contentLength(), head.eTag()));
  }

  @Override
  public Future<Void> deleteIfExists(String key) {
    return onContext(client.deleteObject(delete -> delete.bucket(bucket).key(key)))
        .<Void>mapEmpty()
        .recover(error -> failed("delete", key, error));
  }

  @Override
  public Future<Boolean> createIfAbsent(String key, Buffer bytes) {
    return head(key)
        .map(false)
        .recover(
            error ->
                error instanceof NoSuchObjectException
                    ? put(key, bytes, Map.of())
                    : Future.failedFuture(error));
  }

  @Override
  public Future<Void> replace(String key, Buffer bytes) {
    return onContext(
            client.putObject(
                put -> put.bucket(bucket).key(key), AsyncRequestBody.fromBytes(bytes.getBytes())))
        .<Void>mapEmpty()
        .recover(error -> failed("write", key, error));
  }

  @Override
  public Future<Set<String>> list(String directoryKey) {
    return listPage(directoryKey + "/", null, new HashSet<>());
  }

  /** Adds the names of one listing page of objects directly under {@code prefix}, then the next. */
  private Future<Set<String>> listPage(String prefix, String continuation, Set<String> names) {
    return onContext(
            client.listObjectsV2(
                list ->
                    list.bucket(bucket)
                        .prefix(prefix)
                        .delimiter("/")
                        .continuationToken(continuation)))
        .recover(error -> failed("list", prefix, error))
        .compose(
            page -> {
              page.contents().forEach(object -> names.add(object.key().substring(prefix.length())));
              return Boolean.TRUE.equals(page.isTruncated())
                  ? listPage(prefix, page.nextContinuationToken(), names)
                  : Future.succeededFuture(names);
            });
  }

  @Override
  public Future<Long> deleteTree(String directoryKey) {
    return deletePage(directoryKey + "/", null, 0);
  }

  /** Deletes one listing page of objects under {@code prefix}, then the next. */
  private Future<Long> deletePage(String prefix, String continuation, long deleted) {
    return onContext(
            client.listObjectsV2(
                list -> list.bucket(bucket).prefix(prefix).continuationToken(continuation)))
        .recover(error -> failed("list", prefix, error))
        .compose(
            page -> {
              List<Future<Void>> deletes = new ArrayList<>(page.contents().size());
              page.contents().forEach(object -> deletes.add(deleteIfExists(object.key())));
              long total = deleted + deletes.size();
              return Future.all(deletes)
                  .compose(
                      done ->
                          Boolean.TRUE.equals(page.isTruncated())
                              ? deletePage(prefix, page.nextContinuationToken(), total)
                              : Future.succeededFuture(total));
            });
  }

  @Override
  public Future<Copy> createFinal(String staging, String finalKey, String transactionId) {
    if (staging.equals(finalKey)) {
      return stat(finalKey)
          .map(info -> new Copy(CopyOutcome.SAME, info))
          .recover(error -> sourceMissing(error));
    }
    return read(staging)
        .compose(
            bytes ->
                putIfAbsent(finalKey, bytes, transactionId)
                    .compose(
                        created ->
                            created
                                ? stat(finalKey).map(info -> new Copy(CopyOutcome.CREATED, info))
                                : read(finalKey)
                                    .compose(
                                        existing ->
                                            existing.equals(bytes)
                                                ? stat(finalKey)
                                                    .map(info -> new Copy(CopyOutcome.SAME, info))
                                                : Future.succeededFuture(
                                                    new Copy(CopyOutcome.OTHER_BYTES, null)))))
        .recover(error -> sourceMissing(error));
  }

  private static Future<Copy> sourceMissing(Throwable error) {
    return error instanceof NoSuchObjectException
        ? Future.succeededFuture(new Copy(CopyOutcome.SOURCE_MISSING, null))
        : Future.failedFuture(error);
  }

  /** True if this call created the object; never overwrites. */
  private Future<Boolean> putIfAbsent(String key, Buffer bytes, String transactionId) {
    return head(key)
        .map(false)
        .recover(
            error ->
                error instanceof NoSuchObjectException
                    ? put(key, bytes, Map.of(MARK, transactionId))
                    : Future.failedFuture(error));
  }

  /** PUTs with {@code If-None-Match: *}; answers false when the object exists. */
  private Future<Boolean> put(String key, Buffer bytes, Map<String, String> metadata) {
    return onContext(
            client.putObject(
                put -> put.bucket(bucket).key(key).ifNoneMatch("*").metadata(metadata),
                AsyncRequestBody.fromBytes(bytes.getBytes())))
        .map(true)
        .recover(
            error ->
                error instanceof S3Exception s3
                        && (s3.statusCode() == PRECONDITION_FAILED
                            || s3.statusCode() == CONDITIONAL_REQUEST_CONFLICT)
                    ? Future.succeededFuture(false)
                    : failed("create", key, error));
  }

  /**
   * An object PUT under a transaction id carries it in its metadata for as long as it exists: the
   * caller holds the slot and finds no committed row, so that row never committed.
   */
  @Override
  public Future<Boolean> removeAbandoned(String finalKey) {
    return head(finalKey)
        .compose(
            head ->
                head.metadata().containsKey(MARK)
                    ? deleteIfExists(finalKey).map(true)
                    : Future.succeededFuture(false))
        .recover(
            error ->
                error instanceof NoSuchObjectException
                    ? Future.succeededFuture(true)
                    : Future.failedFuture(error));
  }

  @Override
  public Future<Void> settle(String staging, String finalKey, String transactionId) {
    return staging.equals(finalKey) ? Future.succeededFuture() : deleteIfExists(staging);
  }
}
