#!/usr/bin/env bash
# The change feed's costs, on one machine, in one run:
#   1. commit throughput with the feed (this build) against without it (the build before the feed,
#      BASELINE), record mode under wrk and finalize mode under the LoadGenerator's closed loop;
#   2. end-to-end lag of version events at half of finalize saturation (open loop): from a
#      version's commit statement (its timestamp_millis, set just before the commit) to a live
#      tail and to a webhook receiver on this machine;
#   3. memory and CPU of 1,000 idle live tails;
#   4. one reader paging through 1,000,000 events from the start.
#   bench/feed.sh [seconds per run]      (default 20 s; BASELINE=<commit>, default b565d81)
# Needs the machine's PostgreSQL on 127.0.0.1:5432 and wrk. Writes its section of BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-20}
WARM_UP=${WARM_UP:-40}
TABLES=1000
DB=lvg_bench
OUT=target/bench-feed.md
BASELINE=${BASELINE:-b565d81}
ADMIN=bench-admin
. bench/lib.sh

need wrk
build
off=target/bench-feed-off
if [ ! -f "$off/target/lance-version-gateway.jar" ]; then
  rm -rf "$off" && mkdir -p "$off"
  git archive "$BASELINE" | tar -x -C "$off"
  (cd "$off" && mvn -B -q package -DskipTests -Dspotless.check.skip)
fi

record() { # jar -> "commits/s gateway-ms-per-commit postgres-ms-per-commit"
  GATEWAY_JAR=$1 start_gateway record
  bench_tables w m
  wrk -t2 -c64 -d"${WARM_UP}s" -s bench/create_version.lua "$API" -- $TABLES 2 $KEY w >/dev/null
  local gw0 pg0 gw1 pg1 out rps
  gw0=$(cpu_ticks $server); pg0=$(postgres_ticks)
  out=$(wrk -t2 -c64 -d"${DURATION}s" -s bench/create_version.lua "$API" -- $TABLES 2 $KEY m)
  gw1=$(cpu_ticks $server); pg1=$(postgres_ticks)
  stop_server
  rps=$(echo "$out" | awk '/^Requests\/sec/ {printf "%.0f", $2}')
  echo "$rps $(awk "BEGIN {printf \"%.3f %.3f\", ($gw1 - $gw0) * 10 / ($rps * $DURATION), ($pg1 - $pg0) * 10 / ($rps * $DURATION)}")"
}

finalize() { # jar -> "commits/s p99"
  GATEWAY_JAR=$1 start_gateway finalize
  local line
  line=$(load $KEY closed:64 finalize)
  stop_server
  echo "$(field "$line" goodput/s) $(field "$line" p99)"
}

rows=""
for mode in record finalize; do
  read -r -a without <<<"$($mode "$off/target/lance-version-gateway.jar")"
  read -r -a with <<<"$($mode target/lance-version-gateway.jar)"
  ratio=$(awk "BEGIN {printf \"%.3f\", ${with[0]} / ${without[0]}}")
  echo "$mode: without the feed ${without[*]}, with it ${with[*]}: ratio $ratio"
  rows+="| $mode | ${without[0]} | ${with[0]} | **$ratio** | ${without[*]:1} | ${with[*]:1} |"$'\n'
done

# 2. Lag at half of finalize saturation.
measure_saturation
rate=$(awk "BEGIN {printf \"%d\", $saturation / 2}")
start_gateway finalize LVG_ADMIN_API_KEY=$ADMIN LVG_ADMIN_LISTENER=api LVG_WEBHOOK_ALLOW_PRIVATE_TARGETS=true
java -cp "$CP" dev.lvg.bench.FeedBench lag "$API" $KEY $ADMIN bench "$DURATION" >target/bench-feed-lag.txt 2>&1 &
watcher=$!
sleep 3
load $KEY "open:$rate" fresh >target/bench-feed-load.txt
sleep 3
kill -TERM $watcher
wait $watcher || true
stop_server
lag=$(grep '^LVG-FEED' target/bench-feed-lag.txt)
echo "lag at $rate commits/s: $lag"

# 3. 1,000 idle tails.
start_gateway record
curl -s -o /dev/null -X POST "$API/v1/namespace/idle/create" -H "x-api-key: $KEY" -d '{}'
heap() { jcmd $server GC.run >/dev/null; sleep 1; curl -s localhost:$MANAGEMENT/metrics | awk '/^jvm_memory_used_bytes/ && /area="heap"/ {s += $2} END {printf "%.1f", s / 1048576}'; }
heap0=$(heap); rss0=$(rss_mib $server)
java -cp "$CP" dev.lvg.bench.FeedBench idle "$API" $KEY 1000 40 >target/bench-feed-idle.txt 2>&1 &
idler=$!
for _ in $(seq 1 60); do grep -q LVG-FEED-OPEN target/bench-feed-idle.txt && break; sleep 0.5; done
sleep 5
heap1=$(heap); rss1=$(rss_mib $server)
cpu0=$(cpu_ticks $server); pg0=$(postgres_ticks); sleep 20; cpu1=$(cpu_ticks $server); pg1=$(postgres_ticks)
streams=$(curl -s localhost:$MANAGEMENT/metrics | awk '/^lvg_feed_streams / {print $2}')
wait $idler
stop_server
idle_cpu=$(awk "BEGIN {printf \"%.3f\", ($cpu1 - $cpu0) / 100 / 20}")
idle_pg=$(awk "BEGIN {printf \"%.3f\", ($pg1 - $pg0) / 100 / 20}")
per_tail=$(awk "BEGIN {printf \"%.1f\", ($heap1 - $heap0) * 1024 / 1000}")
echo "idle: $streams tails, heap $heap0 -> $heap1 MiB, rss $rss0 -> $rss1 MiB, cpu $idle_cpu cores, postgres $idle_pg cores"

# 4. A reader catching up 1,000,000 events (3,907 audit rows of 256 versions, as full commit
# batches write them).
start_gateway record
psql -h 127.0.0.1 -U postgres -d $DB -qf - <<'SQL'
INSERT INTO audit_events (tenant_id, operation, credential, object, version, transaction_id, request_id, context)
SELECT t.id, 'CreateTableVersion', array_fill('bench'::text, ARRAY[256]), array_fill('bench$t'::text, ARRAY[256]),
       ARRAY(SELECT generate_series(1, 256)::bigint), ARRAY(SELECT gen_random_uuid() FROM generate_series(1, 256)),
       array_fill('r'::text, ARRAY[256]), array_fill('{}'::text, ARRAY[256])
FROM tenants t CROSS JOIN generate_series(1, 3907) WHERE t.name = 'bench';
SQL
catchup=$(java -cp "$CP" dev.lvg.bench.FeedBench catchup "$API" $KEY 1000 | grep '^LVG-FEED')
stop_server
echo "catch-up: $catchup"

{
  echo "### The change feed: its cost on commits, its lag, idle tails, catching up"
  echo
  echo "$(date -u +%Y-%m-%d), \`bench/feed.sh $DURATION\`, $(machine). \"Without\" is the build before"
  echo "the feed ($BASELINE), run in the same script. Record mode: wrk, 64 connections, 1,000 tables;"
  echo "finalize mode: the LoadGenerator's closed loop of 64 writers with real staging manifests."
  echo
  echo "| mode | commits/s without the feed | with the feed | ratio | without: gateway, PostgreSQL ms CPU per commit (record) or p99 (finalize) | with |"
  echo "|---|---|---|---|---|---|"
  echo -n "$rows"
  echo
  echo "Lag of version events at half of finalize saturation ($rate commits/s, open loop, each request version 1 of a"
  echo "table of its own), for the versions committed in the last $DURATION s of the measured run, from the version's"
  echo "commit statement to its arrival, in ms: \`$lag\`. The webhook endpoint was registered before the warm-up; it gets"
  echo "one event per request, one request at a time, so an endpoint's throughput is bounded by its round trip."
  echo
  echo "1,000 idle live tails on one gateway: heap after a full GC $heap0 MiB before, $heap1 MiB with them"
  echo "($per_tail KiB a tail), RSS $rss0 -> $rss1 MiB; CPU while idle $idle_cpu cores (gateway), $idle_pg cores (PostgreSQL)."
  echo
  echo "One reader paging 1,000 events at a time through 1,000,000 events from the start: \`$catchup\`."
} >"$OUT"
cat "$OUT"
publish feed "$OUT"
