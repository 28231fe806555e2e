#!/usr/bin/env bash
# What rights below the tenant cost on the commit path: record-mode commits/s under wrk with a key
# whose role holds 10,000 grants (one of them writing the benchmark's namespace) side by side with
# the tenant-wide bootstrap key, on one gateway, the two keys alternating run by run (wide, scoped,
# wide, scoped, ...) so that a drift of the machine falls on both alike. Each run commits to tables
# of its own.
#   bench/grants.sh [runs] [seconds] [connections] [grants]   (default: 3 runs, 20 s, 64, 10000)
# Needs the machine's PostgreSQL on 127.0.0.1:5432 (user postgres) and wrk (installed with apt-get
# when missing). Writes its section of BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-4}
DURATION=${2:-20}
CONNECTIONS=${3:-64}
GRANTS=${4:-10000}
WARM_UP=${WARM_UP:-20}
TABLES=1000
DB=lvg_bench
OUT=target/bench-grants.md
ADMIN_PORT=2435
. bench/lib.sh

need wrk
build
start_gateway record LVG_ADMIN_API_KEY=bench-admin LVG_ADMIN_PORT=$ADMIN_PORT
curl -sf -o /dev/null -X POST "$API/v1/namespace/bench/create" -H "x-api-key: $KEY" -d '{}'
# The role's grants: write on the benchmark's namespace, and GRANTS - 1 others on namespaces and
# tables elsewhere, made in the database at once (the admin API makes one per request).
psql -h 127.0.0.1 -U postgres -d $DB -qc "
  INSERT INTO grants (tenant_id, grant_id, grantee, privilege, path, on_table)
  SELECT t.id, 'g_bench_' || i, 'role:many', CASE WHEN i % 3 = 0 THEN 'read' ELSE 'manage' END,
         CASE WHEN i % 2 = 0 THEN ARRAY['team_' || i] ELSE ARRAY['team_' || (i / 10), 'table_' || i] END,
         i % 2 = 1
  FROM tenants t, generate_series(1, $GRANTS - 1) i WHERE t.name = 'bench'"
curl -sf -o /dev/null -X POST "localhost:$ADMIN_PORT/admin/v1/tenants/bench/grants" -H 'x-api-key: bench-admin' \
  -d '{"grantee":"role:many","right":"write","namespace":["bench"]}'
SCOPED=$(curl -sf -X POST "localhost:$ADMIN_PORT/admin/v1/tenants/bench/keys" -H 'x-api-key: bench-admin' \
  -d '{"roles":["many"],"description":"bench"}' | python3 -c 'import json, sys; print(json.load(sys.stdin)["api_key"])')
held=$(curl -sf "$API/v1/whoami" -H "x-api-key: $SCOPED" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["grants"]))')
[ "$held" = "$GRANTS" ] || { echo "the scoped key holds $held grants, not $GRANTS"; exit 1; }

ticks() { awk '{print $14 + $15}' "/proc/$server/stat"; }

commits() { # key prefix connections -> commits/s, p99 (ms) and the gateway's CPU ms a commit
  declare_tables "$2w"
  declare_tables "$2m"
  wrk -t2 -c"$3" -d"${WARM_UP}s" -s bench/create_version.lua "$API" -- $TABLES 2 "$1" "$2w" >/dev/null
  local out before spent requests
  before=$(ticks)
  out=$(wrk -t2 -c"$3" -d"${DURATION}s" -s bench/create_version.lua "$API" -- $TABLES 2 "$1" "$2m")
  spent=$(($(ticks) - before))
  requests=$(echo "$out" | awk '/requests in/ {print $1}')
  echo "$(echo "$out" | awk '/^Requests\/sec/ {printf "%.0f", $2}')" \
    "$(echo "$out" | grep LVG-LATENCY-MS | tr ' ' '\n' | awk -F= '$1 == "p99" {print $2}')" \
    "$(awk "BEGIN {printf \"%.4f\", $spent * 1000 / $(getconf CLK_TCK) / $requests}")"
}

declare -A rows sums cpu
runs() { # connections -> RUNS runs of each key in the order wide, scoped, scoped, wide, ...
  local run side key order rate p99 ms
  for run in $(seq 1 "$RUNS"); do
    order="wide scoped"
    [ $((run % 2)) = 0 ] && order="scoped wide"
    for side in $order; do
      key=$KEY
      [ $side = scoped ] && key=$SCOPED
      read -r rate p99 ms <<<"$(commits "$key" "c$1r$run$side" "$1")"
      echo "$1 connections, run $run $side: $rate commits/s (p99 $p99 ms), $ms ms of gateway CPU a commit"
      rows[$1]+="| $run | $side | $rate | $p99 | $ms |"$'\n'
      sums[$1$side]=$(awk "BEGIN {print ${sums[$1$side]:-0} + $rate}")
      cpu[$1$side]=$(awk "BEGIN {print ${cpu[$1$side]:-0} + $ms}")
    done
  done
}

# Saturated, then below saturation (8 connections), where the CPU a commit takes shows what a
# saturated machine's throughput shows only through its noise.
runs "$CONNECTIONS"
runs 8
stop_server
ratio=$(awk "BEGIN {printf \"%.3f\", ${sums[${CONNECTIONS}scoped]} / ${sums[${CONNECTIONS}wide]}}")
cost=$(awk "BEGIN {printf \"%.1f\", (1 - ${sums[${CONNECTIONS}scoped]} / ${sums[${CONNECTIONS}wide]}) * 100}")
cpu_ratio=$(awk "BEGIN {printf \"%.3f\", ${cpu[8scoped]} / ${cpu[8wide]}}")
# The check alone, against the CPU a wide key's commit takes at 8 connections (their mean).
check=$(java -cp "$CP" dev.lvg.bench.AccessCost "$GRANTS" | grep '^LVG-ACCESS')
check_ns=$(field "$check" ns_per_check)
share=$(awk "BEGIN {printf \"%.2f\", $check_ns / (${cpu[8wide]} / $RUNS * 1000000) * 100}")
spread=$(printf "%s" "${rows[$CONNECTIONS]}" | awk -F'|' '$3 ~ /wide/ {r = $4 + 0; if (min == "" || r < min) min = r; if (r > max) max = r} END {printf "%.1f", (max - min) / min * 100}')
{
  echo "## Rights below the tenant"
  echo
  echo "Produced by \`bench/grants.sh $RUNS $DURATION $CONNECTIONS $GRANTS\` on $(date -u +%Y-%m-%d): $(machine)."
  echo "Record mode under wrk on one gateway, $CONNECTIONS connections, $TABLES fresh tables a run: the"
  echo "tenant-wide bootstrap key (wide) against a key whose role holds $GRANTS grants, one of them"
  echo "writing the benchmark's namespace (scoped), in the order wide, scoped, scoped, wide, ... Each run:"
  echo "${WARM_UP} s of the same load unrecorded, then ${DURATION} s recorded."
  echo
  echo "| run | key | commits/s | p99 (ms) | gateway CPU ms/commit |"
  echo "|---|---|---|---|---|"
  printf "%s" "${rows[$CONNECTIONS]}"
  echo
  echo "Scoped over wide, the sum of the runs: **$ratio** (a cost of $cost%)."
  echo
  echo "The gateway's CPU per commit (from \`/proc\`) below saturation: 8 connections, ${WARM_UP} s unrecorded"
  echo "then ${DURATION} s recorded, in the same order:"
  echo
  echo "| run | key | commits/s | p99 (ms) | gateway CPU ms/commit |"
  echo "|---|---|---|---|---|"
  printf "%s" "${rows[8]}"
  echo
  echo "Scoped over wide, CPU per commit summed over the runs: **$cpu_ratio**."
  echo
  echo "The check alone (\`AccessCost\`, test sources: the scoped key's access asked whether it may write a"
  echo "table of the benchmark's namespace, as the check in front of \`version/create\` asks, timed in one"
  echo "JVM): **$check_ns ns** a commit, $share% of the gateway CPU a wide key's commit took at 8 connections."
  echo "Runs of the same (wide) key at $CONNECTIONS connections differed by up to $spread% here."
} >"$OUT"
publish grants "$OUT"
cat "$OUT"
