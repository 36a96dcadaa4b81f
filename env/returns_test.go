package env_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/env/express"
)

// playFirstLegal steps e with its first legal action until it is done.
func playFirstLegal(t *testing.T, e *env.Env) {
	t.Helper()
	for !e.Done() {
		for a, ok := range e.Mask() {
			if ok != 0 {
				if _, err := e.Step(a); err != nil {
					t.Fatal(err)
				}
				break
			}
		}
	}
}

// TestLoadRefusesUnearnedReturns: an ongoing Express snapshot with return -900 was
// accepted at reset (only steps x RewardRange was checked for an ongoing
// episode), and the same episode played on to its end then gave a snapshot
// of return -862 that Load refused (outside ReturnRange [-840, 625]). An
// ongoing snapshot is now held to the return range too, and an Express
// snapshot's returns to the totals its state shows, so that a forged
// return inside the range is refused as well.
func TestLoadRefusesUnearnedReturns(t *testing.T) {
	live, mid := playSnapshot(t, express.ID, nil, 400)
	if live.Done() {
		t.Fatal("setup: the episode ended within 400 steps")
	}
	st := live.State().(*express.State)
	if st.Hands() == 0 {
		t.Fatal("setup: no hand scored within 400 steps")
	}
	if rr := live.Spec().ReturnRange; rr[0] <= -900 {
		t.Fatalf("setup: return range %v holds -900", rr)
	}
	returns := live.Returns()
	for i, s := range st.Scores() {
		if returns[i] != float64(s) {
			t.Fatalf("setup: return %v of player %d is not its total %d", returns[i], i, s)
		}
	}
	for _, c := range []struct {
		name, want string
		r0         float64
	}{
		{"return -900, outside the return range", "outside the return range", -900},
		{"a return inside the range that the totals do not show", "has earned", returns[0] - 5},
	} {
		snap := map[string]any{}
		for k, v := range mid {
			snap[k] = v
		}
		r := append([]float64(nil), returns...)
		r[0] = c.r0
		snap["returns"] = r
		e, _ := env.Make(express.ID, nil)
		e.Reset(1)
		before, _ := e.MarshalJSON()
		err := e.Load(marshal(t, snap))
		var se *env.StateError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%s: Load = %v, want a *env.StateError saying %q", c.name, err, c.want)
		}
		if after, _ := e.MarshalJSON(); string(after) != string(before) {
			t.Fatalf("%s: a refused Load changed the environment", c.name)
		}
		t.Logf("%s: %v", c.name, err)
	}
}

// TestLoadRefusesForgedReturnsInRange: in every registered game, an
// ongoing snapshot whose return is moved by 0.5, still inside the return
// range and the steps' reward range, is refused: played on, such a return
// could end outside the range, and its final snapshot would not load.
func TestLoadRefusesForgedReturnsInRange(t *testing.T) {
	checked := 0
	for _, id := range env.IDs() {
		live, mid := playSnapshot(t, id, nil, 1)
		if _, ok := live.State().(env.ReturnsEarner); !ok || live.Done() {
			continue
		}
		checked++
		r := live.Returns()
		r[0] += 0.5
		mid["returns"] = r
		e, _ := env.Make(id, nil)
		err := e.Load(marshal(t, mid))
		if err == nil || !strings.Contains(err.Error(), "has earned") {
			t.Errorf("%s: Load(return %v after one step) = %v, want refused as not earned", id, r[0], err)
		}
	}
	if checked < 7 {
		t.Fatalf("%d games checked, want the 7 registered ids of the four games", checked)
	}
}

// TestOwnSnapshotsLoadBack checks the promise the checks must keep: a
// snapshot Load accepts, played on to the end of its episode, gives a
// snapshot that loads again, for every registered game, resumed from an
// ongoing snapshot at several points.
func TestOwnSnapshotsLoadBack(t *testing.T) {
	for _, id := range env.IDs() {
		for _, at := range []int{1, 40, 400} {
			t.Run(fmt.Sprintf("%s/%d", id, at), func(t *testing.T) {
				live, mid := playSnapshot(t, id, nil, at)
				if live.Done() {
					t.Skipf("the episode ended within %d steps", at)
				}
				e, _ := env.Make(id, nil)
				if err := e.Load(marshal(t, mid)); err != nil {
					t.Fatalf("Load(own ongoing snapshot): %v", err)
				}
				playFirstLegal(t, e)
				end, err := e.MarshalJSON()
				if err != nil {
					t.Fatal(err)
				}
				f, _ := env.Make(id, nil)
				if err := f.Load(end); err != nil {
					t.Fatalf("Load(own finished snapshot of a resumed episode): %v", err)
				}
			})
		}
	}
}

// TestStateWithScoresAtTurnZero: a game state given to LoadState starts
// an episode whose returns count from that state, at turn 0 too (an
// Express position whose turn counter reads 0 after two scored hands
// parses); its snapshot says so ("from_state") and loads again, although
// its returns (0) are not the totals its state shows.
func TestStateWithScoresAtTurnZero(t *testing.T) {
	live, _ := playSnapshot(t, express.ID, nil, 400)
	st := live.State().(*express.State)
	data, err := st.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var j map[string]string
	if err := json.Unmarshal(data, &j); err != nil {
		t.Fatal(err)
	}
	old := fmt.Sprintf(" turns=%d ", st.Turn())
	if !strings.Contains(j["position"], old) {
		t.Fatalf("setup: no %q in the position", old)
	}
	j["position"] = strings.Replace(j["position"], old, " turns=0 ", 1)
	data, _ = json.Marshal(j)
	e, _ := env.Make(express.ID, nil)
	if err := e.LoadState(data, 5); err != nil {
		t.Fatalf("setup: LoadState(a turn-0 position with scores): %v", err)
	}
	if e.State().Turn() != 0 {
		t.Fatalf("setup: turn %d, want 0", e.State().Turn())
	}
	snap, _ := e.MarshalJSON()
	if !strings.Contains(string(snap), `"from_state":true`) {
		t.Fatalf("the snapshot of an episode begun from a state lacks from_state: %s", snap)
	}
	f, _ := env.Make(express.ID, nil)
	if err := f.Load(snap); err != nil {
		t.Fatalf("Load(own snapshot of an episode begun from a state): %v", err)
	}
	playFirstLegal(t, f)
	end, _ := f.MarshalJSON()
	g, _ := env.Make(express.ID, nil)
	if err := g.Load(end); err != nil {
		t.Fatalf("Load(own finished snapshot of an episode begun from a state): %v", err)
	}
}
