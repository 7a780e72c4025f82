#!/usr/bin/env bash
# Scale out: two example/todo instances on one PostgreSQL and one Redis,
# behind HAProxy, which health-checks each one's /readyz on its admin
# listener. While a steady authenticated load (scripts/load) goes through
# HAProxy, each instance is replaced in turn (SIGTERM → /readyz 503 →
# drain → graceful close → a new process on the same ports). Checked:
# 0 failed requests, every instance exits 0, a session begun on one
# instance before the replacements is valid on both after them, and the
# rate limit is one budget: with -rate-limit 10, ten of alice's requests
# alternating between the instances pass and the eleventh, to either, is
# 429. Bounded: about 20 s once built.
#
#   scripts/scale-out.sh      (needs go, curl, haproxy, redis-server and
#                              Debian's postgresql; run as root, PostgreSQL
#                              runs as the postgres user)
#
# The recipe: drain delay ≥ check interval × fall count + margin. Here
# inter 200ms × fall 2 = 400 ms; the instances drain for 1 s.
source "$(dirname "$0")/lib.sh"
need curl haproxy redis-server redis-cli
DRAIN=1s
LIMIT=10

(cd "$ROOT/example/todo" && go build -o "$WORK/todo" .)
(cd "$ROOT/scripts/load" && go build -o "$WORK/load" .)

start_postgres todo
DB="postgres://postgres@127.0.0.1:$PGPORT/todo?sslmode=disable"
REDIS_PORT=$(free_port)
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --dir "$WORK" --save "" --appendonly no \
	--daemonize no --loglevel warning >"$WORK/redis.log" 2>&1 &
PIDS+=("$!")
for _ in $(seq 100); do
	[ "$(redis-cli -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ] && break
	sleep 0.1
done

# alice and bob for the checks; 300 more users for the load, each of
# whom sends at most LIMIT requests (scripts/load -per-user), so the load
# never meets the limit that the checks below do.
TODO_USERS="alice:tokenA,bob:tokenB"
LOAD_USERS=""
for i in $(seq 300); do LOAD_USERS+="load$i:token$i,"; done
export TODO_USERS="$TODO_USERS,$LOAD_USERS"

LB=$(free_port)
declare -A PORT ADMIN PID_OF
for name in a b; do PORT[$name]=$(free_port); ADMIN[$name]=$(free_port); done

# start NAME: starts instance NAME on its ports and waits until its
# /readyz passes (the database's and Redis's checks).
start() {
	local name=$1
	"$WORK/todo" -port "${PORT[$name]}" -admin "127.0.0.1:${ADMIN[$name]}" -db "$DB" \
		-redis "redis://127.0.0.1:$REDIS_PORT/0" -rate-limit "$LIMIT" -trusted-proxies 127.0.0.1/32 \
		-drain "$DRAIN" >>"$WORK/todo-$name.log" 2>&1 &
	PID_OF[$name]=$!
	PIDS+=("$!")
	wait_ready "http://127.0.0.1:${ADMIN[$name]}/readyz" "$WORK/todo-$name.log"
}
start a
start b

{ haproxy_defaults; cat <<CFG; } >"$WORK/haproxy.cfg"
frontend api
	bind 127.0.0.1:$LB
	option forwardfor
	default_backend todo
backend todo
	option httpchk GET /readyz
	server a 127.0.0.1:${PORT[a]} check port ${ADMIN[a]} inter 200ms fall 2 rise 2
	server b 127.0.0.1:${PORT[b]} check port ${ADMIN[b]} inter 200ms fall 2 rise 2
CFG
haproxy -db -f "$WORK/haproxy.cfg" >"$WORK/haproxy.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 50); do
	curl -fsS -o /dev/null -H 'Authorization: Bearer tokenB' "http://127.0.0.1:$LB/todos" 2>/dev/null && break
	sleep 0.1
done
sleep 1 # both servers up in HAProxy's eyes (rise 2)

# A session begun on instance a, before either is replaced.
curl -fsS -o /dev/null -c "$WORK/cookies" -d 'user=bob&token=tokenB' "http://127.0.0.1:${PORT[a]}/session" ||
	{ echo "log-in failed"; exit 1; }

"$WORK/load" -url "http://127.0.0.1:$LB" -users "$LOAD_USERS" -per-user "$LIMIT" -rate 50 -duration 50s >"$WORK/load.txt" 2>&1 &
LOAD=$!
exits=()
sleep 2
for name in a b; do
	kill -TERM "${PID_OF[$name]}"
	status=0
	wait "${PID_OF[$name]}" || status=$?
	exits+=("$status")
	start "$name"
	sleep 1.5 # HAProxy sees it up again (rise 2 × 200 ms) before the next one goes
done
kill -INT "$LOAD"
status=0
wait "$LOAD" || status=$?
check "0 failed requests through HAProxy while each instance was replaced" "$status" "$(head -n 2 "$WORK/load.txt" | tr '\n' ' ')"
bad=0
for s in "${exits[@]}"; do [ "$s" -eq 0 ] || bad=1; done
check "every instance exited 0 after a graceful close" "$bad" "exit statuses: ${exits[*]}"

# status NAME CURL-ARGS...: the status of a GET /todos to instance NAME.
status() {
	local name=$1
	shift
	curl -s -o /dev/null -w '%{http_code}' "$@" "http://127.0.0.1:${PORT[$name]}/todos"
}
both=$(status a -b "$WORK/cookies")/$(status b -b "$WORK/cookies")
check "the session begun on a is valid on both new instances" "$([ "$both" = 200/200 ] && echo 0 || echo 1)" "a/b: $both"

got=()
for i in $(seq "$LIMIT"); do
	if [ $((i % 2)) -eq 1 ]; then name=a; else name=b; fi
	got+=("$(status "$name" -H 'Authorization: Bearer tokenA')")
done
passed=$(printf '%s\n' "${got[@]}" | grep -c '^200$' || true)
eleventh=$(status a -H 'Authorization: Bearer tokenA')/$(status b -H 'Authorization: Bearer tokenA')
check "one rate limit for both: $LIMIT of alice's requests alternating pass, the next is 429 on each" \
	"$([ "$passed" -eq "$LIMIT" ] && [ "$eleventh" = 429/429 ] && echo 0 || echo 1)" \
	"statuses ${got[*]}, then a/b: $eleventh"
summary
