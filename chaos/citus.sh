#!/usr/bin/env bash
# The gateway on Citus: a coordinator and two workers on loopback (PostgreSQL with the citus
# extension), and the gateway's integration suite against them: its migrations distribute the
# schema by tenant when they find the extension. CITUS_NODE=worker points the suite at the first
# worker instead of the coordinator (the schema is distributed through the coordinator first).
#   chaos/citus.sh [test pattern for -Dit.test]     (default: every integration test)
# Needs Citus installed into the machine's PostgreSQL (see docs/deployment.md, Citus).
set -euo pipefail
cd "$(dirname "$0")/.."
. chaos/citus-cluster.sh

export LVG_TEST_DB_URL=$CITUS_URL
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
  export LVG_TEST_DB_URL=$CITUS_WORKER_URL
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
