package dev.lvg.version;

import dev.lvg.catalog.CatalogRepository;
import dev.lvg.catalog.TableRecord;
import dev.lvg.http.ApiException;
import dev.lvg.http.ErrorCode;
import dev.lvg.http.Futures;
import dev.lvg.tenancy.Tenant;
import dev.lvg.storage.Manifests;
import dev.lvg.storage.ObjectStore;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.UUID;

/**
 * The version store. A commit is one statement: insert the version row if the slot is free, the
 * branch exists and the version is the branch's latest + 1 (for a new branch, its parent version
 * + 1; for an empty main branch, any number). When the insert claims nothing, a second read says
 * why: a retry of the stored request, a conflict, or a missing table or branch.
 */
public final class VersionRepository {
  static final String INSERT_VERSION = """
      INSERT INTO table_versions (tenant_id, table_id, branch, version, manifest_path, requested_path,
          manifest_size, e_tag, naming_scheme, metadata, transaction_id, timestamp_millis, pending_until,
          starts_chain)
      SELECT t.tenant_id, t.id, $4::text, $5::bigint, $6::text, $6::text, $7::bigint, $8::text, $9::text,
             $10::jsonb, $11::uuid, (extract(epoch FROM clock_timestamp()) * 1000)::bigint,
             clock_timestamp() + make_interval(secs => $12::int),
             CASE WHEN NOT EXISTS (SELECT 1 FROM table_versions c WHERE c.tenant_id = t.tenant_id
                                     AND c.table_id = t.id AND c.branch = $4::text) THEN true END
      FROM lance_tables t
      LEFT JOIN table_branches b ON b.tenant_id = t.tenant_id AND b.table_id = t.id AND b.name = $4::text
      WHERE t.tenant_id = $1 AND t.namespace = $2::text[] AND t.name = $3 AND t.deregistered_at IS NULL
        AND ($4::text = 'main' OR b.name IS NOT NULL)
        AND $5::bigint = 1 + COALESCE((SELECT max(v.version) FROM table_versions v
                                       WHERE v.tenant_id = t.tenant_id AND v.table_id = t.id
                                         AND v.branch = $4::text),
                                      b.parent_version, $5::bigint - 1)
      ON CONFLICT DO NOTHING
      RETURNING\s""" + TableVersion.COLUMNS;

  /** Everything that decides a create: the table, the branch, the row in the slot, the latest version. */
  static final String INSPECT_SLOT = """
      SELECT t.id AS table_id, t.location, b.name IS NOT NULL AS branch_exists, b.parent_version,
             v.version, v.manifest_path, v.requested_path, v.manifest_size, v.e_tag,
             v.metadata, v.transaction_id, v.timestamp_millis, v.naming_scheme,
             v.pending_until IS NOT NULL AS pending, v.pending_until < clock_timestamp() AS expired,
             (SELECT max(m.version) FROM table_versions m
              WHERE m.tenant_id = t.tenant_id AND m.table_id = t.id AND m.branch = $4) AS latest
      FROM lance_tables t
      LEFT JOIN table_branches b ON b.tenant_id = t.tenant_id AND b.table_id = t.id AND b.name = $4
      LEFT JOIN table_versions v ON v.tenant_id = t.tenant_id AND v.table_id = t.id
                                 AND v.branch = $4 AND v.version = $5
      WHERE t.tenant_id = $1 AND t.namespace = $2 AND t.name = $3 AND t.deregistered_at IS NULL""";

  private static final String VERSIONS_OF_LIVE_TABLE = """
      SELECT v.%s FROM lance_tables t JOIN table_versions v ON v.tenant_id = t.tenant_id AND v.table_id = t.id
      WHERE t.tenant_id = $1 AND t.namespace = $2 AND t.name = $3 AND t.deregistered_at IS NULL
        AND v.branch = $4 AND v.pending_until IS NULL AND\s""".formatted(TableVersion.COLUMNS.replace(", ", ", v."));

  static final String LIST_ASCENDING = VERSIONS_OF_LIVE_TABLE + "v.version > $5 ORDER BY v.version LIMIT $6";
  static final String LIST_DESCENDING = VERSIONS_OF_LIVE_TABLE + "v.version < $5 ORDER BY v.version DESC LIMIT $6";
  static final String DESCRIBE = VERSIONS_OF_LIVE_TABLE + "v.version = $5";

  /** Deletes the versions in any of the ranges [start, end); end -1 reaches through the latest. */
  static final String DELETE_RANGES = """
      DELETE FROM table_versions v USING unnest($4::bigint[], $5::bigint[]) AS r(start_version, end_version)
      WHERE v.tenant_id = $1 AND v.table_id = $2 AND v.branch = $3
        AND v.pending_until IS NULL
        AND v.version >= r.start_version AND (r.end_version = -1 OR v.version < r.end_version)""";

  /** Turns the pending claim of the same request into a committed version with its final manifest. */
  static final String COMMIT_CLAIM = """
      UPDATE table_versions SET pending_until = NULL, manifest_path = $6, manifest_size = $7, e_tag = $8,
             timestamp_millis = (extract(epoch FROM clock_timestamp()) * 1000)::bigint
      WHERE tenant_id = $1 AND table_id = $2 AND branch = $3 AND version = $4 AND requested_path = $5
        AND pending_until IS NOT NULL
      RETURNING\s""" + TableVersion.COLUMNS;

  /** Gives up a pending claim; with {@code $6} true only once its lease has run out. */
  static final String RELEASE_CLAIM = """
      DELETE FROM table_versions
      WHERE tenant_id = $1 AND table_id = $2 AND branch = $3 AND version = $4 AND transaction_id = $5
        AND pending_until IS NOT NULL AND (NOT $6 OR pending_until < clock_timestamp())
      RETURNING requested_path""";

  /** Claims whose lease ran out, with what is needed to undo them. */
  static final String EXPIRED_CLAIMS = """
      SELECT v.tenant_id, v.table_id, v.branch, v.version, v.transaction_id, v.requested_path, v.naming_scheme,
             t.location
      FROM table_versions v JOIN lance_tables t ON t.id = v.table_id
      WHERE v.pending_until < clock_timestamp()""";

  private final CatalogRepository catalog;
  private final BranchRepository branches;
  private final Manifests manifests;
  private final Vertx vertx;

  public VersionRepository(CatalogRepository catalog, BranchRepository branches, Manifests manifests, Vertx vertx) {
    this.catalog = catalog;
    this.branches = branches;
    this.manifests = manifests;
    this.vertx = vertx;
  }

  /** Outcome of a commit: the stored row, and whether this request created it or replayed it. */
  public record Commit(TableVersion version, boolean created) {}

  /** What occupies a version slot, and what the branch's chain looks like. */
  private record Slot(long tableId, String location, boolean branchExists, TableVersion row, boolean pending,
      boolean expired, String namingScheme, Long latest) {}

  /**
   * Commits a version. When the table's location is on a storage backend, its staging manifest is
   * finalized first (see {@link Finalization}); otherwise the path is recorded as given.
   */
  public Future<Commit> create(SqlClient db, Tenant tenant, List<String> tableId, NewVersion request) {
    CatalogRepository.requireTableId(tableId);
    if (!manifests.finalizes()) {
      return record(db, tenant, tableId, request);
    }
    return inspect(db, tenant, tableId, request).compose(slot -> {
      Manifests.Target target = manifests.target(slot.location(), request.manifestPath(), request.branch(),
          request.version(), request.namingScheme());
      return target == null
          ? record(db, tenant, tableId, request)
          : new Finalization(db, tenant, tableId, request, target).attempt(slot, true);
    });
  }

  /** Records the path as given: one insert, and a second read only when it claims nothing. */
  public Future<Commit> record(SqlClient db, Tenant tenant, List<String> tableId, NewVersion request) {
    CatalogRepository.requireTableId(tableId);
    return db.preparedQuery(INSERT_VERSION).execute(insertParams(tenant, tableId, request, UUID.randomUUID(), null))
        .compose(rows -> rows.size() > 0
            ? Future.succeededFuture(new Commit(TableVersion.from(rows.iterator().next()), true))
            : inspect(db, tenant, tableId, request).compose(slot -> decide(request, slot, null)))
        .recover(error -> outcomeUnknown(error)
            ? inspect(db, tenant, tableId, request).compose(slot -> decide(request, slot, error))
            : Future.failedFuture(error));
  }

  private static Tuple insertParams(
      Tenant tenant, List<String> tableId, NewVersion request, UUID transactionId, Integer leaseSeconds) {
    return tableKey(tenant, tableId)
        .addString(request.branch())
        .addLong(request.version())
        .addString(request.manifestPath())
        .addLong(request.manifestSize())
        .addString(request.eTag())
        .addString(request.namingScheme())
        .addValue(request.metadata() == null ? null : new JsonObject(new LinkedHashMap<>(request.metadata())))
        .addUUID(transactionId)
        .addInteger(leaseSeconds);
  }

  /**
   * A statement that failed without an answer from PostgreSQL (a broken connection) may still have
   * committed, so the row is read back before anything is said to the client.
   */
  private static boolean outcomeUnknown(Throwable error) {
    return !(error instanceof ApiException) && !(error instanceof PgException)
        && !(error instanceof io.vertx.core.http.ConnectionPoolTooBusyException);
  }

  private Future<Slot> inspect(SqlClient db, Tenant tenant, List<String> tableId, NewVersion request) {
    Tuple params = tableKey(tenant, tableId).addString(request.branch()).addLong(request.version());
    return db.preparedQuery(INSPECT_SLOT).execute(params).compose(rows -> {
      if (rows.size() == 0) {
        return catalog.tableNotFound(db, tenant, tableId);
      }
      Row row = rows.iterator().next();
      boolean occupied = row.getValue("version") != null;
      Long latest = row.getLong("latest") != null ? row.getLong("latest") : row.getLong("parent_version");
      return Future.succeededFuture(new Slot(row.getLong("table_id"), row.getString("location"),
          row.getBoolean("branch_exists"),
          occupied ? TableVersion.from(row) : null, occupied && row.getBoolean("pending"),
          Boolean.TRUE.equals(row.getBoolean("expired")), row.getString("naming_scheme"), latest));
    });
  }

  /**
   * The answer for a request whose insert claimed nothing: a retry of the stored request, a
   * conflict, or a missing branch. {@code insertError} is the failure to report when none applies.
   */
  private static Future<Commit> decide(NewVersion request, Slot slot, Throwable insertError) {
    if (!NewVersion.MAIN_BRANCH.equals(request.branch()) && !slot.branchExists()) {
      return Future.failedFuture(BranchRepository.branchNotFound(request.branch()));
    }
    if (slot.row() != null && !slot.pending()) {
      return slot.row().sameRequest(request.manifestPath())
          ? Future.succeededFuture(new Commit(slot.row(), false))
          : Future.failedFuture(conflict("version " + request.version() + " already exists with another manifest"));
    }
    if (slot.row() != null) {
      return Future.failedFuture(conflict("version " + request.version() + " is being committed by another request"));
    }
    if (slot.latest() != null && request.version() != slot.latest() + 1) {
      return Future.failedFuture(conflict(
          "version " + request.version() + " is not the next version; the latest is " + slot.latest()));
    }
    return Future.failedFuture(insertError != null ? insertError
        : conflict("version " + request.version() + " was modified concurrently; retry"));
  }

  private static ApiException conflict(String message) {
    return new ApiException(ErrorCode.CONCURRENT_MODIFICATION, message);
  }

  /**
   * One {@code version/create} that finalizes a staging manifest. The order of effects keeps one
   * invariant: a committed row always has its final manifest, and a final manifest this gateway
   * created never outlives a claim that failed.
   *
   * <ol>
   *   <li>claim the slot with a pending row (invisible to reads, leased for {@link #LEASE_SECONDS});
   *   <li>copy the staging manifest to its final name, create-if-absent, never overwriting;
   *   <li>commit the claim: the row becomes visible with the final path, size and e_tag;
   *   <li>delete the staging manifest.
   * </ol>
   *
   * A failed step releases the claim and removes a final manifest this attempt created. An identical
   * request that finds the claim pending completes the same steps (they are idempotent) instead of
   * failing; a claim whose lease ran out belongs to an attempt that died and is rolled back.
   */
  private final class Finalization {
    private final SqlClient db;
    private final Tenant tenant;
    private final List<String> tableId;
    private final NewVersion request;
    private final Manifests.Target target;
    /** Whether this attempt created the final manifest (and so may remove it when it fails). */
    private boolean createdFinal;

    Finalization(SqlClient db, Tenant tenant, List<String> tableId, NewVersion request, Manifests.Target target) {
      this.db = db;
      this.tenant = tenant;
      this.tableId = tableId;
      this.request = request;
      this.target = target;
    }

    private Future<Commit> attemptAgain() {
      return inspect(db, tenant, tableId, request).compose(slot -> attempt(slot, false));
    }

    Future<Commit> attempt(Slot slot, boolean mayRollBackExpired) {
      if (slot.row() != null && slot.pending()) {
        if (slot.row().sameRequest(request.manifestPath())) {
          return finish(slot.tableId(), null, HELP_POLLS);
        }
        if (slot.expired() && mayRollBackExpired) {
          return rollBackExpired(db, manifests, new ExpiredClaim(tenant.id(), slot.tableId(), request.branch(),
              request.version(), slot.row().transactionId(), slot.row().requestedPath(), slot.namingScheme(),
              slot.location()))
              .compose(done -> attemptAgain());
        }
      }
      if (slot.row() != null || (slot.latest() != null && request.version() != slot.latest() + 1)
          || (!NewVersion.MAIN_BRANCH.equals(request.branch()) && !slot.branchExists())) {
        return decide(request, slot, null);
      }
      UUID claim = UUID.randomUUID();
      return db.preparedQuery(INSERT_VERSION)
          .execute(insertParams(tenant, tableId, request, claim, LEASE_SECONDS))
          .compose(rows -> rows.size() > 0
              ? finish(slot.tableId(), claim, 0)
              : mayRollBackExpired ? attemptAgain() : decide(request, slot, null));
    }

    /**
     * Copies, commits and cleans up. {@code claim} is this attempt's own claim (released on failure),
     * or null when helping an identical request's claim, which may then be waited for up to
     * {@code polls} times while its staging manifest is already gone.
     */
    private Future<Commit> finish(long tableDbId, UUID claim, int polls) {
      return target.store().copyIfAbsent(target.stagingKey(), target.finalKey()).compose(copy -> switch (copy.outcome()) {
        case SOURCE_MISSING -> polls > 0
            ? later().compose(waited -> committedOrRetry(tableDbId, polls - 1))
            : release(tableDbId, claim).compose(released -> inspect(db, tenant, tableId, request))
                .compose(this::afterStagingVanished);
        case OTHER_BYTES -> release(tableDbId, claim).compose(released -> Future.failedFuture(conflict(
            "the final manifest of version " + request.version() + " already exists with other content")));
        case CREATED, SAME -> {
          createdFinal = copy.outcome() == ObjectStore.CopyOutcome.CREATED;
          yield commit(tableDbId, claim, copy.info());
        }
      }).recover(error -> error instanceof ApiException ? Future.failedFuture(error) : undo(tableDbId, claim, error));
    }

    /**
     * After a failure without an answer (storage or database unreachable): if the commit landed
     * after all, the request succeeded; otherwise the claim is released and a final manifest this
     * attempt created is removed. When even that cannot be checked, the claim's lease runs out and
     * the rollback of expired claims cleans up.
     */
    private Future<Commit> undo(long tableDbId, UUID claim, Throwable error) {
      return inspect(db, tenant, tableId, request).compose(slot -> {
        if (committedByThisRequest(slot)) {
          return removeStaging().map(new Commit(slot.row(), false));
        }
        return release(tableDbId, claim)
            .compose(released -> removeOwnFinal(claim))
            .compose(cleaned -> Future.<Commit>failedFuture(error));
      }, unreachable -> Future.failedFuture(error));
    }

    /** The slot holds a committed version from a request with this manifest path: a retry. */
    private boolean committedByThisRequest(Slot slot) {
      return slot.row() != null && !slot.pending() && slot.row().sameRequest(request.manifestPath());
    }

    /** Deletes the final manifest if this attempt created it under its own claim. */
    private Future<Void> removeOwnFinal(UUID claim) {
      return createdFinal && claim != null
          ? target.store().deleteIfExists(target.finalKey()).recover(ignored -> Future.succeededFuture())
          : Future.succeededFuture();
    }

    /**
     * The staging manifest is gone: an identical request committed (200), is still committing (503,
     * retry), or it never existed (400).
     */
    private Future<Commit> afterStagingVanished(Slot slot) {
      if (committedByThisRequest(slot)) {
        return Future.succeededFuture(new Commit(slot.row(), false));
      }
      if (slot.row() != null && slot.row().sameRequest(request.manifestPath())) {
        return Future.failedFuture(ApiException.slowDown(
            "an identical request is still committing version " + request.version() + "; retry"));
      }
      return Future.failedFuture(ApiException.invalidInput(
          "the staging manifest " + request.manifestPath() + " does not exist"));
    }

    private Future<Commit> committedOrRetry(long tableDbId, int polls) {
      return inspect(db, tenant, tableId, request).compose(slot -> {
        if (committedByThisRequest(slot)) {
          return Future.succeededFuture(new Commit(slot.row(), false));
        }
        if (slot.row() != null && slot.pending() && slot.row().sameRequest(request.manifestPath())) {
          return finish(tableDbId, null, polls);
        }
        return decide(request, slot, null);
      });
    }

    private Future<Void> later() {
      return Future.future(promise -> vertx.setTimer(HELP_POLL_MS, id -> promise.complete()));
    }

    private Future<Commit> commit(long tableDbId, UUID claim, ObjectStore.ObjectInfo info) {
      return db.preparedQuery(COMMIT_CLAIM)
          .execute(Tuple.of(tenant.id(), tableDbId, request.branch(), request.version(), request.manifestPath(),
              target.clientFinalPath()).addLong(info.size()).addString(info.eTag()))
          .compose(rows -> {
            if (rows.size() > 0) {
              Commit committed = new Commit(TableVersion.from(rows.iterator().next()), claim != null);
              return removeStaging().map(committed);
            }
            return inspect(db, tenant, tableId, request).compose(slot -> {
              if (committedByThisRequest(slot)) {
                return removeStaging().map(new Commit(slot.row(), false));
              }
              return removeOwnFinal(claim).compose(done -> Future.failedFuture(ApiException.slowDown(
                  "the claim on version " + request.version() + " expired before it was committed; retry")));
            });
          });
    }

    /** The staging manifest goes last; a failure to delete it does not undo a commit. */
    private Future<Void> removeStaging() {
      if (target.alreadyFinal()) {
        return Future.succeededFuture();
      }
      return target.store().deleteIfExists(target.stagingKey())
          .recover(error -> Future.succeededFuture());
    }

    /** Gives up this attempt's own claim, if it holds one. */
    private Future<Void> release(long tableDbId, UUID claim) {
      if (claim == null) {
        return Future.succeededFuture();
      }
      return db.preparedQuery(RELEASE_CLAIM)
          .execute(Tuple.of(tenant.id(), tableDbId, request.branch(), request.version(), claim, false))
          .<Void>mapEmpty()
          .recover(error -> Future.succeededFuture());
    }
  }

  /** A pending claim whose lease ran out, with what is needed to undo it. */
  record ExpiredClaim(long tenantId, long tableId, String branch, long version, UUID claim, String requestedPath,
      String namingScheme, String location) {}

  /**
   * Undoes a claim whose attempt died: releases its row (only if still expired, so a live attempt is
   * never robbed), then removes the final manifest if it is that claim's own copy of its staging
   * manifest. A final manifest with other content is never touched.
   */
  static Future<Void> rollBackExpired(SqlClient db, Manifests manifests, ExpiredClaim expired) {
    return db.preparedQuery(RELEASE_CLAIM)
        .execute(Tuple.of(expired.tenantId(), expired.tableId(), expired.branch(), expired.version(),
            expired.claim(), true))
        .compose(rows -> {
          if (rows.size() == 0) {
            return Future.<Void>succeededFuture();
          }
          Manifests.Target target;
          try {
            target = manifests.target(expired.location(), expired.requestedPath(), expired.branch(),
                expired.version(), expired.namingScheme());
          } catch (ApiException notFinalizable) {
            return Future.<Void>succeededFuture();
          }
          if (target == null || target.alreadyFinal()) {
            return Future.<Void>succeededFuture();
          }
          ObjectStore store = target.store();
          return store.read(target.stagingKey())
              .compose(staging -> store.read(target.finalKey()).compose(existing -> existing.equals(staging)
                  ? store.deleteIfExists(target.finalKey()) : Future.<Void>succeededFuture()))
              .recover(nothingToUndo -> Future.succeededFuture());
        });
  }

  /** Rolls back every expired claim; run at start-up so a crash mid-commit leaves nothing behind. */
  public static Future<Integer> rollBackExpiredClaims(SqlClient db, Manifests manifests) {
    return db.query(EXPIRED_CLAIMS).execute().compose(rows -> {
      List<ExpiredClaim> claims = new ArrayList<>();
      for (Row row : rows) {
        claims.add(new ExpiredClaim(row.getLong("tenant_id"), row.getLong("table_id"), row.getString("branch"),
            row.getLong("version"), row.getUUID("transaction_id"), row.getString("requested_path"),
            row.getString("naming_scheme"), row.getString("location")));
      }
      return Futures.sequence(claims, claim -> rollBackExpired(db, manifests, claim))
          .map(List::size);
    });
  }

  private static final int LEASE_SECONDS = 60;
  private static final long HELP_POLL_MS = 25;
  private static final int HELP_POLLS = 200;

  /** Up to {@code limit} versions of a branch after the cursor; the cursor is exclusive. */
  public Future<List<TableVersion>> list(SqlClient db,
      Tenant tenant, List<String> tableId, String branch, boolean descending, Long after, int limit) {
    CatalogRepository.requireTableId(tableId);
    long cursor = after != null ? after : descending ? Long.MAX_VALUE : -1L;
    Tuple params = tableKey(tenant, tableId).addString(branch).addLong(cursor).addInteger(limit);
    return db.preparedQuery(descending ? LIST_DESCENDING : LIST_ASCENDING).execute(params)
        .compose(rows -> rows.size() > 0
            ? Future.succeededFuture(versions(rows))
            : branches.requireBranch(db, tenant, tableId, branch).map(table -> List.<TableVersion>of()));
  }

  /** One version of a branch, or its latest when {@code version} is null. */
  public Future<TableVersion> describe(
      SqlClient db, Tenant tenant, List<String> tableId, String branch, Long version) {
    if (version == null) {
      return list(db, tenant, tableId, branch, true, null, 1).compose(latest -> latest.isEmpty()
          ? Future.failedFuture(new ApiException(ErrorCode.TABLE_VERSION_NOT_FOUND, "the table has no versions"))
          : Future.succeededFuture(latest.get(0)));
    }
    CatalogRepository.requireTableId(tableId);
    Tuple params = tableKey(tenant, tableId).addString(branch).addLong(version);
    return db.preparedQuery(DESCRIBE).execute(params).compose(rows -> rows.size() > 0
        ? Future.succeededFuture(TableVersion.from(rows.iterator().next()))
        : branches.requireBranch(db, tenant, tableId, branch).compose(table -> Future.failedFuture(
            new ApiException(ErrorCode.TABLE_VERSION_NOT_FOUND, "version " + version + " not found"))));
  }

  /** Deletes version records in the ranges, atomically (one statement); returns how many went. */
  public Future<Integer> delete(
      SqlClient db, Tenant tenant, List<String> tableId, String branch, List<VersionRange> ranges) {
    Long[] starts = ranges.stream().map(VersionRange::start).toArray(Long[]::new);
    Long[] ends = ranges.stream().map(VersionRange::end).toArray(Long[]::new);
    return branches.requireBranch(db, tenant, tableId, branch).compose((TableRecord table) ->
        db.preparedQuery(DELETE_RANGES)
            .execute(Tuple.of(tenant.id(), table.id(), branch).addArrayOfLong(starts).addArrayOfLong(ends))
            .map(RowSet::rowCount));
  }

  /** A range of versions, start inclusive, end exclusive; end -1 reaches through the latest. */
  public record VersionRange(long start, long end) {
    public VersionRange {
      if (start < 0) {
        throw ApiException.invalidInput("'start_version' must be >= 0, got " + start);
      }
      if (end != -1 && end < start) {
        throw ApiException.invalidInput("'end_version' must be -1 or >= 'start_version', got " + end);
      }
    }
  }

  private static List<TableVersion> versions(RowSet<Row> rows) {
    List<TableVersion> result = new ArrayList<>(rows.size());
    for (Row row : rows) {
      result.add(TableVersion.from(row));
    }
    return result;
  }

  private static Tuple tableKey(Tenant tenant, List<String> tableId) {
    return Tuple.tuple()
        .addLong(tenant.id())
        .addArrayOfString(CatalogRepository.namespaceOf(tableId).toArray(String[]::new))
        .addString(CatalogRepository.nameOf(tableId));
  }
}
