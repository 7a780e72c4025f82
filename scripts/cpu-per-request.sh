#!/usr/bin/env bash
# Server CPU time per request, a steadier figure than requests/s on a
# noisy VM: each server runs alone on CPU 0 with wrk on CPU 1, and the
# server's utime+stime (from /proc/PID/stat) over a wrk run is divided by
# the requests wrk completed. Servers are interleaved round by round.
#
#   scripts/cpu-per-request.sh                         # the example
#   scripts/cpu-per-request.sh nethttp=../shared/bench/bin/nethttp
#   ROUTE=/three ROUNDS=6 DURATION=4 scripts/cpu-per-request.sh nethttp=…
#   DB=tfb.db ROUTE=/db scripts/cpu-per-request.sh nethttp=…   # bench/tfb
#
# Each extra argument is name=binary; the binary is started with PORT and
# API_KEYS in its environment (the peer harness's convention) and must
# answer ROUTE. Prints one line per server: min, median and max µs/request.
#
# With DB, a database file of TechEmpower's tables (the peer harness's
# tfb-tool makes one), the first server is bench/tfb instead of the
# example, and every server is started with -port and -db DB (the tfb
# servers' contract); ROUTE is then one of /json, /plaintext, /db,
# /queries?queries=20, /fortunes, /updates?queries=20. The database
# routes write to DB (/updates): use a copy.
source "$(dirname "$0")/lib.sh"
need wrk taskset curl
ROUTE=${ROUTE:-/two}
ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-4}
TICK=$(getconf CLK_TCK)
if [[ -n ${DB:-} ]]; then
	[[ -f $DB ]] || { echo "DB=$DB: no such file"; exit 2; }
	(cd "$ROOT/bench/tfb" && go build -o "$WORK/burrow" .)
	servers=("burrow=$WORK/burrow" "$@")
	args=(-db "$DB")
else
	build_example
	servers=("example=$WORK/example" "$@")
	args=(-keys k1)
fi

# measure NAME BINARY: one run, appends µs/request to $WORK/NAME.txt.
measure() {
	local name=$1 bin=$2 port pid
	port=$(free_port)
	PORT=$port API_KEYS=k1 taskset -c 0 "$bin" -port "$port" "${args[@]}" >>"$WORK/$name.log" 2>&1 &
	pid=$!
	PIDS+=("$pid")
	for _ in $(seq 100); do curl -fsS "http://127.0.0.1:$port$ROUTE" >/dev/null 2>&1 && break; sleep 0.1; done
	taskset -c 1 wrk -t1 -c64 -d1s "http://127.0.0.1:$port$ROUTE" >/dev/null # warm-up
	local before after requests
	before=$(awk '{print $14 + $15}' "/proc/$pid/stat")
	requests=$(taskset -c 1 wrk -t1 -c64 -d"${DURATION}s" "http://127.0.0.1:$port$ROUTE" | awk '/requests in/ {print $1}')
	after=$(awk '{print $14 + $15}' "/proc/$pid/stat")
	kill "$pid"; wait "$pid" 2>/dev/null || true
	awk -v t=$((after - before)) -v n="$requests" -v hz="$TICK" 'BEGIN {printf "%.2f\n", t / hz / n * 1e6}' >>"$WORK/$name.txt"
}

for round in $(seq "$ROUNDS"); do
	for s in "${servers[@]}"; do measure "${s%%=*}" "${s#*=}"; done
	echo "round $round/$ROUNDS done" >&2
done
echo "server CPU per request on $ROUTE (µs; min / median / max of $ROUNDS runs of ${DURATION}s):"
for s in "${servers[@]}"; do
	name=${s%%=*}
	sort -n "$WORK/$name.txt" | awk -v name="$name" '{v[NR] = $1} END {printf "%-12s %6.2f / %6.2f / %6.2f\n", name, v[1], v[int((NR + 1) / 2)], v[NR]}'
done
