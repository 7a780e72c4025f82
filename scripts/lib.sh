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
	for _ in $(seq 100); do
		curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	echo "instance on $port did not become ready"; cat "$WORK/example-$port.log"; exit 1
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
