package dev.lvg.version;

import io.vertx.sqlclient.Tuple;
import java.util.List;

/**
 * The statements that insert version rows and settle them, each written out whole in its PostgreSQL
 * form and in its Citus form.
 *
 * <p>Each pair stays two texts, though they differ only in how the tenant is bound. On PostgreSQL
 * one statement commits a group of requests of many tenants, so the tenant comes with each request
 * ({@code $1} an array). Citus routes a statement to the one shard that holds its rows only when
 * every table's distribution column is compared with one value; a tenant per request makes the
 * insert a multi-shard INSERT ... SELECT run through the coordinator, slower and no longer one
 * shard's transaction. Binding one tenant on PostgreSQL instead would split every group by tenant,
 * a statement per tenant where there is one now. Neither database can take the other's text without
 * that cost, and a text assembled from shared parts is what {@code SqlLiteralsTest} refuses.
 */
record VersionStatements(
    boolean oneTenant,
    String insertAndRecord,
    String insertReturningLocation,
    String setFinalManifests,
    String deleteInserted) {

  /*
   * Every insert takes the requests as parallel arrays, in request order (so concurrent statements
   * lock slots in one order and cannot deadlock), and returns the rows it inserted. Lookups are
   * lateral subqueries the planner cannot flatten (LIMIT 1 on a unique key), so each request costs
   * index probes whatever the statistics say about table sizes. Namespaces travel as their parts
   * joined by '/', which no name contains. The first row of a chain is marked, so that of
   * concurrent first versions with different numbers only one lands. A row whose Lance transaction
   * the branch already holds is not inserted either: the unique index on the tenant, transaction,
   * table and branch makes it conflict, so of two commits of one transaction only one lands, also
   * when they race. The WHERE clause holds the rules CommitDecision explains (DecisionOrderIT runs
   * both over the same slots).
   */

  /** Inserts the versions of any tenants ({@code $1} one per request) and records them. */
  static final String INSERT_AND_RECORD =
      """
      WITH inserted AS (
        INSERT INTO table_versions (tenant_id, table_id, branch, version, manifest_path, requested_path,
            manifest_size, e_tag, naming_scheme, metadata, transaction_id, timestamp_millis, starts_chain,
            lance_transaction)
        SELECT t.tenant_id, t.id, r.branch, r.version, r.path, r.path, r.size, r.e_tag, r.scheme,
               r.metadata::jsonb, r.txid, (extract(epoch FROM statement_timestamp()) * 1000)::bigint,
               CASE WHEN m.latest IS NULL THEN true END, r.lance_txid
        FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[],
                    $7::bigint[], $8::text[], $9::text[], $10::text[], $11::uuid[], $12::uuid[])
             WITH ORDINALITY AS r(tenant_id, namespace, name, branch, version, path, size, e_tag, scheme,
                                  metadata, txid, lance_txid, ord)
        CROSS JOIN LATERAL (SELECT t.tenant_id, t.id FROM lance_tables t
                            WHERE t.tenant_id = r.tenant_id AND t.namespace = string_to_array(r.namespace, '/')
                              AND t.name = r.name AND t.deregistered_at IS NULL LIMIT 1) t
        LEFT JOIN LATERAL (SELECT b.name, b.parent_version FROM table_branches b
                           WHERE b.tenant_id = r.tenant_id AND b.table_id = t.id AND b.name = r.branch
                           LIMIT 1) b ON true
        CROSS JOIN LATERAL (SELECT max(v.version) AS latest FROM table_versions v
                            WHERE v.tenant_id = r.tenant_id AND v.table_id = t.id
                              AND v.branch = r.branch) m
        WHERE (r.branch = 'main' OR b.name IS NOT NULL)
          AND r.version = 1 + COALESCE(m.latest, b.parent_version, r.version - 1)
        ORDER BY r.ord
        ON CONFLICT DO NOTHING
        RETURNING ctid::text AS row_address, tenant_id, table_id, branch, version, manifest_path,
                  requested_path, manifest_size, e_tag, metadata, transaction_id, timestamp_millis,
                  lance_transaction)
      , audit AS (
        INSERT INTO audit_events (tenant_id, operation, credential, object, version, transaction_id,
                                  request_id, context)
        SELECT i.tenant_id, 'CreateTableVersion', array_agg(a.credential), array_agg(a.object),
               array_agg(i.version), array_agg(i.transaction_id), array_agg(a.request_id),
               array_agg(a.context)
        FROM inserted i
        JOIN unnest($11::uuid[], $13::text[], $14::text[], $15::text[], $16::text[])
             AS a(txid, credential, object, request_id, context) ON a.txid = i.transaction_id
        GROUP BY i.tenant_id ORDER BY i.tenant_id)
      SELECT * FROM inserted""";

  /**
   * Inserts the versions of any tenants and returns each with its table's location, for the
   * finalizer; their audit records are written once finalization has settled ({@link
   * VersionAudit#RECORD}).
   */
  static final String INSERT_RETURNING_LOCATION =
      """
      WITH inserted AS (
        INSERT INTO table_versions (tenant_id, table_id, branch, version, manifest_path, requested_path,
            manifest_size, e_tag, naming_scheme, metadata, transaction_id, timestamp_millis, starts_chain,
            lance_transaction)
        SELECT t.tenant_id, t.id, r.branch, r.version, r.path, r.path, r.size, r.e_tag, r.scheme,
               r.metadata::jsonb, r.txid, (extract(epoch FROM statement_timestamp()) * 1000)::bigint,
               CASE WHEN m.latest IS NULL THEN true END, r.lance_txid
        FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[],
                    $7::bigint[], $8::text[], $9::text[], $10::text[], $11::uuid[], $12::uuid[])
             WITH ORDINALITY AS r(tenant_id, namespace, name, branch, version, path, size, e_tag, scheme,
                                  metadata, txid, lance_txid, ord)
        CROSS JOIN LATERAL (SELECT t.tenant_id, t.id FROM lance_tables t
                            WHERE t.tenant_id = r.tenant_id AND t.namespace = string_to_array(r.namespace, '/')
                              AND t.name = r.name AND t.deregistered_at IS NULL LIMIT 1) t
        LEFT JOIN LATERAL (SELECT b.name, b.parent_version FROM table_branches b
                           WHERE b.tenant_id = r.tenant_id AND b.table_id = t.id AND b.name = r.branch
                           LIMIT 1) b ON true
        CROSS JOIN LATERAL (SELECT max(v.version) AS latest FROM table_versions v
                            WHERE v.tenant_id = r.tenant_id AND v.table_id = t.id
                              AND v.branch = r.branch) m
        WHERE (r.branch = 'main' OR b.name IS NOT NULL)
          AND r.version = 1 + COALESCE(m.latest, b.parent_version, r.version - 1)
        ORDER BY r.ord
        ON CONFLICT DO NOTHING
        RETURNING ctid::text AS row_address, tenant_id, table_id, branch, version, manifest_path,
                  requested_path, manifest_size, e_tag, metadata, transaction_id, timestamp_millis,
                  lance_transaction)
      SELECT i.*, t.location FROM inserted i
      JOIN lance_tables t ON t.tenant_id = i.tenant_id AND t.id = i.table_id""";

  /** {@link #INSERT_AND_RECORD} for the one tenant {@code $1} of a batch on Citus. */
  static final String INSERT_AND_RECORD_ONE_TENANT =
      """
      WITH inserted AS (
        INSERT INTO table_versions (tenant_id, table_id, branch, version, manifest_path, requested_path,
            manifest_size, e_tag, naming_scheme, metadata, transaction_id, timestamp_millis, starts_chain,
            lance_transaction)
        SELECT t.tenant_id, t.id, r.branch, r.version, r.path, r.path, r.size, r.e_tag, r.scheme,
               r.metadata::jsonb, r.txid, (extract(epoch FROM statement_timestamp()) * 1000)::bigint,
               CASE WHEN m.latest IS NULL THEN true END, r.lance_txid
        FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[],
                    $7::bigint[], $8::text[], $9::text[], $10::text[], $11::uuid[], $12::uuid[])
             WITH ORDINALITY AS r(namespace, name, branch, version, path, size, e_tag, scheme,
                                  metadata, txid, lance_txid, ord)
        CROSS JOIN LATERAL (SELECT t.tenant_id, t.id FROM lance_tables t
                            WHERE t.tenant_id = $1::bigint AND t.namespace = string_to_array(r.namespace, '/')
                              AND t.name = r.name AND t.deregistered_at IS NULL LIMIT 1) t
        LEFT JOIN LATERAL (SELECT b.name, b.parent_version FROM table_branches b
                           WHERE b.tenant_id = $1::bigint AND b.table_id = t.id AND b.name = r.branch
                           LIMIT 1) b ON true
        CROSS JOIN LATERAL (SELECT max(v.version) AS latest FROM table_versions v
                            WHERE v.tenant_id = $1::bigint AND v.table_id = t.id
                              AND v.branch = r.branch) m
        WHERE (r.branch = 'main' OR b.name IS NOT NULL)
          AND r.version = 1 + COALESCE(m.latest, b.parent_version, r.version - 1)
        ORDER BY r.ord
        ON CONFLICT DO NOTHING
        RETURNING ctid::text AS row_address, tenant_id, table_id, branch, version, manifest_path,
                  requested_path, manifest_size, e_tag, metadata, transaction_id, timestamp_millis,
                  lance_transaction)
      , audit AS (
        INSERT INTO audit_events (tenant_id, operation, credential, object, version, transaction_id,
                                  request_id, context)
        SELECT i.tenant_id, 'CreateTableVersion', array_agg(a.credential), array_agg(a.object),
               array_agg(i.version), array_agg(i.transaction_id), array_agg(a.request_id),
               array_agg(a.context)
        FROM inserted i
        JOIN unnest($11::uuid[], $13::text[], $14::text[], $15::text[], $16::text[])
             AS a(txid, credential, object, request_id, context) ON a.txid = i.transaction_id
        GROUP BY i.tenant_id ORDER BY i.tenant_id)
      SELECT * FROM inserted""";

  /** {@link #INSERT_RETURNING_LOCATION} for the one tenant {@code $1} of a batch on Citus. */
  static final String INSERT_RETURNING_LOCATION_ONE_TENANT =
      """
      WITH inserted AS (
        INSERT INTO table_versions (tenant_id, table_id, branch, version, manifest_path, requested_path,
            manifest_size, e_tag, naming_scheme, metadata, transaction_id, timestamp_millis, starts_chain,
            lance_transaction)
        SELECT t.tenant_id, t.id, r.branch, r.version, r.path, r.path, r.size, r.e_tag, r.scheme,
               r.metadata::jsonb, r.txid, (extract(epoch FROM statement_timestamp()) * 1000)::bigint,
               CASE WHEN m.latest IS NULL THEN true END, r.lance_txid
        FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[],
                    $7::bigint[], $8::text[], $9::text[], $10::text[], $11::uuid[], $12::uuid[])
             WITH ORDINALITY AS r(namespace, name, branch, version, path, size, e_tag, scheme,
                                  metadata, txid, lance_txid, ord)
        CROSS JOIN LATERAL (SELECT t.tenant_id, t.id FROM lance_tables t
                            WHERE t.tenant_id = $1::bigint AND t.namespace = string_to_array(r.namespace, '/')
                              AND t.name = r.name AND t.deregistered_at IS NULL LIMIT 1) t
        LEFT JOIN LATERAL (SELECT b.name, b.parent_version FROM table_branches b
                           WHERE b.tenant_id = $1::bigint AND b.table_id = t.id AND b.name = r.branch
                           LIMIT 1) b ON true
        CROSS JOIN LATERAL (SELECT max(v.version) AS latest FROM table_versions v
                            WHERE v.tenant_id = $1::bigint AND v.table_id = t.id
                              AND v.branch = r.branch) m
        WHERE (r.branch = 'main' OR b.name IS NOT NULL)
          AND r.version = 1 + COALESCE(m.latest, b.parent_version, r.version - 1)
        ORDER BY r.ord
        ON CONFLICT DO NOTHING
        RETURNING ctid::text AS row_address, tenant_id, table_id, branch, version, manifest_path,
                  requested_path, manifest_size, e_tag, metadata, transaction_id, timestamp_millis,
                  lance_transaction)
      SELECT i.*, t.location FROM inserted i
      JOIN lance_tables t ON t.tenant_id = i.tenant_id AND t.id = i.table_id
      WHERE t.tenant_id = $1::bigint""";

  /**
   * Sets the final manifest of rows inserted earlier in the same transaction, found by their row
   * address ({@code ctid}, stable while the transaction holds them): a TID scan, whatever the
   * statistics say.
   */
  static final String SET_FINAL_MANIFESTS =
      """
      UPDATE table_versions v SET manifest_path = r.path, manifest_size = r.size, e_tag = r.e_tag
      FROM unnest($1::text[]::tid[], $2::text[], $3::bigint[], $4::text[]) AS r(id, path, size, e_tag)
      WHERE v.ctid = r.id
      RETURNING v.version, v.manifest_path, v.requested_path, v.manifest_size, v.e_tag, v.metadata,
                v.transaction_id, v.timestamp_millis, v.lance_transaction""";

  /** {@link #SET_FINAL_MANIFESTS} for the one tenant {@code $5} of a batch on Citus. */
  static final String SET_FINAL_MANIFESTS_ONE_TENANT =
      """
      UPDATE table_versions v SET manifest_path = r.path, manifest_size = r.size, e_tag = r.e_tag
      FROM unnest($1::text[]::tid[], $2::text[], $3::bigint[], $4::text[]) AS r(id, path, size, e_tag)
      WHERE v.ctid = r.id AND v.tenant_id = $5::bigint
      RETURNING v.version, v.manifest_path, v.requested_path, v.manifest_size, v.e_tag, v.metadata,
                v.transaction_id, v.timestamp_millis, v.lance_transaction""";

  /** Removes rows inserted earlier in the same transaction whose finalization failed. */
  static final String DELETE_INSERTED =
      "DELETE FROM table_versions WHERE ctid = ANY($1::text[]::tid[])";

  /** {@link #DELETE_INSERTED} for the one tenant {@code $2} of a batch on Citus. */
  static final String DELETE_INSERTED_ONE_TENANT =
      "DELETE FROM table_versions WHERE ctid = ANY($1::text[]::tid[]) AND tenant_id = $2::bigint";

  /**
   * The statements for PostgreSQL, where a batch mixes tenants ({@code $1} an array of tenant ids,
   * one per request), or for Citus, whose statements reach one tenant's rows: a batch holds one
   * tenant ({@code $1} its id) and every statement filters on it.
   */
  static VersionStatements of(boolean distributed) {
    return distributed
        ? new VersionStatements(
            true,
            INSERT_AND_RECORD_ONE_TENANT,
            INSERT_RETURNING_LOCATION_ONE_TENANT,
            SET_FINAL_MANIFESTS_ONE_TENANT,
            DELETE_INSERTED_ONE_TENANT)
        : new VersionStatements(
            false,
            INSERT_AND_RECORD,
            INSERT_RETURNING_LOCATION,
            SET_FINAL_MANIFESTS,
            DELETE_INSERTED);
  }

  /** Binds the tenants of a batch's requests, as {@code $1}. */
  Tuple tenants(Tuple params, Long[] tenants) {
    if (!oneTenant) {
      return params.addArrayOfLong(tenants);
    }
    for (Long tenant : tenants) {
      if (!tenant.equals(tenants[0])) {
        throw new IllegalStateException("a batch on a distributed database holds one tenant");
      }
    }
    return params.addLong(tenants[0]);
  }

  /** The parameters of {@link #setFinalManifests}. */
  Tuple finalManifests(List<VersionRepository.FinalManifest> manifests) {
    Tuple params =
        Tuple.tuple()
            .addArrayOfString(
                manifests.stream().map(m -> m.inserted().rowAddress()).toArray(String[]::new))
            .addArrayOfString(
                manifests.stream()
                    .map(VersionRepository.FinalManifest::path)
                    .toArray(String[]::new))
            .addArrayOfLong(
                manifests.stream().map(VersionRepository.FinalManifest::size).toArray(Long[]::new))
            .addArrayOfString(
                manifests.stream()
                    .map(VersionRepository.FinalManifest::eTag)
                    .toArray(String[]::new));
    return oneTenant ? params.addLong(manifests.get(0).inserted().tenantId()) : params;
  }

  /** The parameters of {@link #deleteInserted}. */
  Tuple inserted(List<VersionRepository.Inserted> rows) {
    Tuple params =
        Tuple.of(rows.stream().map(VersionRepository.Inserted::rowAddress).toArray(String[]::new));
    return oneTenant ? params.addLong(rows.get(0).tenantId()) : params;
  }
}
