package env_test

import (
	"bytes"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

// FuzzLoad feeds arbitrary snapshots to Env.Load of every registered game
// (game picks the id). Seeds: each game's snapshots after 0, 5, 40 steps
// and at the end of an episode. Load must never panic; a refused snapshot
// leaves the Env as it was; an accepted one gives an Env that serializes
// back to a snapshot that loads to the same bytes and can be stepped.
func FuzzLoad(f *testing.F) {
	var ids []string
	for _, id := range env.IDs() {
		if playable(id) {
			ids = append(ids, id)
		}
	}
	for g, id := range ids {
		for _, n := range []int{0, 5, 40, 1 << 20} {
			e, err := env.Make(id, nil)
			if err != nil {
				f.Fatal(err)
			}
			e.Reset(uint64(n))
			for i := 0; i < n && !e.Done(); i++ {
				for a, ok := range e.Mask() {
					if ok != 0 {
						e.Step(a)
						break
					}
				}
			}
			snap, err := e.MarshalJSON()
			if err != nil {
				f.Fatal(err)
			}
			f.Add(uint8(g), snap)
		}
	}
	f.Fuzz(func(t *testing.T, g uint8, data []byte) {
		id := ids[int(g)%len(ids)]
		e, err := env.Make(id, nil)
		if err != nil {
			t.Fatal(err)
		}
		e.Reset(1)
		before, _ := e.MarshalJSON()
		if err := e.Load(data); err != nil {
			if after, _ := e.MarshalJSON(); !bytes.Equal(after, before) {
				t.Fatalf("a refused Load (%v) changed the environment", err)
			}
			return
		}
		snap, err := e.MarshalJSON()
		if err != nil {
			t.Fatalf("MarshalJSON after Load: %v", err)
		}
		back, _ := env.Make(id, nil)
		if err := back.Load(snap); err != nil {
			t.Fatalf("Load(MarshalJSON()) of an accepted snapshot: %v", err)
		}
		if again, _ := back.MarshalJSON(); !bytes.Equal(again, snap) {
			t.Fatalf("round trip differs:\n%s\n%s", snap, again)
		}
		if e.Spec().NumPlayers != len(e.Returns()) {
			t.Fatalf("%d returns for %d players", len(e.Returns()), e.Spec().NumPlayers)
		}
		if e.Done() {
			return
		}
		if p := e.CurrentPlayer(); p < 0 || p >= e.Spec().NumPlayers {
			t.Fatalf("current player %d of %d", p, e.Spec().NumPlayers)
		}
		for a, ok := range e.Mask() {
			if ok != 0 {
				if _, err := e.Step(a); err != nil {
					t.Fatalf("Step(%d) of a legal action after Load: %v", a, err)
				}
				break
			}
		}
	})
}

// playable reports whether id is a real game: this test binary also
// registers stubs (spec_test.go) that deal no state.
func playable(id string) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	e, err := env.Make(id, nil)
	if err != nil {
		return false
	}
	e.Reset(0)
	return e.State() != nil
}

// FuzzLoadState feeds arbitrary bare game states (what reset's
// options.state takes, e.g. {"position": ...}) to Env.LoadState of every
// registered game. Seeds: each game's states after 0, 5, 40 steps and at
// the end of an episode. LoadState must never panic; a refused state
// leaves the Env as it was; whatever it accepts, the Env's own snapshot
// loads again to the same bytes.
func FuzzLoadState(f *testing.F) {
	var ids []string
	for _, id := range env.IDs() {
		if playable(id) {
			ids = append(ids, id)
		}
	}
	for g, id := range ids {
		for _, n := range []int{0, 5, 40, 1 << 20} {
			e, err := env.Make(id, nil)
			if err != nil {
				f.Fatal(err)
			}
			e.Reset(uint64(n))
			for i := 0; i < n && !e.Done(); i++ {
				for a, ok := range e.Mask() {
					if ok != 0 {
						e.Step(a)
						break
					}
				}
			}
			st, err := e.State().MarshalJSON()
			if err != nil {
				f.Fatal(err)
			}
			f.Add(uint8(g), st)
		}
	}
	f.Fuzz(func(t *testing.T, g uint8, data []byte) {
		id := ids[int(g)%len(ids)]
		e, err := env.Make(id, nil)
		if err != nil {
			t.Fatal(err)
		}
		e.Reset(1)
		before, _ := e.MarshalJSON()
		if err := e.LoadState(data, 7); err != nil {
			if after, _ := e.MarshalJSON(); !bytes.Equal(after, before) {
				t.Fatalf("a refused LoadState (%v) changed the environment", err)
			}
			return
		}
		snap, err := e.MarshalJSON()
		if err != nil {
			t.Fatalf("MarshalJSON after LoadState: %v", err)
		}
		back, _ := env.Make(id, nil)
		if err := back.Load(snap); err != nil {
			t.Fatalf("the snapshot of an accepted state is refused: %v\n%s", err, snap)
		}
		if again, _ := back.MarshalJSON(); !bytes.Equal(again, snap) {
			t.Fatalf("round trip differs:\n%s\n%s", snap, again)
		}
	})
}
