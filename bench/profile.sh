#!/usr/bin/env bash
# Where the two cores go while the gateway commits as fast as it can, for the two loads whose
# throughput targets it misses: record mode under wrk (closed loop, the last concurrency given)
# and finalize on local disk (LoadGenerator, closed loop, the first concurrency given).
# For each: the machine's CPU split between the gateway's thread groups (event loops, worker
# threads, JIT compiler, garbage collector), PostgreSQL, everything else (the load generator) and
# idle, from /proc over the recorded window; then a JFR recording of the gateway over the same
# window, summarized by dev.lvg.bench.ProfileSummary (samples by library, the JDK's own frames
# counted for their nearest caller outside it, and the methods most often running).
#   bench/profile.sh [seconds] [finalize connections] [record connections]   (default: 20 16 64)
# Needs what bench/run.sh needs. Writes its section of BENCHMARKS.md; the recordings stay in
# target/profile-*.jfr for `jfr print` or JDK Mission Control.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-20}
FINALIZE_CONNECTIONS=${2:-16}
RECORD_CONNECTIONS=${3:-64}
WARM_UP=${WARM_UP:-60}
TABLES=1000
DB=lvg_bench
OUT=target/bench-profile.md
. bench/lib.sh

need wrk
build

machine_ticks() { # busy and idle (with iowait) ticks of all cores, from /proc/stat
  awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6}' /proc/stat
}

thread_ticks() { # pid -> "group user system" per live thread, from /proc/PID/task
  python3 - "$1" <<'PY'
import os, sys
pid = sys.argv[1]
groups = (("vert.x-eventlo", "event loops"), ("vert.x-worker", "worker threads"),
          ("vert.x-interna", "worker threads"), ("C1 CompilerThr", "JIT compiler"),
          ("C2 CompilerThr", "JIT compiler"), ("GC Thread", "garbage collector"),
          ("G1 ", "garbage collector"))
for task in os.listdir(f"/proc/{pid}/task"):
    try:
        with open(f"/proc/{pid}/task/{task}/stat") as f:
            stat = f.read()
    except OSError:
        continue
    name = stat[stat.index("(") + 1:stat.rindex(")")]
    fields = stat[stat.rindex(")") + 2:].split()
    group = next((g for prefix, g in groups if name.startswith(prefix)), "other threads")
    print(task, group, fields[11], fields[12])
PY
}

# The JDK's "profile" settings, with Java code sampled every millisecond instead of every 10 ms.
java_home=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
sed 's|<setting name="period" control="method-sampling-java-interval">[^<]*<|<setting name="period" control="method-sampling-java-interval">1 ms<|' \
  "$java_home/lib/jfr/profile.jfc" >target/profile.jfc
grep -q 'method-sampling-java-interval">1 ms<' target/profile.jfc

# Starting a recording makes the JIT compile much of the hot code again (record mode, 64
# connections: C2 took 0.9 of a core in the 20 s after a recording started 30 s into the load,
# against 0.14 in the same 20 s without one), so the recording starts with the warm-up and only
# the window's samples count.
record_from_warm_up() { # name
  jcmd "$server" JFR.start name=bench settings="$PWD/target/profile.jfc" \
    duration="$((WARM_UP + DURATION + 5))s" filename="$PWD/target/profile-$1.jfr" >/dev/null
}

window_start() {
  threads0=$(thread_ticks "$server"); pg0=$(postgres_ticks); read -r busy0 idle0 < <(machine_ticks)
  since=$(date +%s%3N)
}

window_end() { # name -> the CPU table of the window, in target/profile-NAME.cpu.md
  local busy1 idle1 pg1 threads1
  pg1=$(postgres_ticks); read -r busy1 idle1 < <(machine_ticks); threads1=$(thread_ticks "$server")
  python3 - "$threads0" "$threads1" "$pg0" "$pg1" "$busy0" "$idle0" "$busy1" "$idle1" "$(nproc)" \
    >"target/profile-$1.cpu.md" <<'PY'
import sys

def threads(text):  # "task group words... user system" -> {task: (group, user, system)}
    rows = {}
    for line in text.splitlines():
        parts = line.split()
        rows[parts[0]] = (" ".join(parts[1:-2]), int(parts[-2]), int(parts[-1]))
    return rows

before, after = threads(sys.argv[1]), threads(sys.argv[2])
pg0, pg1, busy0, idle0, busy1, idle1, ncores = map(float, sys.argv[3:])
per_core = ((busy1 - busy0) + (idle1 - idle0)) / ncores  # the window's length, in ticks
groups = {}
for task, (group, user, system) in after.items():
    _, user0, system0 = before.get(task, (group, 0, 0))
    total = groups.setdefault(group, [0, 0])
    total[0] += user - user0 + system - system0
    total[1] += system - system0
print("| where the cores went | cores | of it in the kernel |")
print("|---|---|---|")
for group in ("event loops", "worker threads", "JIT compiler", "garbage collector", "other threads"):
    if group in groups:
        print(f"| gateway: {group} | {groups[group][0] / per_core:.2f} | {groups[group][1] / per_core:.2f} |")
gateway = sum(total[0] for total in groups.values())
postgres = pg1 - pg0
rest = max((busy1 - busy0) - gateway - postgres, 0)
print(f"| PostgreSQL (every backend) | {postgres / per_core:.2f} | |")
print(f"| everything else (the load generator, the kernel's own threads) | {rest / per_core:.2f} | |")
print(f"| idle or waiting for the disk | {(idle1 - idle0) / per_core:.2f} | |")
PY
}

section() { # title commits/s name -> appends one load's tables to the section
  jcmd "$server" JFR.stop name=bench >/dev/null
  {
    echo "### $1: $2 commits/s"
    echo
    cat "target/profile-$3.cpu.md"
    echo
    java -cp "$CP" dev.lvg.bench.ProfileSummary "target/profile-$3.jfr" 12 "$since"
    echo
  } >>"$OUT"
}

{
  echo "## Profile"
  echo
  echo "Produced by \`bench/profile.sh $DURATION $FINALIZE_CONNECTIONS $RECORD_CONNECTIONS\` on $(date -u +%Y-%m-%d): $(machine)."
  echo "Each load runs ${WARM_UP} s unrecorded, then ${DURATION} s during which the machine's CPU is"
  echo "read from /proc and the gateway's Java code is sampled by JFR (the JDK's \`profile\` settings"
  echo "with a sample every millisecond; the recording runs from the start of the warm-up, since"
  echo "starting one makes the JIT compile again; system calls and the JIT compiler show only in the"
  echo "CPU table)."
  echo
} >"$OUT"

# Finalize on local disk: the LoadGenerator warms up, then records; the window sits inside it.
start_gateway finalize
record_from_warm_up finalize
load $KEY "closed:$FINALIZE_CONNECTIONS" finalize $((DURATION + 4)) >target/profile-finalize.out &
loader=$!
sleep $((WARM_UP + 2))
window_start finalize
sleep "$DURATION"
window_end finalize
wait $loader
section "Finalize on local disk, $FINALIZE_CONNECTIONS connections" \
  "$(field "$(cat target/profile-finalize.out)" goodput/s)" finalize
stop_server

# Record mode under wrk, as in bench/run.sh.
start_gateway record
bench_tables w m
record_from_warm_up record
wrk -t2 -c"$RECORD_CONNECTIONS" -d"${WARM_UP}s" -s bench/create_version.lua "$API" -- $TABLES 2 $KEY w >/dev/null
window_start record
wrk_out=$(wrk -t2 -c"$RECORD_CONNECTIONS" -d"${DURATION}s" -s bench/create_version.lua "$API" -- $TABLES 2 $KEY m)
window_end record
section "Record mode, $RECORD_CONNECTIONS connections" \
  "$(echo "$wrk_out" | awk '/^Requests\/sec/ {printf "%.0f", $2}')" record
stop_server

publish profile "$OUT"
cat "$OUT"
