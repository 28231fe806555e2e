#!/usr/bin/env bash
# The floor under load: how fast any server could answer a request on this machine while the
# gateway serves an open loop at 1x, 2x and 4x of its saturation (finalize mode, local disk,
# default admission control). A second server that answers every request at once (InstantServer,
# on a port of its own) is probed by a second load generator at a low constant rate, its measured
# seconds the same as the gateway's; first the probe alone, on an otherwise idle machine. A 503 is
# answered on the same cores, by a server that decides first, so a refusal can hardly be answered
# sooner than the probe.
#   bench/loaded-floor.sh [seconds per run]       (default 8)
# Needs the machine's PostgreSQL on 127.0.0.1:5432. Writes its section of BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-8}
WARM_UP=${WARM_UP:-60}
TABLES=1000
DB=lvg_overload
PROBE_PORT=2440
OUT=target/bench-loaded-floor.md
. bench/lib.sh
instant=""
stop_instant() {
  [ -n "$instant" ] && { kill "$instant" 2>/dev/null || true; wait "$instant" 2>/dev/null || true; }
  instant=""
}
trap 'stop_instant; stop_server' EXIT

build
: >target/bench-load.log
measure_saturation
# About what the gateway refuses a second at 2x on a good run: few enough that the probe itself
# takes little from the two cores.
probe_rate=$(awk "BEGIN {printf \"%d\", $saturation * 0.1}")

probe() { # the probe generator's line: it starts its lead-in and measured run with the gateway's
  local await=""
  [ -n "$server" ] && await=-Dlvg.start.await=target/bench-started
  # A server that answers at once has little to compile: a second of warm-up is enough for it.
  API=http://127.0.0.1:$PROBE_PORT WARM_UP=1 server=$instant JAVA_PROPERTIES=$await \
    load - "open:$probe_rate" record
}

probe_cells() { # the probe generator's line -> its cells of a row
  echo "$(field "$1" p50) | $(field "$1" p99) | $(field "$1" p99.9) | $(field "$1" send_late_p99)"
}

launch_instant $PROBE_PORT target/bench-probe.log
alone=$(probe)
stop_instant
echo "probe alone at $probe_rate/s: p99 $(field "$alone" p99) ms"
rows="| none | - | - | - | - | $(probe_cells "$alone") | $(field "$alone" stolen_cores) |"$'\n'

for multiple in 1 2 4; do
  rate=$(awk "BEGIN {printf \"%d\", $saturation * $multiple}")
  start_gateway finalize
  launch_instant $PROBE_PORT target/bench-probe.log
  rm -f target/bench-started target/bench-started.lead-in
  JAVA_PROPERTIES=-Dlvg.start.signal=target/bench-started load $KEY "open:$rate" fresh >target/bench-gateway-load.txt &
  gateway_load=$!
  beside=$(probe)
  wait $gateway_load
  line=$(cat target/bench-gateway-load.txt)
  stop_instant
  stop_server
  echo "${multiple}x ($rate/s): gateway 503 p99 $(field "$line" shed_p99) ms, probe p99 $(field "$beside" p99) ms"
  rows+="| ${multiple}x = $rate/s | $(field "$line" goodput/s) | $(field "$line" ok_p99) | $(field "$line" shed_p99) | $(field "$line" send_late_p99) | $(probe_cells "$beside") | $(field "$line" stolen_cores) |"$'\n'
done

{
  echo "## The floor under load"
  echo
  echo "Produced by \`bench/loaded-floor.sh $DURATION\` on $(date -u +%Y-%m-%d): $(machine). Saturation"
  echo "(closed loop, 64 writers, finalize): **$saturation commits/s**. In each row the gateway (finalize on local"
  echo "disk, default configuration) serves an open loop at the row's rate, as in the overload runs, while"
  echo "a server that answers every request at once (\`InstantServer\`) is probed by a second load generator"
  echo "at $probe_rate/s, its measured $DURATION s the same as the gateway's; the first row is the probe alone."
  echo "Latency from each request's scheduled start. A refusal is answered on the same cores, after a"
  echo "decision, so it can hardly be answered sooner than the probe."
  echo
  echo "| gateway offered | gateway goodput/s | gateway admitted p99 (ms) | gateway 503 p99 (ms) | gateway sent late p99 (ms) | probe p50 (ms) | probe p99 (ms) | probe p99.9 (ms) | probe sent late p99 (ms) | cores taken by the host |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  printf "%s" "$rows"
} >"$OUT"
publish loaded-floor "$OUT"
cat "$OUT"
