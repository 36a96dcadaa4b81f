"""Galaxy Express: an afterstate head on a committed policy (docs/learning-baselines.md, item 25).

DouZero's Q(s, a) reads each action's own encoding beside the state; our policies' logits are a
per-action linear map of the trunk plus a linear term over the game's action features. This
experiment adds, on top of a committed version-5 file (its function unchanged at the start), a
head that scores every legal action from the trunk's state and the action's afterstate: the coin
played, its direction, the new speed, where the ship comes to rest relative to the target (the
torus offset class, or unknown), the coins left unspent after it, and the game's four features.
The head's logit is added to the file's and trained, with the file frozen, on tools/dagger label
files (-values -features: the search's mean return per action as soft targets, softmax(q / 1)).
Played greedily through the server (galaxygym.vector) on the seeded games of ``eval --seed``.

    python notebooks/weights/afterstate.py train --base F.npz --data v1.npz [--data v2.npz] --out head.pt
    python notebooks/weights/afterstate.py eval --base F.npz [--head head.pt] [--ensemble G.npz]... \
        --episodes 2000 --seed 1
"""
from __future__ import annotations

import argparse
import functools
import json
import time
from typing import Any

import numpy as np
import torch
from torch import nn

ENV = "galaxy-express-v1"
COLS, ROWS, SQ = 8, 6, 48
A_COIN, A_REFUEL, NA = 6, 54, 56
FEATURES = ["lost", "orbit", "deliver", "trap"]  # the game's action features, in its order, as encode reads them


@functools.lru_cache(maxsize=None)
def offsets() -> dict[str, int]:
    """The offsets of the observation fields encode reads, from the game's declared
    observation_layout (the server's spec: $GALAXYGYM_BIN or the wheel's binary)."""
    from galaxygym._registration import spec_of
    spec = spec_of(ENV)
    if spec is None:
        raise SystemExit(f"no spec of {ENV}: set GALAXYGYM_BIN to the server binary")
    return {k: int(spec["observation_layout"][k]["offset"]) for k in ("ship", "target", "speed", "spent")}


def _slide(sq: int, d: int, n: int) -> int:
    r, c = divmod(sq, COLS)
    if d == 0:
        r = (r - n) % ROWS
    elif d == 1:
        c = (c + n) % COLS
    elif d == 2:
        r = (r + n) % ROWS
    else:
        c = (c - n) % COLS
    return r * COLS + c


def _off(a: int, b: int) -> int:
    dx, dy = (b % COLS - a % COLS) % COLS, (b // COLS - a // COLS) % ROWS
    return min(dx, COLS - dx) + 5 * min(dy, ROWS - dy)


SLIDE = torch.tensor([[[_slide(s, d, n) for n in range(11)] for d in range(4)] for s in range(SQ)])
OFFC = torch.tensor([[_off(a, b) for b in range(SQ)] for a in range(SQ)])
COIN = torch.full((NA,), -1, dtype=torch.long)
DIR = torch.zeros(NA, dtype=torch.long)
for _a in range(A_COIN, A_REFUEL):
    COIN[_a], DIR[_a] = divmod(_a - A_COIN, 4)
KIND = torch.tensor([0] * 6 + [1] * 48 + [2, 3])
PSI = 11 + 21 + 12 + 4 + 4 + 12 + 4


def encode(obs: torch.Tensor, afeat: torch.Tensor) -> torch.Tensor:
    """obs uint8 (B, 503), afeat uint8 (B, 56, 4) -> float32 (B, 56, PSI)."""
    b = obs.shape[0]
    o = obs.long()
    off_ = offsets()
    ship = o[:, off_["ship"]:off_["ship"] + SQ].argmax(1)
    has_target = o[:, off_["target"]:off_["target"] + SQ].any(1)
    target = o[:, off_["target"]:off_["target"] + SQ].argmax(1)
    speed = (o[:, off_["speed"]:off_["speed"] + 11] * torch.arange(11)).sum(1).clamp(0, 10)
    unspent = 1 - o[:, off_["spent"]:off_["spent"] + 12]  # (B, 12)
    coin = COIN.view(1, NA).expand(b, NA)
    is_coin = coin >= 0
    c = coin.clamp(min=0)
    suit, v = c // 6, c % 6
    sp = speed.view(b, 1)
    ns = torch.where(suit == 0, (sp + v).clamp(max=10), (sp - v).clamp(min=0))
    d = DIR.view(1, NA).expand(b, NA)
    land = SLIDE[ship.view(b, 1).expand(b, NA), d, ns]
    off = OFFC[land, target.view(b, 1).expand(b, NA)]
    off = torch.where(has_target.view(b, 1), off, torch.full_like(off, 20))
    f_ns = nn.functional.one_hot(ns, 11).float() * is_coin.unsqueeze(2)
    f_off = nn.functional.one_hot(off, 21).float() * is_coin.unsqueeze(2)
    after = unspent.view(b, 1, 12).expand(b, NA, 12).clone().float()
    coin1 = nn.functional.one_hot(c, 12).float() * is_coin.unsqueeze(2)
    after = after - coin1
    refuel = (KIND == 2).view(1, NA, 1).expand(b, NA, 12)
    after = torch.where(refuel, torch.ones_like(after), after)
    af = afeat.float()
    af = torch.cat([af[..., :3], af[..., 3:4] / 60], 2)
    kind = nn.functional.one_hot(KIND, 4).float().view(1, NA, 4).expand(b, NA, 4)
    dirs = nn.functional.one_hot(d, 4).float() * is_coin.unsqueeze(2)
    return torch.cat([f_ns, f_off, after, af, kind, coin1, dirs], 2)


class Head(nn.Module):
    """The afterstate head: g(s, a) = w2 . relu(W1 [relu(P h(s)), psi(s, a)] + b1), w2 from 0."""

    def __init__(self, trunk: int, proj: int = 128, hidden: int = 128):
        super().__init__()
        self.proj = nn.Linear(trunk, proj)
        self.g1 = nn.Linear(proj + PSI, hidden)
        self.g2 = nn.Linear(hidden, 1)
        nn.init.zeros_(self.g2.weight)
        nn.init.zeros_(self.g2.bias)

    def forward(self, h: torch.Tensor, psi: torch.Tensor) -> torch.Tensor:
        z = torch.relu(self.proj(h)).unsqueeze(1).expand(-1, psi.shape[1], -1)
        return self.g2(torch.relu(self.g1(torch.cat([z, psi], 2)))).squeeze(2)


def load_base(path: str) -> Any:
    from galaxygym._nets import load_torch_policy
    net = load_torch_policy(path)
    for p in net.parameters():
        p.requires_grad_(False)
    return net


def columns(net: Any) -> list[int]:
    """The columns of the game's features (FEATURES) that net's file reads, by name."""
    from galaxygym.policy import feature_columns
    return feature_columns(FEATURES, getattr(net, "action_features", []) or [], "the weights file", ENV)


def base_parts(net: Any, obs: torch.Tensor, afeat: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The frozen file's trunk output h (B, H) and logits (B, 56); afeat holds the game's
    features in FEATURES' order, of which the file reads its own."""
    h = net.pi[:-1](net.features(obs))
    cols = columns(net)
    return h, net.pi[-1](h) + (net.afeat(afeat[..., cols]) if cols else 0)


def load(paths: list[str]) -> dict[str, np.ndarray]:
    parts = []
    for p in paths:
        with np.load(p) as z:
            parts.append({k: z[k] for k in ("obs", "mask", "action", "q", "afeat")})
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def train(a: argparse.Namespace) -> None:
    torch.manual_seed(a.seed)
    torch.set_num_threads(a.threads)
    net = load_base(a.base)
    data = load(a.data)
    n = len(data["obs"])
    nval = a.val
    print(f"{n} decisions, {nval} held out", flush=True)
    t0 = time.time()
    obs = torch.from_numpy(data["obs"])
    afeat = torch.from_numpy(data["afeat"])
    mask = torch.from_numpy(data["mask"] != 0)
    q = torch.from_numpy(data["q"].astype(np.float32))
    q = torch.where(mask & torch.isfinite(q), q, torch.full_like(q, -np.inf))
    ok = torch.isfinite(q).any(1)
    act = torch.from_numpy(data["action"])
    hs, base = [], []
    with torch.no_grad():
        for k in range(0, n, 8192):
            h, lg = base_parts(net, obs[k:k + 8192], afeat[k:k + 8192])
            hs.append(h.half())
            base.append(lg)
    H = torch.cat(hs)
    B = torch.cat(base)
    print(f"trunk computed in {time.time() - t0:.0f} s", flush=True)
    head = Head(H.shape[1], a.proj, a.hidden)
    opt = torch.optim.Adam(head.parameters(), lr=a.lr)
    tr = torch.arange(0, n - nval)
    tr = tr[ok[tr]]
    val = slice(n - nval, n)

    def logits(idx: Any) -> torch.Tensor:
        return (B[idx] + head(H[idx].float(), encode(obs[idx], afeat[idx]))).masked_fill(~mask[idx], -1e9)

    def evaluate() -> dict[str, float]:
        head.eval()
        hits = best = 0
        regret = 0.0
        cnt = 0
        with torch.no_grad():
            for k in range(val.start, val.stop, 8192):
                idx = torch.arange(k, min(k + 8192, val.stop))
                idx = idx[ok[idx]]
                ch = logits(idx).argmax(1)
                qq = q[idx]
                gap = qq.max(1).values - qq.gather(1, ch.view(-1, 1)).view(-1)
                fin = torch.isfinite(gap)
                hits += int((ch == act[idx]).sum())
                best += int((gap <= 0).sum())
                regret += float(gap[fin].sum())
                cnt += len(idx)
        head.train()
        return {"agreement": hits / cnt, "best": best / cnt, "regret": regret / cnt}

    print("start", evaluate(), flush=True)
    steps = a.samples // a.batch
    g = torch.Generator().manual_seed(a.seed)
    curve = []
    for s in range(steps):
        idx = tr[torch.randint(len(tr), (a.batch,), generator=g)]
        lg = logits(idx)
        target = torch.softmax(q[idx] / a.soft, 1)
        loss = -(target * torch.log_softmax(lg, 1)).nan_to_num(0).sum(1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if (s + 1) % max(1, steps // 8) == 0 or s + 1 == steps:
            e = evaluate()
            e.update(step=s + 1, loss=float(loss), seconds=time.time() - t0)
            curve.append(e)
            print(e, flush=True)
    torch.save({"head": head.state_dict(), "proj": a.proj, "hidden": a.hidden, "curve": curve,
                "args": vars(a)}, a.out)
    print("wrote", a.out)


def play(a: argparse.Namespace) -> None:
    from galaxygym._wire import episode_seed
    from galaxygym.vector import GalaxyGymVectorEnv
    torch.set_num_threads(a.threads)
    net = load_base(a.base)
    head = None
    if a.head:
        st = torch.load(a.head)
        head = Head(net.pi[-1].in_features, st["proj"], st["hidden"])
        head.load_state_dict(st["head"])
        head.eval()
    extra = [(m, columns(m)) for m in (load_base(p) for p in a.ensemble or [])]
    scores: list[float] = []
    n = a.batch
    with GalaxyGymVectorEnv(ENV, n, autoreset_mode="same_step", action_features=True) as env:
        assert list(env.action_feature_names) == FEATURES, env.action_feature_names
        for start in range(0, a.episodes, n):
            k = min(n, a.episodes - start)
            seeds = [episode_seed(a.seed, 2 * (start + i) + 1) for i in range(n)]  # eval's env seeds (rollout.EpisodeSeeds)
            obs, info = env.reset(seed=seeds)
            done = np.zeros(n, bool)
            done[k:] = True
            got = np.zeros(n)
            while not done.all():
                o = torch.from_numpy(np.asarray(obs))
                f = torch.from_numpy(np.asarray(info["action_features"]))
                m = torch.from_numpy(np.asarray(info["action_mask"]) != 0)
                with torch.no_grad():
                    h, lg = base_parts(net, o, f)
                    if head is not None:
                        lg = lg + head(h, encode(o, f))
                    if extra:  # the ensemble: the sum of the files' masked log-probabilities
                        lg = torch.log_softmax(lg.masked_fill(~m, -1e9), 1)
                        for net2, cols in extra:
                            l2 = net2(o, f[..., cols]) if cols else net2(o)
                            lg = lg + torch.log_softmax(l2.masked_fill(~m, -1e9), 1)
                act = lg.masked_fill(~m, -1e9).argmax(1).numpy()
                obs, _, term, trunc, info = env.step(act)
                ended = (np.asarray(term) | np.asarray(trunc)) & ~done
                if ended.any():
                    fi = info["final_info"]
                    got[ended] = np.asarray(fi["score"])[ended]
                    done |= ended
            scores.extend(got[:k].tolist())
    s = np.array(scores)
    print(json.dumps({"episodes": len(s), "mean": s.mean(), "ci95": 1.96 * s.std(ddof=1) / np.sqrt(len(s)),
                      "lost": int((s <= 0).sum())}))
    if a.scores:
        np.save(a.scores, s)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("train")
    t.add_argument("--base", required=True)
    t.add_argument("--data", action="append", required=True)
    t.add_argument("--out", required=True)
    t.add_argument("--val", type=int, default=50000)
    t.add_argument("--samples", type=int, default=3_000_000)
    t.add_argument("--batch", type=int, default=1024)
    t.add_argument("--lr", type=float, default=1e-3)
    t.add_argument("--soft", type=float, default=1.0)
    t.add_argument("--proj", type=int, default=128)
    t.add_argument("--hidden", type=int, default=128)
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--threads", type=int, default=2)
    e = sub.add_parser("eval")
    e.add_argument("--base", required=True)
    e.add_argument("--head")
    e.add_argument("--episodes", type=int, default=2000)
    e.add_argument("--seed", type=int, default=1)
    e.add_argument("--batch", type=int, default=250)
    e.add_argument("--threads", type=int, default=2)
    e.add_argument("--scores")
    e.add_argument("--ensemble", action="append", help="another weights file whose log-probabilities are added")
    a = ap.parse_args()
    train(a) if a.cmd == "train" else play(a)


if __name__ == "__main__":
    main()
