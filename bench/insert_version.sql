-- pgbench script: the database's own limit for one durable put-if-not-exists of a version row,
-- against the same schema the gateway writes. Every transaction claims a fresh (table, version).
\set t random(1, 1000)
\set v random(1, 1000000000)
INSERT INTO bench_versions (tenant_id, table_id, branch, version, manifest_path, requested_path,
    manifest_size, e_tag, naming_scheme, transaction_id, timestamp_millis)
VALUES (1, :t, 'main', :v, 'bench/t.lance/_versions/x.manifest', 'bench/t.lance/_versions/x.manifest',
    367, 'e', 'V2', gen_random_uuid(), (extract(epoch FROM clock_timestamp()) * 1000)::bigint)
ON CONFLICT DO NOTHING RETURNING version;
