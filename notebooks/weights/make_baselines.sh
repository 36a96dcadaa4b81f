#!/bin/sh
# Makes the multi-player imitation baselines (docs/learning-baselines-multiplayer.md):
#   notebooks/weights/express-v2-bc.npz             2 players
#   notebooks/weights/pilots-of-gallaxia-v2-bc.npz  2 players
#   notebooks/weights/galaxy-fighters-v2-bc.npz     4 players, Expert; the team policy plays every seat
# each with its .json (the dataset's generate command and size, the bc.py command and
# settings, the learning curve with a 200-game native evaluation at every checkpoint, and
# the final native evaluation: 2,000 games against the heuristic, seats rotated, or 2,000
# Expert missions beside the heuristic's).
#
# Stage 1 of the chain of issue 24: behaviour cloning of the heuristic's own play
# (`galaxygym generate --agent heuristic`, every seat the heuristic, so every decision is
# its), an MLP over the observation bytes the data ever sets (notebooks/baselines/bc.py),
# exported over the whole observation in the Go policy format. The self-play stage, with
# larger clones of its own, is notebooks/weights/make_selfplay.sh (the -selfplay/-team files).
#
# Run from the repository root after `make build venv`. About 35 minutes on the shared
# 2-core machine when the three trainings run side by side (as the committed files
# were made; GAMES=express to make one), 1 GB of datasets in $DATA, and up to 2 GB of
# memory per training.
set -eu
PY=${PY:-.venv/bin/python}
W=notebooks/weights
D=${DATA:-datasets/out/baselines}
B=bin/galaxygym
GAMES=${GAMES:-"express pilots fighters"}
mkdir -p "$D"
go build -o "$B" ./cmd/galaxygym
bc() { GALAXYGYM_BIN=$B nice "$PY" notebooks/baselines/bc.py --threads 1 "$@"; }

for g in $GAMES; do
    case $g in
    express)
        "$B" generate --env express-v2 --env-param players=2 --agent heuristic --episodes 2000 --seed 0 \
            --out "$D/express-v2-p2"
        bc --data "$D/express-v2-p2" --hidden 256,256 --samples 600000 --checkpoints 8 \
            --out "$W/express-v2-bc.npz" \
            --eval "--env express-v2 --env-param players=2 --seats policy,heuristic --rotate --episodes 100 --seed 1 --agent-opt policy.greedy=true" \
            --final-eval "--env express-v2 --env-param players=2 --seats policy,heuristic --rotate --episodes 1000 --seed 0 --agent-opt policy.greedy=true"
        ;;
    pilots)
        "$B" generate --env pilots-of-gallaxia-v2 --env-param players=2 --agent heuristic --episodes 1500 --seed 0 \
            --out "$D/pilots-v2-p2-1500"
        bc --data "$D/pilots-v2-p2-1500" --hidden 256,256 --samples 1000000 --checkpoints 8 \
            --out "$W/pilots-of-gallaxia-v2-bc.npz" \
            --eval "--env pilots-of-gallaxia-v2 --env-param players=2 --seats policy,heuristic --rotate --episodes 100 --seed 1 --agent-opt policy.greedy=true" \
            --final-eval "--env pilots-of-gallaxia-v2 --env-param players=2 --seats policy,heuristic --rotate --episodes 1000 --seed 0 --agent-opt policy.greedy=true"
        ;;
    fighters)
        "$B" generate --env galaxy-fighters-v2 --agent heuristic --episodes 4000 --seed 0 \
            --out "$D/gf-v2-expert-4000"
        bc --data "$D/gf-v2-expert-4000" --hidden 512,512 --samples 800000 --checkpoints 8 \
            --out "$W/galaxy-fighters-v2-bc.npz" \
            --eval "--env galaxy-fighters-v2 --agents policy --episodes 200 --seed 1 --agent-opt policy.greedy=true" \
            --final-eval "--env galaxy-fighters-v2 --agents heuristic,policy --episodes 2000 --seed 0 --agent-opt policy.greedy=true"
        ;;
    *)
        echo "make_baselines.sh: unknown game $g (express, pilots, fighters)" >&2
        exit 2
        ;;
    esac
done
go test -count=1 ./evaluate -run TestCommittedBaselines
