#!/usr/bin/env bash
# pagebench: what the browser page costs the training protocol
# (docs/performance.md, "Training first"). It starts `SERVE serve` on a free
# loopback port, runs `LOADTEST loadtest` against it for training alone and
# with the page loaded (PAGE_TABLES games of agents at delay 0 and
# PAGE_WATCHERS watchers), REPS times each, alternating, and prints every
# report. Usage:
#   tools/pagebench/pagebench.sh [SERVE] [LOADTEST]
# (both default to bin/galaxygym; SERVE_FLAGS, SESSIONS, ENVS, DURATION,
# REPS, PAGE_TABLES, PAGE_WATCHERS, PAGE_ENV, PAGE_AGENT override.)
set -euo pipefail
SERVE=${1:-bin/galaxygym}
LOADTEST=${2:-$SERVE}
SESSIONS=${SESSIONS:-16} ENVS=${ENVS:-16} DURATION=${DURATION:-10s} REPS=${REPS:-3}
PAGE_TABLES=${PAGE_TABLES:-10} PAGE_WATCHERS=${PAGE_WATCHERS:-50}
PAGE_ENV=${PAGE_ENV:-express-v2} PAGE_AGENT=${PAGE_AGENT:-heuristic}
out=$(mktemp)
"$SERVE" serve --addr 127.0.0.1:0 ${SERVE_FLAGS:-} >"$out" 2>/dev/null &
srv=$!
trap 'kill $srv 2>/dev/null; rm -f "$out"' EXIT
for _ in $(seq 100); do grep -q "listening on" "$out" && break; sleep 0.1; done
addr=$(sed -n 's/^listening on //p' "$out")
lt() { "$LOADTEST" loadtest --url "ws://$addr/" --sessions "$SESSIONS" --envs "$ENVS" --duration "$DURATION" --slow 0 --drop 0 "$@" || true; }
for r in $(seq "$REPS"); do
	echo "== run $r: training alone"
	lt
	echo "== run $r: training + page ($PAGE_TABLES tables, $PAGE_WATCHERS watchers)"
	lt --page-tables "$PAGE_TABLES" --page-watchers "$PAGE_WATCHERS" --page-env "$PAGE_ENV" --page-agent "$PAGE_AGENT"
	sleep 2 # the page's games end once their connections are gone
done
