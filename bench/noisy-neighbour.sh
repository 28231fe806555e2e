#!/usr/bin/env bash
# No tenant can hurt another: tenant A commits at half of its saturation (open loop, a table of its
# own per request) while tenant B, with ten read-write keys, runs in turn the heaviest requests the
# bounds allow at full concurrency (NoisyNeighbour in the test sources):
#   pulls     change-feed pulls whose filters match nothing (100 ids, 32 types; page-size 1000) over
#             a backlog of 50,000 events, so every page scans the most it may
#   pages     the largest pages: the feed 1,000 events at a time, unfiltered
#   tails     as many live tails as B may open (1,000: LVG_EVENTS_MAX_STREAMS_PER_TENANT), woken by
#             a namespace B creates every 50 ms
#   lists     table lists of 1,000 over 1,000 tables
#   declares  batch commits declaring 1,000 tables each
#   batches   batch-creates of 1,000 versions each (record mode: finalize needs staging files)
#   whoami    GET /v1/whoami, which asks nothing of the database: the floor, what any neighbour's
#             requests at that concurrency cost A on the same cores
# each beside A alone, in record and in finalize mode, with the default settings (GATEWAY_SETTINGS
# adds LVG_* settings to the gateways of the run).
#   bench/noisy-neighbour.sh [seconds per run]     (default 20; MODES and PATTERNS pick a part)
# Needs the machine's PostgreSQL on 127.0.0.1:5432. Writes its section of BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-20}
# The gateway of a mode warms up once, with its saturation run (a closed loop of 64 writers), for
# WARM_UP s; each pattern's run then has a lead-in of LEAD_IN s, ten of them at the measured rate.
WARM_UP=${WARM_UP:-60}
LEAD_IN=${LEAD_IN:-5}
TABLES=1000
DB=lvg_noisy
CONNECTIONS=${CONNECTIONS:-32}
NOISY_KEYS=$(for i in $(seq 0 9); do printf 'noisy-key-%d ' "$i"; done)
OUT=target/bench-noisy.md
. bench/lib.sh

build
: >target/bench-load.log

add_noisy_tenant() { # tenant noisy: ten read-write keys, 1,000 tables, 50,000 events, batch tables
  local keys="" i
  for i in $(seq 0 9); do
    keys+="INSERT INTO api_keys (key_hash, tenant_id, key_id, scopes) SELECT encode(sha256('noisy-key-$i'::bytea), 'hex'), id, 'noisy-$i', '{read,write}' FROM tenants WHERE name = 'noisy';"
  done
  psql -h 127.0.0.1 -U postgres -d $DB -qc "INSERT INTO tenants (name) VALUES ('noisy')" -c "$keys"
  curl -sf -o /dev/null -X POST "$API/v1/namespace/noisy/create" -H "x-api-key: noisy-key-0" -d '{}'
  python3 - "$TABLES" <<'PY' >target/bench-noisy-declare.json
import json, sys
print(json.dumps({"operations": [{"declare_table": {"id": ["noisy", "t" + str(i)]}} for i in range(int(sys.argv[1]))]}))
PY
  curl -sf -o /dev/null -X POST "$API/v1/table/batch-commit" -H "x-api-key: noisy-key-0" -d @target/bench-noisy-declare.json
  if [ "$mode" = record ]; then
    # The table of 1,000 versions whose list the pages pattern reads (in record mode only: in
    # finalize mode each version needs its manifest, and the pattern's lists find no such table).
    curl -sf -o /dev/null -X POST "$API/v1/table/noisy%24long/declare" -H "x-api-key: noisy-key-0" -d '{}'
    python3 - <<'PY' >target/bench-noisy-declare.json
import json
print(json.dumps({"entries": [{"id": ["noisy", "long"], "version": v, "manifest_path": "long/%d" % v} for v in range(1, 1001)]}))
PY
    curl -sf -o /dev/null -X POST "$API/v1/table/version/batch-create" -H "x-api-key: noisy-key-0" -d @target/bench-noisy-declare.json
    for c in $(seq 0 $((CONNECTIONS - 1))); do
      python3 - "$c" <<'PY' >target/bench-noisy-declare.json
import json, sys
print(json.dumps({"operations": [{"declare_table": {"id": ["noisy", "b%s-%d" % (sys.argv[1], t)]}} for t in range(1000)]}))
PY
      curl -sf -o /dev/null -X POST "$API/v1/table/batch-commit" -H "x-api-key: noisy-key-0" -d @target/bench-noisy-declare.json
    done
  fi
  # The backlog: 50 audit rows of 1,000 version events each, numbered by the feed's own trigger.
  psql -h 127.0.0.1 -U postgres -d $DB -qc "
    INSERT INTO audit_events (tenant_id, operation, credential, object, version, transaction_id, request_id, context)
    SELECT t.id, 'CreateTableVersion', array_fill('noisy-0'::text, ARRAY[1000]),
           ARRAY(SELECT 'noisy\$t' || (g % $TABLES) FROM generate_series(1, 1000) g),
           ARRAY(SELECT b::bigint FROM generate_series(1, 1000) g),
           ARRAY(SELECT gen_random_uuid() FROM generate_series(1, 1000) g),
           array_fill('backlog'::text, ARRAY[1000]), array_fill('{}'::text, ARRAY[1000])
    FROM tenants t CROSS JOIN generate_series(1, 50) b WHERE t.name = 'noisy'" -c "ANALYZE audit_events"
}

rows=""
for mode in ${MODES:-record finalize}; do
  # One gateway per mode, warmed once: every pattern then meets the same compiled code, and "alone"
  # runs first and last, so a drift of the machine between them shows.
  start_gateway $mode ${GATEWAY_SETTINGS:-}
  add_noisy_tenant
  line=$(load $KEY closed:64 $mode)
  saturation=$(field "$line" goodput/s)
  rate=$(awk "BEGIN {printf \"%d\", $saturation / 2}")
  echo "$mode: saturation $saturation commits/s; tenant A at $rate/s"
  patterns="alone whoami pulls pages tails lists declares"
  [ $mode = record ] && patterns+=" batches"
  patterns="${PATTERNS:-$patterns} alone"
  alone_p99=""
  for pattern in $patterns; do
    noise=""
    rm -f target/bench-noise.stop
    if [ $pattern != alone ]; then
      connections=$CONNECTIONS
      [ $pattern = tails ] && connections=1000
      # shellcheck disable=SC2086
      java -Dlvg.noise.stop=target/bench-noise.stop -cp "$CP" dev.lvg.bench.NoisyNeighbour "$API" $pattern \
        $connections 3600 $NOISY_KEYS >target/bench-noise.log 2>&1 &
      noise=$!
      sleep 2
    fi
    line=$(WARM_UP=$LEAD_IN load $KEY "open:$rate" fresh)
    noise_line="-"
    if [ -n "$noise" ]; then
      touch target/bench-noise.stop
      wait $noise || true
      noise_line=$(grep '^LVG-NOISE' target/bench-noise.log || echo "-")
    fi
    goodput=$(field "$line" goodput/s)
    p99=$(field "$line" ok_p99)
    [ -z "$alone_p99" ] && alone_p99=$p99
    share=$(awk "BEGIN {printf \"%.1f\", 100 * $goodput / $rate}")
    ratio=$(awk "BEGIN {printf \"%.2f\", $p99 / $alone_p99}")
    echo "$mode $pattern: A goodput $goodput/s ($share% of $rate), p99 $p99 ms (${ratio}x alone), $(field "$line" statuses); B: $noise_line"
    rows+="| $mode | $pattern | $rate | $goodput | $share% | $(field "$line" ok_p50) | $p99 | ${ratio}x | $(field "$line" statuses) | $(field "$noise_line" requests/s) | $(field "$noise_line" statuses) | $(field "$line" server_cores) | $(rss_mib "$server") |"$'\n'
    sleep 5
  done
  stop_server
done

{
  echo "Measured $(date -u +%Y-%m-%d) by \`bench/noisy-neighbour.sh $DURATION\` on $(machine); each run on a"
  echo "gateway per mode with ${GATEWAY_SETTINGS:-its default settings}, warmed for $WARM_UP s by its saturation run, then"
  echo "every pattern in turn, A alone first and last; each run $LEAD_IN s of lead-in and 10 s at the rate,"
  echo "$DURATION s measured. Tenant A commits open loop at half of the closed-loop saturation of its mode (64"
  echo "writers), a table of its own per request; tenant B runs the pattern at full concurrency"
  echo "($CONNECTIONS connections; 1,000 tails) with ten read-write keys. Targets: A's goodput >= 95% of its"
  echo "rate, its p99 <= 2x its p99 alone (the first alone run)."
  echo
  echo "| mode | B runs | A's rate/s | A's goodput/s | of its rate | A p50 ms | A p99 ms | p99 vs alone | A's statuses | B's requests/s | B's statuses | gateway cores | gateway RSS MiB |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  printf '%s' "$rows"
} >"$OUT"
cat "$OUT"
publish "noisy-neighbour${SECTION:-}" "$OUT"
