#!/usr/bin/env bash
# What 503 "Slow down" buys under overload, in one run on one machine (finalize mode, local disk):
#   1. saturation: a closed loop of 64 writers committing in order;
#   2. open loop (constant arrival rate, latency from each request's scheduled start; one thread
#      with its own non-blocking HTTP client sends requests encoded before the run, OpenLoop in
#      the test sources) at 0.5x, 1x, 2x and 4x of that saturation, each request version 1 of a
#      table of its own, with the default admission control and with it switched off;
#   3. two tenants at once, one at 4x and one at 0.2x, against the quiet tenant alone at 0.2x;
#   4. the same open loops against a server that answers at once: the floor the machine and the
#      load generator put under every latency here.
#   bench/overload.sh [seconds per run]            (default 8)
# Needs the machine's PostgreSQL on 127.0.0.1:5432 and gnuplot (installed with apt-get when
# missing). Writes its section of BENCHMARKS.md and bench/overload.png.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-8}
# Every server process starts cold: on 2 cores its C2 compiler takes about half a core for the
# first 35-40 s of load (record mode, 64 connections: 15 s of CPU in the first 30 s, under a
# twentieth of a core after 40 s), so a shorter warm-up measures the compiler more than the server.
WARM_UP=${WARM_UP:-60}
TABLES=1000
DB=lvg_overload
QUIET_KEY=quiet-key
OUT=target/bench-overload.md
DATA=target/bench-overload.dat
. bench/lib.sh

need gnuplot gnuplot-nox
build
: >target/bench-load.log

measure_saturation

rows=""
: >"$DATA"
for limiter in on off; do
  setting=LVG_ADMISSION_ENABLED=true
  [ $limiter = off ] && setting=LVG_ADMISSION_ENABLED=false
  for multiple in 0.5 1 2 4; do
    rate=$(awk "BEGIN {printf \"%d\", $saturation * $multiple}")
    start_gateway finalize $setting
    line=$(load $KEY "open:$rate" fresh)
    stop_server
    goodput=$(field "$line" goodput/s)
    share=$(awk "BEGIN {printf \"%.0f\", 100 * $goodput / $saturation}")
    echo "limiter $limiter, ${multiple}x ($rate/s): goodput $goodput/s ($share%), $(field "$line" statuses)"
    rows+="| $limiter | ${multiple}x = $rate/s | $goodput | $share% | $(field "$line" shed/s) | $(field "$line" ok_p50) | $(field "$line" ok_p99) | $(field "$line" shed_p99) | $(field "$line" p99.9) | $(field "$line" send_late_p99) | $(field "$line" statuses) | $(field "$line" server_cores) | $(field "$line" stolen_cores) |"$'\n'
    echo "$limiter $multiple $goodput $(field "$line" shed/s) $(field "$line" ok_p99 | sed 's/-/0/')" >>"$DATA"
  done
done

# Two tenants at once: the quiet one alone first, for its unloaded figures.
quiet_rate=$(awk "BEGIN {printf \"%d\", $saturation * 0.2}")
noisy_rate=$(awk "BEGIN {printf \"%d\", $saturation * 4}")
add_quiet_tenant() {
  psql -h 127.0.0.1 -U postgres -d $DB -qc "INSERT INTO tenants (name) VALUES ('quiet')" \
    -c "INSERT INTO api_keys (key_hash, tenant_id, key_id) SELECT encode(sha256('$QUIET_KEY'::bytea), 'hex'), id, 'quiet-bench' FROM tenants WHERE name = 'quiet'"
}
admissions() { # the write class's admission decisions in the server's life so far, as table rows
  curl -sf localhost:$MANAGEMENT/metrics >target/bench-metrics.txt
  psql -h 127.0.0.1 -U postgres -d $DB -Atc "SELECT id, name FROM tenants" >target/bench-tenants.txt
  python3 - target/bench-metrics.txt target/bench-tenants.txt <<'PY'
import re, sys
names = dict(line.strip().split("|", 1) for line in open(sys.argv[2]) if "|" in line)
rows = []
for line in open(sys.argv[1]):
    if not line.startswith("lvg_admission_total{"):
        continue
    tags = dict(re.findall(r'(\w+)="([^"]*)"', line.split("}", 1)[0]))
    if tags.get("class") != "writes":
        continue
    kind, _, ident = tags["requester"].partition(":")
    who = names.get(ident, tags["requester"]) if kind == "tenant" else tags["requester"]
    rows.append(f"| {who} | {tags['outcome']} | {tags['reason']} | {float(line.split()[-1]):.0f} |")
print("\n".join(sorted(rows)))
PY
}
start_gateway finalize
add_quiet_tenant
alone=$(load $QUIET_KEY "open:$quiet_rate" fresh)
stop_server
start_gateway finalize
add_quiet_tenant
rm -f target/bench-started target/bench-started.lead-in
JAVA_PROPERTIES=-Dlvg.start.signal=target/bench-started load $KEY "open:$noisy_rate" fresh >target/bench-noisy.txt &
noisy_pid=$!
quiet=$(JAVA_PROPERTIES=-Dlvg.start.await=target/bench-started load $QUIET_KEY "open:$quiet_rate" fresh)
wait $noisy_pid || true
noisy=$(cat target/bench-noisy.txt)
decisions=$(admissions)
stop_server
success() { # line -> percent of 200s
  echo "$1" | tr ' ' '\n' | awk -F= '$1 == "statuses" {n = split($2, s, ","); for (i = 1; i <= n; i++) {split(s[i], kv, ":"); t += kv[2]; if (kv[1] == 200) ok = kv[2]}} END {printf "%.1f", 100 * ok / t}'
}
echo "quiet alone: $(success "$alone")% ok, p99 $(field "$alone" ok_p99); with noisy: $(success "$quiet")% ok, p99 $(field "$quiet" ok_p99)"

# The floor: the same arrival rates against a server that answers at once.
start_instant
floor_rows=""
for multiple in 0.5 1 2 4; do
  rate=$(awk "BEGIN {printf \"%d\", $saturation * $multiple}")
  line=$(load - "open:$rate" record)
  floor_rows+="| ${multiple}x = $rate/s | $(field "$line" p50) | $(field "$line" p99) | $(field "$line" p99.9) | $(field "$line" send_late_p99) |"$'\n'
done
stop_server

gnuplot <<PLOT
set terminal pngcairo size 1100,420 font ",10"
set output "bench/overload.png"
set multiplot layout 1,3 title "version/create under open-loop overload (finalize, local disk; saturation $saturation/s)"
set xlabel "offered load (x saturation)"
set logscale x 2
set xtics ("0.5" 0.5, "1" 1, "2" 2, "4" 4)
set key top left
set grid
set title "goodput (200/s)"
plot "$DATA" using (strcol(1) eq "on" ? \$2 : 1/0):3 with linespoints lw 2 title "with admission control", \
     "$DATA" using (strcol(1) eq "off" ? \$2 : 1/0):3 with linespoints lw 2 title "without"
set title "shed (503/s)"
plot "$DATA" using (strcol(1) eq "on" ? \$2 : 1/0):4 with linespoints lw 2 title "with admission control", \
     "$DATA" using (strcol(1) eq "off" ? \$2 : 1/0):4 with linespoints lw 2 title "without"
set title "p99 of admitted requests (ms)"
set logscale y 10
plot "$DATA" using (strcol(1) eq "on" ? \$2 : 1/0):5 with linespoints lw 2 title "with admission control", \
     "$DATA" using (strcol(1) eq "off" ? \$2 : 1/0):5 with linespoints lw 2 title "without"
unset multiplot
PLOT

{
  echo "## Overload"
  echo
  echo "Produced by \`bench/overload.sh $DURATION\` on $(date -u +%Y-%m-%d): $(machine). Finalize mode on"
  echo "local disk, default configuration but for the admission switch. Saturation (closed loop, 64 writers"
  echo "committing in order): **$saturation commits/s**, with $stolen cores taken by the host. Each open-loop run: ${WARM_UP} s of warm-up (16 writers"
  echo "committing in order), then 10 s at the run's rate on tables of its own, then"
  echo "$DURATION s of requests at a constant rate, each the first version of a table of its own; latency from"
  echo "each request's scheduled start; goodput = 200s per second of wall time until the last answer."
  echo "*Sent late* is how late the load generator sent its requests, part of every latency here: a"
  echo "generator that falls behind (a busy core, a pause of its own) adds that much to each request it delays."
  echo "This machine is a virtual machine on a shared host: *cores taken by the host* is the CPU time the"
  echo "hypervisor gave its 2 cores to others during the run (steal in /proc/stat), CPU that no process here"
  echo "had; compare runs with that in mind."
  echo
  echo "![goodput, shed rate and admitted p99 against offered load](bench/overload.png)"
  echo
  echo "| admission control | offered | goodput/s | of saturation | shed/s | admitted p50 (ms) | admitted p99 (ms) | 503 p99 (ms) | all p99.9 (ms) | sent late p99 (ms) | statuses | gateway cores | cores taken by the host |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  printf "%s" "$rows"
  echo
  echo "Two tenants at once (admission control on): a noisy one at 4x ($noisy_rate/s) and a quiet one at 0.2x ($quiet_rate/s)."
  echo
  echo "| tenant | run | goodput/s | success | admitted p50 (ms) | admitted p99 (ms) | sent late p99 (ms) | statuses | cores taken by the host |"
  echo "|---|---|---|---|---|---|---|---|---|"
  echo "| quiet | alone | $(field "$alone" goodput/s) | $(success "$alone")% | $(field "$alone" ok_p50) | $(field "$alone" ok_p99) | $(field "$alone" send_late_p99) | $(field "$alone" statuses) | $(field "$alone" stolen_cores) |"
  echo "| quiet | beside the noisy one | $(field "$quiet" goodput/s) | $(success "$quiet")% | $(field "$quiet" ok_p50) | $(field "$quiet" ok_p99) | $(field "$quiet" send_late_p99) | $(field "$quiet" statuses) | $(field "$quiet" stolen_cores) |"
  echo "| noisy | beside the quiet one | $(field "$noisy" goodput/s) | $(success "$noisy")% | $(field "$noisy" ok_p50) | $(field "$noisy" ok_p99) | $(field "$noisy" send_late_p99) | $(field "$noisy" statuses) | $(field "$noisy" stolen_cores) |"
  echo
  echo "That server's admission decisions for writes, from its \`/metrics\` when the run ended (its warm-up"
  echo "and lead-in included; \`little_demand\`: over the limit, because the tenant asked for less than an"
  echo "even share of what was served):"
  echo
  echo "| tenant | outcome | reason | requests |"
  echo "|---|---|---|---|"
  echo "$decisions"
  echo
  echo "The floor: the same arrival rates against a server that answers every request at once"
  echo "(\`InstantServer\`), measured by the same load generator on the same machine."
  echo
  echo "| offered | p50 (ms) | p99 (ms) | p99.9 (ms) | sent late p99 (ms) |"
  echo "|---|---|---|---|---|"
  printf "%s" "$floor_rows"
} >"$OUT"
publish overload "$OUT"
cat "$OUT"
