package dev.lvg.version;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.audit.Actor;
import dev.lvg.catalog.Branches;
import dev.lvg.http.Body;
import dev.lvg.http.Json;
import dev.lvg.http.TableId;
import dev.lvg.operation.GatewayOperation;
import dev.lvg.platform.Exported;
import dev.lvg.transaction.TransactionLog;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The version operations that routes and batches share. */
@Exported
public final class VersionService {
  static final int MAX_RANGES = 1000;

  private final VersionRepository repository;
  private final CommitPipeline pipeline;
  private final VersionPruning pruning;

  public VersionService(VersionRepository repository, CommitPipeline pipeline) {
    this.repository = repository;
    this.pipeline = pipeline;
    this.pruning = new VersionPruning(pipeline.manifests());
  }

  /**
   * Of {@code rows} (versions of one table and branch) that {@code reader} read, those whose
   * manifests still exist; see {@link VersionPruning}.
   */
  public Future<List<TableVersion>> present(
      Pool pool, Actor reader, TableId tableId, String branch, List<TableVersion> rows) {
    return pruning.present(pool, reader, tableId, branch, rows);
  }

  /** Pages of a branch's versions, and one version. */
  public VersionReads reads() {
    return repository.reads();
  }

  /** One {@code CreateTableVersion} on its own: group-committed, finalized when configured. */
  public Future<CommitOutcome> create(NewVersion request) {
    return pipeline.submit(request);
  }

  /**
   * One {@code CreateTableVersion} inside a batch transaction: the path is recorded as given, and
   * later entries of the batch see this one.
   */
  public Future<CommitOutcome> createInTransaction(SqlClient tx, NewVersion request) {
    return repository
        .insertAndRecord(tx, List.of(request))
        .compose(
            inserted ->
                inserted.isEmpty()
                    ? repository
                        .inspectSlot(tx, request)
                        .compose(slot -> CommitDecision.answer(request, slot, null))
                    : Future.succeededFuture(new CommitOutcome(inserted.get(0).row(), true)));
  }

  /**
   * One {@code BatchDeleteTableVersions}, alone or in a batch, recorded as a transaction on the
   * same client; answers the spec's response: how many went, and the transaction id.
   */
  public Future<ObjectNode> delete(SqlClient db, Actor actor, TableId tableId, Body body) {
    List<VersionRange> ranges = new ArrayList<>();
    for (Body range : body.requiredObjectList("ranges", 0, MAX_RANGES)) {
      ranges.add(
          new VersionRange(
              range.requiredNonNegativeLong("start_version"), range.requiredLong("end_version")));
    }
    String branch = Branches.fromBody(body);
    return repository
        .deleteRanges(db, actor.tenant(), tableId, branch, ranges)
        .compose(
            count ->
                TransactionLog.record(
                        db,
                        actor,
                        GatewayOperation.BATCH_DELETE_TABLE_VERSIONS.id(),
                        Map.of(
                            "table",
                            tableId.toString(),
                            "branch",
                            branch,
                            "deleted_count",
                            Integer.toString(count)))
                    .map(
                        transaction ->
                            Json.object()
                                .put("deleted_count", count)
                                .put("transaction_id", transaction)));
  }
}
