#!/usr/bin/env bash
# Runs every fuzz target for FUZZTIME each (default 30s), one after the
# other (fuzzing uses every core). New crashers land in the package's
# testdata/fuzz/<Target>/; commit them, and plain `go test` replays them.
#
#   scripts/fuzz.sh
#   FUZZTIME=5m scripts/fuzz.sh
#   FUZZTIME=200000x scripts/fuzz.sh   # a count of inputs, as CI uses
source "$(dirname "$0")/lib.sh"
FUZZTIME=${FUZZTIME:-30s}
cd "$ROOT"
inputs() { # inputs DIR: how many corpus files DIR holds (0 if none yet)
	if [ -d "$1" ]; then find "$1" -type f | wc -l; else echo 0; fi
}
for target in ./httpx:FuzzRouterLookup ./httpx:FuzzAppendJSONString ./app:FuzzPathDecoding ./app:FuzzPathEncoding ./app:FuzzJSONBody ./app/internal/jsonscan:FuzzDecode ./app:FuzzQuery ./app/internal/textdecode:FuzzSplitLists ./bearer:FuzzVerify; do
	pkg=${target%%:*}
	name=${target##*:}
	corpus="$pkg/testdata/fuzz/$name"
	before=$(inputs "$corpus")
	if go test -run '^$' -fuzz "^$name\$" -fuzztime "$FUZZTIME" "$pkg" >"$WORK/$name.txt" 2>&1; then
		check "$name" 0 "$(grep -o 'execs: [0-9]*' "$WORK/$name.txt" | tail -1)"
	elif [ "$(inputs "$corpus")" -eq "$before" ] &&
		grep -A1 -- "^--- FAIL: $name " "$WORK/$name.txt" | tail -1 | grep -qx '[[:space:]]*context deadline exceeded'; then
		# A duration budget can end in a bare "context deadline exceeded"
		# from Go's fuzz coordinator (golang/go#75804, fixed in Go 1.27)
		# with no input written: nothing was found. A count budget
		# (FUZZTIME=200000x) cannot hit it.
		check "$name" 0 "$(grep -o 'execs: [0-9]*' "$WORK/$name.txt" | tail -1), ended by Go's fuzz deadline race, no input written"
	else
		check "$name" 1 "$(tail -20 "$WORK/$name.txt")"
	fi
done
summary
