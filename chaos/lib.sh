# Shared by chaos/faults.sh and chaos/soak.sh: a PostgreSQL of their own, a gateway finalizing on
# local disk, the faults, and the audit of a run. Sourced, not run.

jar=$PWD/target/lance-version-gateway.jar
[ -f "$jar" ] || { echo "build the jar first: mvn -B -DskipTests package"; exit 2; }
. chaos/postgres.sh
work=$(mktemp -d /tmp/lvg-chaos.XXXXXX)
chmod 755 "$work"
pgport=${LVG_CHAOS_PG_PORT:-5441}
api=${LVG_CHAOS_PORT:-2433}
mgmt=$((api + 1))
gateway=""

pg_start() {
  as_pg "$pgbin/pg_ctl" -D "$work/pg" -l "$work/sock/pg.log" -w -t 60 \
    -o "-p $pgport -k $work/sock -c listen_addresses=127.0.0.1 -c max_connections=100" start >/dev/null
}
pg_postmaster() { head -1 "$work/pg/postmaster.pid"; }
db_url() { echo "postgresql://postgres@127.0.0.1:$pgport/$1"; }

# A database and a directory for run $1.
run_prepare() {
  mkdir -p "$work/$1"
  as_pg psql -h "$work/sock" -p "$pgport" -U postgres -q -c "CREATE DATABASE \"$1\"" postgres
}

gateway_start() { # run
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

chaos_cleanup() {
  [ -n "$gateway" ] && kill -KILL $gateway 2>/dev/null || true
  find "$work" -name _versions -type d -exec chattr -i {} + 2>/dev/null || true
  as_pg "$pgbin/pg_ctl" -D "$work/pg" -m immediate stop >/dev/null 2>&1 || true
  [ -n "${LVG_CHAOS_KEEP:-}" ] || rm -rf "$work"
}
trap chaos_cleanup EXIT

mkdir -p "$work/pg" "$work/sock"
[ "$(id -u)" = 0 ] && chown postgres "$work/pg" "$work/sock"
as_pg "$pgbin/initdb" -D "$work/pg" -U postgres --auth=trust >/dev/null
pg_start

inject() { # fault run
  case $1 in
    pg-kill)
      kill -KILL "$(pg_postmaster)"; sleep 2
      # The killed postmaster's children exit on their own; start once its port is free.
      for _ in $(seq 1 50); do pg_start 2>/dev/null && return 0; sleep 0.2; done; return 1 ;;
    pg-stop)
      as_pg "$pgbin/pg_ctl" -D "$work/pg" -m fast -w stop >/dev/null; sleep 12; pg_start ;;
    gateway-kill)
      kill -KILL $gateway; wait $gateway 2>/dev/null || true; gateway_start "$2" ;;
    storage)
      find "$work/$2/tables" -name _versions -type d -exec chattr +i {} +
      sleep 4
      find "$work/$2/tables" -name _versions -type d -exec chattr -i {} + ;;
    slow-db)
      psql "$(db_url "$2")" -q -c "BEGIN; LOCK TABLE table_versions IN ACCESS EXCLUSIVE MODE;
        SELECT pg_sleep(8); COMMIT;" >/dev/null ;;
    *) echo "unknown fault $1"; return 2 ;;
  esac
}

# Audits run $1 (its ledger against its database and storage) and its gateway's log; extra
# arguments go to chaos/load.py check. Answers non-zero when anything is wrong.
audit() { # run max-warnings check-args...
  local run=$1 max_warnings=$2 result=0
  shift 2
  python3 chaos/load.py check --ledger "$work/$run/ledger" --db "$(db_url "$run")" "$@" || result=1
  local errors warnings
  errors=$(grep -c " ERROR " "$work/$run/gateway.log" || true)
  warnings=$(grep -c " WARN " "$work/$run/gateway.log" || true)
  echo "gateway log: $errors errors, $warnings warnings, $(wc -l <"$work/$run/gateway.log") lines"
  if [ "$errors" -gt 0 ] || [ "$warnings" -gt "$max_warnings" ]; then
    grep -E " (ERROR|WARN) " "$work/$run/gateway.log" | cut -c1-300 | head -20; result=1
  fi
  return $result
}
