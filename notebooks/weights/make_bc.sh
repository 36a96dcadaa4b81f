#!/bin/sh
# Galaxy Express clones of the heuristic (docs/learning-baselines.md): distillation of the
# heuristic's action values on its own EXPERT episodes (soft targets, SAMPLES0 samples), then
# DAgger rounds in which the heuristic labels, with the same values, EPISODES episodes of the
# current clone's own play (round 1 sampling from the clone, later rounds greedy, as it is
# evaluated), each training on everything so far (WINDOW: the last label files) from the previous
# round's weights.
#   sh notebooks/weights/make_bc.sh
#       the committed galaxy-express-v1-bc.npz: HIDDEN=512,512 on 1 thread, 6 rounds
#       (about 50 minutes on 2 cores, and about 7.5 GB of labels in $DATA);
#   ROUNDS=11 HIDDEN=1024,1024 THREADS=2 NAME=galaxy-express-v1-dagger sh notebooks/weights/make_bc.sh
#       the committed galaxy-express-v1-dagger.npz (the same chain, a network twice
#       as wide; 77 minutes of the 2-core machine, item 10 of "Expert iteration").
# Run from the repository root after `make build venv`. Outputs in $DATA (default
# datasets/out/$NAME): expert.npz, v<R>.npz (labels), r<R>.npz (+ .pt, .json with the curve;
# <stage>.time: its CPU and wall seconds, every attempt), eval-r<R>.json (the round's clone
# greedy over EVAL games, --seed 1) and $NAME.json (notebooks/weights/exit_record.py dagger: the
# whole chain's commands, curves, evaluations, CPU seconds and rerun). Each stage is skipped
# when its output exists, so a run stopped at any moment goes on with the same command.
# The last round's weights are copied, compressed, with the record to notebooks/weights/$NAME.npz
# (WEIGHTS_DIR) only with INSTALL=1.
# FEATURES=1: every label file also holds the game's action features (tools/dagger -features) and
# the network reads them (train --action-features; weights format version 5).
# INIT=FILE (.npz or .pt of the same network): round 0 fine-tunes FILE on the heuristic's episodes
# (SAMPLES0 samples at LR0) instead of training from scratch, and every round is greedy at LR.
# A search teacher (docs/learning-baselines.md, items 14 and 15): TEACHER=mcts labels the rounds'
# states with the search's choices instead of the heuristic's values (tools/dagger -expert, hard
# labels, no --soft; VALUES=1 below for its values), START=FILE.npz replaces round 0 with that
# weights file (r0.npz, a copy; every round greedy at LR), and KEEP=0 leaves the heuristic's
# episodes out, so that the rounds train on the teacher's label files alone (the newest as --data,
# its last episodes held out, and the WINDOW - 1 before it).
# WIDEN=1: START (or INIT) may be narrower than HIDDEN (the same depth); round 1 (round 0) starts
# from exactly its function in the wider network (train --widen, Net2Net; item 17).
# SMOKE=1: tiny sizes (a minute; SMOKE_HIDDEN: its widths, default 16,16), run by python/tests/test_exit.py.
set -eu
PY=${PY:-.venv/bin/python}
B=${GALAXYGYM_BIN:-bin/galaxygym}
W=${WEIGHTS_DIR:-notebooks/weights}
NAME=${NAME:-galaxy-express-v1-bc}
D=${DATA:-datasets/out/$NAME}
ROUNDS=${ROUNDS:-6}
EXPERT=${EXPERT:-100000}
EPISODES=${EPISODES:-40000}
SAMPLES0=${SAMPLES0:-4000000}
SAMPLES1=${SAMPLES1:-3000000}
SAMPLES=${SAMPLES:-1500000}
HIDDEN=${HIDDEN:-512,512}
THREADS=${THREADS:-1}
EVAL=${EVAL:-2000}
# WINDOW=K: train each round on the heuristic's episodes and the last K label files only (0: all
# of them, as the committed chains did). Every file is held in memory, 2.3 GB of the heuristic's
# and 0.9-1.3 GB a round: the 1,024 x 1,024 chain's round 12 went past 24 GB with all of them.
WINDOW=${WINDOW:-0}
FEATURES=${FEATURES:-0}
INIT=${INIT:-}
LR=${LR:-5e-4}
LR0=${LR0:-1e-4}
TEACHER=${TEACHER:-heuristic}
START=${START:-}
KEEP=${KEEP:-1}
WIDEN=${WIDEN:-}
# VALUES=1: the teacher's value of every action (tools/dagger -values: the heuristic's action
# values, or the search's mean return per simulated action) as soft targets, softmax(values / 1
# point) (--soft 1); the default is 1 for the heuristic, 0 (hard labels: the teacher's choice) for
# another teacher.
VALUES=${VALUES:-}
if [ -z "$VALUES" ] && [ "$TEACHER" = heuristic ]; then VALUES=1; elif [ -z "$VALUES" ]; then VALUES=0; fi
RV=""
SOFT=""
if [ "$VALUES" = 1 ]; then RV=-values; SOFT="--soft 1"; fi
if [ "${SMOKE:-0}" = 1 ]; then ROUNDS=2 EXPERT=8 EPISODES=4 SAMPLES0=2048 SAMPLES1=2048 SAMPLES=2048 HIDDEN=${SMOKE_HIDDEN:-16,16} EVAL=4; fi
mkdir -p "$D"
[ -x "$B" ] || go build -o "$B" ./cmd/galaxygym
go build -o "$D/dagger" ./tools/dagger
train() { # out, then train's options; written under a temporary name and renamed when complete
    out=$1; shift
    [ -f "$D/$out.json" ] && return 0
    # shellcheck disable=SC2086 # FT, SOFT, WD: empty or one option (and its value)
    /usr/bin/time -a -o "$D/$out.time" -f "%U %S %e" env PYTHONPATH=python "$PY" -m galaxygym.train --arch conv \
        --channels none --hidden "$HIDDEN" --batch-size 1024 --threads "$THREADS" $SOFT $FT $WD --out "$D/tmp-$out.npz" "$@"
    mv "$D/tmp-$out.pt" "$D/$out.pt" && mv "$D/tmp-$out.npz" "$D/$out.npz" && mv "$D/tmp-$out.json" "$D/$out.json"
}
FT=""
FL=""
WD=""
[ "$WIDEN" = 1 ] && WD=--widen
if [ "$FEATURES" = 1 ]; then FT=--action-features; FL=-features; fi
label() { # out, then dagger's options
    out=$1; shift
    [ -f "$D/$out" ] && return 0
    # shellcheck disable=SC2086 # FL: empty or one option
    /usr/bin/time -a -o "$D/$out.time" -f "%U %S %e" "$D/dagger" $FL -out "$D/tmp-$out" "$@"
    mv "$D/tmp-$out" "$D/$out"
}
evaluate() { # round
    [ -f "$D/eval-r$1.json" ] && return 0
    "$B" eval --env galaxy-express-v1 --agents "policy@weights=$D/r$1.npz@greedy=true" --episodes "$EVAL" --seed 1 \
        --format json > "$D/tmp-eval-r$1.json"
    mv "$D/tmp-eval-r$1.json" "$D/eval-r$1.json"
}
[ -n "$START" ] && [ "$KEEP" = 0 ] || label expert.npz -values -beta 1 -episodes "$EXPERT" -seed 0
if [ -n "$START" ]; then
    [ -f "$D/r0.npz" ] || cp "$START" "$D/r0.npz"
elif [ -n "$INIT" ]; then
    train r0 --data "$D/expert.npz" --init "$INIT" --samples "$SAMPLES0" --lr "$LR0" --checkpoints 4
else
    train r0 --data "$D/expert.npz" --samples "$SAMPLES0" --checkpoints 8
fi
evaluate 0
R=1
while [ "$R" -le "$ROUNDS" ]; do
    if [ "$R" -eq 1 ] && [ -z "$INIT$START" ]; then GREEDY=""; N=$SAMPLES1; RLR=1e-3; else GREEDY=-greedy; N=$SAMPLES; RLR=$LR; fi
    # shellcheck disable=SC2086 # RV, GREEDY: empty or one option
    label "v$R.npz" $RV -expert "$TEACHER" -weights "$D/r$((R - 1)).npz" $GREEDY -episodes "$EPISODES" -seed $((R * 101))
    DAG=""
    F=1
    [ "$WINDOW" -gt 0 ] && [ "$R" -gt "$WINDOW" ] && F=$((R - WINDOW + 1))
    LAST=$R
    DATA0="$D/expert.npz"
    [ "$KEEP" = 0 ] && { LAST=$((R - 1)); DATA0="$D/v$R.npz"; }
    while [ "$F" -le "$LAST" ]; do DAG="$DAG --dagger $D/v$F.npz"; F=$((F + 1)); done
    PREV="$D/r$((R - 1)).pt"
    [ -f "$PREV" ] || PREV="$D/r$((R - 1)).npz"
    # shellcheck disable=SC2086 # DAG is a list of options
    train "r$R" --data "$DATA0" $DAG --init "$PREV" --samples "$N" --lr "$RLR" --checkpoints 3
    evaluate "$R"
    R=$((R + 1))
done
export ROUNDS EXPERT EPISODES SAMPLES0 SAMPLES1 SAMPLES HIDDEN THREADS EVAL WINDOW NAME FEATURES INIT LR LR0 TEACHER START KEEP VALUES WIDEN
PYTHONPATH=python "$PY" notebooks/weights/exit_record.py dagger "$D" "$D/$NAME.json" galaxy-express-v1 make_bc.sh
if [ "${INSTALL:-0}" = 1 ]; then
    PYTHONPATH=python "$PY" notebooks/weights/exit_record.py install "$D/r$ROUNDS.npz" "$D/$NAME.json" "$W" "$NAME"
fi
echo "the clone after $ROUNDS rounds: $D/r$ROUNDS.npz (record: $D/$NAME.json)"
