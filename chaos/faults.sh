#!/usr/bin/env bash
# Fault runs. Each starts a gateway (finalizing on local disk) on a PostgreSQL of its own, drives
# commit load through it with chaos/load.py while one fault strikes, then audits every
# acknowledged commit against the database and the storage (chaos/load.py check).
#
#   chaos/faults.sh [-s SECONDS] [FAULT ...]
#
# Faults (default: all):
#   pg-kill       PostgreSQL's postmaster killed with SIGKILL, restarted 2 s later
#   pg-stop       PostgreSQL stopped for 12 s, longer than a client waits for one answer
#   gateway-kill  the gateway killed with SIGKILL mid-load and started again
#   storage       the storage refuses to create files (chattr +i on every _versions/) for 4 s
#   slow-db       a lock held on table_versions for 8 s, past the statement timeout
#
# A run fails when any answer is not 200, 409 or 503, when an acknowledged commit is missing or
# different in the database or on storage, when a committed row lacks its manifest, when commits
# do not resume within 10 s of the fault's end, or when the gateway logged an ERROR or more than
# a handful of warnings. Needs the jar (mvn -DskipTests package), python3, psql and a PostgreSQL
# install (/usr/lib/postgresql/*/bin); as root, PostgreSQL runs as the postgres user.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=24
if [ "${1:-}" = "-s" ]; then seconds=$2; shift 2; fi
faults=("$@")
[ ${#faults[@]} -gt 0 ] || faults=(pg-kill pg-stop gateway-kill storage slow-db)

source chaos/lib.sh

failed=0
for fault in "${faults[@]}"; do
  echo "== fault: $fault ($seconds s of load)"
  run_prepare "$fault"
  gateway_start "$fault"
  python3 chaos/load.py run --url "http://127.0.0.1:$api" --key chaos-key --tables 16 \
    --seconds "$seconds" --ledger "$work/$fault/ledger" >"$work/$fault/load.out" 2>&1 &
  load=$!
  sleep $((seconds / 4))
  inject "$fault" "$fault"
  ended=$(date +%s.%N)
  result=0
  wait $load || result=1
  cat "$work/$fault/load.out"
  gateway_stop
  audit "$fault" 12 --recovered-after "$ended" --within 10 || result=1
  [ $result = 0 ] && echo "-- $fault: PASS" || { echo "-- $fault: FAIL"; failed=1; }
done
exit $failed
