#!/bin/sh
# The Galaxy Fighters v2 Expert team policy distilled from the heuristic with DAgger
# (docs/learning-baselines.md, "Expert iteration", item 7): Galaxy Express's recipe
# (make_bc.sh) on Galaxy Fighters, the warm start of its expert-iteration chain.
#   0. the heuristic plays EXPERT missions in every seat and labels each decision with its
#      action values (tools/dagger -values: its search's value of every command and spill;
#      weapon, bonus and engine choices unvalued, so trained on the label), and a network
#      (a 4,092 -> 512 -> 512 -> 44 MLP) learns softmax(values / 1) (galaxygym.train --soft 1);
#   1. round 1: the clone plays EPISODES missions sampled and EPISODES greedy, every seat, and
#      the heuristic labels the states it reaches; later rounds greedy only;
#   each round trains from the previous round's weights on the expert's missions (from round 2
#   the first KEEP of them) and the last three label files: a window, because the labels are
#   held in memory (4,092 bytes of observation a decision, about 2 GB a file of 3,000
#   missions; a round peaks near 15 GB of RAM).
# Run from the repository root after `make build venv`. Outputs in $DATA (default
# datasets/out/gf-dagger): expert.npz, v<R>.npz, r<R>.npz (+ .pt, .json with the curve and
# 400-mission evaluations at 3 points; <stage>.time: its CPU and wall seconds, every attempt),
# and galaxy-fighters-v2-dagger.json (notebooks/weights/exit_record.py dagger: the whole chain's
# commands, curves, CPU seconds and rerun; a make_exit.sh chain started from its r<ROUNDS>.npz
# embeds it). Each stage is skipped when its output exists, so a run
# stopped at any moment goes on with the same command. On the 2-core machine: expert labels
# about 1 minute, each round about 1 minute of labels and 5 of training (2 threads).
# SMOKE=1: tiny sizes (a minute), run by python/tests/test_exit.py.
set -eu
PY=${PY:-.venv/bin/python}
B=${GALAXYGYM_BIN:-bin/galaxygym}
D=${DATA:-datasets/out/gf-dagger}
ROUNDS=${ROUNDS:-8}
EXPERT=${EXPERT:-5000}
EPISODES=${EPISODES:-3000}
SAMPLES=${SAMPLES:-1500000}
KEEP=${KEEP:-3000}
EVAL=${EVAL:-400}
if [ "${SMOKE:-0}" = 1 ]; then ROUNDS=2 EXPERT=6 EPISODES=3 SAMPLES=2048 KEEP=4 EVAL=2; fi
mkdir -p "$D"
[ -x "$B" ] || go build -o "$B" ./cmd/galaxygym
go build -o "$D/dagger" ./tools/dagger
export GALAXYGYM_BIN="$B"
train() { # out, then train's options; written under a temporary name and renamed when complete
    out=$1; shift
    [ -f "$D/$out.json" ] && return 0
    /usr/bin/time -a -o "$D/$out.time" -f "%U %S %e" env PYTHONPATH=python "$PY" -m galaxygym.train --arch mlp --hidden 512,512 --soft 1 --eval-episodes "$EVAL" \
        --checkpoints 3 --out "$D/tmp-$out.npz" "$@"
    mv "$D/tmp-$out.pt" "$D/$out.pt" && mv "$D/tmp-$out.npz" "$D/$out.npz" && mv "$D/tmp-$out.json" "$D/$out.json"
}
label() { # out, then dagger's options
    out=$1; shift
    [ -f "$D/$out" ] && return 0
    /usr/bin/time -a -o "$D/$out.time" -f "%U %S %e" "$D/dagger" -env galaxy-fighters-v2 -values -out "$D/tmp-$out" "$@"
    mv "$D/tmp-$out" "$D/$out"
}
label expert.npz -beta 1 -episodes "$EXPERT" -seed 0
train r0 --data "$D/expert.npz" --samples "$SAMPLES" --threads 1
label v1.npz -weights "$D/r0.npz" -episodes "$EPISODES" -seed 101
label v1g.npz -weights "$D/r0.npz" -greedy -episodes "$EPISODES" -seed 102
FILES="$D/v1.npz $D/v1g.npz"
R=1
while [ "$R" -le "$ROUNDS" ]; do
    if [ "$R" -gt 1 ]; then
        label "v$R.npz" -weights "$D/r$((R - 1)).npz" -greedy -episodes "$EPISODES" -seed $((R * 101))
        FILES="$FILES $D/v$R.npz"
    fi
    DAG=""
    for f in $(echo "$FILES" | tr ' ' '\n' | tail -n 3); do DAG="$DAG --dagger $f"; done
    if [ "$R" -eq 1 ]; then LR=1e-3 FIRST=$EXPERT; else LR=5e-4 FIRST=$KEEP; fi
    # shellcheck disable=SC2086 # DAG is a list of options
    train "r$R" --data "$D/expert.npz" --episodes "$FIRST" $DAG --init "$D/r$((R - 1)).pt" --samples "$SAMPLES" \
        --lr $LR --batch-size 1024 --threads 2
    R=$((R + 1))
done
export ROUNDS EXPERT EPISODES SAMPLES KEEP EVAL
PYTHONPATH=python "$PY" notebooks/weights/exit_record.py dagger "$D" "$D/galaxy-fighters-v2-dagger.json"
echo "the clone after $ROUNDS rounds: $D/r$ROUNDS.npz (record: $D/galaxy-fighters-v2-dagger.json)"
