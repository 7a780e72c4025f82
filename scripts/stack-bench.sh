#!/usr/bin/env bash
# The production stack under load: GET /catalog (about 2 KiB of JSON)
# behind CORS, security headers, a per-IP rate limit, Prometheus request
# metrics and gzip, on Burrow with its plugins and on chi with rs/cors,
# unrolled/secure, httprate, promhttp and gzhttp (bench/cmd/stack). Each
# run starts one server alone on CPU 0 and loads it with wrk on CPU 1,
# as a browser would call it (Origin, Accept-Encoding: gzip); the peers
# alternate run by run (burrow chi burrow chi …), each run on a fresh
# server after a warm-up.
#
#   scripts/stack-bench.sh                       # 5 rounds of 8 s
#   ROUNDS=1 DURATION=1 scripts/stack-bench.sh   # a smoke run
#
# Prints, per peer, the median requests/s, the server's CPU µs per
# request (utime+stime from /proc/PID/stat over the run, divided by the
# requests served) and p99, then burrow ÷ chi. Each run's server CPU
# share is listed: well under ~85% means something else had CPU 0 (or
# wrk was the bottleneck) and that run is suspect. Only the machine's
# idle CPUs give figures worth keeping: run it alone.
source "$(dirname "$0")/lib.sh"
need wrk taskset curl gzip
ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-8}
WARMUP=${WARMUP:-2}
SERVER_CPU=${SERVER_CPU:-0}
LOAD_CPU=${LOAD_CPU:-1}
CONNECTIONS=${CONNECTIONS:-64}
PEERS=(burrow chi)
ROUTE=/catalog
HEADERS=(-H "Origin: https://app.example" -H "Accept-Encoding: gzip")
TICK=$(getconf CLK_TCK)
(cd "$ROOT/bench" && go build -o "$WORK/stack" ./cmd/stack)

# answers PEER PORT: the server answers the route as both stacks must
# (200, CORS, a security header, a rate-limit header, gzip).
answers() {
	local peer=$1 port=$2 head="$WORK/$1.head"
	curl -sS -D "$head" -o "$WORK/$peer.body" "${HEADERS[@]}" "http://127.0.0.1:$port$ROUTE" || return 1
	grep -q '^HTTP/1.1 200' "$head" &&
		grep -qi '^content-encoding: gzip' "$head" &&
		grep -qi '^access-control-allow-origin: https://app.example' "$head" &&
		grep -qi '^x-content-type-options: nosniff' "$head" &&
		grep -Eqi '^(x-)?ratelimit-(policy|limit):' "$head" &&
		gzip -t <"$WORK/$peer.body"
}

# measure PEER ROUND: one run on a fresh server; appends a line to
# samples.tsv: peer, round, req/s, µs of server CPU per request, CPU
# share %, p99 ms, non-2xx answers, socket errors.
measure() {
	local peer=$1 round=$2 port pid raw="$WORK/$1-$2.wrk"
	port=$(free_port)
	taskset -c "$SERVER_CPU" "$WORK/stack" -peer "$peer" -port "$port" >>"$WORK/$peer.log" 2>&1 &
	pid=$!
	PIDS+=("$pid")
	for _ in $(seq 100); do curl -fsS -o /dev/null "http://127.0.0.1:$port$ROUTE" 2>/dev/null && break; sleep 0.1; done
	if ! answers "$peer" "$port"; then
		echo "$peer answers wrong (headers in $WORK/$peer.head); no load run" >&2
		FAILED=$((FAILED + 1))
		kill "$pid"; wait "$pid" 2>/dev/null || true
		return
	fi
	taskset -c "$LOAD_CPU" wrk -t1 -c"$CONNECTIONS" -d"${WARMUP}s" "${HEADERS[@]}" "http://127.0.0.1:$port$ROUTE" >/dev/null
	local before after t0 t1
	before=$(awk '{print $14 + $15}' "/proc/$pid/stat")
	t0=$(date +%s%N)
	taskset -c "$LOAD_CPU" wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" --latency "${HEADERS[@]}" "http://127.0.0.1:$port$ROUTE" >"$raw"
	t1=$(date +%s%N)
	after=$(awk '{print $14 + $15}' "/proc/$pid/stat")
	kill "$pid"; wait "$pid" 2>/dev/null || true
	awk -v peer="$peer" -v round="$round" -v ticks=$((after - before)) -v hz="$TICK" -v ns=$((t1 - t0)) '
		function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
		/requests in/ { n = $1 }
		/Requests\/sec:/ { rps = $2 }
		$1 == "99%" { p99 = ms($2) }
		/Non-2xx or 3xx responses:/ { bad = $NF }
		/Socket errors:/ { gsub(/,/, ""); errs = $4 + $6 + $8 + $10 }
		END {
			cpu = ticks / hz
			printf "%s\t%d\t%.0f\t%.2f\t%.0f\t%.2f\t%d\t%d\n", peer, round, rps, cpu / n * 1e6, cpu / (ns / 1e9) * 100, p99, bad, errs
		}' "$raw" >>"$WORK/samples.tsv"
}

echo "CPU: $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
: >"$WORK/samples.tsv"
for round in $(seq "$ROUNDS"); do
	for peer in "${PEERS[@]}"; do measure "$peer" "$round"; done
	echo "round $round/$ROUNDS done" >&2
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "GET $ROUTE through the stack: medians of $ROUNDS runs of ${DURATION}s (wrk -t1 -c$CONNECTIONS on CPU $LOAD_CPU, server on CPU $SERVER_CPU)"
printf '%-8s %10s %18s %12s %9s  %s\n' peer "req/s" "(min–max)" "CPU µs/req" "p99 ms" "server CPU share per run"
median() { sort -n | awk '{v[NR] = $1} END {if (NR) print v[int((NR + 1) / 2)]}'; }
for peer in "${PEERS[@]}"; do
	col() { awk -F'\t' -v p="$peer" -v c="$1" '$1 == p {print $c}' "$WORK/samples.tsv"; }
	[ -n "$(col 3)" ] || continue
	printf '%-8s %10s %18s %12s %9s  %s\n' "$peer" "$(col 3 | median)" \
		"($(col 3 | sort -n | head -1)–$(col 3 | sort -n | tail -1))" "$(col 4 | median)" "$(col 6 | median)" \
		"$(col 5 | awk '{printf "%s%d%%%s", (NR > 1 ? " " : ""), $1, ($1 < 85 ? "!" : "")}')"
done
awk -F'\t' '
	$7 > 0 || $8 > 0 { printf "warning: %s round %d: %d non-2xx answers, %d socket errors\n", $1, $2, $7, $8 }
	$5 < 85 { noisy = 1 }
	END { if (noisy) print "!: the server had under 85% of its CPU in that run; treat it as noise" }' "$WORK/samples.tsv"
ratio() { # ratio COLUMN: burrow's median ÷ chi's
	local b c
	b=$(awk -F'\t' -v c="$1" '$1 == "burrow" {print $c}' "$WORK/samples.tsv" | median)
	c=$(awk -F'\t' -v c="$1" '$1 == "chi" {print $c}' "$WORK/samples.tsv" | median)
	[ -n "$b" ] && [ -n "$c" ] && awk -v b="$b" -v c="$c" 'BEGIN {printf "%.2f", b / c}'
}
echo "burrow ÷ chi: req/s $(ratio 3), CPU µs per request $(ratio 4)"
[ "$FAILED" -eq 0 ]
