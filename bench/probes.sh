#!/usr/bin/env bash
# Whether the management port answers while a flood keeps the API's event loops busy, in one run:
#   1. /health/ready every 0.2 s with the gateway idle;
#   2. the same probes while wrk floods version/create (record mode, closed loop, many more
#      connections than the admission limit, so nearly every request is refused with 503).
#   bench/probes.sh [seconds of flood] [connections]       (default: 60 s, 512)
# Needs the machine's PostgreSQL on 127.0.0.1:5432 and wrk (installed with apt-get when missing).
# Writes its section of BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-60}
CONNECTIONS=${2:-512}
WARM_UP=0
TABLES=1000
DB=lvg_probes
OUT=target/bench-probes.md
. bench/lib.sh

need wrk
build

probe() { # seconds file: one readiness probe every 0.2 s, "status seconds" per line
  local until=$((SECONDS + $1))
  : >"$2"
  while [ $SECONDS -lt "$until" ]; do
    curl -s -o /dev/null -m 10 -w "%{http_code} %{time_total}\n" "localhost:$MANAGEMENT/health/ready" >>"$2" ||
      echo "000 10" >>"$2"
    sleep 0.2
  done
}

summary() { # file -> one table row's cells: probes, p50, p90, p99, max (ms), statuses
  sort -k2 -n "$1" | awk '{t[NR] = $2; s[$1]++}
    END {
      statuses = ""; for (k in s) statuses = statuses (statuses == "" ? "" : ",") k ":" s[k]
      printf "%d | %.1f | %.1f | %.1f | %.1f | %s", NR, 1000 * t[int(NR * 0.5)], 1000 * t[int(NR * 0.9)], 1000 * t[int(NR * 0.99)], 1000 * t[NR], statuses
    }'
}

start_gateway record
bench_tables w
probe 20 target/bench-probes-idle.txt
wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" -s bench/create_version.lua "$API" -- $TABLES 2 $KEY w \
  >target/bench-probes-wrk.txt &
flood=$!
sleep 5
probe $((DURATION - 10)) target/bench-probes-flood.txt
wait $flood
shed=$(curl -s "localhost:$MANAGEMENT/metrics" | awk '/^lvg_admission_total/ && /outcome="shed"/ {s += $NF} END {printf "%d", s}')
stop_server
rps=$(awk '/^Requests\/sec/ {printf "%.0f", $2}' target/bench-probes-wrk.txt)
refused=$(awk '/Non-2xx/ {print $NF}' target/bench-probes-wrk.txt)
total=$(awk '/requests in/ {print $1}' target/bench-probes-wrk.txt)
echo "flood: $rps requests/s, ${refused:-0} of $total not 200, $shed refused by admission control"

{
  echo "## Health probes under a flood"
  echo
  echo "Produced by \`bench/probes.sh $DURATION $CONNECTIONS\` on $(date -u +%Y-%m-%d): $(machine). Record mode,"
  echo "default configuration. \`GET /health/ready\` (which asks PostgreSQL \`SELECT 1\`) every 0.2 s, first"
  echo "with the gateway idle, then while wrk keeps $CONNECTIONS connections sending version/create for"
  echo "$DURATION s: $rps requests/s, ${refused:-0} of $total answered other than 200: $shed refused by admission"
  echo "control (503), the rest 409 (the script commits each table's versions in order, so a version"
  echo "after a refused one is a gap)."
  echo
  echo "| gateway | probes | p50 (ms) | p90 (ms) | p99 (ms) | max (ms) | statuses |"
  echo "|---|---|---|---|---|---|---|"
  echo "| idle | $(summary target/bench-probes-idle.txt) |"
  echo "| under the flood | $(summary target/bench-probes-flood.txt) |"
} >"$OUT"
publish probes "$OUT"
cat "$OUT"
