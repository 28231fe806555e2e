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

jar=$PWD/target/lance-version-gateway.jar
[ -f "$jar" ] || { echo "build the jar first: mvn -B -DskipTests package"; exit 2; }
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
work=$(mktemp -d /tmp/lvg-chaos.XXXXXX)
chmod 755 "$work"
pgport=${LVG_CHAOS_PG_PORT:-5441}
api=${LVG_CHAOS_PORT:-2433}
mgmt=$((api + 1))
gateway=""

as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
pg_start() {
  as_pg "$pgbin/pg_ctl" -D "$work/pg" -l "$work/sock/pg.log" -w -t 60 \
    -o "-p $pgport -k $work/sock -c listen_addresses=127.0.0.1 -c max_connections=100" start >/dev/null
}
pg_postmaster() { head -1 "$work/pg/postmaster.pid"; }
db_url() { echo "postgresql://postgres@127.0.0.1:$pgport/$1"; }

gateway_start() { # name
  LVG_DB_URL=$(db_url "$1") LVG_DATA_DIR="$work/$1" LVG_STORAGE_ROOT="file://$work/$1/tables" \
    LVG_HOST=127.0.0.1 LVG_PORT=$api LVG_MANAGEMENT_PORT=$mgmt \
    LVG_BOOTSTRAP_TENANT=chaos LVG_BOOTSTRAP_API_KEY=chaos-key \
    LVG_DB_STATEMENT_TIMEOUT_MS=3000 LVG_SHUTDOWN_GRACE=10 \
    java -Xmx512m -jar "$jar" >>"$work/$1/gateway.log" 2>&1 &
  gateway=$!
  for _ in $(seq 1 120); do
    curl -sf "localhost:$mgmt/health/ready" >/dev/null && return 0
    kill -0 $gateway 2>/dev/null || { cat "$work/$1/gateway.log"; return 1; }
    sleep 0.5
  done
  return 1
}
gateway_stop() { kill -TERM $gateway 2>/dev/null || true; wait $gateway 2>/dev/null || true; }

cleanup() {
  [ -n "$gateway" ] && kill -KILL $gateway 2>/dev/null || true
  find "$work" -name _versions -type d -exec chattr -i {} + 2>/dev/null || true
  as_pg "$pgbin/pg_ctl" -D "$work/pg" -m immediate stop >/dev/null 2>&1 || true
  [ -n "${LVG_CHAOS_KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work/pg" "$work/sock"
[ "$(id -u)" = 0 ] && chown postgres "$work/pg" "$work/sock"
as_pg "$pgbin/initdb" -D "$work/pg" -U postgres --auth=trust >/dev/null
pg_start

inject() { # fault
  case $1 in
    pg-kill)
      kill -KILL "$(pg_postmaster)"; sleep 2
      # The killed postmaster's children exit on their own; start once its port is free.
      for _ in $(seq 1 50); do pg_start 2>/dev/null && return 0; sleep 0.2; done; return 1 ;;
    pg-stop)
      as_pg "$pgbin/pg_ctl" -D "$work/pg" -m fast -w stop >/dev/null; sleep 12; pg_start ;;
    gateway-kill)
      kill -KILL $gateway; wait $gateway 2>/dev/null || true; gateway_start gateway-kill ;;
    storage)
      find "$work/storage/tables" -name _versions -type d -exec chattr +i {} +
      sleep 4
      find "$work/storage/tables" -name _versions -type d -exec chattr -i {} + ;;
    slow-db)
      psql "$(db_url slow-db)" -q -c "BEGIN; LOCK TABLE table_versions IN ACCESS EXCLUSIVE MODE;
        SELECT pg_sleep(8); COMMIT;" >/dev/null ;;
    *) echo "unknown fault $1"; return 2 ;;
  esac
}

failed=0
for fault in "${faults[@]}"; do
  echo "== fault: $fault ($seconds s of load)"
  mkdir -p "$work/$fault"
  as_pg psql -h "$work/sock" -p $pgport -U postgres -q -c "CREATE DATABASE \"$fault\"" postgres
  gateway_start "$fault"
  python3 chaos/load.py run --url "http://127.0.0.1:$api" --key chaos-key --tables 16 \
    --seconds "$seconds" --ledger "$work/$fault/ledger" >"$work/$fault/load.out" 2>&1 &
  load=$!
  sleep $((seconds / 4))
  inject "$fault"
  ended=$(date +%s.%N)
  result=0
  wait $load || result=1
  cat "$work/$fault/load.out"
  gateway_stop
  python3 chaos/load.py check --ledger "$work/$fault/ledger" --db "$(db_url "$fault")" \
    --recovered-after "$ended" --within 10 || result=1
  errors=$(grep -c " ERROR " "$work/$fault/gateway.log" || true)
  warnings=$(grep -c " WARN " "$work/$fault/gateway.log" || true)
  echo "gateway log: $errors errors, $warnings warnings, $(wc -l <"$work/$fault/gateway.log") lines"
  if [ "$errors" -gt 0 ] || [ "$warnings" -gt 12 ]; then
    grep -E " (ERROR|WARN) " "$work/$fault/gateway.log" | head -20; result=1
  fi
  [ $result = 0 ] && echo "-- $fault: PASS" || { echo "-- $fault: FAIL"; failed=1; }
done
exit $failed
