package env_test

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/env"
	_ "github.com/galaxygym/galaxygym/env/all"
)

// playSnapshot plays env id with params from seed, taking the first legal
// action, for n steps (or until the episode ends) and returns the
// environment and its snapshot decoded into a map.
func playSnapshot(t *testing.T, id string, params map[string]any, n int) (*env.Env, map[string]any) {
	t.Helper()
	e, err := env.Make(id, params)
	if err != nil {
		t.Fatal(err)
	}
	e.Reset(7)
	for i := 0; i < n && !e.Done(); i++ {
		for a, ok := range e.Mask() {
			if ok != 0 {
				if _, err := e.Step(a); err != nil {
					t.Fatal(err)
				}
				break
			}
		}
	}
	data, err := e.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return e, m
}

func marshal(t *testing.T, m map[string]any) []byte {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestLoadRefusesAnotherShape: a snapshot of 4 players loaded into a
// 2-player environment is refused, not accepted with its returns trimmed
// (which would leave current_player 2-3 in a 2-player layout).
func TestLoadRefusesAnotherShape(t *testing.T) {
	const id = "galaxy-fighters-v1"
	_, snap := playSnapshot(t, id, map[string]any{"players": 4}, 30)
	two, err := env.Make(id, map[string]any{"players": 2})
	if err != nil {
		t.Fatal(err)
	}
	two.Reset(1)
	before, _ := two.MarshalJSON()
	for _, returns := range [][]any{{0.0, 0.0, 0.0, 0.0}, {0.0, 0.0}} {
		snap["returns"] = returns
		err := two.Load(marshal(t, snap))
		var se *env.StateError
		if !errors.As(err, &se) || !errors.Is(err, env.ErrSpecChange) {
			t.Fatalf("Load(4-player snapshot, %d returns) into a 2-player env = %v, want a *StateError wrapping ErrSpecChange", len(returns), err)
		}
		if !strings.HasPrefix(err.Error(), "env: ") {
			t.Fatalf("error %q lacks the env: prefix", err)
		}
		if after, _ := two.MarshalJSON(); string(after) != string(before) {
			t.Fatal("a refused Load changed the environment")
		}
		if two.Spec().NumPlayers != 2 {
			t.Fatalf("spec has %d players after a refused Load", two.Spec().NumPlayers)
		}
	}
	// A parameter that changes no size loads, and the spec follows it.
	_, snap = playSnapshot(t, id, map[string]any{"players": 2, "max_turns": 50}, 30)
	if err := two.Load(marshal(t, snap)); err != nil {
		t.Fatalf("Load(2-player snapshot of max_turns 50): %v", err)
	}
	if got := two.Params()["max_turns"]; got != 50 {
		t.Fatalf("max_turns after Load = %v, want the snapshot's 50", got)
	}
}

// TestLoadValidatesBookkeeping: snapshots with steps -5 or 2^63-1, or
// returns of ±1e308, are refused.
func TestLoadValidatesBookkeeping(t *testing.T) {
	const id = "galaxy-express-v1"
	live, mid := playSnapshot(t, id, nil, 12)
	if live.Done() || live.Steps() != 12 {
		t.Fatalf("setup: 12 steps expected, got %d (done %v)", live.Steps(), live.Done())
	}
	_, end := playSnapshot(t, id, nil, 100000)
	_, short := playSnapshot(t, id, map[string]any{"max_turns": 3}, 100000)
	if short["truncated"] != true {
		t.Fatalf("setup: a max_turns 3 episode was not truncated: %v", short["truncated"])
	}
	spec := live.Spec()
	edit := func(base map[string]any, k string, v any) map[string]any {
		c := map[string]any{}
		for kk, vv := range base {
			c[kk] = vv
		}
		c[k] = v
		return c
	}
	bad := []struct {
		name string
		snap map[string]any
	}{
		{"negative steps", edit(mid, "steps", -5)},
		{"steps 2^63-1", edit(mid, "steps", int64(math.MaxInt64))},
		{"steps past int32", edit(mid, "steps", int64(math.MaxInt32)+1)},
		{"steps past max_episode_steps", edit(mid, "steps", spec.MaxEpisodeSteps+1)},
		{"fewer steps than turns", edit(end, "steps", 0)},
		{"return 1e308", edit(mid, "returns", []any{1e308})},
		{"return -1e308", edit(mid, "returns", []any{-1e308})},
		{"return beyond steps x reward range", edit(mid, "returns", []any{spec.RewardRange[1]*12 + 1})},
		{"finished return outside return range", edit(end, "returns", []any{spec.ReturnRange[1] + 1})},
		{"terminated ongoing state", edit(mid, "terminated", true)},
		{"ongoing terminal state", edit(end, "terminated", false)},
		{"truncated before max_turns", edit(mid, "truncated", true)},
		{"truncated and terminated", edit(end, "truncated", true)},
		{"ongoing past max_turns", edit(short, "truncated", false)},
	}
	for _, c := range bad {
		e, _ := env.Make(id, nil)
		e.Reset(99)
		before, _ := e.MarshalJSON()
		err := e.Load(marshal(t, c.snap))
		var se *env.StateError
		if !errors.As(err, &se) {
			t.Errorf("%s: Load = %v, want a *env.StateError", c.name, err)
			continue
		}
		t.Logf("%s: %v", c.name, err)
		if after, _ := e.MarshalJSON(); string(after) != string(before) {
			t.Errorf("%s: a refused Load changed the environment", c.name)
		}
	}
	// NaN and infinities cannot be written in JSON; a number too large for
	// a float64 is a decoding error.
	e, _ := env.Make(id, nil)
	raw := strings.Replace(string(marshal(t, mid)), `"returns":[`, `"returns":[1e999,`, 1)
	if err := e.Load([]byte(raw)); err == nil {
		t.Error("Load accepted a return of 1e999")
	}
	// A bare game state past max_turns does not start an episode either.
	past, _ := json.Marshal(short["state"])
	e3, _ := env.Make(id, map[string]any{"max_turns": 3})
	var se *env.StateError
	if err := e3.LoadState(past, 1); !errors.As(err, &se) {
		t.Errorf("LoadState(a state at turn 3 of max_turns 3) = %v, want a *env.StateError", err)
	}
	e4, _ := env.Make(id, nil)
	if err := e4.LoadState(past, 1); err != nil {
		t.Errorf("LoadState(the same state, max_turns 200): %v", err)
	}
	// The genuine snapshots load.
	for _, s := range []map[string]any{mid, end, short} {
		e, _ := env.Make(id, s["params"].(map[string]any))
		if err := e.Load(marshal(t, s)); err != nil {
			t.Errorf("Load(genuine snapshot): %v", err)
		}
	}
}

// TestLoadStateRoundTrip, for every registered
// game: a bare mid-game state (what reset's options.state accepts, e.g.
// {"position": ...}) loaded with LoadState gives an Env whose own snapshot
// loads again, into the same position, and the episode goes on from there.
// Before start_turn, the snapshot said steps 0 and Load refused it ("steps
// 0 is fewer than the state's N turns").
func TestLoadStateRoundTrip(t *testing.T) {
	for _, id := range env.IDs() {
		for _, n := range []int{0, 1, 7, 40, 1 << 20} { // 1<<20: played to the end
			t.Run(id, func(t *testing.T) {
				e, _ := playSnapshot(t, id, nil, n)
				if e.Truncated() {
					t.Skip("a truncated episode's state is ongoing past max_turns: LoadState refuses it, rightly")
				}
				bare, err := e.State().MarshalJSON()
				if err != nil {
					t.Fatal(err)
				}
				loaded, err := env.Make(id, nil)
				if err != nil {
					t.Fatal(err)
				}
				if err := loaded.LoadState(bare, 99); err != nil {
					t.Fatalf("LoadState of the state after %d steps: %v", n, err)
				}
				snap, err := loaded.MarshalJSON()
				if err != nil {
					t.Fatal(err)
				}
				again, _ := env.Make(id, nil)
				if err := again.Load(snap); err != nil {
					t.Fatalf("after %d steps (turn %d): the snapshot of a LoadState episode is refused: %v\n%s", n, e.State().Turn(), err, snap)
				}
				if again.String() != e.String() || again.Done() != e.Done() {
					t.Fatalf("after %d steps: reloaded position differs", n)
				}
				snap2, _ := again.MarshalJSON()
				if string(snap2) != string(snap) {
					t.Fatalf("snapshot does not round-trip:\n%s\n%s", snap, snap2)
				}
				// A step from the reloaded env keeps it loadable.
				if !again.Done() {
					for a, ok := range again.Mask() {
						if ok != 0 {
							if _, err := again.Step(a); err != nil {
								t.Fatal(err)
							}
							break
						}
					}
					s3, _ := again.MarshalJSON()
					if err := loaded.Load(s3); err != nil {
						t.Fatalf("after one more step: %v", err)
					}
				}
			})
		}
	}
}

// TestLoadRefusesBadStartTurn: start_turn is checked against the state.
func TestLoadRefusesBadStartTurn(t *testing.T) {
	for _, id := range env.IDs() {
		e, m := playSnapshot(t, id, nil, 5)
		for _, st := range []int{-1, e.State().Turn() + 1} {
			m["start_turn"] = st
			f, _ := env.Make(id, nil)
			var se *env.StateError
			if err := f.Load(marshal(t, m)); !errors.As(err, &se) || !strings.Contains(err.Error(), "start_turn") {
				t.Errorf("%s: start_turn %d: got %v, want a StateError naming start_turn", id, st, err)
			}
		}
	}
}
