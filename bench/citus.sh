#!/usr/bin/env bash
# What a create costs on Citus against a single PostgreSQL, on one machine, in one run: the gateway
# in record mode under closed-loop wrk (1,000 tables of one tenant, versions in order) against
# (1) the machine's PostgreSQL and (2) a Citus coordinator with two workers on loopback
# (chaos/citus-cluster.sh), the schema distributed by tenant. CPU per create counts every
# PostgreSQL process of the machine (for Citus: coordinator and workers).
#   bench/citus.sh [seconds] [connections]       (default: 20 s, 64)
# Needs Citus installed (see docs/deployment.md, Citus) and wrk. Writes its section of
# BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-20}
CONNECTIONS=${2:-64}
WARM_UP=${WARM_UP:-10}
TABLES=1000
DB=lvg_bench_citus
. bench/lib.sh
. chaos/citus-cluster.sh
need wrk
build

all_postgres_ticks() {
  for pid in $(pgrep -x postgres); do awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || true; done |
    awk '{s += $1} END {print s}'
}

rows=""
for target in postgres citus; do
  [ $target = citus ] && PG_URL=$CITUS_URL
  start_gateway record
  bench_tables w m
  wrk -t2 -c"$CONNECTIONS" -d"${WARM_UP}s" -s bench/create_version.lua "$API" -- $TABLES 2 $KEY w >/dev/null
  gw0=$(cpu_ticks $server); pg0=$(all_postgres_ticks)
  out=$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" -s bench/create_version.lua "$API" -- $TABLES 2 $KEY m)
  gw1=$(cpu_ticks $server); pg1=$(all_postgres_ticks)
  created=$(curl -s localhost:$MANAGEMENT/metrics |
    awk '/^lvg_version_create_total/ && /outcome="created"/ {s += $2} END {printf "%d", s}')
  stop_server
  rps=$(echo "$out" | awk '/^Requests\/sec/ {printf "%.0f", $2}')
  latency=$(echo "$out" | grep LVG-LATENCY-MS | sed 's/LVG-LATENCY-MS //')
  gw_ms=$(awk "BEGIN {printf \"%.3f\", ($gw1 - $gw0) * 10 / ($rps * $DURATION)}")
  pg_ms=$(awk "BEGIN {printf \"%.3f\", ($pg1 - $pg0) * 10 / ($rps * $DURATION)}")
  echo "$target: $rps/s $latency gateway $gw_ms ms/create, PostgreSQL $pg_ms ms/create"
  rows+="| $target | $CONNECTIONS | $rps | $latency | $created | $gw_ms | $pg_ms |"$'\n'
done
OUT=target/bench-citus.md
{
  echo "## Citus against a single PostgreSQL"
  echo
  echo "Produced by \`bench/citus.sh $DURATION $CONNECTIONS\` on $(date -u +%Y-%m-%d): $(machine); Citus"
  echo "$(as_pg psql -h "$work" -p "$coordinator" -U postgres -d lvg -tAc \
    "SELECT extversion FROM pg_extension WHERE extname = 'citus'") with a coordinator and two workers on the same cores,"
  echo "the schema distributed by tenant. Record mode, one tenant, $TABLES tables, versions in order;"
  echo "${WARM_UP} s unrecorded, then ${DURATION} s recorded. PostgreSQL CPU counts every PostgreSQL process."
  echo
  echo "| database | connections | commits/s | latency (ms) | created | gateway CPU ms/commit | PostgreSQL CPU ms/commit (all nodes) |"
  echo "|---|---|---|---|---|---|---|"
  printf '%s' "$rows"
} >"$OUT"
publish citus "$OUT"
cat "$OUT"
