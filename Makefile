# galaxygym: `make run` generates the default dataset, `make test` runs every test.
GO       ?= go
BIN      := bin/galaxygym
ENV      ?= galaxy-express-v1
AGENT    ?= heuristic
EPISODES ?= 1000000
SEED     ?= 0
OUT      ?= datasets/out/$(ENV)-$(AGENT)

.PHONY: all build run test test-go vet bench clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/galaxygym

# The main job: EPISODES episodes of AGENT on ENV, Parquet under OUT.
# Running it again resumes an interrupted run (finished parts are kept).
run: build
	$(BIN) generate --env $(ENV) --agent $(AGENT) --episodes $(EPISODES) --seed $(SEED) --out $(OUT)

test: vet test-go

vet:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) vet ./...

test-go:
	$(GO) test -count=1 ./...

# Go benchmarks of the hot paths (see docs/performance.md).
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./env/... ./agents/... ./datasets/...

clean:
	rm -rf bin datasets/out
