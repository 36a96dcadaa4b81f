package envtest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

// PlayBytes is the body of a game's byte-chosen-play fuzz target: it makes
// environment id with params, resets it with seed, and plays one step per
// byte of choices, the byte picking the (byte mod n)-th of the n legal
// actions, until the bytes run out or the episode ends. After every step it
// checks what holds for every game: a legal action exists until the end,
// Step accepts the chosen action, NumPlayers rewards come back, and the
// environment survives the JSON round trip into a fresh environment (same
// JSON, mask and observations); at the end of an episode, the per-player
// results pass [CheckResults] (ranks by score unless [RanksNotByScore] is
// among opts; other options are ignored). check, when not nil, runs the
// game's own invariants after every step and returns an error to fail the
// test; res is the step's result. It returns the environment, for checks
// at the end.
//
// A game's fuzz target is then a few lines:
//
//	func FuzzPlay(f *testing.F) {
//		f.Add(uint64(1), []byte{0, 1, 2, 3})
//		f.Fuzz(func(t *testing.T, seed uint64, choices []byte) {
//			envtest.PlayBytes(t, ID, map[string]any{"max_turns": 60}, seed, choices, nil)
//		})
//	}
func PlayBytes(t testing.TB, id string, params map[string]any, seed uint64, choices []byte,
	check func(e *env.Env, res env.StepResult) error, opts ...Option) *env.Env {
	t.Helper()
	c := newConfig(0, opts)
	e, err := env.Make(id, params)
	if err != nil {
		t.Fatalf("env.Make(%q, %v): %v", id, params, err)
	}
	fresh, err := env.Make(id, params)
	if err != nil {
		t.Fatal(err)
	}
	spec := e.Spec()
	mask := make([]uint8, spec.NumActions())
	legal := make([]int, 0, spec.NumActions())
	obs, obs2 := make([]uint8, spec.ObsSize()), make([]uint8, spec.ObsSize())
	e.Reset(seed)
	for _, b := range choices {
		if e.Done() {
			break
		}
		if err := e.LegalMask(mask); err != nil {
			t.Fatal(err)
		}
		legal = legal[:0]
		for a, m := range mask {
			if m == 1 {
				legal = append(legal, a)
			}
		}
		if len(legal) == 0 {
			t.Fatalf("no legal action before the end:\n%s", e)
		}
		a := legal[int(b)%len(legal)]
		res, err := e.Step(a)
		if err != nil {
			t.Fatalf("Step(%s): %v\n%s", spec.ActionNames[a], err, e)
		}
		if len(res.Rewards) != spec.NumPlayers {
			t.Fatalf("Step gave %d rewards, want %d", len(res.Rewards), spec.NumPlayers)
		}
		if check != nil {
			if err := check(e, res); err != nil {
				t.Fatalf("after %s: %v\n%s", spec.ActionNames[a], err, e)
			}
		}
		if err := roundTrip(e, fresh, obs, obs2); err != nil {
			t.Fatalf("after %s: JSON round trip: %v\n%s", spec.ActionNames[a], err, e)
		}
	}
	if e.Done() {
		in := e.Info()
		if err := CheckResults(&in, spec.NumPlayers, !c.otherRanks); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// roundTrip loads e's JSON into fresh and compares the two.
func roundTrip(e, fresh *env.Env, obs, obs2 []uint8) error {
	j, err := e.MarshalJSON()
	if err != nil {
		return err
	}
	if err := fresh.Load(j); err != nil {
		return err
	}
	k, err := fresh.MarshalJSON()
	if err != nil {
		return err
	}
	if !bytes.Equal(j, k) {
		return fmt.Errorf("the loaded environment writes\n%s\nthe original\n%s", k, j)
	}
	if !bytes.Equal(e.Mask(), fresh.Mask()) {
		return fmt.Errorf("legal masks differ")
	}
	for p := range e.Spec().NumPlayers {
		e.Observe(p, obs)
		fresh.Observe(p, obs2)
		if !bytes.Equal(obs, obs2) {
			return fmt.Errorf("player %d's observations differ", p)
		}
	}
	return nil
}

// BenchmarkRandomPlay is the random-play throughput benchmark of a game:
// it steps uniformly random episodes of environment id with params through
// the Env wrapper (mask, the legal actions' indices, choice, Step; a Reset with the next seed, from 0,
// when an episode ends), writing the acting player's observation first
// when observe is set. One op is one step; it reports steps/s and
// allocations (a game's step should allocate nothing). The choices come
// from a PCG seeded (1, 2), so every run plays the same games. A game's
// benchmarks are then
//
//	func BenchmarkRandomPlayout(b *testing.B)        { envtest.BenchmarkRandomPlay(b, ID, nil, false) }
//	func BenchmarkRandomPlayoutObserve(b *testing.B) { envtest.BenchmarkRandomPlay(b, ID, nil, true) }
func BenchmarkRandomPlay(b *testing.B, id string, params map[string]any, observe bool) {
	b.Helper()
	e, err := env.Make(id, params)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	seed := uint64(0)
	e.Reset(seed)
	obs := make([]uint8, e.Spec().ObsSize())
	legal := make([]int, e.Spec().NumActions())
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if e.Done() {
			seed++
			e.Reset(seed)
		}
		if observe {
			e.Observe(e.CurrentPlayer(), obs)
		}
		n := legalIndices(e.Mask(), legal)
		if _, err := e.Step(legal[rng.IntN(n)]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
}

// legalIndices writes the indices of the non-zero bytes of mask into dst
// and returns their number, skipping zero bytes eight at a time as numpy's
// flatnonzero would: a large, sparse mask (Express's 648 actions) is
// otherwise most of a random step.
func legalIndices(mask []uint8, dst []int) int {
	n, a := 0, 0
	for ; a+8 <= len(mask); a += 8 {
		if binary.LittleEndian.Uint64(mask[a:]) == 0 {
			continue
		}
		for i := a; i < a+8; i++ {
			if mask[i] != 0 {
				dst[n] = i
				n++
			}
		}
	}
	for ; a < len(mask); a++ {
		if mask[a] != 0 {
			dst[n] = a
			n++
		}
	}
	return n
}
