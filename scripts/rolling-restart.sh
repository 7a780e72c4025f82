#!/usr/bin/env bash
# Rolling restart: two example instances behind HAProxy, which health-checks
# /readyz. While hey sends GET /two and POST /echo through HAProxy, each
# instance is restarted in turn (SIGTERM → /readyz 503 → drain delay →
# graceful close → start again). Every request must succeed and every
# instance must exit 0. Bounded: about 40 s.
#
#   scripts/rolling-restart.sh      (needs haproxy, hey, curl)
#
# The recipe: drain delay ≥ check interval × fall count + margin. Here
# inter 200ms × fall 2 = 400 ms; the instances drain for 1 s.
source "$(dirname "$0")/lib.sh"
need haproxy hey curl
build_example
LB=$(free_port)
A=$(free_port)
B=$(free_port)
DRAIN=1s

{ haproxy_defaults; cat <<CFG; } >"$WORK/haproxy.cfg"
frontend api
	bind 127.0.0.1:$LB
	default_backend burrow
backend burrow
	option httpchk GET /readyz
	server a 127.0.0.1:$A check inter 200ms fall 2 rise 2
	server b 127.0.0.1:$B check inter 200ms fall 2 rise 2
CFG

declare -A PID_OF
start() { start_example "$1" -drain "$DRAIN"; PID_OF[$1]=$LAST_PID; }
start "$A"
start "$B"
haproxy -db -f "$WORK/haproxy.cfg" >"$WORK/haproxy.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 50); do curl -fsS "http://127.0.0.1:$LB/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
sleep 1 # both servers up in HAProxy's eyes (rise 2)

hey -z 25s -c 20 "http://127.0.0.1:$LB/two" >"$WORK/get.txt" 2>&1 &
GET=$!
hey -z 25s -c 20 -m POST -T application/json -d '{"message":"roll"}' "http://127.0.0.1:$LB/echo" >"$WORK/post.txt" 2>&1 &
POST=$!

exits=()
sleep 3
for round in 1 2; do
	for port in "$A" "$B"; do
		pid=${PID_OF[$port]}
		kill -TERM "$pid"
		status=0
		wait "$pid" || status=$?
		exits+=("$status")
		start "$port"
		sleep 2 # let HAProxy see it up again (rise 2 × 200 ms) before the next one goes
	done
done
wait "$GET" "$POST" || true

result() { # result NAME FILE
	local total non2xx errors
	total=$(awk '/\[[0-9]+\]/ && /responses/ { n += $2 } END { print n + 0 }' "$2")
	non2xx=$(awk '/\[[0-9]+\]/ && /responses/ { gsub(/[\[\]]/, "", $1); if ($1 < 200 || $1 > 299) n += $2 } END { print n + 0 }' "$2")
	errors=$(awk '/Error distribution/ { f = 1; next } f && /\[[0-9]+\]/ { n += substr($1, 2) } END { print n + 0 }' "$2")
	check "$1: zero failed requests" "$([ "$total" -gt 0 ] && [ "$non2xx" -eq 0 ] && [ "$errors" -eq 0 ] && echo 0 || echo 1)" \
		"$total responses, $non2xx non-2xx, $errors errors"
}
result "GET /two" "$WORK/get.txt"
result "POST /echo" "$WORK/post.txt"
bad=0
for s in "${exits[@]}"; do [ "$s" -eq 0 ] || bad=1; done
check "every instance exited 0 after a graceful close" "$bad" "exit statuses: ${exits[*]}"
summary
