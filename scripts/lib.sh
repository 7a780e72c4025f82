# Shared helpers of the reliability scripts: build the example once, start
# and stop instances, count checks, print the final "N passed, N failed".
# Sourced, not run.

set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/burrow-rel.XXXXXX")"
PASSED=0
FAILED=0
PIDS=()

# cleanup stops the instances and removes WORK once every check passed
# (a run leaves nothing behind); a failed run keeps it, logs and all, and
# says where. KEEP_WORK=1 keeps it always.
cleanup() {
	local rc=$?
	for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
	wait 2>/dev/null || true
	if [ "$rc" -eq 0 ] && [ "$FAILED" -eq 0 ] && [ -z "${KEEP_WORK:-}" ]; then
		rm -rf "$WORK"
	else
		echo "work files kept in $WORK"
	fi
}
trap cleanup EXIT

need() {
	local pkg
	for tool in "$@"; do
		case $tool in
		node) pkg=nodejs ;;
		npx) pkg=npm ;;
		redis-cli) pkg=redis-server ;;
		*) pkg=$tool ;;
		esac
		command -v "$tool" >/dev/null || { echo "missing $tool: apt-get install -y $pkg"; exit 2; }
	done
}

build_example() {
	(cd "$ROOT" && go build -o "$WORK/example" ./example)
}

# free_port prints a port nothing listens on.
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# start_example PORT [flags...]: starts an instance, records its pid in
# LAST_PID and waits until /readyz answers.
start_example() {
	local port=$1; shift
	"$WORK/example" -port "$port" -keys k1 "$@" >>"$WORK/example-$port.log" 2>&1 &
	LAST_PID=$!
	PIDS+=("$LAST_PID")
	wait_ready "http://127.0.0.1:$port/readyz" "$WORK/example-$port.log"
}

# wait_ready URL LOG: waits, 20 s at most, until URL answers 2xx; if it
# never does, prints LOG and exits.
wait_ready() {
	for _ in $(seq 200); do
		curl -fsS "$1" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	echo "$1 did not become ready"; cat "$2"; exit 1
}

# haproxy_defaults prints the global and defaults sections of the
# scripts' HAProxy configurations: retries and redispatch move a request
# whose connection failed to the other server.
haproxy_defaults() {
	cat <<CFG
global
	maxconn 4096
defaults
	mode http
	timeout connect 2s
	timeout client 30s
	timeout server 30s
	retries 2
	option redispatch
	http-reuse safe
CFG
}

# start_postgres DB: starts a throwaway PostgreSQL cluster in WORK on a
# free port (run as root, it runs as the postgres user), creates the
# database DB and sets PGPORT. Needs Debian's postgresql.
start_postgres() {
	local pgbin
	pgbin=$(dirname "$(readlink -f "$(command -v initdb 2>/dev/null || ls /usr/lib/postgresql/*/bin/initdb 2>/dev/null | tail -n 1)")")
	[ -x "$pgbin/postgres" ] || { echo "missing postgresql: apt-get install -y postgresql"; exit 2; }
	local as_pg=()
	if [ "$(id -u)" = 0 ]; then
		as_pg=(runuser -u postgres --)
		chmod o+rx "$WORK"
		mkdir "$WORK/pg" && chown postgres "$WORK/pg"
	else
		mkdir "$WORK/pg"
	fi
	"${as_pg[@]}" "$pgbin/initdb" -D "$WORK/pg/data" -U postgres --auth=trust --no-sync >"$WORK/initdb.log" 2>&1 || { cat "$WORK/initdb.log"; exit 1; }
	PGPORT=$(free_port)
	"${as_pg[@]}" "$pgbin/postgres" -D "$WORK/pg/data" -p "$PGPORT" -c listen_addresses=127.0.0.1 -c unix_socket_directories= \
		-c fsync=off >"$WORK/postgres.log" 2>&1 &
	PIDS+=("$!")
	for _ in $(seq 300); do
		"$pgbin/pg_isready" -q -h 127.0.0.1 -p "$PGPORT" && break
		sleep 0.1
	done
	"${as_pg[@]}" "$pgbin/createdb" -h 127.0.0.1 -p "$PGPORT" -U postgres "$1"
}

check() { # check NAME CONDITION-RESULT(0 = pass) DETAIL
	if [ "$2" -eq 0 ]; then
		PASSED=$((PASSED + 1)); echo "PASS $1${3:+: $3}"
	else
		FAILED=$((FAILED + 1)); echo "FAIL $1${3:+: $3}"
	fi
}

summary() {
	echo "$PASSED passed, $FAILED failed"
	[ "$FAILED" -eq 0 ]
}
