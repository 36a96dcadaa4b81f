#!/bin/sh
# Expert iteration (issue 35; docs/learning-baselines.md, "Expert iteration"):
#   sh notebooks/weights/make_exit.sh GAME     GAME: galaxy-express-v1, express-v2,
#                                              pilots-of-gallaxia-v2 or galaxy-fighters-v2
# writes OUT_DIR/GAME-exit.npz (a format-version-3 weights file: policy and value head) and
# OUT_DIR/GAME-exit.json (every stage's command, data sizes, learning curves, evaluations,
# the machine, CPU seconds per stage). ROUNDS rounds, each of three stages:
#   1. gen:   `galaxygym generate --agent mcts --agent-opt sims=SIMS --agent-opt weights=W
#             --record-search --observations none`: the search guided by the current weights W
#             plays EPISODES episodes, recording its visit fractions and root values;
#   2. train: `python -m galaxygym.exit` on this round's data and the WINDOW-1 rounds before it,
#             from W (warm start), to the round's weights (policy cross-entropy to the visits,
#             value MSE to the acting seat's return to go);
#   3. eval:  the round's policy natively (greedy) against the heuristic (the multi-player
#             games: seats rotated; Galaxy Fighters: the team policy in every seat), and the
#             guided search with the round's weights (EVAL_MCTS episodes).
# W starts as INIT (default: the game's committed clone or self-play file). Every stage is
# resumable from its files: a stage whose outputs are complete (the dataset's manifest.json,
# the weights' .json, the evaluation's .json, each written last and renamed into place) is
# skipped; a killed stage restarts cleanly (generate resumes from its complete parts).
# SMOKE=1: a tiny chain (2 rounds of a few episodes, under a minute for galaxy-express-v1).
# Run from the repository root after `make build venv`. Nothing here is tuned: the sizes below
# are the lead's to choose (docs/learning-baselines.md gives the cost per stage on 2 cores).
set -eu
GAME=${1:?usage: make_exit.sh GAME (galaxy-express-v1, express-v2, pilots-of-gallaxia-v2, galaxy-fighters-v2)}
PY=${PY:-.venv/bin/python}
B=${GALAXYGYM_BIN:-bin/galaxygym}
O=${OUT_DIR:-notebooks/weights/run-exit}
R=$O/$GAME
W_DIR=notebooks/weights
if [ "${SMOKE:-0}" = 1 ]; then
    ROUNDS=${ROUNDS:-2} EPISODES=${EPISODES:-6} SIMS=${SIMS:-8} EVAL_EPISODES=${EVAL_EPISODES:-20}
    EVAL_MCTS=${EVAL_MCTS:-2} EPOCHS=${EPOCHS:-1} PER_PART=${PER_PART:-3}
fi
ROUNDS=${ROUNDS:-4}
EPISODES=${EPISODES:-2000}
SIMS=${SIMS:-32}
# The guided search's leaves: rollout (the game's rollout agent to the end) or value (the value
# head). rollout by default: after one round of 200 Galaxy Express episodes the value head
# (RMSE 8.5 points) made the guided search play 61.5 against 107.0 with rollouts
# (docs/learning-baselines.md, "Expert iteration").
LEAF=${LEAF:-rollout}
# The self-play search of stage 1 (the evaluations keep the PUCT search at SIMS): GEN_SIMS
# simulations (default SIMS), SEARCH (ismcts, the PUCT tree, by default with weights; or halving:
# sequential halving with the policy's choice as the prior action), FOLLOW (0 by default; P:
# after searching, play the policy's choice with probability P, DAgger's mixture, so that the
# data holds the search's answers where the policy itself goes; a followed decision is recorded
# unsearched, so the policy learns only the search's own choices; with SEARCH=halving train with
# TARGET=played, whose visits say how far each action got).
GEN_SIMS=${GEN_SIMS:-$SIMS}
SEARCH=${SEARCH:-ismcts}
FOLLOW=${FOLLOW:-0}
# PRIOR: policy (the default) or rollout (the game's rollout agent gives the prior action, as
# in mcts without weights: with SEARCH=halving the teacher is the unguided search).
PRIOR=${PRIOR:-policy}
# TOP: with SEARCH=halving, the search compares the prior action and the policy's TOP most probable
# others only (mcts@top, Gumbel AlphaZero's root without the noise); empty (the default): every
# legal action. EVAL_OPTS: more options of the evaluated guided search (stage 3b), appended to
# its spec as they are written there, e.g. "@search=halving@prior=rollout@top=1".
TOP=${TOP:-}
EVAL_OPTS=${EVAL_OPTS:-}
TOP_OPT=""
[ -z "$TOP" ] || TOP_OPT="--agent-opt top=$TOP"
WINDOW=${WINDOW:-2}
EPOCHS=${EPOCHS:-4}
LR=${LR:-5e-4}
# The policy's target (python -m galaxygym.exit --target): visits, played or best.
TARGET=${TARGET:-visits}
EVAL_EPISODES=${EVAL_EPISODES:-2000}
EVAL_MCTS=${EVAL_MCTS:-200}
PER_PART=${PER_PART:-100}
SEED=${SEED:-0}
THREADS=${THREADS:-2}
WORKERS=${WORKERS:-2}
export GALAXYGYM_BIN="$B"

case $GAME in
galaxy-express-v1) ENV_ARGS=""; INIT=${INIT:-$W_DIR/galaxy-express-v1-bc.npz} ;;
express-v2) ENV_ARGS="--env-param players=2"; INIT=${INIT:-$W_DIR/express-v2-selfplay.npz} ;;
pilots-of-gallaxia-v2) ENV_ARGS="--env-param players=2"; INIT=${INIT:-$W_DIR/pilots-of-gallaxia-v2-selfplay.npz} ;;
galaxy-fighters-v2) ENV_ARGS=""; INIT=${INIT:-$W_DIR/galaxy-fighters-v2-team.npz} ;;
*) echo "make_exit.sh: unknown game $GAME" >&2; exit 2 ;;
esac
mkdir -p "$R"
[ -x "$B" ] || go build -o "$B" ./cmd/galaxygym

# The evaluation arguments of a policy file against the heuristic.
vs_heuristic() { # weights episodes
    case $GAME in
    galaxy-express-v1) echo "--env $GAME --agents heuristic,policy@weights=$1@greedy=true --episodes $2" ;;
    galaxy-fighters-v2) echo "--env $GAME --agents policy@weights=$1@greedy=true --episodes $2" ;;
    *) echo "--env $GAME $ENV_ARGS --seats policy@weights=$1@greedy=true,heuristic --rotate --episodes $2" ;;
    esac
}
vs_heuristic_mcts() { # weights episodes
    case $GAME in
    galaxy-express-v1 | galaxy-fighters-v2) echo "--env $GAME --agents mcts@sims=$SIMS@weights=$1@leaf=$LEAF$EVAL_OPTS --episodes $2" ;;
    *) echo "--env $GAME $ENV_ARGS --seats mcts@sims=$SIMS@weights=$1@leaf=$LEAF$EVAL_OPTS,heuristic --rotate --episodes $2" ;;
    esac
}

# stage NAME DONE_FILE CMD...: runs CMD unless DONE_FILE exists, logging the command and its
# CPU seconds (user+sys, children included), summed over every attempt that got as far as
# exiting, to $R/NAME.stage (written last).
stage() {
    name=$1 done=$2
    shift 2
    if [ -s "$done" ] && [ -s "$R/$name.stage" ]; then
        echo "make_exit: $name done ($done), skipped"
        return 0
    fi
    echo "make_exit: $name: $*"
    # -a: every attempt's times are kept (a stage killed and resumed costs all its attempts; a
    # line that is not three numbers, such as time's "Command terminated by signal 15", adds 0).
    /usr/bin/time -a -f '%U %S %e' -o "$R/$name.time" "$@"
    printf '%s\n%s\n' "$*" "$(awk '{u += $1; s += $2; e += $3} END {printf "%.2f %.2f %.2f", u, s, e}' \
        "$R/$name.time")" > "$R/$name.stage.tmp"
    mv "$R/$name.stage.tmp" "$R/$name.stage"
}

# eval_cmd FILE ARGS: the command line that writes galaxygym eval's JSON into FILE, renamed into
# place when complete (paths without spaces).
eval_cmd() {
    echo "$B eval $2 --seed 1 --workers $WORKERS --format json > $1.tmp && mv $1.tmp $1"
}

W=$INIT
r=1
while [ "$r" -le "$ROUNDS" ]; do
    d=$R/r$r
    mkdir -p "$d"
    # shellcheck disable=SC2086 # ENV_ARGS and TOP_OPT are lists of arguments
    stage "r$r-gen" "$d/data/manifest.json" "$B" generate --env "$GAME" $ENV_ARGS --agent mcts \
        --agent-opt "sims=$GEN_SIMS" --agent-opt "search=$SEARCH" --agent-opt "follow=$FOLLOW" --agent-opt "prior=$PRIOR" $TOP_OPT \
        --agent-opt "weights=$W" --agent-opt "leaf=$LEAF" --record-search --observations none \
        --episodes "$EPISODES" --episodes-per-part "$PER_PART" --seed $((SEED * 1000 + r)) \
        --workers "$WORKERS" --out "$d/data"
    DATA_ARGS=""
    k=$((r - WINDOW + 1))
    [ "$k" -ge 1 ] || k=1
    while [ "$k" -le "$r" ]; do
        DATA_ARGS="$DATA_ARGS --data $R/r$k/data"
        k=$((k + 1))
    done
    # shellcheck disable=SC2086 # DATA_ARGS is a list of arguments
    stage "r$r-train" "$d/w.json" env PYTHONPATH=python "$PY" -m galaxygym.exit $DATA_ARGS --init "$W" \
        --epochs "$EPOCHS" --lr "$LR" --target "$TARGET" --seed "$r" --threads "$THREADS" --out "$d/w.npz"
    stage "r$r-eval" "$d/eval-policy.json" sh -c "$(eval_cmd "$d/eval-policy.json" "$(vs_heuristic "$d/w.npz" "$EVAL_EPISODES")")"
    stage "r$r-eval-mcts" "$d/eval-mcts.json" sh -c "$(eval_cmd "$d/eval-mcts.json" "$(vs_heuristic_mcts "$d/w.npz" "$EVAL_MCTS")")"
    W=$d/w.npz
    r=$((r + 1))
done

export ROUNDS EPISODES PER_PART SIMS GEN_SIMS SEARCH FOLLOW PRIOR TOP EVAL_OPTS LEAF WINDOW EPOCHS LR TARGET EVAL_EPISODES \
    EVAL_MCTS SEED INIT THREADS
cp "$W" "$O/$GAME-exit.npz.tmp"
mv "$O/$GAME-exit.npz.tmp" "$O/$GAME-exit.npz"
PYTHONPATH=python "$PY" notebooks/weights/exit_record.py "$GAME" "$R" "$ROUNDS" "$INIT" "$O/$GAME-exit.json"
echo "make_exit: wrote $O/$GAME-exit.npz and $O/$GAME-exit.json"
