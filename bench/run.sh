#!/usr/bin/env bash
# version/create side by side with its baselines on one machine:
#   1. record mode under wrk against pgbench's single-row insert on the same PostgreSQL;
#   2. finalize mode with real staging manifests against the upstream reference server (lance-core's
#      RestAdapter), closed loop and at a fixed arrival rate (open loop).
#   bench/run.sh [seconds per run] [concurrency ...]
# Needs the machine's PostgreSQL on 127.0.0.1:5432 (user postgres), pgbench, and wrk (installed with
# apt-get when missing). Writes bench/results.md.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-20}
shift || true
CONCURRENCY=${*:-16 64}
TABLES=1000
OPEN_RATE=${OPEN_RATE:-400}
THREADS=2
PORT=2433
MANAGEMENT=2434
DB=lvg_bench
KEY=bench-key
API=http://127.0.0.1:$PORT
OUT=bench/results.md

command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk; }
mvn -B -q package -DskipTests

psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
log=$(mktemp)
LVG_PORT=$PORT LVG_MANAGEMENT_PORT=$MANAGEMENT LVG_HOST=127.0.0.1 \
  LVG_DB_URL=postgresql://postgres@127.0.0.1:5432/$DB LVG_DB_POOL_SIZE=32 LVG_MANIFEST_MODE=record \
  LVG_BOOTSTRAP_TENANT=bench LVG_BOOTSTRAP_API_KEY=$KEY java -jar target/lance-version-gateway.jar >"$log" 2>&1 &
gateway=$!
trap 'kill $gateway 2>/dev/null || true' EXIT
for _ in $(seq 1 60); do curl -sf localhost:$MANAGEMENT/health/ready >/dev/null && break; sleep 1; done
curl -sf -o /dev/null -X POST "$API/v1/namespace/bench/create" -H "x-api-key: $KEY" -d '{}'

# The same schema the gateway writes, for pgbench.
psql -h 127.0.0.1 -U postgres -d $DB -qc "CREATE TABLE bench_versions (LIKE table_versions INCLUDING ALL)"

create_count() { # status code -> version/create requests answered with it so far
  curl -s localhost:$MANAGEMENT/metrics | awk -v code="$1" '
    /^lvg_http_server_requests_seconds_count/ && /route="\/v1\/table\/:id\/version\/create"/ && $0 ~ "status=\"" code "\"" {s += $2}
    END {printf "%d", s}'
}
non200_count() {
  curl -s localhost:$MANAGEMENT/metrics | awk '
    /^lvg_http_server_requests_seconds_count/ && /route="\/v1\/table\/:id\/version\/create"/ && !/status="200"/ {s += $2}
    END {printf "%d", s}'
}
cpu_seconds() { awk '{print ($14 + $15) / 100}' /proc/$gateway/stat; }

declare_tables() { # prefix
  local entries
  entries=$(python3 -c "import json,sys; print(json.dumps({'operations':[{'declare_table':{'id':['bench','$1'+str(i)]}} for i in range($TABLES)]}))")
  curl -sf -o /dev/null -X POST "$API/v1/table/batch-commit" -H "x-api-key: $KEY" -d "$entries"
}

rows=""
for c in $CONCURRENCY; do
  prefix="c${c}t"
  declare_tables "$prefix"
  ok_before=$(create_count 200); bad_before=$(non200_count); cpu_before=$(cpu_seconds)
  wrk_out=$(wrk -t$THREADS -c"$c" -d"${DURATION}s" -s bench/create_version.lua "$API" -- $TABLES $THREADS $KEY "$prefix")
  cpu_after=$(cpu_seconds); ok=$(( $(create_count 200) - ok_before )); bad=$(( $(non200_count) - bad_before ))
  rps=$(awk "BEGIN {printf \"%.0f\", $ok / $DURATION}")
  latency=$(echo "$wrk_out" | grep LVG-LATENCY-MS | sed 's/LVG-LATENCY-MS //')
  cores=$(awk "BEGIN {printf \"%.2f\", ($cpu_after - $cpu_before) / $DURATION}")
  rss=$(( $(awk '/VmRSS/ {print $2}' /proc/$gateway/status) / 1024 ))
  pg_tps=$(pgbench -h 127.0.0.1 -U postgres -M prepared -n -c "$c" -j $THREADS -T "$DURATION" -f bench/insert_version.sql $DB \
    | awk '/^tps/ {printf "%.0f", $3}')
  ratio=$(awk "BEGIN {printf \"%.2f\", $rps / $pg_tps}")
  echo "concurrency $c: gateway $rps commits/s ($ok x 200, $bad other), pgbench $pg_tps tps, ratio $ratio, latency $latency, gateway CPU $cores cores, RSS ${rss} MiB"
  rows+="| $c | $rps | $pg_tps | $ratio | $latency | $ok / $bad | $cores | $rss |"$'\n'
done

kill $gateway 2>/dev/null || true
wait $gateway 2>/dev/null || true

# Finalize mode against the reference server: the same load program drives both, in this order.
mvn -B -q test-compile
mvn -B -q dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/bench-classpath.txt >/dev/null
load() { # target, then closed-loop clients or "open RATE"
  psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
  local args=($TABLES 16 "$DURATION")
  [ "$2" = open ] && args=($TABLES 16 "$DURATION" "$3")
  [ "$2" != open ] && args=($TABLES "$2" "$DURATION")
  java --add-opens=java.base/java.nio=ALL-UNNAMED -cp "target/test-classes:target/classes:$(cat target/bench-classpath.txt)" \
    dev.lvg.bench.CommitLoad "$1" "postgresql://postgres@127.0.0.1:5432/$DB" "${args[@]}" 2>/dev/null | grep '^LVG-LOAD'
}
finalize_rows=""
for run in "16" "open $OPEN_RATE"; do
  for target in gateway reference; do
    line=$(load $target $run)
    echo "$line"
    field() { echo "$line" | tr ' ' '\n' | awk -F= -v k="$1" '$1 == k {print $2}'; }
    statuses=$(echo "$line" | sed -E 's/.*statuses=\{([^}]*)\}.*/\1/')
    finalize_rows+="| $target | $(field mode | tr '_' ' ') | $(field commits/s) | p50=$(field p50) p90=$(field p90) p99=$(field p99) p99.9=$(field p99.9) | $statuses |"$'\n'
  done
done

{
  echo "| connections | gateway commits/s | pgbench single-row commits/s | ratio | gateway latency (ms) | 200 / other | gateway CPU (cores) | gateway RSS (MiB) |"
  echo "|---|---|---|---|---|---|---|---|"
  printf "%s" "$rows"
  echo
  echo "| server (finalize, real staging manifests on local disk) | load | commits/s | latency (ms) | statuses |"
  echo "|---|---|---|---|---|"
  printf "%s" "$finalize_rows"
  echo
  echo "$(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB; PostgreSQL $(psql -h 127.0.0.1 -U postgres -Atc 'show server_version') with synchronous_commit=$(psql -h 127.0.0.1 -U postgres -Atc 'show synchronous_commit'); ${DURATION} s per run; wrk ($THREADS threads, closed loop), gateway, PostgreSQL and pgbench on the same machine; $TABLES tables, each request a fresh latest + 1 version (record mode), pool of 32 connections; $(date -u +%Y-%m-%d)."
} >"$OUT"
cat "$OUT"
