#!/usr/bin/env bash
# What following a writer's cleanup costs a version listing: the same gateway (finalize mode, local
# disk) lists a table of 100 finalized versions, whose manifests it checks with one directory
# listing per page, and a table of 100 recorded versions (batch-create), which it does not check.
#   bench/list-check.sh [requests per table]        (default 2000)
# Needs the machine's PostgreSQL on 127.0.0.1:5432. Prints one line per table and the ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
REQUESTS=${1:-2000}
DB=lvg_list_check
TABLES=1
DURATION=1
WARM_UP=0
. bench/lib.sh
mvn -B -q package -DskipTests -Dspotless.check.skip
start_gateway finalize
python3 - "$API" "$KEY" "$REQUESTS" <<'PY'
import http.client, json, os, statistics, struct, sys, time, urllib.parse
api, key, requests = sys.argv[1], sys.argv[2], int(sys.argv[3])
url = urllib.parse.urlparse(api)
conn = http.client.HTTPConnection(url.hostname, url.port)
def post(path, body):
    conn.request("POST", path, body=json.dumps(body) if body is not None else None,
                 headers={"x-api-key": key, "Content-Type": "application/json"})
    response = conn.getresponse()
    data = response.read()
    assert response.status == 200, (path, response.status, data)
    return json.loads(data) if data else None
post("/v1/namespace/b/create", {})
location = post("/v1/table/b%24checked/declare", {})["location"]
os.makedirs(location + "/_versions", exist_ok=True)
for v in range(1, 101):
    staging = f"{location}/_versions/{v}.manifest-staging"
    name = f"0-{__import__('uuid').uuid4()}.txn".encode()
    message = bytes([12 << 3 | 2, len(name)]) + name
    with open(staging, "wb") as f:  # a Lance manifest's layout, naming one transaction
        f.write(struct.pack("<I", len(message)) + message + struct.pack("<qHH", 0, 0, 2) + b"LANC")
    post("/v1/table/b%24checked/version/create",
         {"version": v, "manifest_path": staging[1:], "naming_scheme": "V1"})
post("/v1/table/b%24recorded/declare", {})
post("/v1/table/version/batch-create", {"entries": [
    {"id": ["b", "recorded"], "version": v, "manifest_path": f"elsewhere/{v}.manifest"}
    for v in range(1, 101)]})
results = {}
for table in ("checked", "recorded"):
    for _ in range(200):
        post(f"/v1/table/b%24{table}/version/list?limit=100", None)
    times = []
    for _ in range(requests):
        start = time.perf_counter()
        listed = post(f"/v1/table/b%24{table}/version/list?limit=100", None)
        times.append((time.perf_counter() - start) * 1000)
        assert len(listed["versions"]) == 100
    times.sort()
    results[table] = (statistics.mean(times), times[len(times) // 2], times[int(len(times) * 0.99)])
    print(f"{table}: {requests} lists of 100 versions, mean {results[table][0]:.3f} ms,"
          f" p50 {results[table][1]:.3f} ms, p99 {results[table][2]:.3f} ms")
print(f"checked / recorded mean latency: {results['checked'][0] / results['recorded'][0]:.2f}x")
PY
stop_server
