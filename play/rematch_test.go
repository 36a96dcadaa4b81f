package play

import (
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/env/envtest/trio"
)

// TestRematch: a rematch is refused before the end and to a spectator;
// at the end it starts a new table with the seats rotated and the next
// seed, where the person's seat is theirs by the same secret; asked again
// it names the same table instead of starting another.
func TestRematch(t *testing.T) {
	p := newPage(t, Config{})
	c := p.dial(t, "")
	c.send(map[string]any{"op": "new", "lineup": map[string]any{"env": trio.ID, "params": map[string]any{"players": 2},
		"seats": []string{"human", "random"}, "seed": 41}})
	sec := c.next("secret")
	if sec["creator"] == true {
		sec = c.next("secret")
	}
	id := sec["table"].(string)
	s, v := c.table()
	if code := c.expectErr(map[string]any{"op": "rematch", "table": id}); code != "not_over" {
		t.Fatalf("a rematch mid-game: %s", code)
	}
	spectator := p.dial(t, "")
	if code := spectator.expectErr(map[string]any{"op": "rematch", "table": strings.Repeat("x", 4000)}); code != "unknown_table" {
		t.Fatalf("a rematch of no table: %s", code)
	}
	for ; s["over"] != true; s, v = c.table() {
		acts, _ := v["actions"].([]any)
		if s["to_move"].(float64) != 0 || len(acts) == 0 {
			continue
		}
		if v["scene"] == nil {
			t.Fatal("trio's view has no scene")
		}
		a := acts[0].(map[string]any)
		c.send(map[string]any{"op": "act", "table": id, "seat": 0, "action": a["a"], "steps": s["steps"]})
	}
	spectator.send(map[string]any{"op": "watch", "table": id})
	spectator.table()
	if code := spectator.expectErr(map[string]any{"op": "rematch", "table": id}); code != "not_your_seat" {
		t.Fatalf("a spectator's rematch: %s", code)
	}
	c.send(map[string]any{"op": "rematch", "table": id})
	var seat1 map[string]any
	for seat1 == nil {
		m := c.next("secret")
		if m["creator"] != true {
			seat1 = m
		}
	}
	if seat1["seat"].(float64) != 1 || seat1["secret"] != sec["secret"] || seat1["table"] == id {
		t.Fatalf("the rematch's seat secret: %v (was %v)", seat1, sec)
	}
	s, _ = c.table()
	for s["table"] != seat1["table"] {
		s, _ = c.table()
	}
	seats := s["seats"].([]any)
	yours := s["yours"].([]any)
	if seats[0] != "random" || seats[1] != "human" || len(yours) != 1 || yours[0].(float64) != 1 {
		t.Fatalf("rematch status: seats %v yours %v", seats, yours)
	}
	for i := 0; i < 20; i++ { // a rematch spammed: one table, no more
		if code := c.expectErr(map[string]any{"op": "rematch", "table": id}); code != "rematch_started" {
			t.Fatalf("rematch again: %s", code)
		}
	}
}
