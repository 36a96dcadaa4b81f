#!/bin/sh
# Makes notebooks/weights/galaxy-express-v1-bc.npz (README "Learning baselines"):
# behaviour cloning of the heuristic's dataset (ship-centred board policy,
# 4M samples), then six DAgger rounds (each: the heuristic labels 40,000
# episodes of the current clone's own play; 3M, then 1.5M more samples
# each on everything so far). Run from the repository root after `make build
# venv`; about 55 minutes on 2 shared cores.
set -eu
PY=${PY:-.venv/bin/python}
W=notebooks/weights
D=${DATA:-datasets/out/bc}
mkdir -p "$D"
bin/galaxygym generate --env galaxy-express-v1 --agent heuristic --episodes 100000 --seed 0 --out "$D/heuristic"
PYTHONPATH=python $PY -m galaxygym.train --data "$D/heuristic" --arch conv --channels none --hidden 512,512 \
    --samples 4000000 --batch-size 1024 --checkpoints 16 --threads 1 --out "$D/bc-offline.npz"
go run ./tools/dagger -weights "$D/bc-offline.npz" -episodes 40000 -seed 101 -out "$D/dagger1.npz"
PYTHONPATH=python $PY -m galaxygym.train --data "$D/heuristic" --dagger "$D/dagger1.npz" --init "$D/bc-offline.pt" \
    --arch conv --channels none --hidden 512,512 --samples 3000000 --batch-size 1024 --lr 1e-3 --checkpoints 6 \
    --threads 2 --out "$D/dagger1.npz.policy.npz"
go run ./tools/dagger -weights "$D/dagger1.npz.policy.npz" -episodes 40000 -seed 202 -out "$D/dagger2.npz"
PYTHONPATH=python $PY -m galaxygym.train --data "$D/heuristic" --dagger "$D/dagger1.npz" --dagger "$D/dagger2.npz" \
    --init "$D/dagger1.npz.policy.pt" --arch conv --channels none --hidden 512,512 --samples 1500000 --batch-size 1024 \
    --lr 5e-4 --checkpoints 3 --threads 2 --out "$D/dagger2.npz.policy.npz"
go run ./tools/dagger -weights "$D/dagger2.npz.policy.npz" -episodes 40000 -seed 303 -out "$D/dagger3.npz"
PYTHONPATH=python $PY -m galaxygym.train --data "$D/heuristic" --dagger "$D/dagger1.npz" --dagger "$D/dagger2.npz" \
    --dagger "$D/dagger3.npz" --init "$D/dagger2.npz.policy.pt" --arch conv --channels none --hidden 512,512 \
    --samples 1500000 --batch-size 1024 --lr 5e-4 --checkpoints 3 --threads 2 --out "$D/dagger3.npz.policy.npz"
go run ./tools/dagger -weights "$D/dagger3.npz.policy.npz" -episodes 40000 -seed 404 -out "$D/dagger4.npz"
PYTHONPATH=python $PY -m galaxygym.train --data "$D/heuristic" --dagger "$D/dagger1.npz" --dagger "$D/dagger2.npz" \
    --dagger "$D/dagger3.npz" --dagger "$D/dagger4.npz" --init "$D/dagger3.npz.policy.pt" --arch conv --channels none \
    --hidden 512,512 --samples 1500000 --batch-size 1024 --lr 5e-4 --checkpoints 3 --threads 2 \
    --out "$D/dagger4.npz.policy.npz"
go run ./tools/dagger -weights "$D/dagger4.npz.policy.npz" -episodes 40000 -seed 505 -out "$D/dagger5.npz"
PYTHONPATH=python $PY -m galaxygym.train --data "$D/heuristic" --dagger "$D/dagger1.npz" --dagger "$D/dagger2.npz" \
    --dagger "$D/dagger3.npz" --dagger "$D/dagger4.npz" --dagger "$D/dagger5.npz" --init "$D/dagger4.npz.policy.pt" \
    --arch conv --channels none --hidden 512,512 --samples 1500000 --batch-size 1024 --lr 5e-4 --checkpoints 3 \
    --threads 2 --out "$D/dagger5.npz.policy.npz"
go run ./tools/dagger -weights "$D/dagger5.npz.policy.npz" -episodes 40000 -seed 606 -out "$D/dagger6.npz"
PYTHONPATH=python $PY -m galaxygym.train --data "$D/heuristic" --dagger "$D/dagger1.npz" --dagger "$D/dagger2.npz" \
    --dagger "$D/dagger3.npz" --dagger "$D/dagger4.npz" --dagger "$D/dagger5.npz" --dagger "$D/dagger6.npz" \
    --init "$D/dagger5.npz.policy.pt" --arch conv --channels none --hidden 512,512 --samples 1500000 --batch-size 1024 \
    --lr 5e-4 --checkpoints 3 --threads 2 --out "$W/galaxy-express-v1-bc.npz"
bin/galaxygym eval --env galaxy-express-v1 --agents heuristic,policy --weights "$W/galaxy-express-v1-bc.npz" \
    --agent-opt policy.greedy=true --episodes 10000
