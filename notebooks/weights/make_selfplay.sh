#!/bin/sh
# The learned baselines of the multi-player games (issue 24; docs/learning-baselines-multiplayer.md):
#   notebooks/weights/express-v2-selfplay.npz             2 players
#   notebooks/weights/pilots-of-gallaxia-v2-selfplay.npz  2 players
#   notebooks/weights/galaxy-fighters-v2-team.npz         4 players, Expert; the team policy plays every seat
# each with its .json (the chain's commands and settings, both learning curves, the evaluations).
#
# The chain, for each game, with the plain MLP and the structured network (bc.py --arch
# seatblock: the layout's per-seat fields through one shared encoder) on the same budgets:
#   1. data: `galaxygym generate --agent heuristic`, every seat the heuristic;
#   2. behaviour cloning (notebooks/baselines/bc.py), SAMPLES decisions seen by each network;
#   3. self-play PPO from each clone (python -m galaxygym.ppo: one learner seat per table, the
#      other seats from a pool of the learner's past snapshots and the heuristic; Galaxy
#      Fighters: the learner's snapshots as teammates), PPO_MINUTES of training each, then a
#      second leg (PPO_LEGS=2) of LEG2_MINUTES from the first leg's weights (a fresh critic and
#      pool, seed 1): the committed files were made in two device calls, this is their split;
#   4. every result played natively (FINAL_DEALS deals against the heuristic, seats rotated;
#      Galaxy Fighters FINAL_DEALS missions of the policy in every seat); the last leg's better
#      network becomes the committed name (notebooks/weights/pick_selfplay.py), its .json
#      holding every run's record (both networks, both legs).
# Everything runs side by side (6 trainings at a time): sized for a 16-core machine with a GPU
# (DEVICE=cuda, where the committed files were made: docs/learning-baselines-multiplayer.md);
# on a small machine lower the sizes (SMOKE=1 runs the whole chain in a few minutes, tiny).
#
# Run from the repository root after `make build venv`. Outputs go to OUT_DIR (default
# notebooks/weights/run); copy the chosen files into notebooks/weights to commit them.
set -eu
PY=${PY:-.venv/bin/python}
B=${GALAXYGYM_BIN:-bin/galaxygym}
O=${OUT_DIR:-notebooks/weights/run}
D=${DATA:-$O/data}
DEVICE=${DEVICE:-cpu}
GAMES=${GAMES:-"express pilots fighters"}
ARCHS=${ARCHS:-"mlp seatblock"}
if [ "${SMOKE:-0}" = 1 ]; then
    EX_EPISODES=${EX_EPISODES:-12} PI_EPISODES=${PI_EPISODES:-12} GF_EPISODES=${GF_EPISODES:-12}
    SAMPLES=${SAMPLES:-4096} EVAL_DEALS=${EVAL_DEALS:-2} PPO_MINUTES=${PPO_MINUTES:-0.15}
    LEG2_MINUTES=${LEG2_MINUTES:-0.1} PPO_EVAL=${PPO_EVAL:-4} FINAL_DEALS=${FINAL_DEALS:-4} NUM_ENVS=${NUM_ENVS:-8} WARMUP=${WARMUP:-1024}
fi
EX_EPISODES=${EX_EPISODES:-6000}
PI_EPISODES=${PI_EPISODES:-4000}
GF_EPISODES=${GF_EPISODES:-8000}
SAMPLES=${SAMPLES:-8000000}
EVAL_DEALS=${EVAL_DEALS:-100}
PPO_MINUTES=${PPO_MINUTES:-3.5}
PPO_LEGS=${PPO_LEGS:-2}
LEG2_MINUTES=${LEG2_MINUTES:-3.2}
PPO_EVAL=${PPO_EVAL:-200}
FINAL_DEALS=${FINAL_DEALS:-1000}
NUM_ENVS=${NUM_ENVS:-64}
WARMUP=${WARMUP:-65536}
THREADS=${THREADS:-2}
WORKERS=${WORKERS:-2}
export GALAXYGYM_BIN="$B"
mkdir -p "$O/compare" "$O/logs" "$D"
[ -x "$B" ] || go build -o "$B" ./cmd/galaxygym

# Per game: env id, its eval arguments, the generate arguments, the seat fields, the PPO arguments.
id_of() { case $1 in express) echo express-v2 ;; pilots) echo pilots-of-gallaxia-v2 ;; fighters) echo galaxy-fighters-v2 ;; esac; }
vs_heuristic() { # deals -> eval arguments: the policy against the heuristic, seats rotated (fighters: the team)
    case $1 in
    express) echo "--env express-v2 --env-param players=2 --seats policy,heuristic --rotate --episodes $2 --agent-opt policy.greedy=true" ;;
    pilots) echo "--env pilots-of-gallaxia-v2 --env-param players=2 --seats policy,heuristic --rotate --episodes $2 --agent-opt policy.greedy=true" ;;
    fighters) echo "--env galaxy-fighters-v2 --agents policy --episodes $2 --agent-opt policy.greedy=true" ;;
    esac
}
gen_args() {
    case $1 in
    express) echo "--env express-v2 --env-param players=2 --episodes $EX_EPISODES" ;;
    pilots) echo "--env pilots-of-gallaxia-v2 --env-param players=2 --episodes $PI_EPISODES" ;;
    fighters) echo "--env galaxy-fighters-v2 --episodes $GF_EPISODES" ;;
    esac
}
bc_args() { # game arch
    case $1/$2 in
    express/mlp) echo "--hidden 256,256" ;;
    express/seatblock) echo "--arch seatblock --seat-fields player_blocks --global-width 256 --seat-width 64 --hidden 256" ;;
    pilots/mlp) echo "--hidden 256,256" ;;
    pilots/seatblock) echo "--arch seatblock --seat-fields ships,durriken,caravans,rings,seats --global-width 256 --seat-width 64 --hidden 256" ;;
    fighters/mlp) echo "--hidden 512,512" ;;
    fighters/seatblock) echo "--arch seatblock --seat-fields ships,seats --global-width 384 --seat-width 64 --hidden 512" ;;
    esac
}
ppo_args() {
    case $1 in
    # zero_sum: the reward is the score change minus the other's (head to head, what the target counts)
    express) echo "--param players=2 --param zero_sum=true --reward-scale 0.05 --opponents heuristic --eval-opponents heuristic" ;;
    pilots) echo "--param players=2 --reward-scale 1 --opponents heuristic --eval-opponents heuristic" ;;
    # co-op: every teammate a snapshot of the learner (the team policy); the curve beside 3 heuristics
    fighters) echo "--reward-scale 1 --opponents= --snapshot-prob 1 --eval-opponents heuristic" ;;
    esac
}

echo "== 1. data $(date -u +%T)"
for g in $GAMES; do
    # shellcheck disable=SC2046
    "$B" generate $(gen_args "$g") --agent heuristic --seed 0 --workers "$WORKERS" --out "$D/$g" \
        >"$O/logs/gen-$g.log" 2>&1 &
done
wait

echo "== 2. behaviour cloning $(date -u +%T)"
for g in $GAMES; do
    for a in $ARCHS; do
        # shellcheck disable=SC2046
        "$PY" notebooks/baselines/bc.py --data "$D/$g" $(bc_args "$g" "$a") --samples "$SAMPLES" --batch-size 1024 \
            --checkpoints 4 --threads "$THREADS" --device "$DEVICE" --out "$O/compare/$(id_of "$g")-bc-$a.npz" \
            --eval "$(vs_heuristic "$g" "$EVAL_DEALS") --seed 1 --workers $WORKERS" \
            --final-eval "$(vs_heuristic "$g" "$FINAL_DEALS") --seed 0 --workers $WORKERS" \
            >"$O/logs/bc-$g-$a.log" 2>&1 &
    done
done
wait

# One PPO leg of every game and network, side by side: leg name, the leg it starts from,
# minutes, seed, checkpoints, native games at the end (and at the start).
ppo_leg() {
    for g in $GAMES; do
        for a in $ARCHS; do
            # shellcheck disable=SC2046
            PYTHONPATH=python${PYTHONPATH:+:$PYTHONPATH} "$PY" -m galaxygym.ppo --env "$(id_of "$g")" $(ppo_args "$g") \
                --init-weights "$O/compare/$(id_of "$g")-$2-$a.npz" --minutes "$3" --steps 20000000 \
                --num-envs "$NUM_ENVS" --rollout-steps 128 --critic-warmup-steps "$WARMUP" --lineup-every 10 \
                --checkpoints "$5" --eval-episodes "$PPO_EVAL" --final-eval-episodes "$6" \
                --threads "$THREADS" --seed "$4" --out "$O/compare/$(id_of "$g")-$1-$a.npz" \
                >"$O/logs/$1-$g-$a.log" 2>&1 &
        done
    done
    wait
}
echo "== 3. self-play PPO $(date -u +%T)"
ppo_leg ppo bc "$PPO_MINUTES" 0 3 "$((PPO_EVAL * 2))"
if [ "$PPO_LEGS" -ge 2 ]; then
    echo "== 3b. self-play PPO, second leg $(date -u +%T)"
    ppo_leg ppo2 ppo "$LEG2_MINUTES" 1 2 "$PPO_EVAL"
fi

echo "== 4. final evaluation $(date -u +%T)"
for g in $GAMES; do
    for a in $ARCHS; do
        for leg in ppo ppo2; do
            [ -f "$O/compare/$(id_of "$g")-$leg-$a.npz" ] || continue
            # shellcheck disable=SC2046
            "$B" eval $(vs_heuristic "$g" "$FINAL_DEALS") --seed 0 --workers "$WORKERS" --format json \
                --weights "$O/compare/$(id_of "$g")-$leg-$a.npz" >"$O/compare/$(id_of "$g")-$leg-$a.eval.json" &
        done
    done
done
wait
"$PY" notebooks/weights/pick_selfplay.py "$O" $GAMES
echo "== done $(date -u +%T)"
