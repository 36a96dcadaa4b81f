package galaxyfighters

import (
	"math/rand/v2"
	"testing"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/env/envtest"
)

// BenchmarkRandomPlayout steps uniformly random four-player games of each
// version through the Env wrapper (envtest.BenchmarkRandomPlay: mask,
// choice, Step; a Reset when an episode ends). One op is one step.
func BenchmarkRandomPlayout(b *testing.B) {
	for _, id := range []string{IDv1, ID} {
		b.Run(id, func(b *testing.B) { envtest.BenchmarkRandomPlay(b, id, nil, false) })
	}
}

// BenchmarkRandomPlayoutObserve also writes the acting player's observation
// every step.
func BenchmarkRandomPlayoutObserve(b *testing.B) {
	for _, id := range []string{IDv1, ID} {
		b.Run(id, func(b *testing.B) { envtest.BenchmarkRandomPlay(b, id, nil, true) })
	}
}

// BenchmarkDeterminize samples one hidden state from an observation of a
// v2 Ace game in its command phase (the work of one mcts simulation's
// start), reusing the state.
func BenchmarkDeterminize(b *testing.B) {
	e, err := env.Make(ID, map[string]any{"mission": "ace"})
	if err != nil {
		b.Fatal(err)
	}
	e.Reset(3)
	for steps := 0; steps < 60 && !e.Done(); steps++ {
		a := 0
		for e.Mask()[a] == 0 {
			a++
		}
		e.Step(a)
	}
	obs := make([]uint8, ObsSize)
	p := e.CurrentPlayer()
	e.Observe(p, obs)
	var st env.State
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if st, err = (Game{}).Determinize(e.Params(), p, obs, uint64(i), st); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkObserve writes the observation of positions of random
// four-player v2 games (64 positions, every player in turn); it must not
// allocate.
func BenchmarkObserve(b *testing.B) {
	e, err := env.Make(ID, nil)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var states []env.State
	for g := uint64(0); len(states) < 64; g++ {
		e.Reset(g)
		for i := 0; !e.Done(); i++ {
			if i%17 == 5 && len(states) < 64 {
				states = append(states, e.State().Clone())
			}
			e.Step(envtest.Uniform(e, rng))
		}
	}
	obs := make([]uint8, ObsSize)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		states[i&63].Observe(i&3, obs)
	}
}

// BenchmarkLegalMask writes the mask of positions in the command phase of
// random four-player v2 games (64 positions); it must not allocate.
func BenchmarkLegalMask(b *testing.B) {
	states := commandStates(b)
	mask := make([]uint8, NumActions)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		states[i&63].LegalMask(mask)
	}
}

// BenchmarkApproach plays the approach phase from command-phase positions
// of random four-player v2 games (64 positions), each copied into a scratch
// state first (the copy, about 4 KB, is part of the op); it must not
// allocate.
func BenchmarkApproach(b *testing.B) {
	states := commandStates(b)
	var scratch State
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		scratch = *states[i&63]
		scratch.approach()
	}
}

// commandStates returns 64 positions in the command phase of random
// four-player v2 games (seeded: the same positions every run), the
// positions BenchmarkLegalMask and BenchmarkApproach work on.
func commandStates(b *testing.B) []*State {
	b.Helper()
	e, err := env.Make(ID, nil)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var states []*State
	for g := uint64(0); len(states) < 64; g++ {
		e.Reset(g)
		for i := 0; !e.Done(); i++ {
			if s := e.State().(*State); s.phase == PhaseCommand && i%7 == 3 && len(states) < 64 {
				states = append(states, s.Clone().(*State))
			}
			e.Step(envtest.Uniform(e, rng))
		}
	}
	return states
}
