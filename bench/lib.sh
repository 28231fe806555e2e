# Shared by the benchmark scripts: build, servers as processes of their own, the load generator.
# Expects DB, TABLES, DURATION and WARM_UP to be set by the script; the ports and the API key of
# the server under test are the same for every script.
PORT=2433
MANAGEMENT=2434
KEY=bench-key
API=http://127.0.0.1:$PORT
PG_URL=postgresql://postgres@127.0.0.1:5432/$DB
# The gateway's JVM options, as its image runs it (Dockerfile): a collector without
# stop-the-world pauses of any length, so answers (refusals most of all) do not wait behind them.
GATEWAY_JVM=${GATEWAY_JVM:--XX:+UseShenandoahGC}
POSTMASTER=$(head -1 "$(psql -h 127.0.0.1 -U postgres -Atc 'SHOW data_directory')/postmaster.pid")
server=""
server_data=""
trap 'stop_server' EXIT

need() { # command [Debian package]: installs the package when the command is missing
  command -v "$1" >/dev/null || { apt-get update -qq && apt-get install -y -qq "${2:-$1}"; }
}

build() {
  mvn -B -q package -DskipTests -Dspotless.check.skip
  mvn -B -q test-compile
  mvn -B -q dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/bench-classpath.txt >/dev/null
  CP="target/test-classes:target/classes:$(cat target/bench-classpath.txt)"
}

fresh_database() {
  psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB" 2>/dev/null
}

cpu_ticks() { # pid -> utime + stime in clock ticks
  awk '{print $14 + $15}' "/proc/$1/stat"
}

postgres_ticks() { # the postmaster, its exited children and its live ones
  # A backend being reaped as it is read counts in neither place, and a reading that misses the
  # backends of a load that just ended (a warm-up) charges their whole lifetime to the next load:
  # read once the postmaster's children have stayed the same for a moment and none is a zombie.
  local before after
  for _ in $(seq 1 50); do
    before=$(pgrep -P "$POSTMASTER" | sort)
    sleep 0.2
    after=$(pgrep -P "$POSTMASTER" | sort)
    [ "$before" = "$after" ] && ! ps -o stat= --ppid "$POSTMASTER" | grep -q Z && break
  done
  { awk '{print $14 + $15 + $16 + $17}' "/proc/$POSTMASTER/stat"
    for child in $(pgrep -P "$POSTMASTER"); do awk '{print $14 + $15}' "/proc/$child/stat" 2>/dev/null || true; done
  } | awk '{s += $1} END {print s}'
}

rss_mib() { echo $(( $(awk '/VmRSS/ {print $2}' "/proc/$1/status") / 1024 )); }

start_gateway() { # mode [LVG_* settings ...]; KEEP_DATABASE=1 starts on the database as it is
  local mode=$1
  shift
  [ -n "${KEEP_DATABASE:-}" ] || fresh_database
  server_data=$(mktemp -d "$PWD/target/bench-data-XXXX")
  env "$@" LVG_PORT=$PORT LVG_MANAGEMENT_PORT=$MANAGEMENT LVG_HOST=127.0.0.1 LVG_DB_URL=$PG_URL \
    LVG_MANIFEST_MODE="$mode" LVG_DATA_DIR="$server_data" LVG_BOOTSTRAP_TENANT=bench LVG_BOOTSTRAP_API_KEY=$KEY \
    java -Xmx${HEAP:-512m} $GATEWAY_JVM -jar "${GATEWAY_JAR:-target/lance-version-gateway.jar}" >target/bench-gateway.log 2>&1 &
  server=$!
  for _ in $(seq 1 120); do curl -sf localhost:$MANAGEMENT/health/ready >/dev/null && return; sleep 0.5; done
  cat target/bench-gateway.log; exit 1
}

start_reference() {
  server_data=$(mktemp -d "$PWD/target/bench-reference-XXXX")
  : >target/bench-reference.log # as in launch_instant
  java --add-opens=java.base/java.nio=ALL-UNNAMED -cp "$CP" dev.lvg.bench.ReferenceServer $PORT "$server_data" \
    >target/bench-reference.log 2>&1 &
  server=$!
  for _ in $(seq 1 120); do grep -q listening target/bench-reference.log && return; sleep 0.5; done
  cat target/bench-reference.log; exit 1
}

start_instant() { # a server that answers every request at once, as the server under test
  launch_instant $PORT target/bench-instant.log
  server=$instant
}

launch_instant() { # port log -> an InstantServer on port, its pid in $instant
  : >"$2" # emptied first: the wait below must not read an earlier server's "listening"
  java -cp "$CP" dev.lvg.bench.InstantServer "$1" >"$2" 2>&1 &
  instant=$!
  for _ in $(seq 1 120); do grep -q listening "$2" && return; sleep 0.5; done
  cat "$2"; exit 1
}

measure_saturation() { # -> $saturation and $stolen: a closed loop of 64 writers, finalize mode
  start_gateway finalize
  local line
  line=$(load $KEY closed:64 finalize)
  stop_server
  saturation=$(field "$line" goodput/s)
  stolen=$(field "$line" stolen_cores)
  echo "saturation (closed loop, 64 writers): $saturation commits/s ($stolen cores taken by the host)"
}

stop_server() { # the server's data directory goes with it: a run writes a file per commit
  kill "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  server=""
  if [ -n "${server_data:-}" ]; then rm -rf "$server_data"; fi
  server_data=""
  # Removing a run's files dirties the file system for a minute; written back now, not during the
  # next run, where each of the gateway's syncs would have to write it.
  sync
  # The kernel keeps the removed files' metadata buffers: after a dozen runs they hold gigabytes and
  # reclaiming them slows every later run. Dropped between runs where the script may (as root).
  if [ -w /proc/sys/vm/drop_caches ]; then echo 3 >/proc/sys/vm/drop_caches; fi
}

load() { # key|- mode workload [seconds] -> the LoadGenerator's result line (JAVA_PROPERTIES too)
  java ${JAVA_PROPERTIES:-} -Dlvg.server.pid="$server" -Dlvg.postgres.pid="$POSTMASTER" -cp "$CP" dev.lvg.bench.LoadGenerator \
    "$API" "$1" $TABLES "$2" "${4:-$DURATION}" "$WARM_UP" "$3" 2>>target/bench-load.log | grep '^LVG-LOAD'
}

bench_tables() { # prefix ... -> the namespace "bench", and TABLES tables in it per prefix
  curl -sf -o /dev/null -X POST "$API/v1/namespace/bench/create" -H "x-api-key: $KEY" -d '{}'
  for prefix in "$@"; do declare_tables "$prefix"; done
}

declare_tables() { # prefix
  python3 - "$1" "$TABLES" <<'PY' >target/bench-declare.json
import json, sys
prefix, count = sys.argv[1], int(sys.argv[2])
print(json.dumps({"operations": [{"declare_table": {"id": ["bench", prefix + str(i)]}} for i in range(count)]}))
PY
  curl -sf -o /dev/null -X POST "$API/v1/table/batch-commit" -H "x-api-key: $KEY" -d @target/bench-declare.json
}

field() { # line key -> value
  echo "$1" | tr ' ' '\n' | awk -F= -v k="$2" '$1 == k {print $2}'
}

latency() { # LoadGenerator line -> latency cell
  echo "p50=$(field "$1" p50) p90=$(field "$1" p90) p99=$(field "$1" p99) p99.9=$(field "$1" p99.9)"
}

machine() { # one sentence: the machine and the database settings
  echo "$(nproc) cores and $(free -g | awk '/Mem:/ {print $2}') GiB shared by everything (load generators, servers," \
    "PostgreSQL $(psql -h 127.0.0.1 -U postgres -Atc 'show server_version' | cut -d' ' -f1) with" \
    "synchronous_commit=$(psql -h 127.0.0.1 -U postgres -Atc 'show synchronous_commit'))"
}

publish() { # section file: puts the file between the section's markers in BENCHMARKS.md
  python3 - "$1" "$2" <<'PY'
import pathlib, sys
section, source = sys.argv[1], sys.argv[2]
target = pathlib.Path("BENCHMARKS.md")
text = target.read_text() if target.exists() else "# Benchmarks\n"
start, end = f"<!-- {section}:start -->", f"<!-- {section}:end -->"
body = pathlib.Path(source).read_text().rstrip() + "\n"
if start in text and end in text:
    before, rest = text.split(start, 1)
    after = rest.split(end, 1)[1]
    text = before + start + "\n" + body + end + after
else:
    text = text.rstrip() + "\n\n" + start + "\n" + body + end + "\n"
target.write_text(text)
PY
}
