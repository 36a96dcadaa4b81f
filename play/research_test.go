package play

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/env/envtest/trio"
	"github.com/galaxygym/galaxygym/rollout"
)

// history asks for table id's history (and the view after step, when
// step >= 0) and returns the reply and its bytes.
func (c *client) history(id any, step int) (map[string]any, []byte) {
	c.t.Helper()
	m := map[string]any{"op": "history", "table": id}
	if step >= 0 {
		m["step"] = step
	}
	c.send(m)
	for {
		r, b := c.read()
		if r["op"] == "error" {
			c.t.Fatalf("history: %v: %v", r["code"], r["message"])
		}
		if r["op"] == "history" {
			return r, b
		}
	}
}

// playMoves plays n moves at a two-people table (a holds seat 0, b seat
// 1), each by the seat to act (through its page), its first legal action,
// and then more until seat 1 has moved (at most 200). It returns the
// last status each of a and b was sent.
func playMoves(t *testing.T, p *page, id string, a, b *client, n int) [2]map[string]any {
	t.Helper()
	p.h.mu.Lock()
	tb := p.h.tables[id]
	p.h.mu.Unlock()
	moved := false
	var last [2]map[string]any
	steps, other := 0, 0
	for i := 0; (i < n || !moved) && i < 200; i++ {
		tb.mu.Lock()
		cur, act := tb.e.CurrentPlayer(), slices.Index(tb.e.Mask(), 1)
		tb.mu.Unlock()
		moved = moved || cur == 1
		cl := []*client{a, b}[cur]
		cl.send(map[string]any{"op": "act", "table": id, "seat": cur, "action": act, "steps": i})
		last[cur], _, _ = cl.tableWhere("the move", func(s, v map[string]any) bool { return s["steps"].(float64) == float64(i+1) })
		steps, other = i+1, 1-cur
	}
	last[other], _, _ = []*client{a, b}[other].tableWhere("the last move", func(s, v map[string]any) bool {
		return s["steps"].(float64) == float64(steps)
	})
	return last
}

// positionAt replays table id's first n moves and returns the state.
func positionAt(t *testing.T, p *page, id string, n int) (*env.Env, []step) {
	t.Helper()
	hist := p.history(id)
	p.h.mu.Lock()
	tb := p.h.tables[id]
	p.h.mu.Unlock()
	tb.mu.Lock()
	e, err := env.Make(tb.e.Spec().ID, tb.e.Params())
	seed := tb.envSeedLocked()
	tb.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	e.Reset(seed)
	for _, h := range hist[:n] {
		if _, err := e.Step(h.Action); err != nil {
			t.Fatal(err)
		}
	}
	return e, hist
}

// twinWords returns the public words (env.PublicMover) of each move of
// table id's history hist, and checks that every twin of a move (a legal
// action of the mover after which the other seats observe the same bytes)
// has the same words, and that a move hiding a card (Express's start of a
// train) was played among them, with public words other than its own.
func twinWords(t *testing.T, p *page, id string, hist []step) []string {
	t.Helper()
	e, _ := positionAt(t, p, id, 0)
	pm, ok := env.Game(nil), false
	if g, err := env.Lookup(e.Spec().ID); err == nil {
		pm, ok = g, true
	}
	mover, isMover := pm.(env.PublicMover)
	if !ok || !isMover {
		t.Fatalf("%s says nothing of its moves' public parts", e.Spec().ID)
	}
	n := e.Spec().NumPlayers
	others := func(st env.State, k int) string {
		obs := make([]uint8, e.Spec().ObsSize())
		var all []byte
		for q := range n {
			if q != k {
				st.Observe(q, obs)
				all = append(all, obs...)
			}
		}
		return string(all)
	}
	out := make([]string, len(hist))
	hidden := false
	for i, h := range hist {
		out[i] = mover.PublicWords(e.Params(), h.Player, h.Action)
		played := e.State().Clone()
		played.Apply(h.Action, make([]float64, n))
		seen := others(played, h.Player)
		twins := 0
		for a, m := range e.Mask() {
			if m == 0 || a == h.Action {
				continue
			}
			st := e.State().Clone()
			st.Apply(a, make([]float64, n))
			if others(st, h.Player) == seen {
				twins++
				if w := mover.PublicWords(e.Params(), h.Player, a); w != out[i] {
					t.Fatalf("move %d: twins %q and %q read %q and %q to the others", i, e.Spec().ActionNames[h.Action],
						e.Spec().ActionNames[a], out[i], w)
				}
			}
		}
		if twins > 0 && out[i] != h.Words {
			hidden = true
		}
		if _, err := e.Step(h.Action); err != nil {
			t.Fatal(err)
		}
	}
	if !hidden {
		t.Fatalf("no move with a hidden part among %d moves: the test proves nothing", len(hist))
	}
	return out
}

// TestMoveLogHidesOthersMoves: at a table where two people play, each
// gets the text of its own seat's moves and, for the other's, only their
// public words (env.PublicMover: the same for twins the others cannot
// tell apart, never the mover's own words when they differ), never the
// other's action; a spectator gets no move's own text.
func TestMoveLogHidesOthersMoves(t *testing.T) {
	p := newPage(t, Config{})
	a, b := p.dial(t, ""), p.dial(t, "")
	id, _, _ := twoPeople(t, p, a, b)
	final := playMoves(t, p, id, a, b, 6)
	hist := p.history(id)
	public := twinWords(t, p, id, hist)
	x := p.dial(t, "")
	x.send(map[string]any{"op": "watch", "table": id})
	xs, _ := x.table()
	seen := map[int]bool{}
	for who, cl := range map[int]*client{0: a, 1: b, Public: x} {
		r, raw := cl.history(id, -1)
		log := r["log"].([]any)
		if len(log) != len(hist) {
			t.Fatalf("viewer %d: %d log entries for %d moves", who, len(log), len(hist))
		}
		own := 0
		for i, e := range log {
			e := e.(map[string]any)
			k := int(e["player"].(float64))
			seen[k] = true
			if k != hist[i].Player {
				t.Fatalf("viewer %d, step %d: player %d, want %d", who, i, k, hist[i].Player)
			}
			if k == who {
				own++
				if e["hidden"] == true || int(e["a"].(float64)) != hist[i].Action || e["words"] == "" {
					t.Fatalf("viewer %d does not see its own move %d: %v", who, i, e)
				}
				continue
			}
			_, hasA := e["a"]
			_, hasName := e["name"]
			if e["hidden"] != true || hasA || hasName || e["words"] != public[i] || e["rewards"] != nil {
				t.Fatalf("viewer %d gets seat %d's move %d: %v, want the public words %q", who, k, i, e, public[i])
			}
			if e["words"] == hist[i].Words && hist[i].Words != public[i] {
				t.Fatalf("viewer %d reads seat %d's own words of move %d: %q", who, k, i, e["words"])
			}
		}
		if got := bytes.Count(raw, []byte(`"a":`)); got != own {
			t.Fatalf("viewer %d: %d actions in the reply, its own moves are %d", who, got, own)
		}
	}
	if !seen[0] || !seen[1] {
		t.Fatalf("six moves by one seat only: %v", hist)
	}
	// The seats' last-move lines: the other seat's last move in its
	// public words, never the move itself.
	last := map[int]int{}
	for i, h := range hist {
		last[h.Player] = i
	}
	for who, s := range map[int]map[string]any{0: final[0], 1: final[1], Public: xs} {
		moves, pub := s["moves"].([]any), s["public"].([]any)
		for k, i := range last {
			if k == who {
				if moves[k] == nil || pub[k] != "" {
					t.Fatalf("viewer %d: own seat's last move %v, public %q", who, moves[k], pub[k])
				}
				continue
			}
			if moves[k] != nil || pub[k] != public[i] {
				t.Fatalf("viewer %d: seat %d's last move %v, public %q, want only %q", who, k, moves[k], pub[k], public[i])
			}
		}
		if lp, _ := s["last_public"].(string); s["last"] != nil || (hist[len(hist)-1].Player != who && lp != public[len(hist)-1]) {
			t.Fatalf("viewer %d: last move %v, last_public %q", who, s["last"], lp)
		}
	}
}

// TestHistoryViewsKeepSeatRights: a seated person's view of a past
// position is its own seat's, byte for byte as drawn from the position;
// a spectator's is the public view; someone not at the table gets
// nothing.
func TestHistoryViewsKeepSeatRights(t *testing.T) {
	p := newPage(t, Config{})
	a, b := p.dial(t, ""), p.dial(t, "")
	id, _, _ := twoPeople(t, p, a, b)
	playMoves(t, p, id, a, b, 4)
	x := p.dial(t, "")
	x.send(map[string]any{"op": "watch", "table": id})
	x.table()
	for _, n := range []int{0, 2, 3} {
		e, _ := positionAt(t, p, id, n)
		for who, cl := range map[int]*client{0: a, 1: b, Public: x} {
			r, _ := cl.history(id, n)
			if int(r["step"].(float64)) != n {
				t.Fatalf("asked for step %d, got %v", n, r["step"])
			}
			want, err := positionView(e.Spec(), e.Params(), e.State(), who)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(r["view"])
			var wantAny any
			_ = json.Unmarshal(mustJSON(want), &wantAny)
			wantJSON, _ := json.Marshal(wantAny)
			if !bytes.Equal(got, wantJSON) {
				t.Fatalf("viewer %d at step %d: the view is not its own\n got %.300s\nwant %.300s", who, n, got, wantJSON)
			}
		}
	}
	if code := p.dial(t, "").expectErr(map[string]any{"op": "history", "table": id, "step": 0}); code != "not_at_table" {
		t.Fatalf("history from someone not at the table: %q", code)
	}
	// Nor may anyone start a new table from a person's game.
	if code := x.expectErr(map[string]any{"op": "new", "lineup": map[string]any{"seats": []string{"random", "random"}},
		"from": map[string]any{"table": id, "step": 2}}); code != "hidden" {
		t.Fatalf("play from a person's game: %q, want hidden", code)
	}
}

// TestAgentsLogThoughtsAndBranch: at a table of agents every move and
// reward is in the log with the agent's thoughts and why it chose; play
// from here starts a new table at a past position (the same position, its
// first moves the origin's), with another lineup, not recorded.
func TestAgentsLogThoughtsAndBranch(t *testing.T) {
	p := newPage(t, Config{RecordDir: t.TempDir()})
	c := p.dial(t, "")
	c.send(map[string]any{"op": "new", "lineup": map[string]any{"env": "galaxy-express-v1", "seats": []string{"heuristic"},
		"delay_ms": 0, "seed": 3}})
	s, _ := c.table()
	id := s["table"].(string)
	c.tableWhere("the end", func(s, v map[string]any) bool { return s["over"] == true })
	r, _ := c.history(id, -1)
	log := r["log"].([]any)
	hist := p.history(id)
	if len(log) != len(hist) || len(log) < 4 {
		t.Fatalf("%d log entries, %d moves", len(log), len(hist))
	}
	rewarded, why := 0, 0
	for i, e := range log {
		e := e.(map[string]any)
		if e["hidden"] == true || int(e["a"].(float64)) != hist[i].Action {
			t.Fatalf("step %d: %v, want action %d", i, e, hist[i].Action)
		}
		if e["rewards"] != nil {
			rewarded++
		}
		if w, _ := e["why"].(string); strings.Contains(w, "heuristic") {
			why++
		}
	}
	e, _ := positionAt(t, p, id, len(hist))
	if rewarded == 0 && e.Returns()[0] != 0 {
		t.Fatalf("a return of %v with no reward marked", e.Returns())
	}
	if why == 0 {
		t.Fatal("no move explained")
	}

	at := len(hist) / 2
	c.send(map[string]any{"op": "new", "lineup": map[string]any{"env": "express-v2", "seats": []string{"random"}, "paused": true, "seed": 99},
		"from": map[string]any{"table": id, "step": at}})
	_, s2, _ := c.secrets()
	id2 := s2["table"].(string)
	if s2["env"] != "galaxy-express-v1" || int(s2["steps"].(float64)) != at {
		t.Fatalf("the new table: %v after %v steps, want galaxy-express-v1 after %d", s2["env"], s2["steps"], at)
	}
	h2 := p.history(id2)
	for i := range at {
		if h2[i] != hist[i] {
			t.Fatalf("step %d of the new table is %v, the origin's %v", i, h2[i], hist[i])
		}
	}
	e2, _ := positionAt(t, p, id2, at)
	e1, _ := positionAt(t, p, id, at)
	if e1.String() != e2.String() {
		t.Fatalf("the new table's position differs:\n%s\n---\n%s", e2.String(), e1.String())
	}
	r2, _ := c.history(id2, at)
	if r2["prefix"].(float64) != float64(at) || r2["log"].([]any)[0].(map[string]any)["branch"] != true || r2["from"] == nil {
		t.Fatalf("the new table's history does not say where it came from: prefix %v, from %v", r2["prefix"], r2["from"])
	}
	// A terminal position has nothing to play.
	if code := c.expectErr(map[string]any{"op": "new", "lineup": map[string]any{"seats": []string{"random"}},
		"from": map[string]any{"table": id, "step": len(hist)}}); code != "game_over" {
		t.Fatalf("play from the end: %q, want game_over", code)
	}
}

// TestPlayFromReplay: a new table starts at a dataset episode's position.
func TestPlayFromReplay(t *testing.T) {
	dir := t.TempDir()
	generate(t, filepath.Join(dir, "ge"), "galaxy-express-v1", []string{"heuristic"}, 2)
	p := newPage(t, Config{Datasets: []string{dir}})
	c := p.dial(t, "")
	name := filepath.Base(dir) + "/ge"
	c.send(map[string]any{"op": "replay", "dataset": name, "episode": 1, "step": 3})
	fr := c.next("replay")["frame"].(map[string]any)
	c.send(map[string]any{"op": "new", "lineup": map[string]any{"seats": []string{"random"}, "paused": true},
		"from": map[string]any{"dataset": name, "episode": 1, "step": 3}})
	_, s, v := c.secrets()
	if int(s["steps"].(float64)) != 3 || v["text"] != fr["view"].(map[string]any)["text"] {
		t.Fatalf("the new table after %v steps shows\n%v\nthe replay\n%v", s["steps"], v["text"], fr["view"].(map[string]any)["text"])
	}
	envSeed, _ := rollout.EpisodeSeeds(5, 1)
	p.h.mu.Lock()
	tb := p.h.tables[s["table"].(string)]
	p.h.mu.Unlock()
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if got := tb.envSeedLocked(); got != envSeed {
		t.Fatalf("the new table replays from seed %d, the episode's is %d", got, envSeed)
	}
}

// TestSpeedChangesWhileRunning: the creator of a running table of agents
// changes its delay: a table waiting a minute before its first move moves
// once the delay is set to 0; the delay stays within 0..60000 ms.
func TestSpeedChangesWhileRunning(t *testing.T) {
	p := newPage(t, Config{})
	c := p.dial(t, "")
	c.send(map[string]any{"op": "new", "lineup": map[string]any{"env": "galaxy-express-v1", "seats": []string{"heuristic"},
		"delay_ms": 60000, "seed": 3}})
	s, _ := c.table()
	id := s["table"]
	if code := c.expectErr(map[string]any{"op": "control", "table": id, "delay_ms": 60001}); code != "bad_request" {
		t.Fatalf("delay 60001: %q", code)
	}
	c.send(map[string]any{"op": "control", "table": id, "delay_ms": 0})
	s, _, _ = c.tableWhere("a move", func(s, v map[string]any) bool { return s["steps"].(float64) > 0 })
	if s["delay_ms"].(float64) != 0 {
		t.Fatalf("delay %v after setting 0", s["delay_ms"])
	}
}

// TestExplainMCTS: the explanation names the most-visited move as the
// choice and says why a higher mean from fewer visits lost.
func TestExplainMCTS(t *testing.T) {
	n := func(i int) *int { return &i }
	f := func(x float64) *float64 { return &x }
	th := []Action{{A: 1, Words: "go north", N: n(90), V: f(0.4)}, {A: 2, Words: "go south", N: n(10), V: f(0.9)}}
	w := Explain(th, 1, "mean return")
	if !strings.Contains(w, `"go north", 90 of 100`) || !strings.Contains(w, `"go south" has a higher mean`) || !strings.Contains(w, "10 simulations") {
		t.Fatalf("explanation: %s", w)
	}
	if w := Explain(th[:1], 1, ""); strings.Contains(w, "higher mean") {
		t.Fatalf("a lone move explained as beaten: %s", w)
	}
	pr := []Action{{A: 0, Words: "pass", P: f(0.2)}, {A: 3, Words: "fly", P: f(0.8)}}
	if w := Explain(pr, 0, ""); !strings.Contains(w, `most probable move was "fly"`) {
		t.Fatalf("policy explanation: %s", w)
	}
	if Explain(pr, 7, "") != "" {
		t.Fatal("an action not in the thoughts explained")
	}
}

// TestReplayLogMarksRewards: a dataset episode's log has every move and
// marks exactly the steps whose rewards are not zero.
func TestReplayLogMarksRewards(t *testing.T) {
	dir := t.TempDir()
	generate(t, filepath.Join(dir, "ge"), "galaxy-express-v1", []string{"heuristic"}, 1)
	p := newPage(t, Config{Datasets: []string{dir}})
	c := p.dial(t, "")
	name := filepath.Base(dir) + "/ge"
	c.send(map[string]any{"op": "history", "dataset": name, "episode": 0})
	log := c.next("history")["log"].([]any)
	marked := 0
	for i, e := range log {
		c.send(map[string]any{"op": "replay", "dataset": name, "episode": 0, "step": i})
		fr := c.next("replay")["frame"].(map[string]any)
		e := e.(map[string]any)
		if e["a"] != fr["action"].(map[string]any)["a"] {
			t.Fatalf("step %d: log %v, replay %v", i, e["a"], fr["action"])
		}
		nonzero := false
		for _, r := range fr["rewards"].([]any) {
			nonzero = nonzero || r.(float64) != 0
		}
		if nonzero != (e["rewards"] != nil) {
			t.Fatalf("step %d: rewards %v, marked %v", i, fr["rewards"], e["rewards"])
		}
		if nonzero {
			marked++
		}
	}
	if len(log) == 0 || marked == 0 {
		t.Fatalf("%d steps, %d marked", len(log), marked)
	}
}

// TestMoveWordsFromTheScene: the log says a move as the acting seat's
// scene does (trio presents itself), not by its action name.
func TestMoveWordsFromTheScene(t *testing.T) {
	e, err := env.Make(trio.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.Reset(7)
	for !e.Done() {
		p, a := e.CurrentPlayer(), slices.Index(e.Mask(), 1)
		w := moveWords(e.Spec(), e.Params(), e.State(), p, a)
		if !strings.HasPrefix(w, "take the ") || w == e.Spec().ActionNames[a] {
			t.Fatalf("seat %d's %s said %q", p, e.Spec().ActionNames[a], w)
		}
		if _, err := e.Step(a); err != nil {
			t.Fatal(err)
		}
	}
}
