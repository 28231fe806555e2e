package dev.lvg.version;

import io.vertx.sqlclient.Tuple;
import java.util.List;

/**
 * The statements that insert version rows and settle them, in one of two forms: for PostgreSQL, a
 * batch mixes tenants ({@code $1} an array of tenant ids, one per request); for Citus, whose
 * statements reach one tenant's rows, a batch holds one tenant ({@code $1} its id) and every
 * statement filters on it.
 */
record VersionStatements(
    boolean oneTenant,
    String insert,
    String insertWithLocation,
    String setFinalManifests,
    String deleteInserted) {

  /**
   * Inserts the requests given as parallel arrays, in request order (so concurrent statements lock
   * slots in one order and cannot deadlock), and returns the rows it inserted. Lookups are lateral
   * subqueries the planner cannot flatten ({@code LIMIT 1} on a unique key), so each request costs
   * index probes whatever the statistics say about table sizes. Namespaces travel as their parts
   * joined by {@code /}, which no name contains. The first row of a chain is marked, so that of
   * concurrent first versions with different numbers only one lands. A row whose Lance transaction
   * the branch already holds is not inserted either: the unique index on the tenant, transaction,
   * table and branch makes it conflict, so of two commits of one transaction only one lands, also
   * when they race.
   */
  private static final String INSERT_ANY_TENANTS =
      """
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
      RETURNING ctid::text AS row_address, tenant_id, table_id, branch,\s"""
          + TableVersion.COLUMNS;

  /** The same for one tenant, {@code $1}: every table it reads is filtered on that tenant. */
  private static final String INSERT_ONE_TENANT =
      INSERT_ANY_TENANTS
          .replace("unnest($1::bigint[], ", "unnest(")
          .replace("AS r(tenant_id, ", "AS r(")
          .replace("r.tenant_id", "$1::bigint");

  /**
   * Sets the final manifest of rows inserted earlier in the same transaction, found by their row
   * address ({@code ctid}, stable while the transaction holds them): a TID scan, whatever the
   * statistics say.
   */
  private static final String SET_FINAL_MANIFESTS =
      """
      UPDATE table_versions v SET manifest_path = r.path, manifest_size = r.size, e_tag = r.e_tag
      FROM unnest($1::text[]::tid[], $2::text[], $3::bigint[], $4::text[]) AS r(id, path, size, e_tag)
      WHERE v.ctid = r.id
      RETURNING v.\s"""
          + TableVersion.COLUMNS.replace(", ", ", v.");

  /** Removes rows inserted earlier in the same transaction whose finalization failed. */
  private static final String DELETE_INSERTED =
      "DELETE FROM table_versions WHERE ctid = ANY($1::text[]::tid[])";

  static VersionStatements of(boolean distributed) {
    if (!distributed) {
      return new VersionStatements(
          false,
          VersionAudit.recording(INSERT_ANY_TENANTS),
          withLocation(INSERT_ANY_TENANTS, ""),
          SET_FINAL_MANIFESTS,
          DELETE_INSERTED);
    }
    return new VersionStatements(
        true,
        VersionAudit.recording(INSERT_ONE_TENANT),
        withLocation(INSERT_ONE_TENANT, " WHERE t.tenant_id = $1::bigint"),
        SET_FINAL_MANIFESTS.replace(
            "WHERE v.ctid = r.id", "WHERE v.ctid = r.id AND v.tenant_id = $5::bigint"),
        DELETE_INSERTED + " AND tenant_id = $2::bigint");
  }

  /** {@code insert}, returning each row with its table's location too. */
  private static String withLocation(String insert, String filter) {
    return "WITH inserted AS ("
        + insert
        + """
        )
        SELECT i.*, t.location FROM inserted i
        JOIN lance_tables t ON t.tenant_id = i.tenant_id AND t.id = i.table_id"""
        + filter;
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
