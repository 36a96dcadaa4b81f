package agents_test

import (
	"strconv"
	"testing"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
)

// BenchmarkMCTSCapDecision times one mcts decision (search=halving, the
// game's heuristic rolling out) at the default cap of the server's agent
// limits, agents.DefaultMaxMCTSSims, a quarter of it and four times it, on
// each game: three positions of a heuristic game (after 3, 30 and 90
// steps), one decision each per iteration. docs/mcts.md ("Limits") has the
// figures behind the cap:
//
//	go test ./agents -run '^$' -bench MCTSCapDecision -benchtime 1x
func BenchmarkMCTSCapDecision(b *testing.B) {
	for _, id := range []string{"galaxy-express-v1", "express-v2", "pilots-of-gallaxia-v2", "galaxy-fighters-v2"} {
		b.Run(id, func(b *testing.B) {
			e, err := env.Make(id, nil)
			if err != nil {
				b.Fatal(err)
			}
			spec := e.Spec()
			h, err := agents.New(agents.Heuristic, spec, nil)
			if err != nil {
				b.Fatal(err)
			}
			type pos struct {
				player    int
				obs, mask []uint8
			}
			var ps []pos
			for k, skip := range []int{3, 30, 90} {
				e.Reset(uint64(k + 1))
				h.Reset(1)
				for s := 0; !e.Done(); s++ {
					legal := 0
					for _, x := range e.Mask() {
						legal += int(x)
					}
					if s >= skip && legal > 1 {
						break
					}
					p := e.CurrentPlayer()
					obs := make([]uint8, spec.ObsSize())
					e.Observe(p, obs)
					e.Step(h.Act(p, obs, e.Mask()))
				}
				if !e.Done() {
					p := e.CurrentPlayer()
					obs := make([]uint8, spec.ObsSize())
					e.Observe(p, obs)
					ps = append(ps, pos{p, obs, append([]uint8(nil), e.Mask()...)})
				}
			}
			for _, sims := range []int{agents.DefaultMaxMCTSSims / 4, agents.DefaultMaxMCTSSims, 4 * agents.DefaultMaxMCTSSims} {
				b.Run("sims="+strconv.Itoa(sims), func(b *testing.B) {
					m, err := agents.New("mcts", spec, agents.Options{"sims": strconv.Itoa(sims)})
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
