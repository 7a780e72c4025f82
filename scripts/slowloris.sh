#!/usr/bin/env bash
# Slowloris, slow bodies and slow readers against the example, while a
# second client keeps asking for /two and must get only 200s. Bounded:
# about three and a half minutes.
#
#   scripts/slowloris.sh          (needs slowhttptest, hey, curl, ss, go)
source "$(dirname "$0")/lib.sh"
need slowhttptest hey curl ss go
build_example
(cd "$ROOT/scripts/slowread" && go build -o "$WORK/slowread" .)
PORT=$(free_port)
start_example "$PORT"
URL="http://127.0.0.1:$PORT"

attack() { # attack NAME slowhttptest-flags...
	local name=$1; shift
	hey -z 40s -c 4 -q 20 "$URL/two" >"$WORK/$name-hey.txt" 2>&1 &
	local hey_pid=$!
	timeout 70 slowhttptest "$@" -c 1000 -r 200 -l 30 -p 3 -g -o "$WORK/$name" >"$WORK/$name.txt" 2>&1 || true
	wait "$hey_pid" || true
	local csv="$WORK/$name.csv"
	# slowhttptest's CSV: seconds, closed, pending, connected, service
	# available (0 when a probe failed).
	local unavailable
	unavailable=$(awk -F, 'NR > 1 && $5 == 0' "$csv" | wc -l)
	check "$name: service stayed available" "$([ "$unavailable" -eq 0 ] && echo 0 || echo 1)" "$unavailable samples unavailable"
	local max_open
	max_open=$(awk -F, 'NR > 1 { if ($4 > m) m = $4 } END { print m + 0 }' "$csv")
	check "$name: slow connections were cut" "$(grep -q 'No open connections left' "$WORK/$name.txt" && echo 0 || echo 1)" "peak $max_open connected"
	local non200
	non200=$(awk '/Status code distribution/ {f=1; next} f && /\[[0-9]+\]/ { gsub(/[\[\]]/, "", $1); if ($1 != 200) n += $2 } END { print n + 0 }' "$WORK/$name-hey.txt")
	local errors
	errors=$(grep -c 'Error distribution' "$WORK/$name-hey.txt" || true)
	local ok200
	ok200=$(awk '/\[200\]/ { print $2 }' "$WORK/$name-hey.txt")
	check "$name: the other client got only 200s" "$([ "$non200" -eq 0 ] && [ "$errors" -eq 0 ] && [ "${ok200:-0}" -gt 0 ] && echo 0 || echo 1)" "${ok200:-0} × 200, $non200 other, errors: $errors"
}

# Headers sent a line every 5 s: the read-header time-out (10 s) cuts them.
attack slowloris -H -i 5 -s 8192 -u "$URL/two"
# A body sent 10 bytes every 2 s to a route that reads bodies: the
# body-read time-out cuts it.
attack slowbody -B -i 2 -s 100000 -t POST -f application/json -u "$URL/echo"
# The same to a path that never reads a body (POST /two is a 405): the
# answer is immediate, and the drain of the unread body is bounded too.
attack slowbody-unread -B -i 2 -s 100000 -t POST -f application/json -u "$URL/two"

# slow_read NAME CUT-BOUND-S RSS-BOUND-MIB slowread-flags...: a fresh
# instance (so its peak RSS is this attack's), the attack held for 50 s,
# and, each second, the connections the server holds, counted on its
# side. They must all be cut within CUT-BOUND-S of the attack's start
# (the availability client's few connections aside), and the server's
# peak RSS must stay under RSS-BOUND-MIB.
slow_read() {
	local name=$1 cut_bound=$2 rss_bound=$3; shift 3
	local port pid
	port=$(free_port)
	start_example "$port"
	pid=$LAST_PID
	hey -z 45s -c 4 -q 20 "http://127.0.0.1:$port/two" >"$WORK/$name-hey.txt" 2>&1 &
	local hey_pid=$!
	"$WORK/slowread" -addr "127.0.0.1:$port" -duration 50s "$@" >"$WORK/$name.txt" 2>&1 &
	local attack_pid=$!
	local held=0 last_held=0 n
	for t in $(seq 1 52); do
		sleep 1
		n=$(ss -Htn state established "( sport = :$port )" | wc -l)
		[ "$n" -gt "$held" ] && held=$n
		[ "$n" -gt 8 ] && last_held=$t # more than the availability client's 4
	done
	wait "$attack_pid" "$hey_pid" || true
	local peak_kib
	peak_kib=$(awk '/VmHWM/ { print $2 }' "/proc/$pid/status")
	kill "$pid"
	check "$name: every connection was cut within ${cut_bound} s" \
		"$([ "$last_held" -lt "$cut_bound" ] && echo 0 || echo 1)" \
		"$(cat "$WORK/$name.txt"); at most $held held at once, none after ${last_held} s"
	check "$name: peak RSS under ${rss_bound} MiB" \
		"$([ "$peak_kib" -lt $((rss_bound * 1024)) ] && echo 0 || echo 1)" "$((peak_kib / 1024)) MiB"
	local ok200 other
	ok200=$(awk '/\[200\]/ { print $2 }' "$WORK/$name-hey.txt")
	other=$(awk '/Status code distribution/ {f=1; next} f && /\[[0-9]+\]/ { gsub(/[\[\]]/, "", $1); if ($1 != 200) n += $2 } END { print n + 0 }' "$WORK/$name-hey.txt")
	check "$name: the other client got only 200s" \
		"$([ "$other" -eq 0 ] && ! grep -q 'Error distribution' "$WORK/$name-hey.txt" && [ "${ok200:-0}" -gt 0 ] && echo 0 || echo 1)" \
		"${ok200:-0} × 200, $other other"
}

# 1,000 slow readers: each sends 64 requests for a 404 with a 1 KiB path
# (answers of 1.2 KiB: the 404 repeats at most 1 KiB of the target) and
# reads one byte every 5 s. Their answers fill the kernel's buffers, the
# server blocks writing, and the reply time-out (30 s) cuts each one; the
# connections open over 5 s.
slow_read slowread 40 64 -n 1000 -rate 200 -pipeline 64 -pad 1000 -read-every 5s
# 300 clients that each send a 1 MiB request target and never read: over
# the 16 KiB header limit, each gets 431 and is closed at once.
slow_read bigurl 5 32 -n 300 -rate 200 -pad 1048000 -read-every 0

summary
