#!/usr/bin/env bash
# RealWorld's own API test suite (a Postman collection run by newman)
# against example/conduit, on SQLite and on PostgreSQL: every request of
# the suite must pass on both.
#
#   scripts/realworld.sh [SUITE_DIR]
#
# SUITE_DIR holds the suite and its run.sh (default: the realworld folder
# of the shared material beside the checkout). PostgreSQL is a throwaway
# cluster in the work folder, on a free port, stopped at the end; run as
# root, it runs as the postgres user. Needs go, curl, node and npm, and
# Debian's postgresql.
source "$(dirname "$0")/lib.sh"
need curl node npm
SUITE=${1:-$ROOT/../shared/realworld}
[ -x "$SUITE/run.sh" ] || { echo "no RealWorld suite at $SUITE"; exit 2; }

(cd "$ROOT/example/conduit" && go build -o "$WORK/conduit" .)

# start_conduit NAME ARGS...: starts an instance on a free port, records
# its pid, waits for /healthz, and sets PORT. (Not in a $(…): the pid
# would be recorded in a subshell, and the instance never stopped.)
start_conduit() {
	local name=$1
	shift
	PORT=$(free_port)
	"$WORK/conduit" -port "$PORT" "$@" >>"$WORK/conduit-$name.log" 2>&1 &
	PIDS+=("$!")
	for _ in $(seq 200); do
		curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	echo "conduit ($name) did not start" >&2
	cat "$WORK/conduit-$name.log" >&2
	exit 1
}

# suite NAME PORT: runs the suite; its last line is "N passed, M failed".
suite() {
	local out
	out=$(REALWORLD_RUNNER_DIR="${REALWORLD_RUNNER_DIR:-$WORK/runner}" "$SUITE/run.sh" "http://127.0.0.1:$2/api" 2>&1)
	local rc=$?
	local last
	last=$(tail -n 1 <<<"$out")
	[ "$rc" -eq 0 ] || echo "$out" | tail -n 60
	check "RealWorld suite on $1" "$rc" "$last"
}

start_conduit sqlite
suite SQLite "$PORT"

start_postgres conduit
start_conduit postgres -db "postgres://postgres@127.0.0.1:$PGPORT/conduit?sslmode=disable"
suite PostgreSQL "$PORT"
summary
