#!/bin/sh
# Pilots of Gallaxia v2 (2 players): the heuristic distilled with DAgger, its codes read one-hot
# and, with FEATURES=1 (the default), the game's action features: for the starship on the move,
# the spaces each space leaves it from its goal (togo, nearer; env/pilotsofgallaxia/features.go,
# weights format version 5), the distances an MLP over one-hot positions learns only in part
# (docs/learning-baselines.md, "Expert iteration", items 8, 9 and 11).
#   0. the heuristic plays EXPERT games in both seats and labels each decision with its action
#      values (tools/dagger -values), and a 7,954 (+ 1,089 one-hot) -> 512 -> 512 -> 380 MLP
#      learns softmax(values / 1) (galaxygym.train --soft 1 --codes);
#   R. the clone plays EPISODES games in both seats (greedy, seed 101 R), the heuristic (or
#      TEACHER, below) labels the states it reaches, and the clone trains again from its
#      previous weights on the first KEEP of the expert's games and the last WINDOW label files
#      (memory: 7,954 bytes of observation a decision, about 2.4 GB a file of 600 games).
# Each round's clone plays EVAL deals against the heuristic, seats rotated (2 EVAL games,
# --seed 1): eval-r<R>.json.
# Run from the repository root after `make build venv`. Outputs in $DATA (default
# datasets/out/$NAME): expert.npz, v<R>.npz, r<R>.npz (+ .pt, .json with the curve; <stage>.time:
# its CPU and wall seconds, every attempt), eval-r<R>.json and $NAME.json
# (notebooks/weights/exit_record.py dagger: the chain's commands, curves, evaluations, CPU seconds
# and rerun). Each stage is skipped when its output exists, so a run stopped at any moment goes on
# with the same command; INSTALL=1 copies the last round's weights, compressed, and the record to
# notebooks/weights/ (WEIGHTS_DIR). On the 2-core machine: expert labels about 2 minutes, each
# round about 2 minutes of labels, 10 of training (2 threads) and 2 of evaluation.
# SMOKE=1: tiny sizes (a minute), run by python/tests/test_exit.py.
# A search teacher (docs/learning-baselines.md, item 13): TEACHER=mcts@sims=32 labels the rounds' states with the search's
# choices instead of the heuristic's (tools/dagger -expert, hard labels; VALUES=1 below for its
# values), START=FILE.npz replaces round 0 with that weights file (r0.npz, a copy), and
# KEEP=0 leaves the heuristic's games out, so that the rounds train on the teacher's labels only
# (the newest label file as --data, its last episodes held out). VALUES=1 with such a teacher
# records its values too (tools/dagger -values: the search's mean return per action, a win 1 and
# a loss -1) and, with KEEP=0, trains on softmax(values / TEMP) (--soft TEMP, default 0.25); in
# Pilots this collapsed the clone, the values tying at most decisions (item 16).
# EXPERT_SEAT=rotate: in the rounds' games the teacher plays one seat (seat i mod 2 in game i) and
# the clone the other, so the clone learns at the states it reaches against its teacher as its
# opponent (tools/dagger -expert-seat; item 22), not against itself.
set -eu
PY=${PY:-.venv/bin/python}
B=${GALAXYGYM_BIN:-bin/galaxygym}
W=${WEIGHTS_DIR:-notebooks/weights}
NAME=${NAME:-pilots-of-gallaxia-v2-dagger}
D=${DATA:-datasets/out/$NAME}
ROUNDS=${ROUNDS:-3}
EXPERT=${EXPERT:-1000}
EPISODES=${EPISODES:-600}
SAMPLES=${SAMPLES:-1500000}
KEEP=${KEEP:-600}
WINDOW=${WINDOW:-2}
HIDDEN=${HIDDEN:-512,512}
THREADS=${THREADS:-2}
EVAL=${EVAL:-200}
FEATURES=${FEATURES:-1}
TEACHER=${TEACHER:-heuristic}
START=${START:-}
LR=${LR:-5e-4}
TEMP=${TEMP:-0.25}
VALUES=${VALUES:-}
EXPERT_SEAT=${EXPERT_SEAT:-}
XS="" # -expert-seat: the teacher as the clone's opponent
[ -n "$EXPERT_SEAT" ] && XS="-expert-seat $EXPERT_SEAT"
if [ -z "$VALUES" ] && [ "$TEACHER" = heuristic ]; then VALUES=1; elif [ -z "$VALUES" ]; then VALUES=0; fi
RV="" # -values: the teacher's action values, for soft targets
SOFT=""
[ "$VALUES" = 1 ] && RV=-values
if [ "$VALUES" = 1 ] && [ "$TEACHER" != heuristic ]; then SOFT="--soft $TEMP"; fi
if [ "${SMOKE:-0}" = 1 ]; then
    ROUNDS=1 EXPERT=2 EPISODES=2 SAMPLES=1024 HIDDEN=16 EVAL=1
    [ "$KEEP" = 0 ] || KEEP=2
fi
ENV=pilots-of-gallaxia-v2
mkdir -p "$D"
[ -x "$B" ] || go build -o "$B" ./cmd/galaxygym
go build -o "$D/dagger" ./tools/dagger
FT=""
FL=""
if [ "$FEATURES" = 1 ]; then FT=--action-features; FL=-features; fi
train() { # out, then train's options; written under a temporary name and renamed when complete
    out=$1; shift
    [ -f "$D/$out.json" ] && return 0
    # shellcheck disable=SC2086 # FT: empty or one option
    /usr/bin/time -a -o "$D/$out.time" -f "%U %S %e" env PYTHONPATH=python "$PY" -m galaxygym.train --arch mlp \
        --codes $FT --hidden "$HIDDEN" --batch-size 1024 --threads "$THREADS" --checkpoints 3 \
        --samples "$SAMPLES" --out "$D/tmp-$out.npz" "$@"
    mv "$D/tmp-$out.pt" "$D/$out.pt" && mv "$D/tmp-$out.npz" "$D/$out.npz" && mv "$D/tmp-$out.json" "$D/$out.json"
}
label() { # out, then dagger's options
    out=$1; shift
    [ -f "$D/$out" ] && return 0
    # shellcheck disable=SC2086 # FL: empty or one option
    /usr/bin/time -a -o "$D/$out.time" -f "%U %S %e" "$D/dagger" -env "$ENV" -param players=2 $FL \
        -out "$D/tmp-$out" "$@"
    mv "$D/tmp-$out" "$D/$out"
}
evaluate() { # round
    [ -f "$D/eval-r$1.json" ] && return 0
    "$B" eval --env "$ENV" --env-param players=2 --seats "policy@weights=$D/r$1.npz@greedy=true,heuristic" \
        --rotate --episodes "$EVAL" --seed 1 --format json > "$D/tmp-eval-r$1.json"
    mv "$D/tmp-eval-r$1.json" "$D/eval-r$1.json"
}
if [ -n "$START" ]; then
    [ -f "$D/r0.npz" ] || cp "$START" "$D/r0.npz"
else
    label expert.npz -values -beta 1 -episodes "$EXPERT" -seed 0
    train r0 --data "$D/expert.npz" --soft 1
fi
evaluate 0
R=1
while [ "$R" -le "$ROUNDS" ]; do
    # shellcheck disable=SC2086 # RV: empty or one option, XS empty or one with its value
    label "v$R.npz" $RV $XS -expert "$TEACHER" -weights "$D/r$((R - 1)).npz" -greedy -episodes "$EPISODES" -seed $((R * 101))
    DAG=""
    F=$((R - WINDOW + 1))
    [ "$F" -lt 1 ] && F=1
    LAST=$R
    [ "$KEEP" = 0 ] && LAST=$((R - 1))
    while [ "$F" -le "$LAST" ]; do DAG="$DAG --dagger $D/v$F.npz"; F=$((F + 1)); done
    PREV="$D/r$((R - 1)).pt"
    [ -f "$PREV" ] || PREV="$D/r$((R - 1)).npz"
    if [ "$KEEP" = 0 ]; then
        # shellcheck disable=SC2086 # DAG is a list of options, SOFT empty or one with its value
        train "r$R" --data "$D/v$R.npz" $DAG --init "$PREV" --lr "$LR" $SOFT
    else
        # shellcheck disable=SC2086 # DAG is a list of options
        train "r$R" --data "$D/expert.npz" --episodes "$KEEP" $DAG --init "$PREV" --lr "$LR" --soft 1
    fi
    evaluate "$R"
    R=$((R + 1))
done
export ROUNDS EXPERT EPISODES SAMPLES KEEP WINDOW HIDDEN THREADS EVAL FEATURES NAME TEACHER START LR VALUES TEMP EXPERT_SEAT
PYTHONPATH=python "$PY" notebooks/weights/exit_record.py dagger "$D" "$D/$NAME.json" "$ENV" make_dagger_pilots.sh
if [ "${INSTALL:-0}" = 1 ]; then
    PYTHONPATH=python "$PY" notebooks/weights/exit_record.py install "$D/r$ROUNDS.npz" "$D/$NAME.json" "$W" "$NAME"
fi
echo "the clone after $ROUNDS rounds: $D/r$ROUNDS.npz (record: $D/$NAME.json)"
