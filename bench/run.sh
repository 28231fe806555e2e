#!/usr/bin/env bash
# version/create throughput side by side with its baselines, on one machine, in one run:
#   1. pgbench: PostgreSQL's own durable single-row INSERT ... ON CONFLICT DO NOTHING RETURNING;
#   2. the gateway in record mode (wrk, closed loop, 1,000 tables, versions in order);
#   3. the gateway finalizing real staging manifests on local disk (LoadGenerator, closed loop);
#   4. the upstream reference server (lance-core's RestAdapter) on the same finalize workload;
#   then the gateway at half of its finalize saturation (open loop, each request version 1 of a
#   table of its own, so no request waits for another) for its latency there.
# Every server runs as a process of its own; CPU per request comes from /proc.
#   bench/run.sh [seconds per run] [connections ...]       (default: 20 s, 16 and 64)
# Needs the machine's PostgreSQL on 127.0.0.1:5432 (user postgres), pgbench, and wrk (installed
# with apt-get when missing). Writes its section of BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-20}
shift || true
CONCURRENCY=${*:-16 64}
# Every server process starts cold: on 2 cores its C2 compiler takes about half a core for the
# first 35-40 s of load (record mode, 64 connections: 15 s of CPU in the first 30 s, under a
# twentieth of a core after 40 s), so a shorter warm-up measures the compiler more than the server.
WARM_UP=${WARM_UP:-60}
TABLES=1000
DB=lvg_bench
OUT=target/bench-throughput.md
. bench/lib.sh

need wrk
build

# 1 + 2: record mode under wrk against pgbench, at each concurrency.
record_rows=""
for c in $CONCURRENCY; do
  start_gateway record
  bench_tables w m
  wrk -t2 -c"$c" -d"${WARM_UP}s" -s bench/create_version.lua "$API" -- $TABLES 2 $KEY w >/dev/null
  gw0=$(cpu_ticks $server); pg0=$(postgres_ticks)
  wrk_out=$(wrk -t2 -c"$c" -d"${DURATION}s" -s bench/create_version.lua "$API" -- $TABLES 2 $KEY m)
  gw1=$(cpu_ticks $server); pg1=$(postgres_ticks)
  metrics=$(curl -s localhost:$MANAGEMENT/metrics)
  ok=$(echo "$metrics" | awk '/^lvg_version_create_total/ && /outcome="created"/ {s += $2} END {printf "%d", s}')
  other=$(echo "$metrics" | awk '/^lvg_version_create_total/ && !/outcome="created"/ {s += $2} END {printf "%d", s}')
  batch=$(echo "$metrics" | awk '/^lvg_commit_batch_size_sum/ {s=$2} /^lvg_commit_batch_size_count/ {n=$2} END {printf "%.1f", s / n}')
  rss=$(rss_mib $server)
  stop_server
  rps=$(echo "$wrk_out" | awk '/^Requests\/sec/ {printf "%.0f", $2}')
  wrk_latency=$(echo "$wrk_out" | grep LVG-LATENCY-MS | sed 's/LVG-LATENCY-MS //')
  gw_ms=$(awk "BEGIN {printf \"%.3f\", ($gw1 - $gw0) * 10 / ($rps * $DURATION)}")
  pg_ms=$(awk "BEGIN {printf \"%.3f\", ($pg1 - $pg0) * 10 / ($rps * $DURATION)}")

  fresh_database
  # The gateway's table_versions, as its migrations leave it.
  psql -h 127.0.0.1 -U postgres -d $DB -qf - <<'SQL'
CREATE TABLE bench_versions (tenant_id BIGINT NOT NULL, table_id BIGINT NOT NULL, branch TEXT NOT NULL,
  version BIGINT NOT NULL, manifest_path TEXT NOT NULL, requested_path TEXT NOT NULL, manifest_size BIGINT,
  e_tag TEXT, naming_scheme TEXT, metadata JSONB, transaction_id UUID NOT NULL, timestamp_millis BIGINT NOT NULL,
  starts_chain BOOLEAN, PRIMARY KEY (tenant_id, table_id, branch, version));
CREATE UNIQUE INDEX bench_versions_one_chain_start ON bench_versions (tenant_id, table_id, branch) WHERE starts_chain;
SQL
  pgbench -h 127.0.0.1 -U postgres -M prepared -n -c "$c" -j 2 -T "$WARM_UP" -f bench/insert_version.sql $DB >/dev/null
  pg0=$(postgres_ticks)
  pg_out=$(pgbench -h 127.0.0.1 -U postgres -M prepared -n -c "$c" -j 2 -T "$DURATION" -f bench/insert_version.sql $DB)
  pg1=$(postgres_ticks)
  pg_tps=$(echo "$pg_out" | awk '/^tps/ {printf "%.0f", $3}')
  pgbench_ms=$(awk "BEGIN {printf \"%.3f\", ($pg1 - $pg0) * 10 / ($pg_tps * $DURATION)}")
  ratio=$(awk "BEGIN {printf \"%.2f\", $rps / $pg_tps}")
  echo "record c=$c: gateway $rps/s, pgbench $pg_tps tps, ratio $ratio, batch $batch, $wrk_latency"
  record_rows+="| $c | $rps | $pg_tps | **$ratio** | $wrk_latency | $ok / $other | $batch | $gw_ms | $pg_ms (pgbench: $pgbench_ms) | $rss |"$'\n'
done

# 3 + 4: finalize with real staging manifests, the gateway and the reference server.
finalize_rows=""
saturation=0
for c in $CONCURRENCY; do
  start_gateway finalize
  gw=$(load $KEY "closed:$c" finalize)
  stop_server
  start_reference
  ref=$(load - "closed:$c" finalize)
  stop_server
  ratio=$(awk "BEGIN {printf \"%.2f\", $(field "$gw" goodput/s) / $(field "$ref" goodput/s)}")
  echo "finalize c=$c: gateway $(field "$gw" goodput/s)/s, reference $(field "$ref" goodput/s)/s, ratio $ratio"
  finalize_rows+="| $c | gateway | $(field "$gw" goodput/s) | **$ratio** | $(latency "$gw") | $(field "$gw" statuses) | $(field "$gw" server_cpu_ms/req) | $(field "$gw" postgres_cpu_ms/req) | $(field "$gw" server_rss_mib) |"$'\n'
  finalize_rows+="| $c | reference | $(field "$ref" goodput/s) | 1 | $(latency "$ref") | $(field "$ref" statuses) | $(field "$ref" server_cpu_ms/req) | - | $(field "$ref" server_rss_mib) |"$'\n'
  saturation=$(field "$gw" goodput/s)
done

# The gateway at half of its finalize saturation (the last concurrency's), open loop.
half=$(( saturation / 2 ))
start_gateway finalize
gw=$(load $KEY "open:$half" fresh)
stop_server
echo "finalize open ${half}/s: $(latency "$gw")"
half_row="| gateway, finalize | open loop at $half/s (half of $saturation/s), each request version 1 of a new table | $(field "$gw" goodput/s) | $(latency "$gw") | $(field "$gw" statuses) | $(field "$gw" server_cpu_ms/req) |"

{
  echo "## Throughput"
  echo
  echo "Produced by \`bench/run.sh $DURATION $CONCURRENCY\` on $(date -u +%Y-%m-%d): $(machine)."
  echo "Each run: ${WARM_UP} s of the same load unrecorded, then ${DURATION} s recorded; $TABLES tables, each"
  echo "request a fresh latest + 1 version. CPU per request is the process's CPU time over the recorded"
  echo "run divided by its requests (gateway: the jar's process; PostgreSQL: the postmaster and all backends)."
  echo "What each side makes durable before it answers: pgbench and the gateway wait for PostgreSQL's"
  echo "WAL flush; finalizing, the gateway also makes each final manifest and its name durable (one"
  echo "\`syncfs\` for a group of them) before the row commits, while the reference server calls no"
  echo "\`fsync\`, \`fdatasync\` or \`syncfs\` (\`strace -f\` of it under this load), so its"
  echo "manifests can be lost with the page cache."
  echo
  echo "### Record mode against PostgreSQL's own single-row insert"
  echo
  echo "| connections | gateway commits/s | pgbench single-row tps | ratio | gateway latency (ms) | created / other | requests per statement | gateway CPU ms/commit | PostgreSQL CPU ms/commit | gateway RSS (MiB) |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  printf "%s" "$record_rows"
  echo
  echo "### Finalizing real staging manifests on local disk, against the reference server"
  echo
  echo "| connections | server | commits/s | ratio | latency (ms) | statuses | server CPU ms/commit | PostgreSQL CPU ms/commit | RSS (MiB) |"
  echo "|---|---|---|---|---|---|---|---|---|"
  printf "%s" "$finalize_rows"
  echo
  echo "| server | load | commits/s | latency (ms) | statuses | server CPU ms/commit |"
  echo "|---|---|---|---|---|---|"
  echo "$half_row"
} >"$OUT"
publish throughput "$OUT"
cat "$OUT"
