#!/usr/bin/env bash
# The soak: minutes of mixed load (writers committing versions of 32 tables, readers describing
# them and listing their versions) through one gateway while faults strike on a schedule, in turn:
# PostgreSQL killed, a lock held past the statement timeout, storage refusing writes, the gateway
# killed and restarted, PostgreSQL stopped for 12 s. Then the audit of chaos/load.py check: every
# acknowledged commit in the database with its final manifest, no version with two winners, no
# answer but 200/409/503 (reads: 200/404/503), commits resumed within 10 s of each fault's end.
#
#   chaos/soak.sh [MINUTES]     (default 5; one fault every 40 s)
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-5}
source chaos/lib.sh

run=soak
run_prepare $run
gateway_start $run
seconds=$((minutes * 60))
echo "== soak: $minutes min of mixed load, a fault every 40 s"
python3 chaos/load.py run --url "http://127.0.0.1:$api" --key chaos-key --tables 32 --readers 8 \
  --seconds "$seconds" --ledger "$work/$run/ledger" >"$work/$run/load.out" 2>&1 &
load=$!
start=$(date +%s)
faults=(pg-kill slow-db storage gateway-kill pg-stop)
ends=()
i=0
while true; do
  sleep 20
  [ $(($(date +%s) - start + 40)) -lt "$seconds" ] || break
  fault=${faults[$((i % ${#faults[@]}))]}
  echo "$(date +%T) $fault"
  inject "$fault" $run
  ends+=(--recovered-after "$(date +%s.%N)")
  i=$((i + 1))
  sleep 20
done
result=0
wait $load || result=1
cat "$work/$run/load.out"
gateway_stop
echo "$i faults struck"
audit $run $((4 * i + 4)) "${ends[@]}" --within 10 || result=1
[ $result = 0 ] && echo "-- soak: PASS" || echo "-- soak: FAIL"
exit $result
