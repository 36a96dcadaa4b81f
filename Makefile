# galaxygym: `make run` generates the default dataset, `make test` runs every test.
GO       ?= go
BIN      := bin/galaxygym
ENV      ?= galaxy-express-v1
AGENT    ?= heuristic
EPISODES ?= 1000000
SEED     ?= 0
OUT      ?= datasets/out/$(ENV)-$(AGENT)

# Python side (`make venv`, `make test-python`): the client, its tests and the
# training notebook run in VENV. TORCH picks where PyTorch comes from:
#   auto   (default) Debian's python3-torch when SYS_PYTHON can import it, or can
#          be made to (apt-get, only as root); otherwise the PyPI wheel.
#          On Debian's torch 1.13 the venv gets SB3_PINS, the last
#          Stable-Baselines3/sb3-contrib releases that support torch 1.13
#          (2.5 and later ask for torch>=2.3; 2.9's MaskablePPO.load fails on
#          1.13: "Weights only load failed"), with --no-deps since they
#          declare gymnasium<1.1 and galaxygym needs 1.1 (python/tests/
#          test_sb3_roundtrip.py trains, saves and loads there)
#   debian Debian's python3-torch through a --system-site-packages venv of
#          SYS_PYTHON (bookworm: torch 1.13.1, 152 MB download, ~0.8 GB on disk),
#          with OpenBLAS (libopenblas0-pthread: without it torch falls back
#          to the reference BLAS and trains ~20x slower)
#   pypi   the PyPI wheel in a plain venv of PYTHON (~3 GB of CUDA libraries
#          downloaded, ~5.4 GB on disk, though only the CPU is used here)
#   none   no torch (the notebook test then skips)
PYTHON     ?= python3
SYS_PYTHON ?= /usr/bin/python3
VENV       ?= .venv
TORCH      ?= auto
VENV_STAMP := $(VENV)/.galaxygym-installed
SB3_PINS   := stable-baselines3==2.4.1 sb3-contrib==2.4.0

.PHONY: all build run test test-go test-python venv venv-ray test-ray notebook offline-notebook notebooks vet bench clean wheel wheels test-wheels fuzz browser-deps test-browser screenshots

all: build

build:
	$(GO) build -o $(BIN) ./cmd/galaxygym

# The main job: EPISODES episodes of AGENT on ENV, Parquet under OUT.
# Running it again resumes an interrupted run (finished parts are kept).
run: build
	$(BIN) generate --env $(ENV) --agent $(AGENT) --episodes $(EPISODES) --seed $(SEED) --out $(OUT)

test: vet browser-deps test-go test-python test-ray

# gofmt, conflict markers, go vet and staticcheck (pinned in go.mod's tool
# directive: `go tool staticcheck` builds it from the module cache, so a
# fresh machine needs only Go and the module proxy).
vet:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	@if git grep -n -E '^(<<<<<<<|>>>>>>>) ' 2>/dev/null; then echo "merge conflict markers left in the files above"; exit 1; fi
	$(GO) vet ./...
	$(GO) tool staticcheck ./...

# GALAXYGYM_PYTHON: the venv's Python reads a dataset back from the test S3
# server (datasets.TestBucketReadBackPython; skipped without the venv).
test-go:
	GALAXYGYM_PYTHON=$(abspath $(VENV))/bin/python $(GO) test -count=1 -timeout 30m ./...

# The platform wheel of python/ with the galaxygym binary inside (built here
# with Go, CGO_ENABLED=0; installing the wheel needs no Go): dist/galaxygym-*.whl.
# It needs only WHEEL_VENV, a small venv with pip (a few seconds the first
# time), whose pip builds in an isolated environment (setuptools from PyPI);
# not the test venv.
WHEEL_DIR  ?= dist
WHEEL_VENV ?= .venv-wheel
$(WHEEL_VENV)/bin/python:
	$(PYTHON) -m venv --clear $(WHEEL_VENV)

wheel: $(WHEEL_VENV)/bin/python
	rm -rf python/build $(WHEEL_DIR)/galaxygym-*.whl
	$(WHEEL_VENV)/bin/python -m pip wheel -q --no-deps --disable-pip-version-check -w $(WHEEL_DIR) ./python
	rm -rf python/build python/galaxygym.egg-info  # left behind, it makes pip think a checkout on PYTHONPATH is installed
	@ls $(WHEEL_DIR)/galaxygym-*.whl

# The five platform wheels users need, GOOS/GOARCH/wheel platform tag each:
# the server cross-compiled without cgo, packed by python/setup.py under the
# tag ($GALAXYGYM_BUILD_BIN, $GALAXYGYM_PLAT; the environment table comes
# from this machine's bin/galaxygym). docs/install.md explains the tags.
WHEEL_PLATFORMS ?= \
	linux/amd64/manylinux_2_17_x86_64.manylinux2014_x86_64 \
	linux/arm64/manylinux_2_17_aarch64.manylinux2014_aarch64 \
	darwin/arm64/macosx_12_0_arm64 \
	darwin/amd64/macosx_12_0_x86_64 \
	windows/amd64/win_amd64
wheels: build $(WHEEL_VENV)/bin/python
	rm -rf python/build build/wheels $(WHEEL_DIR)/galaxygym-*.whl
	@set -e; for p in $(WHEEL_PLATFORMS); do \
	  goos=$${p%%/*}; rest=$${p#*/}; goarch=$${rest%%/*}; plat=$${rest#*/}; \
	  exe=galaxygym; [ "$$goos" = windows ] && exe=galaxygym.exe; \
	  out=build/wheels/$$goos-$$goarch/$$exe; \
	  echo "wheels: $$goos/$$goarch -> $$plat"; \
	  CGO_ENABLED=0 GOOS=$$goos GOARCH=$$goarch $(GO) build -trimpath -ldflags='-s -w' -o $$out ./cmd/galaxygym; \
	  rm -rf python/build; \
	  GALAXYGYM_BUILD_BIN=$(CURDIR)/$$out GALAXYGYM_PLAT=$$plat GALAXYGYM_ENVS_BIN=$(CURDIR)/$(BIN) \
	    $(WHEEL_VENV)/bin/python -m pip wheel -q --no-deps --disable-pip-version-check -w $(WHEEL_DIR) ./python; \
	done
	rm -rf python/build python/galaxygym.egg-info
	@ls $(WHEEL_DIR)/galaxygym-*.whl

# The five wheels checked (python/tests/test_wheels.py): tags, each one's
# binary format, and the aarch64 server run under qemu-user when installed
# (Debian: apt-get install qemu-user-static).
test-wheels: wheels
	$(WHEEL_VENV)/bin/python -m pip install -q --disable-pip-version-check pytest
	GALAXYGYM_BIN=$(CURDIR)/$(BIN) GALAXYGYM_WHEELS_DIR=$(WHEEL_DIR) \
	    $(WHEEL_VENV)/bin/python -m pytest -q python/tests/test_wheels.py

# Creates VENV and installs ./python[test] and torch (see TORCH above); the
# stamp file makes a second run a no-op until python/pyproject.toml changes.
venv: $(VENV_STAMP)
	@# A venv made before SB3_PINS changed gets the pinned releases (pip does
	@# nothing when they are installed already).
	@if [ "$$(cat $(VENV_STAMP))" = debian ]; then \
	  $(VENV)/bin/python -m pip install -q --disable-pip-version-check --no-deps $(SB3_PINS); fi

$(VENV_STAMP): python/pyproject.toml
	@set -e; torch="$(TORCH)"; \
	debian_ok() { [ -x "$(SYS_PYTHON)" ] && "$(SYS_PYTHON)" -c 'import torch, ensurepip' 2>/dev/null; }; \
	if [ "$$torch" = auto ] || [ "$$torch" = debian ]; then \
	  need=""; debian_ok || need="python3-torch python3-venv"; \
	  if command -v dpkg-query >/dev/null && ! dpkg-query -W -f '$${Status}' libopenblas0-pthread 2>/dev/null | grep -q 'ok installed'; then \
	    need="$$need libopenblas0-pthread"; \
	  fi; \
	  if [ -n "$$need" ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "venv: apt-get install $$need"; \
	    apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
	      --no-install-recommends $$need >/dev/null || echo "venv: apt-get failed"; \
	  fi; \
	  if debian_ok; then torch=debian; \
	  elif [ "$$torch" = debian ]; then echo "venv: TORCH=debian but $(SYS_PYTHON) cannot import torch (as root: apt-get install python3-torch python3-venv libopenblas0-pthread)"; exit 1; \
	  else torch=pypi; fi; \
	fi; \
	echo "venv: $(VENV) with torch from $$torch"; \
	if [ "$$torch" = debian ]; then \
	  "$(SYS_PYTHON)" -m venv --clear --system-site-packages $(VENV); \
	  pins=""; \
	  if [ "$$("$(SYS_PYTHON)" -c 'import numpy; print(numpy.__version__.split(".")[0])')" = 1 ]; then \
	    pins="numpy<2 pyarrow<26"; \
	  fi; \
	  $(VENV)/bin/python -m pip install -q -e './python[test,train]' $$pins; \
	  $(VENV)/bin/python -m pip install -q --no-deps $(SB3_PINS); \
	elif [ "$$torch" = pypi ]; then \
	  $(PYTHON) -m venv --clear $(VENV); \
	  $(VENV)/bin/python -m pip install -q -e './python[test,train,sb3]'; \
	else \
	  $(PYTHON) -m venv --clear $(VENV); \
	  $(VENV)/bin/python -m pip install -q -e './python[test]'; \
	fi; \
	$(VENV)/bin/python -c 'import galaxygym, nbclient, matplotlib; print("venv: ok")'; \
	echo "$$torch" > $@

# The Python tests (client, vector env, the docs' blocks, the wheel in a
# fresh venv without Go, the training notebook at a small budget) against
# the freshly built server.
test-python: build venv wheel
	GALAXYGYM_BIN=$(CURDIR)/$(BIN) GALAXYGYM_WHEEL="$$(ls $(abspath $(WHEEL_DIR))/galaxygym-*.whl)" \
	    $(VENV)/bin/python -m pytest -q python/tests

# Ray (RLlib) in a venv of its own, RAY_VENV, apart from the test venv (Ray
# pins gymnasium 1.2 and pandas/pyarrow of its own): SYS_PYTHON's
# --system-site-packages venv with Debian's torch 1.13 when it imports (else
# PyPI's torch, ~5 GB with CUDA), RAY_PINS and ./python. First time: about
# 3.5 minutes and 0.95 GB on disk (the ray wheel is 79 MB; Debian's torch,
# ~0.8 GB, is the system's); docs/scaling.md#trainers-on-ray. RAY_PINS also
# has DuckDB 1.4.4 with the PyPI package duckdb-ext-httpfs (DuckDB's httpfs
# extension, which DuckDB itself downloads from its own site; no such
# package exists for DuckDB 2.x, the test venv's) and moto's S3 server.
# test-ray runs python/tests/test_rllib.py there (about 2 minutes on 2
# cores) and test_datasets_s3.py, its DuckDB read included; `make test`
# runs it last (the test venv itself has no Ray).
RAY_VENV ?= .venv-ray
RAY_PINS := 'ray[rllib]==2.60.0' pytest 'moto[s3]>=5' flask flask-cors \
	duckdb==1.4.4 duckdb-ext-httpfs==1.4.4.20260205
$(RAY_VENV)/.galaxygym-installed: python/pyproject.toml
	@set -e; \
	if "$(SYS_PYTHON)" -c 'import torch, ensurepip' 2>/dev/null; then \
	  "$(SYS_PYTHON)" -m venv --clear --system-site-packages $(RAY_VENV); pins=""; \
	  if [ "$$("$(SYS_PYTHON)" -c 'import numpy; print(numpy.__version__.split(".")[0])')" = 1 ]; then \
	    pins="numpy<2 pyarrow<26"; fi; \
	  $(RAY_VENV)/bin/python -m pip install -q --disable-pip-version-check $(RAY_PINS) $$pins -e ./python; \
	else \
	  $(PYTHON) -m venv --clear $(RAY_VENV); \
	  $(RAY_VENV)/bin/python -m pip install -q --disable-pip-version-check $(RAY_PINS) torch -e ./python; \
	fi; \
	$(RAY_VENV)/bin/python -c 'import ray.rllib, torch; print("venv-ray: ray", ray.__version__, "torch", torch.__version__)'; \
	touch $@

venv-ray: $(RAY_VENV)/.galaxygym-installed

test-ray: build venv-ray
	GALAXYGYM_BIN=$(CURDIR)/$(BIN) $(RAY_VENV)/bin/python -m pytest -q python/tests/test_rllib.py \
	    python/tests/test_datasets_s3.py

# Runs the training notebook at its full budget (PPO fine-tuning the committed
# clone, 4M env steps: about 16 minutes on 2 cores);
# the executed copy, the learning curve and the weights land in notebooks/out/.
notebook: build venv
	mkdir -p notebooks/out
	GALAXYGYM_BIN=$(CURDIR)/$(BIN) $(VENV)/bin/python -c 'import nbformat, nbclient; \
	nb = nbformat.read("notebooks/train_galaxy_express.ipynb", as_version=4); \
	nbclient.NotebookClient(nb, timeout=None, kernel_name="python3", resources={"metadata": {"path": "notebooks"}}).execute(); \
	nbformat.write(nb, "notebooks/out/train_galaxy_express.ipynb")'
	@echo "notebook: notebooks/out/{train_galaxy_express.ipynb,learning_curve.png,results.json,policy.pt,critic.pt,policy.npz}"

# The offline notebook (behaviour cloning of the heuristic's dataset: four
# networks on the same budget, then the committed weights over 10,000 games);
# about 10-15 minutes on 2 cores. Output in notebooks/out/offline/.
offline-notebook: build venv
	mkdir -p notebooks/out/offline
	GALAXYGYM_BIN=$(CURDIR)/$(BIN) $(VENV)/bin/python -c 'import nbformat, nbclient; \
	nb = nbformat.read("notebooks/offline_galaxy_express.ipynb", as_version=4); \
	nbclient.NotebookClient(nb, timeout=None, kernel_name="python3", resources={"metadata": {"path": "notebooks"}}).execute(); \
	nbformat.write(nb, "notebooks/out/offline/offline_galaxy_express.ipynb")'
	@echo "offline-notebook: notebooks/out/offline/{offline_galaxy_express.ipynb,bc_curves.png,results.json,*.npz}"

# Both notebooks at full budget.
notebooks: notebook offline-notebook

# The leaderboard of docs/benchmarks.md: every agent on the same seeded games
# (galaxygym eval), the markdown tables rewritten between the doc's markers.
# Budget: BENCH_EPISODES episodes per agent for random and heuristic (10,000:
# 1-2 s on 2 cores), SEARCH_EPISODES for the table with mcts (200: 4-15 s).
BENCH_EPISODES  ?= 10000
SEARCH_EPISODES ?= 200
FIGHTERS_EPISODES ?= 10000
# Competitive games: deals per rotated lineup (games = deals x seats).
COMPETITIVE_DEALS ?= 2500
COMPETITIVE_SEARCH_EPISODES ?= 30
# Galaxy Fighters v2: heuristic against mcts (16 simulations, heuristic rollouts)
# per mission, about 3 s of CPU a game (docs/benchmarks.md's Ace table used 200),
# then 64 simulations at Ace on 100 games (roughly 10-15 s of CPU a game).
FIGHTERS_SEARCH_EPISODES ?= 60
# Leagues (eval --league, docs/benchmarks.md): deals per lineup and rotation
# (5 agents at 4 seats: 20 games a deal; a few minutes of CPU for 8 deals).
LEAGUE_DEALS ?= 8
LEAGUE_POOL ?= heuristic,random,mcts@sims=2,mcts@sims=8,mcts@sims=32
# v2 ids (express-v2, pilots-of-gallaxia-v2): the 2-player mcts-vs-heuristic rows use
# V2_SEARCH_SIMS simulations; the leagues' pool is the heuristic (the reference),
# random and mcts at the three budgets of LEAGUE_V2_SIMS. CPU a game with one mcts
# seat at 8/32/128 simulations at 4 players: Express 0.2/0.35/1.3 s, Pilots 1.4/4.8/18.5 s,
# so Pilots gets only the 2-player league. The 2-player search rows: Express 0.45 s,
# Pilots 2 s of CPU a game. Leagues, 20 games a deal: Express 4 players about 37 s of
# CPU a deal (measured: 222 s for 6), Express 2 players 32 s (384 s for 12), Pilots 2 players 86 s (259 s for 3).
V2_SEARCH_SIMS ?= 32
V2_SEARCH_DEALS ?= 30
LEAGUE_V2_SIMS ?= 8 32 128
EXPRESS_V2_LEAGUE_DEALS ?= 6
EXPRESS_V2_LEAGUE_2P_DEALS ?= 12
PILOTS_V2_LEAGUE_2P_DEALS ?= 3
empty :=
comma := ,
LEAGUE_V2_POOL ?= heuristic,random,$(subst $(empty) $(empty),$(comma),$(strip $(addprefix mcts@sims=,$(LEAGUE_V2_SIMS))))

# The learned policies of the multi-player games (notebooks/weights/*-selfplay.npz,
# *-team.npz; docs/learning-baselines-multiplayer.md): head to head against the
# heuristic at 2 players, seats rotated (LEARNED_DEALS deals, 2 games each), the
# team policy on LEARNED_MISSIONS Expert missions beside the heuristic, and
# 4-player leagues of heuristic, random and the policy (LEARNED_LEAGUE_DEALS deals,
# 12 games each at 3 agents). CPU, measured: Express 54 s for 5,000 deals, Galaxy
# Fighters 125 s for 10,000 missions of the policy, leagues of 1,000 deals 90 s
# (Express) and 156 s (Pilots).
LEARNED_DEALS ?= 5000
LEARNED_MISSIONS ?= 10000
LEARNED_LEAGUE_DEALS ?= 1000
W := notebooks/weights

# Expert iteration's files (notebooks/weights/*-exit.npz from make_exit.sh, issue 35;
# docs/learning-baselines.md): Galaxy Express's exit policy, its wider DAgger clone
# (galaxy-express-v1-dagger.npz, make_bc.sh), that clone reading the game's action features
# (galaxy-express-v1-features.npz), that clone taught by the search's values
# (galaxy-express-v1-mcts-values.npz, make_bc.sh TEACHER=mcts VALUES=1), that one reading the
# game's fourth feature, trap (galaxy-express-v1-trap.npz, the same chain from it) and the heuristic on
# EXIT_EPISODES games, and the
# searches they guide (the exit file's PUCT at 32 simulations, the clone choosing the moves that
# sequential halving compares at the default budget; rollouts to the end) on EXIT_SEARCH_EPISODES;
# Express and Pilots at two players, seats rotated: the policy against the heuristic
# (LEARNED_DEALS deals), the policy against mcts@sims=32 (EXIT_POLICY_DEALS deals) and the
# guided search (its options EXIT_GUIDED) against mcts@sims=32 (EXIT_SEARCH_DEALS deals; Express:
# 1,000 deals each, the 2,000 games of issue 35's targets, the guided search's about 20 minutes
# of 2 cores), and the 4-player league of heuristic, random, mcts@sims=32 and the self-play and
# exit policies (EXIT_LEAGUE_DEALS deals, 20 games a deal);
# Pilots of Gallaxia's DAgger clone reading codes and action features (pilots-of-gallaxia-v2-dagger.npz,
# make_dagger_pilots.sh) against the heuristic (LEARNED_DEALS) and mcts@sims=32 (PILOTS_DAGGER_MCTS_DEALS),
# and the search it guides (PILOTS_EXIT_GUIDED) against mcts@sims=32 (PILOTS_DAGGER_MCTS_DEALS);
# that clone taught by mcts@sims=32 (pilots-of-gallaxia-v2-mcts-dagger.npz, make_dagger_pilots.sh
# TEACHER=) the same way, against mcts@sims=32 on PILOTS_MCTS_DAGGER_MCTS_DEALS (1,000: the 2,000
# games of issue 35's target, about 12 minutes of 2 cores) and its guided search on
# PILOTS_MCTS_DAGGER_GUIDED_DEALS (1,000, about 30 minutes);
# Galaxy Fighters v2 Expert: the team policy and its warm start, the heuristic's DAgger clone
# (LEARNED_MISSIONS), and the guided search at FIGHTERS_EXIT_SIMS simulations
# (FIGHTERS_EXIT_SEARCH_EPISODES missions) beside the heuristic.
# CPU, measured on the 2-core machine: in docs/learning-baselines.md, "Expert iteration".
EXIT_EPISODES ?= 10000
EXIT_SEARCH_EPISODES ?= 200
EXPRESS_EXIT_SEARCH_DEALS ?= 1000
EXPRESS_EXIT_POLICY_DEALS ?= 1000
EXPRESS_EXIT_LEAGUE_DEALS ?= 100
PILOTS_EXIT_SEARCH_DEALS ?= 200
PILOTS_EXIT_POLICY_DEALS ?= 30
PILOTS_EXIT_LEAGUE_DEALS ?= 30
PILOTS_DAGGER_MCTS_DEALS ?= 100
PILOTS_MCTS_DAGGER_MCTS_DEALS ?= 1000
PILOTS_MCTS_DAGGER_GUIDED_DEALS ?= 1000
# The guided search's options beyond weights and leaf=rollout, per game: the ones that played
# best against mcts@sims=32 (docs/learning-baselines.md, "Expert iteration", items 4 and 5).
EXPRESS_EXIT_GUIDED ?=
PILOTS_EXIT_GUIDED ?= @search=halving@prior=rollout@top=1
FIGHTERS_EXIT_SIMS ?= 16
FIGHTERS_EXIT_SEARCH_EPISODES ?= 400
# Pilots' league also plays the two DAgger clones (PILOTS_EXIT_LEAGUE_EXTRA).
PILOTS_EXIT_LEAGUE_EXTRA = $(comma)policy@weights=$(W)/pilots-of-gallaxia-v2-dagger.npz@greedy=true$(comma)policy@weights=$(W)/pilots-of-gallaxia-v2-mcts-dagger.npz@greedy=true
# exit-2p GAME SEARCH_DEALS LEAGUE_DEALS POLICY_DEALS GUIDED [LEAGUE_EXTRA]: the rows of a 2-6 player
# game; LEAGUE_EXTRA, more agents of its league, each after a comma.
define exit-2p
$(BIN) eval --env $(1) --env-param players=2 --seats policy@weights=$(W)/$(1)-exit.npz@greedy=true,heuristic --rotate \
  --episodes $(LEARNED_DEALS) --seed 0 --format markdown --doc docs/benchmarks.md --doc-section exit-$(1)-2p
$(BIN) eval --env $(1) --env-param players=2 --seats policy@weights=$(W)/$(1)-exit.npz@greedy=true,mcts@sims=32 --rotate \
  --episodes $(4) --seed 0 --format markdown --doc docs/benchmarks.md --doc-section exit-$(1)-vs-mcts
$(BIN) eval --env $(1) --env-param players=2 --seats mcts@sims=32@weights=$(W)/$(1)-exit.npz@leaf=rollout$(5),mcts@sims=32 \
  --rotate --episodes $(2) --seed 0 --format markdown --doc docs/benchmarks.md --doc-section exit-$(1)-guided
$(BIN) eval --env $(1) --league heuristic,random,mcts@sims=32,policy@weights=$(W)/$(1)-selfplay.npz@greedy=true,policy@weights=$(W)/$(1)-exit.npz@greedy=true$(6) \
  --episodes $(3) --seed 0 --format markdown --doc docs/benchmarks.md --doc-section exit-league-$(1)
endef
.PHONY: benchmarks-exit
benchmarks-exit: build
	$(BIN) eval --env galaxy-express-v1 \
	  --agents heuristic,policy@weights=$(W)/galaxy-express-v1-exit.npz@greedy=true,policy@weights=$(W)/galaxy-express-v1-dagger.npz@greedy=true,policy@weights=$(W)/galaxy-express-v1-features.npz@greedy=true,policy@weights=$(W)/galaxy-express-v1-mcts-values.npz@greedy=true,policy@weights=$(W)/galaxy-express-v1-trap.npz@greedy=true \
	  --episodes $(EXIT_EPISODES) --seed 0 --format markdown --doc docs/benchmarks.md --doc-section exit-galaxy-express-v1
	$(BIN) eval --env galaxy-express-v1 \
	  --agents mcts,mcts@sims=32@weights=$(W)/galaxy-express-v1-exit.npz@leaf=rollout,mcts@weights=$(W)/galaxy-express-v1-dagger.npz@search=halving@prior=rollout@top=2@leaf=rollout,mcts@weights=$(W)/galaxy-express-v1-features.npz@search=halving@prior=rollout@top=2@leaf=rollout,mcts@weights=$(W)/galaxy-express-v1-mcts-values.npz@search=halving@prior=rollout@top=2@leaf=rollout,mcts@weights=$(W)/galaxy-express-v1-trap.npz@search=halving@prior=rollout@top=2@leaf=rollout \
	  --episodes $(EXIT_SEARCH_EPISODES) --seed 0 --format markdown --doc docs/benchmarks.md \
	  --doc-section exit-galaxy-express-v1-search
	$(call exit-2p,express-v2,$(EXPRESS_EXIT_SEARCH_DEALS),$(EXPRESS_EXIT_LEAGUE_DEALS),$(EXPRESS_EXIT_POLICY_DEALS),$(EXPRESS_EXIT_GUIDED))
	$(call exit-2p,pilots-of-gallaxia-v2,$(PILOTS_EXIT_SEARCH_DEALS),$(PILOTS_EXIT_LEAGUE_DEALS),$(PILOTS_EXIT_POLICY_DEALS),$(PILOTS_EXIT_GUIDED),$(PILOTS_EXIT_LEAGUE_EXTRA))
	$(BIN) eval --env pilots-of-gallaxia-v2 --env-param players=2 --seats policy@weights=$(W)/pilots-of-gallaxia-v2-dagger.npz@greedy=true,heuristic \
	  --rotate --episodes $(LEARNED_DEALS) --seed 0 --format markdown --doc docs/benchmarks.md --doc-section exit-pilots-dagger-2p
	$(BIN) eval --env pilots-of-gallaxia-v2 --env-param players=2 --seats policy@weights=$(W)/pilots-of-gallaxia-v2-dagger.npz@greedy=true,mcts@sims=32 \
	  --rotate --episodes $(PILOTS_DAGGER_MCTS_DEALS) --seed 0 --format markdown --doc docs/benchmarks.md --doc-section exit-pilots-dagger-vs-mcts
	$(BIN) eval --env pilots-of-gallaxia-v2 --env-param players=2 \
	  --seats mcts@sims=32@weights=$(W)/pilots-of-gallaxia-v2-dagger.npz@leaf=rollout$(PILOTS_EXIT_GUIDED),mcts@sims=32 \
	  --rotate --episodes $(PILOTS_DAGGER_MCTS_DEALS) --seed 0 --format markdown --doc docs/benchmarks.md --doc-section exit-pilots-dagger-guided
	$(BIN) eval --env pilots-of-gallaxia-v2 --env-param players=2 --seats policy@weights=$(W)/pilots-of-gallaxia-v2-mcts-dagger.npz@greedy=true,heuristic \
	  --rotate --episodes $(LEARNED_DEALS) --seed 0 --format markdown --doc docs/benchmarks.md --doc-section exit-pilots-mcts-dagger-2p
	$(BIN) eval --env pilots-of-gallaxia-v2 --env-param players=2 --seats policy@weights=$(W)/pilots-of-gallaxia-v2-mcts-dagger.npz@greedy=true,mcts@sims=32 \
	  --rotate --episodes $(PILOTS_MCTS_DAGGER_MCTS_DEALS) --seed 0 --format markdown --doc docs/benchmarks.md --doc-section exit-pilots-mcts-dagger-vs-mcts
	$(BIN) eval --env pilots-of-gallaxia-v2 --env-param players=2 \
	  --seats mcts@sims=32@weights=$(W)/pilots-of-gallaxia-v2-mcts-dagger.npz@leaf=rollout$(PILOTS_EXIT_GUIDED),mcts@sims=32 \
	  --rotate --episodes $(PILOTS_MCTS_DAGGER_GUIDED_DEALS) --seed 0 --format markdown --doc docs/benchmarks.md --doc-section exit-pilots-mcts-dagger-guided
	$(BIN) eval --env galaxy-fighters-v2 --env-param mission=expert \
	  --agents heuristic,policy@weights=$(W)/galaxy-fighters-v2-dagger.npz@greedy=true,policy@weights=$(W)/galaxy-fighters-v2-exit.npz@greedy=true \
	  --episodes $(LEARNED_MISSIONS) --seed 0 --format markdown --doc docs/benchmarks.md --doc-section exit-fighters-expert
	$(BIN) eval --env galaxy-fighters-v2 --env-param mission=expert \
	  --agents heuristic,policy@weights=$(W)/galaxy-fighters-v2-exit.npz@greedy=true,mcts@sims=$(FIGHTERS_EXIT_SIMS)@weights=$(W)/galaxy-fighters-v2-exit.npz@leaf=rollout \
	  --episodes $(FIGHTERS_EXIT_SEARCH_EPISODES) --seed 0 --format markdown --doc docs/benchmarks.md \
	  --doc-section exit-fighters-guided

.PHONY: benchmarks-learned
benchmarks-learned: build benchmarks-exit
	for g in express-v2 pilots-of-gallaxia-v2; do \
	  $(BIN) eval --env $$g --env-param players=2 --seats policy,heuristic --rotate --weights $(W)/$$g-selfplay.npz \
	    --agent-opt policy.greedy=true --episodes $(LEARNED_DEALS) --seed 0 --format markdown --doc docs/benchmarks.md \
	    --doc-section learned-$$g-2p || exit 1; \
	  $(BIN) eval --env $$g --league heuristic,random,policy@weights=$(W)/$$g-selfplay.npz@greedy=true \
	    --episodes $(LEARNED_LEAGUE_DEALS) --seed 0 --format markdown --doc docs/benchmarks.md \
	    --doc-section learned-league-$$g || exit 1; \
	done
	$(BIN) eval --env galaxy-fighters-v2 --env-param mission=expert --agents heuristic,policy \
	  --weights $(W)/galaxy-fighters-v2-team.npz --agent-opt policy.greedy=true --episodes $(LEARNED_MISSIONS) \
	  --seed 0 --format markdown --doc docs/benchmarks.md --doc-section learned-fighters-expert

.PHONY: benchmarks
benchmarks: build benchmarks-learned
	$(BIN) eval --env galaxy-express-v1 --agents random,heuristic --episodes $(BENCH_EPISODES) --seed 0 \
	    --format markdown --doc docs/benchmarks.md
	$(BIN) eval --env galaxy-express-v1 --agents heuristic,mcts --episodes $(SEARCH_EPISODES) --seed 0 \
	    --format markdown --doc docs/benchmarks.md --doc-section leaderboard-search
	for m in rookie expert ace; do \
	  $(BIN) eval --env galaxy-fighters-v2 --env-param mission=$$m --agents random,heuristic \
	    --episodes $(FIGHTERS_EPISODES) --seed 0 --format markdown --doc docs/benchmarks.md \
	    --doc-section leaderboard-fighters-$$m || exit 1; \
	done
	for m in rookie expert ace; do \
	  $(BIN) eval --env galaxy-fighters-v2 --env-param mission=$$m --agents heuristic,mcts \
	    --agent-opt mcts.rollout=heuristic --agent-opt mcts.mission=$$m --agent-opt mcts.sims=16 \
	    --episodes $(FIGHTERS_SEARCH_EPISODES) --seed 0 --format markdown --doc docs/benchmarks.md \
	    --doc-section leaderboard-fighters-search-$$m || exit 1; \
	done
	$(BIN) eval --env galaxy-fighters-v2 --env-param mission=ace --agents heuristic,mcts \
	  --agent-opt mcts.rollout=heuristic --agent-opt mcts.mission=ace --agent-opt mcts.sims=64 \
	  --episodes 100 --seed 0 --format markdown --doc docs/benchmarks.md \
	  --doc-section leaderboard-fighters-search64-ace
	$(BIN) eval --env express-v1 --seats heuristic,random,random,random --rotate \
	  --episodes $(COMPETITIVE_DEALS) --seed 0 --format markdown --doc docs/benchmarks.md \
	  --doc-section leaderboard-express-4p
	$(BIN) eval --env express-v1 --env-param players=2 --seats mcts,heuristic --rotate --agent-opt mcts.sims=32 \
	  --episodes $(COMPETITIVE_SEARCH_EPISODES) --seed 0 --format markdown --doc docs/benchmarks.md \
	  --doc-section leaderboard-express-search
	$(BIN) eval --env pilots-of-gallaxia-v1 --seats heuristic,random,random,random --rotate \
	  --episodes $(COMPETITIVE_DEALS) --seed 0 --format markdown --doc docs/benchmarks.md \
	  --doc-section leaderboard-pilots-4p
	$(BIN) eval --env pilots-of-gallaxia-v1 --env-param players=2 --seats mcts,heuristic --rotate \
	  --episodes $(COMPETITIVE_SEARCH_EPISODES) --seed 0 --format markdown --doc docs/benchmarks.md \
	  --doc-section leaderboard-pilots-search
	for g in express-v1 pilots-of-gallaxia-v1; do \
	  $(BIN) eval --env $$g --league $(LEAGUE_POOL) --episodes $(LEAGUE_DEALS) --seed 0 --format markdown \
	    --plot docs/img/league-$$g.png --doc docs/benchmarks.md --doc-section league-$$g || exit 1; \
	done
	for g in express-v2 pilots-of-gallaxia-v2; do \
	  $(BIN) eval --env $$g --seats heuristic,random,random,random --rotate \
	    --episodes $(COMPETITIVE_DEALS) --seed 0 --format markdown --doc docs/benchmarks.md \
	    --doc-section leaderboard-$$g-4p || exit 1; \
	  $(BIN) eval --env $$g --env-param players=2 --seats mcts@sims=$(V2_SEARCH_SIMS),heuristic --rotate \
	    --episodes $(V2_SEARCH_DEALS) --seed 0 --format markdown --doc docs/benchmarks.md \
	    --doc-section leaderboard-$$g-search || exit 1; \
	done
	$(BIN) eval --env express-v2 --env-param players=2 --league $(LEAGUE_V2_POOL) \
	  --episodes $(EXPRESS_V2_LEAGUE_2P_DEALS) --seed 0 --format markdown --plot docs/img/league-express-v2-2p.png \
	  --doc docs/benchmarks.md --doc-section league-express-v2-2p
	$(BIN) eval --env express-v2 --league $(LEAGUE_V2_POOL) \
	  --episodes $(EXPRESS_V2_LEAGUE_DEALS) --seed 0 --format markdown --plot docs/img/league-express-v2.png \
	  --doc docs/benchmarks.md --doc-section league-express-v2
	$(BIN) eval --env pilots-of-gallaxia-v2 --env-param players=2 --league $(LEAGUE_V2_POOL) \
	  --episodes $(PILOTS_V2_LEAGUE_2P_DEALS) --seed 0 --format markdown --plot docs/img/league-pilots-of-gallaxia-v2-2p.png \
	  --doc docs/benchmarks.md --doc-section league-pilots-of-gallaxia-v2-2p

# Go benchmarks of the hot paths (see docs/performance.md).
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./env/... ./agents/... ./datasets/...

# Every fuzz target of the module for FUZZTIME each (tools/fuzz/fuzz.sh:
# one `go test -fuzz` per target), with a table of executions per target.
# Crashers are kept under the package's testdata/fuzz/, which `make test`
# replays. FUZZ_PKGS narrows it to some packages (FUZZ_PKGS='./server ./play':
# the training protocol's and the page's messages).
FUZZTIME ?= 10s
FUZZMINIMIZETIME ?= 100x
FUZZ_PKGS ?= ./...
fuzz:
	GO=$(GO) FUZZTIME=$(FUZZTIME) FUZZMINIMIZETIME=$(FUZZMINIMIZETIME) sh tools/fuzz/fuzz.sh $(FUZZ_PKGS)

# The browser page of `galaxygym serve` (play/, docs/play.md) is tested in
# Debian's headless Chromium driven by chromedp (no browser download):
# browser-deps installs the chromium package with apt where it is missing
# (as root; otherwise it says what to run), test-browser runs those tests
# (`make test-go` runs them too, and they skip without chromium), and
# screenshots writes docs/img/play-<game>.png at 1280x800.
browser-deps:
	@if command -v chromium >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "browser-deps: installing Debian's chromium"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; \
	else echo "browser-deps: no chromium; as root: apt-get install chromium (the browser tests skip without it)"; fi

test-browser: browser-deps
	$(GO) test -count=1 -run 'TestBrowser' ./play/

screenshots: browser-deps
	$(GO) test -count=1 -run 'TestScreenshots' ./play/ -args -screenshots=$(CURDIR)/docs/img

clean:
	rm -rf bin datasets/out $(VENV) $(RAY_VENV) $(WHEEL_VENV) $(WHEEL_DIR) python/build build/wheels
