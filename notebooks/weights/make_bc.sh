#!/bin/sh
# Makes notebooks/weights/galaxy-express-v1-bc.npz (docs/learning-baselines.md):
# distillation of the heuristic's action values on its own 100,000 episodes
# (soft targets, 4M samples), then DAgger rounds in which the heuristic labels,
# with the same values, 40,000 episodes of the current clone's own play
# (round 1 sampling from the clone, later rounds greedy, as it is evaluated),
# each training on everything so far from the previous round's weights.
# Run from the repository root after `make build venv`; ROUNDS (default 6, as
# the committed weights) rounds; about 50 minutes on 2 cores (the expert labels
# and the offline step ~8 min, then ~6-7 min a round), and about 7.5 GB of
# labels in $DATA (2.3 GB expert, 0.8-0.9 GB a round).
set -eu
PY=${PY:-.venv/bin/python}
W=notebooks/weights
D=${DATA:-datasets/out/bc}
ROUNDS=${ROUNDS:-6}
mkdir -p "$D"
go build -o "$D/dagger" ./tools/dagger
train() { PYTHONPATH=python $PY -m galaxygym.train --arch conv --channels none --hidden 512,512 --batch-size 1024 \
    --threads 1 --soft 1 "$@"; }
"$D/dagger" -beta 1 -values -episodes 100000 -seed 0 -out "$D/expert.npz"
train --data "$D/expert.npz" --samples 4000000 --checkpoints 8 --out "$D/r0.npz"
DAG=""
R=1
while [ "$R" -le "$ROUNDS" ]; do
    if [ "$R" -eq 1 ]; then GREEDY=""; SAMPLES=3000000; LR=1e-3; else GREEDY=-greedy; SAMPLES=1500000; LR=5e-4; fi
    "$D/dagger" -weights "$D/r$((R - 1)).npz" -values $GREEDY -episodes 40000 -seed $((R * 101)) -out "$D/v$R.npz"
    DAG="$DAG --dagger $D/v$R.npz"
    # shellcheck disable=SC2086 # DAG is a list of options
    train --data "$D/expert.npz" $DAG --init "$D/r$((R - 1)).pt" --samples $SAMPLES --lr $LR --checkpoints 3 \
        --out "$D/r$R.npz"
    R=$((R + 1))
done
cp "$D/r$ROUNDS.npz" "$W/galaxy-express-v1-bc.npz"
bin/galaxygym eval --env galaxy-express-v1 --agents heuristic,policy --weights "$W/galaxy-express-v1-bc.npz" \
    --agent-opt policy.greedy=true --episodes 10000
