#!/usr/bin/env bash
# Soak: DURATION seconds (default 60) of load on the example while RSS,
# Go heap and goroutines are sampled every 5 s; they must plateau, and the
# goroutines must return to their idle count once the load stops.
#
#   scripts/soak.sh            (needs wrk, curl)
#   DURATION=600 scripts/soak.sh
source "$(dirname "$0")/lib.sh"
need wrk curl
DURATION=${DURATION:-60}
build_example
PORT=$(free_port)
ADMIN=$(free_port)
start_example "$PORT" -admin "127.0.0.1:$ADMIN"
PID=$LAST_PID
URL="http://127.0.0.1:$PORT"

sample() { # prints: rss_kib heap_bytes goroutines
	local rss heap gor
	rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$PID/status")
	heap=$(curl -fsS "http://127.0.0.1:$ADMIN/debug/pprof/heap?debug=1" | awk '/^# HeapAlloc = / { print $4 }')
	gor=$(curl -fsS "http://127.0.0.1:$ADMIN/debug/pprof/goroutine?debug=1" | awk 'NR == 1 { print $4 }')
	echo "$rss $heap $gor"
}

read -r _ _ idle_goroutines < <(sample)
cat >"$WORK/mix.lua" <<'LUA'
local paths = {"/two", "/three", "/one", "/echo"}
local i = 0
request = function()
	i = i + 1
	local p = paths[(i % #paths) + 1]
	if p == "/echo" then
		return wrk.format("POST", p, {["Content-Type"] = "application/json"}, '{"message":"soak","tags":["a"]}')
	elseif p == "/one" then
		return wrk.format("GET", p, {["Authorization"] = "Bearer k1"})
	end
	return wrk.format("GET", p)
end
LUA
taskset -c 1 wrk -t1 -c64 -d"${DURATION}s" -s "$WORK/mix.lua" "$URL" >"$WORK/wrk.txt" 2>&1 &
WRK=$!
: >"$WORK/samples.txt"
for _ in $(seq $((DURATION / 5))); do
	sleep 5
	sample >>"$WORK/samples.txt"
done
wait "$WRK"
cat "$WORK/samples.txt" | awk '{ printf "  t=%3ds rss=%6d KiB heap=%9d B goroutines=%d\n", NR * 5, $1, $2, $3 }'
grep -E 'Requests/sec|Non-2xx|Socket errors' "$WORK/wrk.txt" || true

# Plateau: the peak of the last third within FACTOR of the middle third's
# (peaks, because the Go heap is a GC sawtooth).
plateau() { # plateau COLUMN FACTOR
	awk -v c="$1" -v f="$2" '{ v[NR] = $c } END {
		n = NR; a = int(n / 3); m1 = 0; m2 = 0
		for (i = a + 1; i <= 2 * a; i++) if (v[i] > m1) m1 = v[i]
		for (i = 2 * a + 1; i <= n; i++) if (v[i] > m2) m2 = v[i]
		printf "peak %.0f → %.0f", m1, m2
		exit !(m2 <= m1 * f) }' "$WORK/samples.txt"
}
detail=$(plateau 1 1.10) && r=0 || r=1
check "RSS plateaus" "$r" "$detail KiB"
detail=$(plateau 2 1.5) && r=0 || r=1
check "heap plateaus" "$r" "$detail B"
detail=$(plateau 3 1.10) && r=0 || r=1
check "goroutines plateau under load" "$r" "$detail"
non2xx=$(awk '/Non-2xx/ { print $NF }' "$WORK/wrk.txt")
check "no errors under load" "$([ -z "$non2xx" ] && ! grep -q 'Socket errors' "$WORK/wrk.txt" && echo 0 || echo 1)" "${non2xx:-0} non-2xx"

# After the load the keep-alive connections close; the goroutines go back.
back=1
for _ in $(seq 20); do
	read -r _ _ now < <(sample)
	if [ "$now" -le $((idle_goroutines + 2)) ]; then back=0; break; fi
	sleep 0.5
done
check "goroutines back to idle after load" "$back" "idle $idle_goroutines, now $now"
summary
