package dev.lvg.version;

import dev.lvg.audit.Actor;
import dev.lvg.audit.AuditTrail;
import dev.lvg.http.TableId;
import dev.lvg.operation.GatewayOperation;
import dev.lvg.storage.Manifests;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows a writer's cleanup. Lance writers delete old manifests without telling the catalog, so
 * the versions a list or describe returns are checked against storage (one directory listing per
 * directory involved; storage is not read in record mode). The read shows only those still there
 * and writes nothing; the versions whose manifests are gone are then removed by a maintenance step
 * of their own, {@link #prune}, in its own transaction, each with an audit event {@code
 * PruneTableVersion} by the credential {@value #CREDENTIAL} under the request id of the read that
 * found them.
 */
final class VersionPruning {
  static final String OPERATION = GatewayOperation.PRUNE_TABLE_VERSION.id();
  static final String CREDENTIAL = "gateway-maintenance";

  private static final Logger LOG = LoggerFactory.getLogger(VersionPruning.class);

  /** Deletes the given versions of a live table, each only while it still has the given path. */
  static final String DELETE_PRUNED =
      """
      DELETE FROM table_versions v
      USING lance_tables t, unnest($5::bigint[], $6::text[]) AS r(version, path)
      WHERE t.tenant_id = $1 AND t.namespace = $2 AND t.name = $3 AND t.deregistered_at IS NULL
        AND v.tenant_id = $1 AND v.table_id = t.id AND v.branch = $4
        AND v.version = r.version AND v.manifest_path = r.path
      RETURNING v.version""";

  private final Manifests manifests;

  VersionPruning(Manifests manifests) {
    this.manifests = manifests;
  }

  /**
   * Of {@code rows} (versions of one table and branch), those whose manifests still exist; the
   * others are handed to {@link #prune}, which the answer does not wait for.
   */
  Future<List<TableVersion>> present(
      Pool pool, Actor reader, TableId tableId, String branch, List<TableVersion> rows) {
    if (rows.isEmpty()) {
      return Future.succeededFuture(rows);
    }
    return manifests
        .missing(rows.stream().map(TableVersion::manifestPath).toList())
        .map(
            missing -> {
              if (missing.isEmpty()) {
                return rows;
              }
              List<TableVersion> gone = new ArrayList<>();
              List<TableVersion> shown = new ArrayList<>();
              for (TableVersion row : rows) {
                (missing.contains(row.manifestPath()) ? gone : shown).add(row);
              }
              prune(pool, reader, tableId, branch, gone)
                  .onFailure(
                      failure ->
                          LOG.warn(
                              "versions of {} whose manifests are gone stay in the catalog until"
                                  + " the next read finds them: {}",
                              tableId,
                              failure.getMessage()));
              return shown;
            });
  }

  /**
   * The maintenance step: removes {@code gone} (versions whose manifests a writer's cleanup
   * removed) from the catalog and records each removal; answers how many it removed.
   */
  static Future<Integer> prune(
      Pool pool, Actor reader, TableId tableId, String branch, List<TableVersion> gone) {
    Actor maintenance = Actor.of(reader.tenant(), CREDENTIAL, reader.requestId());
    String table = tableId.toString();
    return pool.withTransaction(
        tx ->
            tx.preparedQuery(DELETE_PRUNED)
                .execute(
                    Tuple.tuple()
                        .addLong(reader.tenant().id())
                        .addArrayOfString(tableId.namespace().array())
                        .addString(tableId.name())
                        .addString(branch)
                        .addArrayOfLong(
                            gone.stream().map(TableVersion::version).toArray(Long[]::new))
                        .addArrayOfString(
                            gone.stream().map(TableVersion::manifestPath).toArray(String[]::new)))
                .compose(deleted -> record(tx, maintenance, table, deleted)));
  }

  private static Future<Integer> record(
      SqlClient tx, Actor maintenance, String table, Iterable<Row> deleted) {
    Future<Void> recorded = Future.succeededFuture();
    int count = 0;
    for (Row row : deleted) {
      long version = row.getLong("version");
      recorded =
          recorded.compose(
              done -> AuditTrail.record(tx, maintenance, OPERATION, table, version, null));
      count++;
    }
    int removed = count;
    return recorded.map(done -> removed);
  }
}
