#!/bin/sh
# Runs every fuzz target of the module (every `func FuzzXxx` in a _test.go
# file) for FUZZTIME each, one `go test -fuzz` per target (Go fuzzes one
# target per invocation), and prints a table of the executions each made.
# A target that fails leaves its input under the package's
# testdata/fuzz/FuzzXxx/, where plain `go test` then replays it; the script
# goes on with the other targets and exits 1 at the end.
#
#   FUZZTIME=30s sh tools/fuzz/fuzz.sh            # every target
#   FUZZTIME=1m  sh tools/fuzz/fuzz.sh ./server   # the targets of some packages
#
# FUZZMINIMIZETIME (default 100x: a hundred executions) bounds the
# minimization of each new interesting input.
#
# The targets include both faces of `galaxygym serve`: the training
# protocol's messages (./server: FuzzDecodeStepRequest, FuzzDecodeControl,
# FuzzBatch, FuzzErrorJSON, FuzzReplies) and the page's (./play:
# FuzzPageMessage, one message of arbitrary bytes on /play/ws of a fresh
# server and page, its seed corpus real page messages).
#
#   FUZZTIME=1m sh tools/fuzz/fuzz.sh ./server ./play   # both faces
set -u
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-10s}
# Go minimizes every new interesting input for up to a minute by default,
# and a worker's executions are reported only once it is done: with short
# FUZZTIMEs that minute would eat the run and show a handful of execs.
FUZZMINIMIZETIME=${FUZZMINIMIZETIME:-100x}
[ $# -eq 0 ] && set -- ./...
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
printf '%-50s %-28s %12s %s\n' package target execs result
for pkg in $($GO list "$@"); do
	dir=$($GO list -f '{{.Dir}}' "$pkg")
	targets=$(cat "$dir"/*_test.go 2>/dev/null | sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' | sort -u)
	for t in $targets; do
		if $GO test -run '^$' -fuzz "^$t\$" -fuzztime "$FUZZTIME" -fuzzminimizetime "$FUZZMINIMIZETIME" "$pkg" >"$log" 2>&1; then
			result=ok
		else
			result=FAIL
			status=1
			cat "$log" >&2
		fi
		execs=$(sed -n 's/.*execs: \([0-9]*\).*/\1/p' "$log" | tail -n 1)
		printf '%-50s %-28s %12s %s\n' "$pkg" "$t" "${execs:-0}" "$result"
	done
done
exit $status
