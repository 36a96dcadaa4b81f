package trio_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/env/envtest"
	"github.com/galaxygym/galaxygym/env/envtest/trio"
)

// TestConformance runs the shared suite at every player count and with
// truncation.
func TestConformance(t *testing.T) {
	envtest.Run(t, trio.ID)
	envtest.Run(t, trio.ID, envtest.Params(map[string]any{"players": 2}), envtest.Seed(50))
	envtest.Run(t, trio.ID, envtest.Params(map[string]any{"players": 4}), envtest.Seed(60))
	envtest.Run(t, trio.ID, envtest.Params(map[string]any{"max_turns": 5}), envtest.Seed(70), envtest.Episodes(4))
}

// TestGolden checks testdata/golden/envtest-trio-v1.txt (go test ./...
// -update rewrites it).
func TestGolden(t *testing.T) { envtest.Golden(t, trio.ID, "") }

// FuzzPlay plays byte-chosen games at every player count; the game's own
// check: the scores in the observation are the returns.
func FuzzPlay(f *testing.F) {
	f.Add(uint64(1), uint8(1), []byte{0, 1, 2, 3, 4, 5, 6, 7})
	f.Add(uint64(9), uint8(2), []byte{4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4})
	f.Fuzz(func(t *testing.T, seed uint64, players uint8, choices []byte) {
		n := 2 + int(players)%3
		obs := make([]uint8, trio.ObsSize)
		envtest.PlayBytes(t, trio.ID, map[string]any{"players": n}, seed, choices,
			func(e *env.Env, _ env.StepResult) error {
				for p := range n {
					e.Observe(p, obs)
					if float64(obs[trio.OffScores]) != e.Returns()[p] {
						return fmt.Errorf("player %d sees score %d, return %v", p, obs[trio.OffScores], e.Returns()[p])
					}
				}
				return nil
			})
	})
}

// FuzzParsePosition checks that the parser never panics and that what it
// accepts writes back to the same text.
func FuzzParsePosition(f *testing.F) {
	f.Add("row=3,7,1,9,2 locked=2 scores=10,4,7 taken=5 rng=" + rngHex)
	f.Add("row=1,1,1,1,1 locked=- scores=0,0 taken=0 rng=" + rngHex)
	f.Fuzz(func(t *testing.T, text string) {
		s, err := trio.ParsePosition(text)
		if err != nil {
			return
		}
		back, err := trio.ParsePosition(s.Position())
		if err != nil || back.Position() != s.Position() {
			t.Fatalf("round trip of %q: %v", s.Position(), err)
		}
	})
}

func BenchmarkRandomPlayout(b *testing.B) { envtest.BenchmarkRandomPlay(b, trio.ID, nil, false) }

func BenchmarkRandomPlayoutObserve(b *testing.B) { envtest.BenchmarkRandomPlay(b, trio.ID, nil, true) }

// rngHex is a PCG's MarshalBinary, for hand-written positions.
const rngHex = "7063673a00000000000000010000000000000002"

func load(t *testing.T, players int, pos string) *env.Env {
	t.Helper()
	e, err := env.Make(trio.ID, map[string]any{"players": players})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := env.MarshalPosition(pos)
	if err := e.LoadState(data, 0); err != nil {
		t.Fatal(err)
	}
	return e
}

// TestRules plays the rules on written positions.
func TestRules(t *testing.T) {
	e := load(t, 3, "row=3,7,1,9,2 locked=1 scores=10,4,7 taken=4 rng="+rngHex)
	if e.CurrentPlayer() != 1 {
		t.Fatalf("after 4 takes of 3 players, player %d moves; want 1", e.CurrentPlayer())
	}
	if m := e.Mask(); !bytes.Equal(m, []uint8{1, 0, 1, 1, 1}) {
		t.Fatalf("mask %v: the locked slot 1 must be the only illegal one", m)
	}
	res, err := e.Step(3) // the 9
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(res.Rewards) != "[0 9 0]" {
		t.Fatalf("taking the 9 paid %v", res.Rewards)
	}
	s := e.State().(*trio.State)
	if p := s.Position(); p[:len("row=3,7,1,")] != "row=3,7,1," || !bytes.Contains([]byte(p), []byte("locked=3 scores=10,13,7 taken=5")) {
		t.Fatalf("after taking slot 3: %s", p)
	}

	// The last take ends the game; ranks follow the scores, a shared top
	// score is a draw.
	e = load(t, 3, "row=5,1,1,1,1 locked=1 scores=20,15,25 taken=11 rng="+rngHex)
	if _, err := e.Step(0); err != nil {
		t.Fatal(err)
	}
	in := e.Info()
	if !e.Terminated() || fmt.Sprint(in.Scores, in.Ranks, in.Outcomes) != "[20 15 30] [2 3 1] [loss loss win]" {
		t.Fatalf("end: terminated %v, %v %v %v", e.Terminated(), in.Scores, in.Ranks, in.Outcomes)
	}
	e = load(t, 2, "row=5,1,1,1,1 locked=1 scores=20,15 taken=7 rng="+rngHex)
	e.Step(0)
	if in := e.Info(); in.Outcome != env.OutcomeDraw || fmt.Sprint(in.Ranks, in.Outcomes) != "[1 1] [draw draw]" {
		t.Fatalf("tie: %v %v %v", in.Outcome, in.Ranks, in.Outcomes)
	}
}

// TestParseErrors checks that bad notation is a prefixed *env.PositionError.
func TestParseErrors(t *testing.T) {
	for _, text := range []string{
		"",
		"row=3,7,1,9 locked=- scores=0,0 taken=0 rng=" + rngHex,
		"row=3,7,1,9,0 locked=- scores=0,0 taken=0 rng=" + rngHex,
		"row=3,7,1,9,2 locked=- scores=0 taken=0 rng=" + rngHex,
		"row=3,7,1,9,2 locked=1 scores=0,0 taken=0 rng=" + rngHex,
		"row=3,7,1,9,2 locked=- scores=0,0 taken=9 rng=" + rngHex,
		"row=3,7,1,9,2 locked=- scores=0,0 taken=0 rng=zz",
		"row=3,7,1,9,2 locked=- scores=0,0 taken=0 rng=" + rngHex + " extra=1",
	} {
		_, err := trio.ParsePosition(text)
		if _, ok := err.(*env.PositionError); !ok || err.Error()[:len("trio: position: ")] != "trio: position: " {
			t.Errorf("ParsePosition(%q): err = %v, want a *env.PositionError", text, err)
		}
	}
}

// TestHiddenInformation checks that two positions differing only in the
// chance generator look the same to every player, in the observation and
// the text rendering.
func TestHiddenInformation(t *testing.T) {
	a := load(t, 3, "row=3,7,1,9,2 locked=1 scores=10,4,7 taken=4 rng="+rngHex)
	other, _ := trio.ParsePosition("row=3,7,1,9,2 locked=1 scores=10,4,7 taken=4 rng=" + rngHex)
	other = trio.WithSeed(other, 99)
	b := load(t, 3, other.Position())
	if a.String() != b.String() {
		t.Fatalf("String differs:\n%s\n%s", a, b)
	}
	oa, ob := make([]uint8, trio.ObsSize), make([]uint8, trio.ObsSize)
	for p := range 3 {
		a.Observe(p, oa)
		b.Observe(p, ob)
		if !bytes.Equal(oa, ob) {
			t.Fatalf("player %d's observations differ: %v vs %v", p, oa, ob)
		}
	}
	// The generators do differ: the next card drawn differs for some take.
	differ := false
	for a0 := range 5 {
		ca, cb := a.Clone(), b.Clone()
		if a0 == 1 {
			continue
		}
		ca.Step(a0)
		cb.Step(a0)
		differ = differ || ca.String() != cb.String()
	}
	if !differ {
		t.Fatalf("the test's two generators draw the same cards")
	}
}

// TestDeterminize checks the determinizer: the sample shows the same
// observation and mask as the true position.
func TestDeterminize(t *testing.T) {
	e, _ := env.Make(trio.ID, nil)
	e.Reset(5)
	e.Step(0)
	e.Step(2)
	obs := make([]uint8, trio.ObsSize)
	e.Observe(1, obs)
	s, err := trio.Game{}.Determinize(e.Params(), 1, obs, 7, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]uint8, trio.ObsSize)
	s.Observe(1, got)
	mask := make([]uint8, 5)
	s.LegalMask(mask)
	if !bytes.Equal(got, obs) || !bytes.Equal(mask, e.Mask()) {
		t.Fatalf("determinized %v mask %v, true %v mask %v", got, mask, obs, e.Mask())
	}
	if _, err := (trio.Game{}).Determinize(e.Params(), 1, obs[:3], 7, nil); err == nil {
		t.Fatal("a short observation was accepted")
	}
}

// Play a three-player game of Trio, each player taking the first legal
// card, and read every player's result.
func Example() {
	e, _ := env.Make(trio.ID, nil)
	e.Reset(1)
	for !e.Done() {
		for a, m := range e.Mask() {
			if m == 1 {
				e.Step(a)
				break
			}
		}
	}
	in := e.Info()
	fmt.Println(in.Scores, in.Ranks, in.Outcomes)
	// Output:
	// [23 16 22] [1 3 2] [win loss loss]
}

// TestPublicWords: everything in Trio but the chance generator is public,
// so another player's take reads with its slot.
func TestPublicWords(t *testing.T) {
	var g env.PublicMover = trio.Game{}
	p, err := trio.Game{}.Spec().Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := g.PublicWords(p, 2, 4); got != "player 2 takes the card from slot 4" {
		t.Fatal(got)
	}
}
