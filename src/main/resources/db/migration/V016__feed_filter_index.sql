-- The change feed's filters are answered through an index, not by looking at every event a page
-- passes over: each feed row is indexed under its operation ('op:CreateTableVersion') and under
-- every namespace and table its objects are or lie in ('in:ns', 'in:ns$t'). A filtered page asks
-- for rows whose keys overlap the filter's, and checks each element of a matching row (a batch row
-- holds many) with the same keys.
-- Costed high: the planner then answers a filter from the index, where the keys are already made,
-- rather than making them again for every row it passes.
CREATE FUNCTION feed_keys(operation TEXT, object TEXT[]) RETURNS TEXT[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE COST 10000 AS $f$
  SELECT ARRAY['op:' || operation] || ARRAY(
    SELECT DISTINCT 'in:' || array_to_string(p.parts[1:n], '$')
    FROM unnest(object) o
    CROSS JOIN LATERAL string_to_array(o, '$') p(parts)
    CROSS JOIN LATERAL generate_series(1, cardinality(p.parts)) n)
$f$;

CREATE INDEX audit_events_feed_keys ON audit_events USING gin (feed_keys(operation, object))
  WHERE last_position IS NOT NULL;
