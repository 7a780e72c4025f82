#!/usr/bin/env bash
# Runs every fuzz target for FUZZTIME each (default 30s), one after the
# other (fuzzing uses every core). New crashers land in the package's
# testdata/fuzz/<Target>/; commit them, and plain `go test` replays them.
#
#   scripts/fuzz.sh
#   FUZZTIME=5m scripts/fuzz.sh
source "$(dirname "$0")/lib.sh"
FUZZTIME=${FUZZTIME:-30s}
cd "$ROOT"
for target in ./httpx:FuzzRouterLookup ./httpx:FuzzAppendJSONString ./app:FuzzPathDecoding ./app:FuzzJSONBody ./app:FuzzQuery ./bearer:FuzzVerify; do
	pkg=${target%%:*}
	name=${target##*:}
	if go test -run '^$' -fuzz "^$name\$" -fuzztime "$FUZZTIME" "$pkg" >"$WORK/$name.txt" 2>&1; then
		check "$name" 0 "$(grep -o 'execs: [0-9]*' "$WORK/$name.txt" | tail -1)"
	else
		check "$name" 1 "$(tail -20 "$WORK/$name.txt")"
	fi
done
summary
