#!/usr/bin/env bash
# What reading each staging manifest's Lance transaction costs finalization: the gateway at a git
# ref from before the check (A) and the working tree's gateway (B), finalizing real staging
# manifests on local disk (LoadGenerator, closed loop), alternated A B A B ... so drift in the
# machine falls on both. Every manifest names a transaction of its own, as Lance's do.
#   bench/transaction-check.sh <ref before> [rounds] [seconds per run] [connections]
#                                            (default: 3 rounds, 20 s, 64 connections)
# Needs the machine's PostgreSQL on 127.0.0.1:5432. Writes its section of BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
BEFORE=${1:?the git ref of the gateway before the check}
ROUNDS=${2:-3}
DURATION=${3:-20}
CONNECTIONS=${4:-64}
WARM_UP=${WARM_UP:-40}
TABLES=1000
DB=lvg_bench_txn
OUT=target/bench-transaction-check.md
. bench/lib.sh

build
before=$(mktemp -d)
git worktree add -q --detach "$before/src" "$BEFORE"
(cd "$before/src" && mvn -B -q package -DskipTests -Dspotless.check.skip)
cp "$before/src/target/lance-version-gateway.jar" "$before/gateway.jar"
git worktree remove --force "$before/src"

rows=""
a_sum=0
b_sum=0
for round in $(seq 1 "$ROUNDS"); do
  for side in A B; do
    jar=target/lance-version-gateway.jar
    [ "$side" = A ] && jar="$before/gateway.jar"
    GATEWAY_JAR=$jar start_gateway finalize
    result=$(load $KEY "closed:$CONNECTIONS" finalize)
    stop_server
    goodput=$(field "$result" goodput/s)
    echo "round $round $side: $goodput commits/s, $(latency "$result")"
    rows+="| $round | $side | $goodput | $(latency "$result") | $(field "$result" statuses) | $(field "$result" server_cpu_ms/req) |"$'\n'
    if [ "$side" = A ]; then a_sum=$(awk "BEGIN {print $a_sum + $goodput}"); else b_sum=$(awk "BEGIN {print $b_sum + $goodput}"); fi
  done
done
ratio=$(awk "BEGIN {printf \"%.3f\", $b_sum / $a_sum}")
{
  echo "## Reading each manifest's transaction"
  echo
  echo "Produced by \`bench/transaction-check.sh $BEFORE $ROUNDS $DURATION $CONNECTIONS\` on $(date -u +%Y-%m-%d): $(machine)."
  echo "A is the gateway at \`$BEFORE\`, which reads no manifest; B reads each staging manifest's"
  echo "transaction before the commit and keeps it once per branch. Finalize mode on local disk, a closed"
  echo "loop of $CONNECTIONS writers over $TABLES tables, each staging manifest about 400 bytes naming a"
  echo "transaction of its own; runs alternate so that drift in the machine falls on both."
  echo
  echo "| round | gateway | commits/s | latency (ms) | statuses | server CPU ms/commit |"
  echo "|---|---|---|---|---|---|"
  printf "%s" "$rows"
  echo
  echo "B / A, commits/s summed over the rounds: **$ratio**."
} >"$OUT"
publish transaction-check "$OUT"
cat "$OUT"
