#!/usr/bin/env bash
# A PostgreSQL high-availability failover under commit load, the way a shared gateway runs:
# two PostgreSQL nodes managed by Patroni with synchronous replication, etcd as Patroni's store,
# HAProxy routing to whichever node is primary (Patroni's REST API answers /primary), and one
# gateway connected through HAProxy. After a few seconds of load the primary node dies: its Patroni
# and every process of its PostgreSQL are killed with SIGKILL. The standby takes over.
#
#   chaos/failover.sh [-s SECONDS]
#
# Passes when every answer was 200, 409 or 503, every acknowledged commit is on the new primary
# with its final manifest (chaos/load.py check), commits were acknowledged again within 10 s of
# the kill, and the gateway logged no ERROR and only a few lines for the outage.
# Needs the Debian packages patroni, etcd-server and haproxy (installed when missing and running
# as root), PostgreSQL 15, python3, psql and the jar.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=30
if [ "${1:-}" = "-s" ]; then seconds=$2; shift 2; fi

if ! command -v patroni >/dev/null || ! command -v etcd >/dev/null \
  || ! command -v haproxy >/dev/null; then
  if [ "$(id -u)" = 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q patroni etcd-server haproxy >/dev/null
  else
    echo "install patroni, etcd-server and haproxy first"; exit 2
  fi
fi
jar=$PWD/target/lance-version-gateway.jar
[ -f "$jar" ] || { echo "build the jar first: mvn -B -DskipTests package"; exit 2; }
. chaos/postgres.sh
work=$(mktemp -d /tmp/lvg-failover.XXXXXX)
chmod 755 "$work"
base=${LVG_FAILOVER_PORT_BASE:-5450}
haproxy_port=$base
etcd_client=$((base + 20))
etcd_peer=$((base + 21))
api=$((base + 30))
mgmt=$((api + 1))
pids=()
gateway=""

cleanup() {
  [ -n "$gateway" ] && kill -KILL $gateway 2>/dev/null || true
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  sleep 1
  pkill -KILL -f "$work/node" 2>/dev/null || true
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  [ -n "${LVG_CHAOS_KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
[ "$(id -u)" = 0 ] && chown postgres "$work"

as_pg etcd --name lvg --data-dir "$work/etcd" --enable-v2=true \
  --listen-client-urls "http://127.0.0.1:$etcd_client" \
  --advertise-client-urls "http://127.0.0.1:$etcd_client" \
  --listen-peer-urls "http://127.0.0.1:$etcd_peer" \
  --initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer" \
  --initial-cluster "lvg=http://127.0.0.1:$etcd_peer" >"$work/etcd.log" 2>&1 &
pids+=($!)

for n in 1 2; do
  cat >"$work/node$n.yml" <<EOF
scope: lvg-failover
name: node$n
restapi:
  listen: 127.0.0.1:$((base + 10 + n))
  connect_address: 127.0.0.1:$((base + 10 + n))
etcd:
  host: 127.0.0.1:$etcd_client
bootstrap:
  dcs:
    ttl: 6
    loop_wait: 1
    retry_timeout: 2
    maximum_lag_on_failover: 1048576
    synchronous_mode: true
    postgresql:
      use_pg_rewind: true
      parameters:
        max_connections: 100
        wal_level: replica
        hot_standby: "on"
        max_wal_senders: 10
        max_replication_slots: 10
        wal_log_hints: "on"
  initdb:
    - encoding: UTF8
  pg_hba:
    - host replication replicator 127.0.0.1/32 trust
    - host all all 127.0.0.1/32 trust
postgresql:
  listen: 127.0.0.1:$((base + n))
  connect_address: 127.0.0.1:$((base + n))
  data_dir: $work/node$n
  bin_dir: $pgbin
  pgpass: $work/pgpass$n
  authentication:
    replication: {username: replicator, password: replicator}
    superuser: {username: postgres, password: postgres}
  parameters:
    unix_socket_directories: $work
EOF
done
chmod 644 "$work"/node*.yml
as_pg patroni "$work/node1.yml" >"$work/patroni1.log" 2>&1 &
pids+=($!)
primary_of() { for n in 1 2; do
  curl -sf -o /dev/null "127.0.0.1:$((base + 10 + n))/primary" && { echo $n; return 0; }; done
  return 1; }
for _ in $(seq 1 60); do primary_of >/dev/null && break; sleep 1; done
as_pg patroni "$work/node2.yml" >"$work/patroni2.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 90); do
  for n in 1 2; do curl -sf -o /dev/null "127.0.0.1:$((base + 10 + n))/sync" && break 2; done
  sleep 1
done
curl -sf -o /dev/null "127.0.0.1:$((base + 11))/sync" \
  || curl -sf -o /dev/null "127.0.0.1:$((base + 12))/sync" \
  || { echo "no synchronous standby came up"; tail -n 20 "$work"/patroni*.log; exit 1; }

cat >"$work/haproxy.cfg" <<EOF
global
  maxconn 400
defaults
  mode tcp
  timeout connect 2s
  timeout client 30m
  timeout server 30m
  timeout check 1s
listen postgres
  bind 127.0.0.1:$haproxy_port
  option httpchk GET /primary
  http-check expect status 200
  default-server inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions
  server node1 127.0.0.1:$((base + 1)) check port $((base + 11))
  server node2 127.0.0.1:$((base + 2)) check port $((base + 12))
EOF
haproxy -f "$work/haproxy.cfg" >"$work/haproxy.log" 2>&1 &
pids+=($!)
db="postgresql://postgres:postgres@127.0.0.1:$haproxy_port/postgres"
for _ in $(seq 1 30); do psql "$db" -Atqc "SELECT 1" >/dev/null 2>&1 && break; sleep 0.5; done

mkdir -p "$work/gw"
LVG_DB_URL=$db LVG_DATA_DIR="$work/gw" LVG_STORAGE_ROOT="file://$work/gw/tables" \
  LVG_HOST=127.0.0.1 LVG_PORT=$api LVG_MANAGEMENT_PORT=$mgmt \
  LVG_BOOTSTRAP_TENANT=chaos LVG_BOOTSTRAP_API_KEY=chaos-key LVG_SHUTDOWN_GRACE=10 \
  java -Xmx512m -jar "$jar" >"$work/gw/gateway.log" 2>&1 &
gateway=$!
for _ in $(seq 1 120); do
  curl -sf "localhost:$mgmt/health/ready" >/dev/null && break
  kill -0 $gateway 2>/dev/null || { cat "$work/gw/gateway.log"; exit 1; }
  sleep 0.5
done

echo "== failover: node $(primary_of) is primary; $seconds s of load, the primary dies after $((seconds / 3)) s"
python3 chaos/load.py run --url "http://127.0.0.1:$api" --key chaos-key --tables 16 \
  --seconds "$seconds" --ledger "$work/ledger" >"$work/load.out" 2>&1 &
load=$!
sleep $((seconds / 3))
victim=$(primary_of)
postmaster=$(head -1 "$work/node$victim/postmaster.pid")
killed=$(date +%s.%N)
pkill -KILL -f "patroni $work/node$victim.yml"
kill -KILL "$postmaster"
pkill -KILL -P "$postmaster" 2>/dev/null || true
result=0
wait $load || result=1
cat "$work/load.out"
for _ in $(seq 1 30); do primary_of >/dev/null && break; sleep 0.5; done
echo "node $(primary_of || echo none) is primary now"
kill -TERM $gateway; wait $gateway || true
python3 chaos/load.py check --ledger "$work/ledger" --db "$db" \
  --resumed-after "$killed" --within 10 || result=1
errors=$(grep -c " ERROR " "$work/gw/gateway.log" || true)
warnings=$(grep -c " WARN " "$work/gw/gateway.log" || true)
echo "gateway log: $errors errors, $warnings warnings, $(wc -l <"$work/gw/gateway.log") lines"
if [ "$errors" -gt 0 ] || [ "$warnings" -gt 12 ]; then
  grep -E " (ERROR|WARN) " "$work/gw/gateway.log" | cut -c1-300 | head -20; result=1
fi
[ $result = 0 ] && echo "-- failover: PASS" || echo "-- failover: FAIL"
exit $result
