-- The change feed: every committed catalog change of a tenant, read from the audit trail and
-- numbered densely in commit order. An audit row of a catalog operation takes its positions from
-- its tenant's head row when it is inserted: the head row stays locked until the inserting
-- transaction ends, so the next transaction of that tenant takes the following positions only once
-- this one has committed (and become visible) or rolled back (and given its positions back). A
-- reader that has seen position n has therefore seen every position below n, and a table's
-- versions come in version order, because a version is claimed only once the one before it has
-- committed. A row holds the positions last_position - cardinality(object) + 1 .. last_position,
-- one per element. Expired rows are deleted; expired_through is the last position deleted, below
-- which a cursor is no longer served.
CREATE TABLE feed_heads (
  tenant_id       BIGINT PRIMARY KEY,
  last_position   BIGINT NOT NULL DEFAULT 0,
  expired_through BIGINT NOT NULL DEFAULT 0
);

-- Every cursor names the history it belongs to. A database restored from a backup keeps this
-- value; the restore procedure sets a new one (lance-version-gateway new-feed-epoch), so cursors
-- issued before the restore are refused instead of silently reading a different history.
CREATE TABLE feed_epoch (
  singleton BOOLEAN PRIMARY KEY DEFAULT true CHECK (singleton),
  epoch     TEXT NOT NULL
);
INSERT INTO feed_epoch (epoch) VALUES (substr(md5(random()::text || clock_timestamp()::text), 1, 10));

ALTER TABLE audit_events ADD COLUMN last_position BIGINT;

-- The operations the feed carries; the rest of the audit trail (credential vending) is not a
-- change of the catalog.
CREATE FUNCTION feed_operation(operation TEXT) RETURNS BOOLEAN LANGUAGE sql IMMUTABLE AS $f$
  SELECT operation IN ('CreateNamespace', 'DropNamespace', 'DeclareTable', 'RegisterTable',
                       'RenameTable', 'DeregisterTable', 'DropTable', 'CreateTableVersion',
                       'BatchDeleteTableVersions', 'PruneTableVersion', 'CreateTableBranch',
                       'DeleteTableBranch', 'CreateTableTag', 'UpdateTableTag', 'DeleteTableTag',
                       'BatchCreateTableVersions', 'BatchCommitTables')
$f$;

-- Numbers what the trail held before the feed existed, in the order its readers saw it.
UPDATE audit_events a SET last_position = n.last_position
FROM (SELECT tenant_id, xact, seq,
             sum(cardinality(object)) OVER (PARTITION BY tenant_id ORDER BY xact, seq) AS last_position
      FROM audit_events WHERE feed_operation(operation)) n
WHERE a.tenant_id = n.tenant_id AND a.xact = n.xact AND a.seq = n.seq;
INSERT INTO feed_heads (tenant_id, last_position)
SELECT tenant_id, max(last_position) FROM audit_events WHERE last_position IS NOT NULL
GROUP BY tenant_id;

CREATE UNIQUE INDEX audit_events_feed ON audit_events (tenant_id, last_position)
  WHERE last_position IS NOT NULL;

CREATE FUNCTION audit_events_feed_position() RETURNS trigger LANGUAGE plpgsql AS $f$
BEGIN
  IF feed_operation(NEW.operation) THEN
    INSERT INTO feed_heads AS h (tenant_id, last_position)
    VALUES (NEW.tenant_id, cardinality(NEW.object))
    ON CONFLICT (tenant_id) DO UPDATE SET last_position = h.last_position + cardinality(NEW.object)
    RETURNING h.last_position INTO NEW.last_position;
  END IF;
  RETURN NEW;
END
$f$;

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
    PERFORM create_distributed_table('feed_heads', 'tenant_id', colocate_with => 'namespaces');
    PERFORM create_reference_table('feed_epoch');
    PERFORM set_config('citus.enable_unsafe_triggers', 'on', true);
  END IF;
END
$$;

CREATE TRIGGER audit_events_feed_position BEFORE INSERT ON audit_events
  FOR EACH ROW EXECUTE FUNCTION audit_events_feed_position();
