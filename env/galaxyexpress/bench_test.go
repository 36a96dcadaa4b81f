package galaxyexpress

import (
	"math/rand/v2"
	"testing"

	"github.com/galaxygym/galaxygym/env/envtest"
)

// BenchmarkRandomPlayout steps uniformly random games through the Env
// wrapper without observing (envtest.BenchmarkRandomPlay: mask, choice,
// Step; a Reset when an episode ends). One op is one step; steps/s is
// reported.
func BenchmarkRandomPlayout(b *testing.B) { envtest.BenchmarkRandomPlay(b, ID, nil, false) }

// BenchmarkRandomPlayoutObserve also writes the acting player's
// observation every step.
func BenchmarkRandomPlayoutObserve(b *testing.B) { envtest.BenchmarkRandomPlay(b, ID, nil, true) }

// benchPositions returns n positions of the coin phase from games played
// by a seeded policy that avoids Lost in Space where it can, so that the
// positions cover the whole game.
func benchPositions(n int) []*State {
	rng := rand.New(rand.NewPCG(11, 12))
	mask := make([]uint8, NumActions)
	r := []float64{0}
	var out []*State
	for seed := uint64(0); len(out) < n; seed++ {
		s := newState(&configs[0], seed)
		for !s.Terminal() && len(out) < n {
			if s.phase == PhaseCoin {
				out = append(out, s.Clone().(*State))
			}
			k := s.LegalMask(mask)
			var legal, safe []int
			for a, m := range mask {
				if m == 1 {
					legal = append(legal, a)
					c := s.Clone().(*State)
					c.Apply(a, r)
					if !c.lost {
						safe = append(safe, a)
					}
				}
			}
			if len(safe) == 0 || k == 0 {
				safe = legal
			}
			s.Apply(safe[rng.IntN(len(safe))], r)
		}
	}
	return out
}

func BenchmarkObserve(b *testing.B) {
	ps := benchPositions(1024)
	obs := make([]uint8, ObsSize)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ps[i&1023].Observe(0, obs)
	}
}

// BenchmarkCanStop is the Lost in Space test on positions of real games.
func BenchmarkCanStop(b *testing.B) {
	ps := benchPositions(1024)
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for i := 0; i < b.N; i++ {
		s := ps[i&1023]
		if CanStop(int(s.ship), int(s.speed), s.unspent(), s.planets) {
			n++
		}
	}
	_ = n
}

func BenchmarkLegalMask(b *testing.B) {
	ps := benchPositions(1024)
	mask := make([]uint8, NumActions)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ps[i&1023].LegalMask(mask)
	}
}
