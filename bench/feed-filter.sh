#!/usr/bin/env bash
# What a filtered change-feed pull costs as the log grows, side by side with a build before the
# window's end bounded the read and rows kept their keys (BEFORE, default cbb2909): for logs of
# 10,000, 100,000 and 1,000,000 events (rows of 100 events, bulk-loaded), the time of a pull from
# the oldest event with 100 ids that match nothing (the most a page may look at), page-size 1000.
#   bench/feed-filter.sh [pulls per size]     (default 20)
# Needs the machine's PostgreSQL on 127.0.0.1:5432. Writes its section of BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
PULLS=${1:-20}
BEFORE=${BEFORE:-cbb2909}
DURATION=0
WARM_UP=0
TABLES=1
DB=lvg_feed_filter
OUT=target/bench-feed-filter.md
. bench/lib.sh

build
before_tree=$(mktemp -d)
git worktree add -f "$before_tree" "$BEFORE" -q
(cd "$before_tree" && mvn -B -q package -DskipTests -Dspotless.check.skip)
cp "$before_tree/target/lance-version-gateway.jar" target/bench-before.jar
git worktree remove --force "$before_tree"

body=$(python3 -c '
import json
print(json.dumps({"page-size": 1000, "catalog-objects-by-name": [["nothing-%d" % i, "t"] for i in range(100)]}))')

grow_to() { # events: the tenant's log grows to that many events, in rows of 100
  psql -h 127.0.0.1 -U postgres -d $DB -qc "
    INSERT INTO audit_events (tenant_id, operation, credential, object, version, transaction_id, request_id, context)
    SELECT t.id, 'CreateNamespace', array_fill('k'::text, ARRAY[100]),
           ARRAY(SELECT 'ns' || b || '\$t' || g FROM generate_series(1, 100) g),
           array_fill(NULL::bigint, ARRAY[100]), array_fill(NULL::uuid, ARRAY[100]),
           array_fill('r'::text, ARRAY[100]), array_fill('{}'::text, ARRAY[100])
    FROM tenants t CROSS JOIN generate_series(1, ($1 - COALESCE((SELECT last_position FROM feed_heads h
         WHERE h.tenant_id = t.id), 0)) / 100) b
    WHERE t.name = 'bench'" -c "VACUUM ANALYZE audit_events"
}

pulls() { # -> "median p90" of PULLS filtered pulls, in ms
  for _ in $(seq 1 "$PULLS"); do
    curl -s -o /dev/null -w '%{time_total}\n' -X POST "$API/v1/events" -H "x-api-key: $KEY" -d "$body"
  done | python3 -c '
import sys
t = sorted(float(x) * 1000 for x in sys.stdin)
print("%.1f %.1f" % (t[len(t) // 2], t[int(len(t) * 0.9) - 1]))'
}

declare -A result
for build in before after; do
  jar=target/lance-version-gateway.jar
  [ $build = before ] && jar=target/bench-before.jar
  GATEWAY_JAR=$jar start_gateway record
  for size in 10000 100000 1000000; do
    grow_to $size
    pulls >/dev/null # warm
    result[$build,$size]=$(pulls)
    echo "$build $size: median/p90 ${result[$build,$size]} ms"
  done
  stop_server
done

{
  echo "Measured $(date -u +%Y-%m-%d) by \`bench/feed-filter.sh $PULLS\` on $(machine): a pull of the"
  echo "change feed from its oldest event, page-size 1000, with 100 ids that match nothing (the most a"
  echo "page may look at), $PULLS times per log size, the log grown in rows of 100 events; the build"
  echo "before ($BEFORE) and this one side by side, each on a fresh database."
  echo
  echo "| events in the log | before: median ms | before: p90 ms | now: median ms | now: p90 ms |"
  echo "|---|---|---|---|---|"
  for size in 10000 100000 1000000; do
    read -r bm b9 <<<"${result[before,$size]}"
    read -r am a9 <<<"${result[after,$size]}"
    echo "| $size | $bm | $b9 | $am | $a9 |"
  done
} >"$OUT"
cat "$OUT"
publish feed-filter "$OUT"
