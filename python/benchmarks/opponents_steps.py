"""make_vec env steps/s at N=256 on express-v2 and pilots-of-gallaxia-v1 (4 players):
every seat a learner (self-play in one batch) and heuristic opponents in the server.
Run: GALAXYGYM_BIN=bin/galaxygym PYTHONPATH=python python python/benchmarks/opponents_steps.py"""
import sys, time, numpy as np, galaxygym
def run(env_id, opp, n=256, steps=int(sys.argv[1]) if len(sys.argv) > 1 else 300, **params):
    kw = {"opponents": opp} if opp else {}
    venv = galaxygym.make_vec(env_id, n, **kw, **params)
    obs, infos = venv.reset(seed=0)
    rng = np.random.default_rng(0)
    def legal(mask):
        # vectorised random legal pick
        r = rng.random(mask.shape) * (mask > 0)
        return r.argmax(1)
    for _ in range(20):
        obs, r, te, tr, infos = venv.step(legal(infos["action_mask"]))
    t = time.perf_counter()
    for _ in range(steps):
        obs, r, te, tr, infos = venv.step(legal(infos["action_mask"]))
    dt = time.perf_counter() - t
    venv.close()
    return n * steps / dt
for env_id in ["express-v2", "pilots-of-gallaxia-v1"]:
    for opp in [None, "heuristic"]:
        print(env_id, opp or "self-play (all seats learners)", f"{run(env_id, opp, players=4):.0f} learner steps/s", flush=True)
