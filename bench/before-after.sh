#!/usr/bin/env bash
# This checkout against an earlier revision, side by side, on the commit path: record mode under wrk
# and finalize mode under the LoadGenerator (closed loop), each revision's jar alternating run by
# run (before, after, before, after, ...) so that a drift of the machine falls on both alike.
#   bench/before-after.sh <revision> [runs] [seconds] [connections]   (default: 3 runs, 20 s, 64)
# The earlier revision is built in a worktree under target/; this checkout is built as it is.
# Needs the machine's PostgreSQL on 127.0.0.1:5432 (user postgres) and wrk (installed with apt-get
# when missing). Writes its section of BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
BEFORE=${1:?"usage: bench/before-after.sh <revision> [runs] [seconds] [connections]"}
RUNS=${2:-3}
DURATION=${3:-20}
CONNECTIONS=${4:-64}
WARM_UP=${WARM_UP:-45}
TABLES=1000
DB=lvg_bench
OUT=target/bench-before-after.md
. bench/lib.sh

need wrk
build
AFTER_JAR=target/lance-version-gateway.jar
AFTER_REV=$(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo "+changes")
BEFORE_REV=$(git rev-parse --short "$BEFORE")
tree=target/before-tree
git worktree remove --force "$tree" 2>/dev/null || rm -rf "$tree"
git worktree add -q --detach "$tree" "$BEFORE"
(cd "$tree" && mvn -B -q package -DskipTests -Dspotless.check.skip)
BEFORE_JAR=$tree/target/lance-version-gateway.jar

record() { # jar -> commits/s and p99 (ms) of record mode under wrk
  GATEWAY_JAR=$1 start_gateway record
  bench_tables w m
  wrk -t2 -c"$CONNECTIONS" -d"${WARM_UP}s" -s bench/create_version.lua "$API" -- $TABLES 2 $KEY w >/dev/null
  local out
  out=$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" -s bench/create_version.lua "$API" -- $TABLES 2 $KEY m)
  stop_server
  echo "$(echo "$out" | awk '/^Requests\/sec/ {printf "%.0f", $2}') $(echo "$out" | grep LVG-LATENCY-MS | tr ' ' '\n' | awk -F= '$1 == "p99" {print $2}')"
}

finalize() { # jar -> commits/s and p99 (ms) of finalize mode, closed loop
  GATEWAY_JAR=$1 start_gateway finalize
  local line
  line=$(load $KEY "closed:$CONNECTIONS" finalize)
  stop_server
  echo "$(field "$line" goodput/s) $(field "$line" p99)"
}

rows=""
declare -A sums
for run in $(seq 1 "$RUNS"); do
  for side in before after; do
    jar=$BEFORE_JAR
    [ $side = after ] && jar=$AFTER_JAR
    read -r rec rec_p99 <<<"$(record "$jar")"
    read -r fin fin_p99 <<<"$(finalize "$jar")"
    echo "run $run $side: record $rec/s (p99 $rec_p99 ms), finalize $fin/s (p99 $fin_p99 ms)"
    rows+="| $run | $side | $rec | $rec_p99 | $fin | $fin_p99 |"$'\n'
    sums[$side-rec]=$(awk "BEGIN {print ${sums[$side-rec]:-0} + $rec}")
    sums[$side-fin]=$(awk "BEGIN {print ${sums[$side-fin]:-0} + $fin}")
  done
done
git worktree remove --force "$tree"

ratio_rec=$(awk "BEGIN {printf \"%.3f\", ${sums[after-rec]} / ${sums[before-rec]}}")
ratio_fin=$(awk "BEGIN {printf \"%.3f\", ${sums[after-fin]} / ${sums[before-fin]}}")
{
  echo "## Before and after"
  echo
  echo "Produced by \`bench/before-after.sh $BEFORE $RUNS $DURATION $CONNECTIONS\` on $(date -u +%Y-%m-%d): $(machine)."
  echo "Before is $BEFORE_REV, after is $AFTER_REV; the two jars alternate run by run. Each run: ${WARM_UP} s"
  echo "of the same load unrecorded, then ${DURATION} s recorded, $CONNECTIONS connections, $TABLES tables."
  echo "Record mode under wrk (p99 as wrk measures it), finalize mode with real staging manifests"
  echo "on local disk under the LoadGenerator (closed loop)."
  echo
  echo "| run | jar | record commits/s | record p99 (ms) | finalize commits/s | finalize p99 (ms) |"
  echo "|---|---|---|---|---|---|"
  printf "%s" "$rows"
  echo
  echo "After over before, the sum of the runs: record **$ratio_rec**, finalize **$ratio_fin**."
} >"$OUT"
publish before-after "$OUT"
cat "$OUT"
