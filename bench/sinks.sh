#!/usr/bin/env bash
# What publishing the change feed into brokers costs and how fast a sink catches up, with a real
# Kafka broker (KRaft, started from its Maven artifacts) and a real nats-server (Debian's package):
#   1. record-mode commits/s under wrk with both sinks on against both off, alternating run by run;
#   2. each sink alone started behind a backlog of events (record-mode commits made with the sinks
#      off): events published per second until it has published every event;
#   3. at half of the saturation part 1 measured with the sinks off (an open loop, record mode,
#      each request a new table's first version):
#      each sink's lag from a commit to a consumer of its broker, and the CPU a commit costs the
#      gateway and what the brokers take, with both sinks on against both off.
#   bench/sinks.sh [runs] [seconds] [connections] [backlog seconds]   (default: 3, 20, 64, 60)
# Needs the machine's PostgreSQL on 127.0.0.1:5432 (user postgres), wrk and nats-server (installed
# with apt-get when missing). Writes its section of BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-3}
DURATION=${2:-20}
CONNECTIONS=${3:-64}
BACKLOG=${4:-60}
WARM_UP=${WARM_UP:-20}
TABLES=1000
DB=lvg_bench
OUT=target/bench-sinks.md
NATS_PORT=2444
KAFKA_PORT=2445
KAFKA_CONTROLLER=2446
. bench/lib.sh

need wrk
need nats-server
build
# The brokers keep their logs in memory (/dev/shm), apart from PostgreSQL's disk: there, runs with
# both sinks on fell to as low as 271 commits/s as the brokers' logs grew, a cost of sharing one
# disk rather than of the sinks.
brokers=$(mktemp -d /dev/shm/lvg-bench-brokers-XXXX)
nats-server -js -a 127.0.0.1 -p $NATS_PORT -sd "$brokers/nats" >"$brokers/nats.log" 2>&1 &
nats=$!
cat >"$brokers/kafka.properties" <<PROPERTIES
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$KAFKA_CONTROLLER
listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT,CONTROLLER://127.0.0.1:$KAFKA_CONTROLLER
advertised.listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$brokers/kafka
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
PROPERTIES
java -cp "$CP" kafka.tools.StorageTool format -t "$(java -cp "$CP" dev.lvg.bench.SinkBrokers cluster-id)" \
  -c "$brokers/kafka.properties" >"$brokers/format.log" 2>&1
java -Xmx1g -cp "$CP" kafka.Kafka "$brokers/kafka.properties" >"$brokers/kafka.log" 2>&1 &
kafka=$!
trap 'stop_server; kill $nats $kafka 2>/dev/null || true; wait $kafka 2>/dev/null || true; rm -rf "$brokers"' EXIT
for _ in $(seq 1 120); do (echo >/dev/tcp/127.0.0.1/$KAFKA_PORT) 2>/dev/null && break; sleep 0.5; done
java -cp "$CP" dev.lvg.bench.SinkBrokers topic 127.0.0.1:$KAFKA_PORT lance-feed 8 >/dev/null 2>&1

KAFKA_ON=(LVG_FEED_KAFKA_BOOTSTRAP_SERVERS=127.0.0.1:$KAFKA_PORT)
NATS_ON=(LVG_FEED_NATS_URL=nats://127.0.0.1:$NATS_PORT)

commits() { # prefix -> commits/s and p99 (ms) under wrk on fresh tables of that prefix
  bench_tables "$1w" "$1m"
  wrk -t2 -c"$CONNECTIONS" -d"${WARM_UP}s" -s bench/create_version.lua "$API" -- $TABLES 2 $KEY "$1w" >/dev/null
  local out
  out=$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" -s bench/create_version.lua "$API" -- $TABLES 2 $KEY "$1m")
  echo "$(echo "$out" | awk '/^Requests\/sec/ {printf "%.0f", $2}') $(echo "$out" | grep LVG-LATENCY-MS | tr ' ' '\n' | awk -F= '$1 == "p99" {print $2}')"
}

meter() { # name sink -> the value of that meter of that sink on the gateway under test
  curl -sf localhost:$MANAGEMENT/metrics | awk -v m="$1{sink=\"$2\"" \
    'index($0, m) == 1 {print int($2); found = 1} END {if (!found) print 0}'
}

# 1. The cost on the commit path, both sinks on against both off, alternating.
rows=""
declare -A sums
for run in $(seq 1 "$RUNS"); do
  for side in off on; do
    if [ $side = on ]; then start_gateway record "${KAFKA_ON[@]}" "${NATS_ON[@]}"; else start_gateway record; fi
    read -r rate p99 <<<"$(commits "r$run$side")"
    if [ $side = on ]; then behind="kafka $(meter lvg_feed_sink_lag_events kafka), nats $(meter lvg_feed_sink_lag_events nats)"; else behind=""; fi
    stop_server
    echo "run $run sinks $side: $rate commits/s (p99 $p99 ms) $behind"
    rows+="| $run | $side | $rate | $p99 | $behind |"$'\n'
    sums[$side]=$(awk "BEGIN {print ${sums[$side]:-0} + $rate}")
  done
done
ratio=$(awk "BEGIN {printf \"%.3f\", ${sums[on]} / ${sums[off]}}")

# 2. Catch-up: a backlog made with the sinks off, then each sink alone on the same database.
start_gateway record
bench_tables b
wrk -t2 -c"$CONNECTIONS" -d"${BACKLOG}s" -s bench/create_version.lua "$API" -- $TABLES 2 $KEY b >/dev/null
stop_server
events=$(psql -h 127.0.0.1 -U postgres -d $DB -Atc "SELECT sum(last_position - expired_through) FROM feed_heads")
catchup=""
for sink in kafka nats; do
  settings=("${KAFKA_ON[@]}")
  [ $sink = nats ] && settings=("${NATS_ON[@]}")
  started=$(date +%s.%N)
  KEEP_DATABASE=1 start_gateway record "${settings[@]}"
  for _ in $(seq 1 2400); do
    [ "$(meter lvg_feed_sink_published_total $sink)" -ge "$events" ] && break
    sleep 0.5
  done
  [ "$(meter lvg_feed_sink_published_total $sink)" -ge "$events" ] || { echo "$sink did not catch up in 20 minutes"; exit 1; }
  seconds=$(awk "BEGIN {printf \"%.1f\", $(date +%s.%N) - $started}")
  stop_server
  echo "$sink caught up $events events in $seconds s (gateway start included)"
  catchup+="| $sink | $events | $seconds | $(awk "BEGIN {printf \"%.0f\", $events / $seconds}") |"$'\n'
done

# 3. At half saturation: the lag from commit to consumer, and where the CPU goes, on against off.
half=$(awk "BEGIN {printf \"%.0f\", ${sums[off]} / $RUNS / 2}")
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
at_half=""
for side in off on; do
  if [ $side = on ]; then start_gateway record "${KAFKA_ON[@]}" "${NATS_ON[@]}"; else start_gateway record; fi
  rm -f target/bench-started
  if [ $side = on ]; then
    # The consumers from the moment the measured run starts, for its seconds.
    (until [ -f target/bench-started ]; do sleep 0.1; done
      java -cp "$CP" dev.lvg.bench.SinkBrokers lag 127.0.0.1:$KAFKA_PORT lance-feed \
        nats://127.0.0.1:$NATS_PORT lance "$((DURATION - 2))") >target/bench-sink-lag.txt 2>>target/bench-load.log &
    consumer=$!
  fi
  # The brokers' CPU over the measured run: from its start to the load's end.
  (until [ -f target/bench-started ]; do sleep 0.1; done
    echo "$(ticks $kafka) $(ticks $nats) $(date +%s.%N)" >target/bench-brokers-start.txt) &
  line=$(JAVA_PROPERTIES=-Dlvg.start.signal=target/bench-started load $KEY "open:$half" fresh)
  read -r kafka_before nats_before started <target/bench-brokers-start.txt
  brokers_cores=$(awk "BEGIN {printf \"%.2f\", ($(ticks $kafka) - $kafka_before + $(ticks $nats) - $nats_before) / $(getconf CLK_TCK) / ($(date +%s.%N) - $started)}")
  lags=""
  if [ $side = on ]; then
    wait $consumer
    lags=$(grep LVG-SINK-LAG target/bench-sink-lag.txt | awk '{printf "%s%s p50 %s, p99 %s, max %s ms", sep, substr($2, 6), substr($4, 5), substr($5, 5), substr($6, 5); sep = "; "}')
  fi
  stop_server
  echo "at half ($half/s) sinks $side: $line brokers $brokers_cores $lags"
  at_half+="| $side | $(field "$line" goodput/s) | $(field "$line" p99) | $(field "$line" server_cpu_ms/req) | $(field "$line" server_cores) | $(field "$line" postgres_cores) | $brokers_cores | $lags |"$'\n'
done

{
  echo "## Change feed sinks"
  echo
  echo "Produced by \`bench/sinks.sh $RUNS $DURATION $CONNECTIONS $BACKLOG\` on $(date -u +%Y-%m-%d): $(machine),"
  echo "a Kafka 4.4 broker (KRaft, one node) and nats-server $(nats-server --version | awk '{print $NF}') with JetStream on the same machine,"
  echo "their logs in memory (/dev/shm; on PostgreSQL's disk, runs with the sinks on fell to as low as 271 commits/s as their logs grew)."
  echo "Record mode under wrk, $CONNECTIONS connections, $TABLES fresh tables a run, ${WARM_UP} s unrecorded then"
  echo "${DURATION} s recorded; a gateway of its own for each run, with both sinks on or both off, alternating."
  echo
  echo "| run | sinks | commits/s | p99 (ms) | sinks' lag at the end |"
  echo "|---|---|---|---|---|"
  printf "%s" "$rows"
  echo
  echo "On over off, the sum of the runs: **$ratio**."
  echo
  echo "Catch-up: a backlog of record-mode commits made in ${BACKLOG} s with the sinks off, then a gateway"
  echo "with one sink started on it, timed from its start until the sink has published every event."
  echo
  echo "| sink | events | seconds | events/s |"
  echo "|---|---|---|---|"
  printf "%s" "$catchup"
  echo
  echo "At half of saturation: the open loop at $half commits/s (half the mean of the sinks-off runs above),"
  echo "${WARM_UP} s unrecorded then ${DURATION} s recorded, a gateway of its own with both sinks off, then on;"
  echo "the lag from each event's time (its commit's start) to its arrival at a consumer of each broker"
  echo "(the official clients, for the recorded seconds); CPU from \`/proc\` over the recorded seconds."
  echo
  echo "| sinks | commits/s | p99 (ms) | gateway CPU ms/commit | gateway cores | PostgreSQL cores | brokers' cores | lag commit to consumer |"
  echo "|---|---|---|---|---|---|---|---|"
  printf "%s" "$at_half"
} >"$OUT"
publish sinks "$OUT"
cat "$OUT"
