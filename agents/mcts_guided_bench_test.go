package agents_test

import (
	"path/filepath"
	"testing"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
)

// BenchmarkMCTSGuidedDecision times one decision of mcts@sims=32 on the
// 2-player games with committed weights, unguided (search=halving, the
// game's heuristic rolling out) and guided by the committed weights
// (search=ismcts with the policy's prior: leaf=rollout, and with a value
// head added to the file: leaf=value), on positions of a heuristic game
// (every 10th decision with two legal actions or more, up to 12), one
// decision each per iteration; allocs/op counts the whole iteration:
//
//	go test ./agents -run '^$' -bench MCTSGuidedDecision -benchtime 20x -benchmem
func BenchmarkMCTSGuidedDecision(b *testing.B) {
	for _, id := range []string{"express-v2", "pilots-of-gallaxia-v2"} {
		b.Run(id, func(b *testing.B) {
			e, err := env.Make(id, nil)
			if err != nil {
				b.Fatal(err)
			}
			spec := e.Spec()
			weights := filepath.Join("..", "notebooks", "weights", id+"-selfplay.npz")
			valued := agents.WithValueHeadForTest(b, spec, weights, b.TempDir())
			h, err := agents.New(agents.Heuristic, spec, nil)
			if err != nil {
				b.Fatal(err)
			}
			type pos struct {
				player    int
				obs, mask []uint8
			}
			var ps []pos
			e.Reset(1)
			h.Reset(1)
			for k := 0; !e.Done() && len(ps) < 12; {
				p := e.CurrentPlayer()
				obs := make([]uint8, spec.ObsSize())
				e.Observe(p, obs)
				legal := 0
				for _, x := range e.Mask() {
					legal += int(x)
				}
				if legal > 1 {
					if k%10 == 0 {
						ps = append(ps, pos{p, obs, append([]uint8(nil), e.Mask()...)})
					}
					k++
				}
				e.Step(h.Act(p, obs, e.Mask()))
			}
			for _, c := range []struct {
				name string
				opts agents.Options
			}{
				{"unguided", agents.Options{"sims": "32"}},
				{"policy-prior", agents.Options{"sims": "32", "weights": weights}},
				{"value-head", agents.Options{"sims": "32", "weights": valued}},
				{"value-head-halving", agents.Options{"sims": "32", "weights": valued, "search": "halving"}},
			} {
				b.Run(c.name, func(b *testing.B) {
					m, err := agents.New("mcts", spec, c.opts)
					if err != nil {
						b.Fatal(err)
					}
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						m.Reset(uint64(i))
						for _, p := range ps {
							m.Act(p.player, p.obs, p.mask)
						}
					}
					b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N*len(ps)), "ms/decision")
				})
			}
		})
	}
}
