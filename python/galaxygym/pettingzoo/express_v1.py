"""PettingZoo-style module of the galaxygym environment express-v1 (env,
raw_env, parallel_env, ENV_ID, metadata; see galaxygym.pettingzoo). A real
file, so that ``import galaxygym.pettingzoo.express_v1`` works in a fresh
process (Ray's workers unpickling an env creator)."""

from galaxygym.pettingzoo._static import fill as _fill

_fill(__name__, "express-v1")
