#!/usr/bin/env bash
# The gateway on Citus: a coordinator and two workers on loopback (PostgreSQL with the citus
# extension), and the gateway's integration suite against them: its migrations distribute the
# schema by tenant when they find the extension. CITUS_NODE=worker points the suite at the first
# worker instead of the coordinator (the schema is distributed through the coordinator first).
#   chaos/citus.sh [test pattern for -Dit.test]     (default: every integration test)
# Needs Citus installed into the machine's PostgreSQL (see the README's scaling section).
set -euo pipefail
cd "$(dirname "$0")/.."
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
if [ ! -f "$("$pgbin/pg_config" --pkglibdir)/citus.so" ]; then
  echo "citus is not installed in $("$pgbin/pg_config" --pkglibdir); see the README's scaling section" >&2
  exit 2
fi
as_pg() { if [ "$(id -u)" = 0 ]; then (cd / && runuser -u postgres -- "$@"); else "$@"; fi; }
PORTS=(${CITUS_PORTS:-5495 5496 5497})
work=$(mktemp -d /tmp/lvg-citus.XXXXXX)
[ "$(id -u)" = 0 ] && chown postgres "$work"
stop() {
  for port in "${PORTS[@]}"; do
    as_pg "$pgbin/pg_ctl" -D "$work/$port" -m immediate stop >/dev/null 2>&1 || true
  done
}
trap stop EXIT

for port in "${PORTS[@]}"; do
  as_pg "$pgbin/initdb" -D "$work/$port" -U postgres --auth=trust >/dev/null
  cat >>"$work/$port/postgresql.conf" <<CONF
port = $port
listen_addresses = '127.0.0.1'
unix_socket_directories = '$work'
shared_preload_libraries = 'citus'
max_connections = 400
max_prepared_transactions = 200
fsync = on
synchronous_commit = on
CONF
  as_pg "$pgbin/pg_ctl" -D "$work/$port" -l "$work/$port.log" -w -t 60 start >/dev/null
  as_pg psql -h "$work" -p "$port" -U postgres -q -c "CREATE DATABASE lvg" postgres
  as_pg psql -h "$work" -p "$port" -U postgres -q -c "CREATE EXTENSION citus" lvg
done
coordinator=${PORTS[0]}
as_pg psql -h "$work" -p "$coordinator" -U postgres -q -d lvg \
  -c "SELECT citus_set_coordinator_host('127.0.0.1', $coordinator)" >/dev/null
for port in "${PORTS[@]:1}"; do
  as_pg psql -h "$work" -p "$coordinator" -U postgres -q -d lvg \
    -c "SELECT citus_add_node('127.0.0.1', $port)" >/dev/null
done
echo "== Citus $(as_pg psql -h "$work" -p "$coordinator" -U postgres -d lvg -tAc \
  "SELECT extversion FROM pg_extension WHERE extname = 'citus'"): coordinator :$coordinator," \
  "workers ${PORTS[*]:1}"

export LVG_TEST_DB_URL="postgresql://postgres@127.0.0.1:$coordinator/lvg"
if [ "${CITUS_NODE:-coordinator}" = worker ]; then
  # Migrations run once, through the coordinator: start the gateway there once, then test on a
  # worker, where the gateways find the schema applied.
  mvn -B -q package -DskipTests -Dspotless.check.skip
  LVG_CONFIG= LVG_DB_URL=$LVG_TEST_DB_URL LVG_HOST=127.0.0.1 LVG_PORT=0 LVG_MANAGEMENT_PORT=0 \
    LVG_DATA_DIR="$work/gateway" java -jar target/lance-version-gateway.jar >"$work/gateway.log" 2>&1 &
  gateway=$!
  for _ in $(seq 1 120); do
    grep -q 'serving the API' "$work/gateway.log" && break
    kill -0 $gateway 2>/dev/null || { cat "$work/gateway.log"; exit 1; }
    sleep 0.5
  done
  kill $gateway; wait $gateway || true
  export LVG_TEST_DB_URL="postgresql://postgres@127.0.0.1:${PORTS[1]}/lvg"
  echo "== the suite connects to the worker :${PORTS[1]}"
fi
tests=${1:-}
if [ -n "$tests" ]; then
  mvn -B verify -Dspotless.check.skip=true -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false \
    -Dit.test="$tests"
else
  mvn -B verify -Dspotless.check.skip=true -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false
fi
echo "== how the gateway's tables are spread"
as_pg psql -h "$work" -p "$coordinator" -U postgres -d lvg -c \
  "SELECT table_name, citus_table_type, distribution_column, colocation_id, shard_count
   FROM citus_tables ORDER BY 1"
