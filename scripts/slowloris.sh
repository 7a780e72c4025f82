#!/usr/bin/env bash
# Slowloris and slow body against the example, while a second client keeps
# asking for /two and must get only 200s. Bounded: about two minutes.
#
#   scripts/slowloris.sh          (needs slowhttptest, hey, curl)
source "$(dirname "$0")/lib.sh"
need slowhttptest hey curl
build_example
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

summary
