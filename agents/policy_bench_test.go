package agents_test

import (
	"os"
	"slices"
	"testing"

	"github.com/galaxygym/galaxygym/agents"
	_ "github.com/galaxygym/galaxygym/agents/galaxyexpress"
	"github.com/galaxygym/galaxygym/env"
	ge "github.com/galaxygym/galaxygym/env/galaxyexpress"
)

// BenchmarkPolicyAct times Act of a 503 -> 256 -> 256 -> 56 tanh policy
// (the notebook's default size) on the decisions of 200 Galaxy Express
// games played by the heuristic.
func BenchmarkPolicyAct(b *testing.B) {
	obsAll, maskAll := heuristicDecisions(b)
	agents.BenchmarkPolicyActOn(b, obsAll, maskAll)
}

// BenchmarkPolicyActBoard times Act of the board policies: the fixture's
// ship-centred circular conv (9 -> 8 -> 8 channels, 455 -> 32 -> 56), the
// codes fixtures (format version 4: 503 + 948 one-hot inputs -> 32 -> 32
// -> 56, and the conv one with the same codes) and
// the committed behaviour-cloning weights (-bc: 512 x 512; -dagger: 1,024 x 1,024; -features: the
// same reading the game's action features, format version 5; notebooks/weights/,
// docs/learning-baselines.md) and the file named by $GALAXYGYM_BENCH_WEIGHTS if
// set, on the same decisions.
func BenchmarkPolicyActBoard(b *testing.B) {
	obsAll, maskAll := heuristicDecisions(b)
	for _, f := range []struct{ name, path string }{
		{"fixture-conv", "testdata/policy/conv_relu.npz"},
		{"fixture-codes", "testdata/policy/codes.npz"},
		{"fixture-codes-conv", "testdata/policy/codes_conv.npz"},
		{"bc", "../notebooks/weights/galaxy-express-v1-bc.npz"},
		{"dagger", "../notebooks/weights/galaxy-express-v1-dagger.npz"},
		{"features", "../notebooks/weights/galaxy-express-v1-features.npz"},
		{"extra", os.Getenv("GALAXYGYM_BENCH_WEIGHTS")},
	} {
		b.Run(f.name, func(b *testing.B) { agents.BenchmarkPolicyFileOn(b, f.path, obsAll, maskAll) })
	}
}

// heuristicDecisions records the decisions of 200 Galaxy Express games
// played by the heuristic.
func heuristicDecisions(b *testing.B) (obsAll, maskAll [][]uint8) {
	e, err := env.Make(ge.ID, nil)
	if err != nil {
		b.Fatal(err)
	}
	h, err := agents.New(agents.Heuristic, e.Spec(), nil)
	if err != nil {
		b.Fatal(err)
	}
	for seed := range uint64(200) {
		e.Reset(seed)
		h.Reset(seed)
		for !e.Done() {
			obs := make([]uint8, ge.ObsSize)
			_ = e.Observe(0, obs)
			m := slices.Clone(e.Mask())
			obsAll, maskAll = append(obsAll, obs), append(maskAll, m)
			_, _ = e.Step(h.Act(0, obs, m))
		}
	}
	return obsAll, maskAll
}
