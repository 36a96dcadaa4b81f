package express

import (
	"math/rand/v2"
	"testing"

	"github.com/galaxygym/galaxygym/env/envtest"
)

// BenchmarkRandomPlayout is the shared kit's random-play benchmark
// (envtest.BenchmarkRandomPlay): 4-player games through env.Env without
// observations; BenchmarkRandomPlayoutObserve adds the acting player's
// observation every step. One op is one step; steps/s is reported.
func BenchmarkRandomPlayout(b *testing.B)        { envtest.BenchmarkRandomPlay(b, ID, nil, false) }
func BenchmarkRandomPlayoutObserve(b *testing.B) { envtest.BenchmarkRandomPlay(b, ID, nil, true) }

// BenchmarkObserve encodes one player's observation of positions from
// random 4-player games; it must not allocate.
func BenchmarkObserve(b *testing.B) {
	states := randomPositions(64, 4)
	dst := make([]uint8, ObsSize)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := states[i%len(states)]
		s.Observe(i%4, dst)
	}
}

// BenchmarkObserveRows encodes observations as a dataset derive does: each
// into the next row of a 256 KiB batch buffer (rows of ObsSize bytes),
// from positions of random 4-player games; it must not allocate.
func BenchmarkObserveRows(b *testing.B) {
	states := randomPositions(64, 4)
	rows := make([]uint8, (256<<10)/ObsSize*ObsSize)
	b.ReportAllocs()
	b.ResetTimer()
	for i, o := 0, 0; i < b.N; i++ {
		if o == len(rows) {
			o = 0
		}
		states[i%len(states)].Observe(i%4, rows[o:o+ObsSize])
		o += ObsSize
	}
}

// BenchmarkLegalMask computes the mask of positions from random games.
func BenchmarkLegalMask(b *testing.B) {
	states := randomPositions(64, 4)
	dst := make([]uint8, NumActions)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		states[i%len(states)].LegalMask(dst)
	}
}

// BenchmarkLegalMaskMeld computes the mask of meld-phase positions (the
// phase whose mask has more than two actions) of random 4-player games.
func BenchmarkLegalMaskMeld(b *testing.B) {
	var states []*State
	for _, s := range randomPositions(256, 4) {
		if s.phase == PhaseMeld {
			states = append(states, s)
		}
	}
	dst := make([]uint8, NumActions)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		states[i%len(states)].LegalMask(dst)
	}
}

// randomPositions returns n positions of seeded random games of players.
func randomPositions(n, players int) []*State {
	rng := rand.New(rand.NewPCG(5, 6))
	mask := make([]uint8, NumActions)
	r := make([]float64, players)
	var out []*State
	for seed := uint64(0); len(out) < n; seed++ {
		s := newState(DefaultConfig(players).c, seed)
		for steps := 0; !s.Terminal() && len(out) < n && steps < 2000; steps++ {
			if rng.IntN(10) == 0 {
				out = append(out, s.Clone().(*State))
			}
			s.Apply(pickRandom(s, mask, rng), r)
		}
	}
	return out
}

// pickRandom returns a uniformly random legal action of s.
func pickRandom(s *State, mask []uint8, rng *rand.Rand) int {
	n := s.LegalMask(mask)
	i := rng.IntN(n)
	for a, m := range mask {
		if m != 0 {
			if i == 0 {
				return a
			}
			i--
		}
	}
	panic("no legal action")
}

// BenchmarkDeterminize samples a complete state from one player's
// observation of positions of random 4-player games, into a reused state.
func BenchmarkDeterminize(b *testing.B) {
	g := Game{}
	params, _ := g.Spec().Resolve(nil)
	states := randomPositions(64, 4)
	obs := make([][]uint8, len(states))
	for i, s := range states {
		obs[i] = make([]uint8, ObsSize)
		s.Observe(i%4, obs[i])
	}
	reuse, _ := g.Determinize(params, 0, obs[0], 0, nil)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := g.Determinize(params, i%len(states)%4, obs[i%len(states)], uint64(i), reuse); err != nil {
			b.Fatal(err)
		}
	}
}
