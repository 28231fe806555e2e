#!/usr/bin/env bash
# One webhook endpoint's lag at a constant commit rate: a receiver on this machine registered
# before the load, the open loop's fresh workload (finalize mode) at RATE commits/s with a short
# warm-up, and FeedBench's lag report for the versions committed in the last 20 s.
#   bench/webhook-lag.sh RATE
# Needs the machine's PostgreSQL on 127.0.0.1:5432. Prints the LVG-FEED line and the deliveries.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=20
WARM_UP=${WARM_UP:-10}
TABLES=1000
DB=lvg_bench
ADMIN=bench-admin
. bench/lib.sh
build
rate=$1
start_gateway finalize LVG_ADMIN_API_KEY=$ADMIN LVG_ADMIN_LISTENER=api LVG_WEBHOOK_ALLOW_PRIVATE_TARGETS=true
java -cp "$CP" dev.lvg.bench.FeedBench lag "$API" $KEY $ADMIN bench "$DURATION" >target/bench-webhook-lag.txt 2>&1 &
watcher=$!
sleep 3
load $KEY "open:$rate" fresh >target/bench-webhook-load.txt
sleep 5
kill -TERM $watcher
wait $watcher || true
curl -s localhost:$MANAGEMENT/metrics | grep -E '^lvg_webhook_deliveries_total' >>target/bench-webhook-lag.txt
stop_server
grep -E 'LVG-FEED|deliveries' target/bench-webhook-lag.txt
