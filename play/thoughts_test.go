package play

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
)

// TestWatchShowsMCTSVisits: an mcts seat at a table of agents shows, for
// a searched decision, every legal action's simulations and the mean
// return of those simulated, the move chosen among the simulated.
func TestWatchShowsMCTSVisits(t *testing.T) {
	p := newPage(t, Config{})
	c := p.dial(t, "")
	c.send(map[string]any{"op": "new", "lineup": map[string]any{"env": "galaxy-express-v1", "seats": []string{"mcts"},
		"agent_opts": map[string]any{"mcts": map[string]any{"sims": "40"}}, "delay_ms": 0, "paused": true, "seed": 5}})
	s, _ := c.table()
	for i := 1; i <= 12; i++ {
		c.send(map[string]any{"op": "control", "table": s["table"], "advance": 1})
		for s["steps"].(float64) < float64(i) {
			s, _ = c.table()
		}
		th, _ := s["thought"].([]any)
		if len(th) == 0 {
			continue // one legal action: nothing searched
		}
		total, chosen := 0.0, s["last"].(map[string]any)["a"]
		for _, x := range th {
			a := x.(map[string]any)
			n, ok := a["n"].(float64)
			if !ok {
				t.Fatalf("mcts thoughts without visit counts: %v", a)
			}
			if _, hasV := a["v"]; hasV != (n > 0) {
				t.Fatalf("action %v: %v simulations, value given %v", a["name"], n, hasV)
			}
			if a["a"] == chosen && n == 0 {
				t.Fatalf("chose %v, never simulated", a["name"])
			}
			total += n
		}
		if total < 20 || total > 60 || s["thought_unit"] == "" {
			t.Fatalf("%v simulations shown for about 40, unit %q", total, s["thought_unit"])
		}
		return
	}
	t.Fatal("no decision with thoughts in 12 moves")
}

// TestHintOnlyForOwnSeat: with Lineup.Hint a seated person gets the hint
// agent's thoughts about their own decision; without it, or for a seat
// that is not theirs, the request is refused; the table's status never
// carries thoughts while a person is seated.
func TestHintOnlyForOwnSeat(t *testing.T) {
	p := newPage(t, Config{})
	c := p.dial(t, "")
	c.send(map[string]any{"op": "new", "lineup": map[string]any{"env": "express-v2", "params": map[string]any{"players": 2},
		"seats": []string{"human", "heuristic"}, "hint": "mcts", "agent_opts": map[string]any{"mcts": map[string]any{"sims": "20"}},
		"delay_ms": 0, "seed": 9}})
	s, v := c.table()
	acted := -1.0
	for s["to_move"].(float64) != 0 || len(v["actions"].([]any)) < 2 {
		if s["to_move"].(float64) == 0 && s["steps"].(float64) > acted { // one legal move: nothing to search
			acted = s["steps"].(float64)
			c.send(map[string]any{"op": "act", "table": s["table"], "seat": 0, "action": v["actions"].([]any)[0].(map[string]any)["a"], "steps": s["steps"]})
		}
		s, v = c.table()
	}
	if s["hint"] != "mcts" || s["thought"] != nil {
		t.Fatalf("status: hint %v, thought %v", s["hint"], s["thought"])
	}
	c.send(map[string]any{"op": "hint", "table": s["table"], "seat": 0})
	h := c.next("hint")
	th, _ := h["thought"].([]any)
	if len(th) != len(v["actions"].([]any)) {
		t.Fatalf("hint lists %d actions, the view %d", len(th), len(v["actions"].([]any)))
	}
	if code := c.expectErr(map[string]any{"op": "hint", "table": s["table"], "seat": 1}); code != "not_your_seat" {
		t.Fatalf("hint for another seat: %s", code)
	}
	c2 := p.dial(t, "")
	c2.send(map[string]any{"op": "new", "lineup": map[string]any{"env": "express-v2", "params": map[string]any{"players": 2},
		"seats": []string{"human", "heuristic"}, "delay_ms": 0, "seed": 9}})
	s2, _ := c2.table()
	if code := c2.expectErr(map[string]any{"op": "hint", "table": s2["table"], "seat": 0}); code != "no_hints" {
		t.Fatalf("hint without hints: %s", code)
	}
	if code := c2.expectErr(map[string]any{"op": "new", "lineup": map[string]any{"env": "express-v2",
		"params": map[string]any{"players": 2}, "seats": []string{"human", "heuristic"}, "hint": "random"}}); code != "bad_lineup" {
		t.Fatalf("random as the hint agent: %s", code)
	}
}

// TestHintHidesWhatTheSeatCannotSee: a hint is a function of the seat's
// observation: two positions the seat cannot tell apart (the true one and
// a twin from the determinizer) get byte-identical hints, for every game
// with a heuristic that shows values and for mcts.
func TestHintHidesWhatTheSeatCannotSee(t *testing.T) {
	for _, c := range []struct {
		id, agent string
		opts      agents.Options
	}{{"express-v2", "mcts", agents.Options{"sims": "16"}}, {"pilots-of-gallaxia-v2", "mcts", agents.Options{"sims": "16"}},
		{"galaxy-express-v1", "heuristic", nil}, {"galaxy-fighters-v2", "heuristic", nil}, {"express-v2", "heuristic", nil},
		{"pilots-of-gallaxia-v2", "heuristic", nil}} {
		g, err := env.Lookup(c.id)
		if err != nil {
			t.Fatal(err)
		}
		det := g.(env.Determinizer)
		e, err := env.New(g, nil)
		if err != nil {
			t.Fatal(err)
		}
		sp := e.Spec()
		ag, err := agents.New(c.agent, sp, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		obs, twinObs := make([]uint8, sp.ObsSize()), make([]uint8, sp.ObsSize())
		e.Reset(4)
		rng := rand.New(rand.NewPCG(4, 1))
		hinted := 0
		for step := 0; !e.Done() && step < 120; step++ {
			p := e.CurrentPlayer()
			if step%11 == 0 {
				if err := e.Observe(p, obs); err != nil {
					t.Fatal(err)
				}
				twin, err := det.Determinize(e.Params(), p, obs, uint64(step)+99, nil)
				if err != nil {
					t.Fatal(err)
				}
				twin.Observe(p, twinObs)
				h1, a1, _, err1 := Hint(sp, e.Params(), ag, p, obs)
				h2, a2, _, err2 := Hint(sp, e.Params(), ag, p, twinObs)
				if err1 != nil || err2 != nil {
					t.Fatalf("%s step %d: %v %v", c.id, step, err1, err2)
				}
				b1, _ := json.Marshal(h1)
				b2, _ := json.Marshal(h2)
				if !bytes.Equal(b1, b2) || a1 != a2 {
					t.Fatalf("%s step %d: hints of positions seat %d cannot tell apart differ:\n%s\n%s", c.id, step, p, b1, b2)
				}
				if len(h1) > 0 || a1 >= 0 {
					hinted++
				}
			}
			mask := e.Mask()
			var legal []int
			for a, m := range mask {
				if m != 0 {
					legal = append(legal, a)
				}
			}
			if _, err := e.Step(legal[rng.IntN(len(legal))]); err != nil {
				t.Fatal(err)
			}
		}
		if hinted == 0 {
			t.Errorf("%s: no hint with thoughts", c.id)
		}
	}
}
