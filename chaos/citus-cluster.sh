# A Citus cluster on loopback for chaos/citus.sh and bench/citus.sh: a coordinator and two workers
# (PostgreSQL with the citus extension, synchronous commits), database lvg on each, stopped when the
# sourcing script exits. Sets CITUS_URL (the coordinator's) and CITUS_WORKER_URL (the first worker's).
. chaos/postgres.sh
if [ ! -f "$("$pgbin/pg_config" --pkglibdir)/citus.so" ]; then
  echo "citus is not installed in $("$pgbin/pg_config" --pkglibdir); see docs/deployment.md, Citus" >&2
  exit 2
fi
PORTS=(${CITUS_PORTS:-5495 5496 5497})
work=$(mktemp -d /tmp/lvg-citus.XXXXXX)
[ "$(id -u)" = 0 ] && chown postgres "$work"
stop() {
  # A server the sourcing script started (bench/lib.sh's) goes too: this trap replaces its own.
  if [ -n "${server:-}" ]; then kill "$server" 2>/dev/null || true; fi
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

CITUS_URL="postgresql://postgres@127.0.0.1:$coordinator/lvg"
CITUS_WORKER_URL="postgresql://postgres@127.0.0.1:${PORTS[1]}/lvg"
