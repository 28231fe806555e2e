#!/usr/bin/env bash
# The change feed's expiry, side by side in one run: a tenant holds 1,000,000 events older than the
# retention (one per audit row, as single commits write them), then wrk commits under record mode
# while the background expiry deletes them (retention 7 days) and, as the baseline, while it has
# nothing to delete (retention 30 days). Reports how long the expiry took (events/s) and the commit
# throughput beside it.
#   bench/feed-expiry.sh [seconds per run]      (default 60 s; no warm-up: see run)
# Needs the machine's PostgreSQL on 127.0.0.1:5432 and wrk. Writes its section of BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-60}
WARM_UP=0
TABLES=1000
DB=lvg_bench
OUT=target/bench-feed-expiry.md
EVENTS=1000000
. bench/lib.sh

need wrk
build

expired() {
  curl -s localhost:$MANAGEMENT/metrics | awk '/^lvg_feed_events_expired_total / {v = $2} END {printf "%d", v}'
}

run() { # retention -> "commits/s seconds-until-expired events-expired"
  # A database holding the old events first (positions 1..EVENTS, as they would have been
  # numbered: older events take lower positions), written in one statement with the trigger off
  # (its one upsert per row would update the head row a million times in one transaction).
  start_gateway record LVG_EVENTS_RETENTION=30d
  stop_server
  psql -h 127.0.0.1 -U postgres -d $DB -q <<SQL
BEGIN;
ALTER TABLE audit_events DISABLE TRIGGER audit_events_feed_position;
INSERT INTO audit_events (tenant_id, at, operation, credential, object, version, transaction_id,
                          request_id, context, last_position)
SELECT t.id, now() - interval '8 days', 'CreateTableVersion', ARRAY['bench'], ARRAY['bench\$old'],
       ARRAY[g::bigint], ARRAY[gen_random_uuid()], ARRAY['r'], ARRAY['{}'], g
FROM tenants t CROSS JOIN generate_series(1, $EVENTS) g WHERE t.name = 'bench';
INSERT INTO feed_heads (tenant_id, last_position) SELECT id, $EVENTS FROM tenants WHERE name = 'bench'
  ON CONFLICT (tenant_id) DO UPDATE SET last_position = EXCLUDED.last_position;
ALTER TABLE audit_events ENABLE TRIGGER audit_events_feed_position;
COMMIT;
SQL
  # The gateway under test: its expiry starts a second after it does, so the commits are measured
  # from its start (no warm-up, in both runs alike).
  local started rps took="-" done
  started=$(date +%s.%N)
  KEEP_DATABASE=1 start_gateway record LVG_EVENTS_RETENTION="$1" LVG_EVENTS_EXPIRY_MILLIS=1000
  bench_tables m
  wrk -t2 -c64 -d"${DURATION}s" -s bench/create_version.lua "$API" -- $TABLES 2 $KEY m >target/bench-expiry-wrk.txt &
  local load=$!
  while kill -0 $load 2>/dev/null; do
    if [ "$took" = "-" ] && [ "$(expired)" -ge $EVENTS ]; then
      took=$(awk "BEGIN {printf \"%.1f\", $(date +%s.%N) - $started}")
    fi
    sleep 0.2
  done
  wait $load
  done=$(expired)
  stop_server
  rps=$(awk '/^Requests\/sec/ {printf "%.0f", $2}' target/bench-expiry-wrk.txt)
  echo "$rps $took $done"
}

read -r -a keep <<<"$(run 30d)"
echo "retention 30 days (nothing to expire): ${keep[0]} commits/s, ${keep[2]} events expired"
read -r -a expire <<<"$(run 7d)"
echo "retention 7 days: ${expire[0]} commits/s, ${expire[2]} events expired in ${expire[1]} s"
ratio=$(awk "BEGIN {printf \"%.3f\", ${expire[0]} / ${keep[0]}}")
rate=$(awk "BEGIN {if (\"${expire[1]}\" == \"-\") print \"-\"; else printf \"%.0f\", $EVENTS / ${expire[1]}}")

{
  echo "### The change feed's expiry beside commits"
  echo
  echo "$(date -u +%Y-%m-%d), \`bench/feed-expiry.sh $DURATION\`, $(machine). A tenant holds"
  echo "1,000,000 events older than the retention (one per audit row, positions 1 to 1,000,000); a gateway"
  echo "starts on it and wrk commits for $DURATION s from its start, no warm-up (record mode, 64 connections,"
  echo "1,000 tables) while the expiry, one pass a second in batches of 5,000 rows, deletes them"
  echo "(retention 7 days), and, in the same script, while it has nothing to delete (retention 30 days)."
  echo "\"Expiry took\" counts from the gateway's start."
  echo
  echo "| retention | commits/s | events expired | expiry took | expired events/s |"
  echo "|---|---|---|---|---|"
  echo "| 30 days (baseline) | ${keep[0]} | ${keep[2]} | - | - |"
  echo "| 7 days | ${expire[0]} (**$ratio**) | ${expire[2]} | ${expire[1]} s | $rate |"
} >"$OUT"
cat "$OUT"
publish feed-expiry "$OUT"
