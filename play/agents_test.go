package play

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/galaxygym/galaxygym/agents"
)

// expectErrMsg sends m and returns the error reply's code and message.
func (c *client) expectErrMsg(m map[string]any) (string, string) {
	c.t.Helper()
	c.send(m)
	e := c.next("error")
	msg, _ := e["message"].(string)
	return e["code"].(string), msg
}

// TestPageWeightsLinkOutsideRefused: a weights file in the folder that is
// a symbolic link to a file outside it is neither offered nor loaded (the
// training protocol refuses it too); a link inside the folder is.
func TestPageWeightsLinkOutsideRefused(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "notebooks", "weights", "galaxy-express-v1-bc.npz"))
	if err != nil {
		t.Skip("no committed weights for galaxy-express-v1")
	}
	root := t.TempDir()
	dir := filepath.Join(root, "weights")
	os.Mkdir(dir, 0o755)
	outside := filepath.Join(root, "private.npz")
	for _, p := range []string{outside, filepath.Join(dir, "galaxy-express-v1-in.npz")} {
		if err := os.WriteFile(p, src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(dir, "galaxy-express-v1-out.npz")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("galaxy-express-v1-in.npz", filepath.Join(dir, "galaxy-express-v1-alias.npz")); err != nil {
		t.Fatal(err)
	}
	p := newPage(t, Config{WeightsDir: dir})
	c := p.dial(t, "")
	c.send(map[string]any{"op": "hello"})
	var weights []any
	for _, e := range c.next("hello")["envs"].([]any) {
		if e.(map[string]any)["id"] == "galaxy-express-v1" {
			weights, _ = e.(map[string]any)["weights"].([]any)
		}
	}
	if want := []any{"galaxy-express-v1-alias.npz", "galaxy-express-v1-in.npz"}; !reflect.DeepEqual(weights, want) {
		t.Errorf("weights offered %v, want %v (not the link out of the folder)", weights, want)
	}
	newPolicy := func(w string) map[string]any {
		return map[string]any{"op": "new", "lineup": map[string]any{"env": "galaxy-express-v1", "seats": []string{"policy"},
			"agent_opts": map[string]any{"policy": map[string]any{"weights": w}}, "delay_ms": 0, "paused": true}}
	}
	if code := c.expectErr(newPolicy("galaxy-express-v1-out.npz")); code != "bad_lineup" {
		t.Errorf("the link out of the folder: %s, want bad_lineup", code)
	}
	c.send(newPolicy("galaxy-express-v1-alias.npz"))
	c.table()
}

// TestPageMCTSCaps: an mcts seat or hint over the server's simulation cap
// is refused with the cap in the message; at the cap it plays.
func TestPageMCTSCaps(t *testing.T) {
	p := newPage(t, Config{MaxAgentSims: 100, MaxAgentTime: time.Second})
	c := p.dial(t, "")
	lineup := func(seat, hint string, sims string) map[string]any {
		return map[string]any{"op": "new", "lineup": map[string]any{"env": "express-v2", "params": map[string]any{"players": 2},
			"seats": []string{"human", seat}, "hint": hint, "agent_opts": map[string]any{"mcts": map[string]any{"sims": sims}},
			"delay_ms": 0, "paused": true}}
	}
	for _, m := range []map[string]any{lineup("mcts", "", "101"), lineup("heuristic", "mcts", "101"), lineup("mcts", "", "100000")} {
		code, msg := c.expectErrMsg(m)
		if code != "bad_lineup" || !strings.Contains(msg, "limit of 100 simulations per decision") {
			t.Errorf("%v: %s %q, want bad_lineup naming the cap", m["lineup"], code, msg)
		}
	}
	c.send(lineup("mcts", "mcts", "100"))
	c.table()
	// The default cap (agents.DefaultMaxMCTSSims) holds where none is set.
	d := newPage(t, Config{}).dial(t, "")
	if code, msg := d.expectErrMsg(lineup("mcts", "", "100000")); code != "bad_lineup" || !strings.Contains(msg, "limit of 1024 simulations") {
		t.Errorf("sims=100000 with the default cap: %s %q", code, msg)
	}
}

// TestCloseStopsAgentSearch: closing the page (as a shutdown does) stops an
// agent seat's search of hours within a few seconds: the move in progress
// on the page's pool (table.b.moveDone) is over.
func TestCloseStopsAgentSearch(t *testing.T) {
	p := newPage(t, Config{MaxAgentSims: 1 << 30})
	c := p.dial(t, "")
	c.send(map[string]any{"op": "new", "lineup": map[string]any{"env": "express-v2", "params": map[string]any{"players": 2},
		"seats": []string{"mcts", "mcts"}, "agent_opts": map[string]any{"mcts": map[string]any{"sims": "100000000"}}, "delay_ms": 0}})
	s, _ := c.table()
	p.h.mu.Lock()
	tb := p.h.tables[s["table"].(string)]
	p.h.mu.Unlock()
	// Wait for a decision that searches: a move on the page's pool still
	// in progress 300 ms on (forced moves end at once, searches of 10^8
	// simulations do not).
	var done chan struct{}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if time.Now().After(deadline) {
			t.Fatal("no search began")
		}
		tb.b.mu.Lock()
		done = tb.b.moveDone
		tb.b.mu.Unlock()
		if done == nil {
			time.Sleep(20 * time.Millisecond)
			continue
		}
		time.Sleep(300 * time.Millisecond)
		select {
		case <-done:
			continue // a move without a search: look at the next one
		default:
		}
		break
	}
	p.h.Close()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the agent's search went on 5 s after the page closed")
	}
}

// TestHintStopsWhenPageLeaves: a hint whose search would run for hours
// stops within a few seconds of the asking page's connection closing.
func TestHintStopsWhenPageLeaves(t *testing.T) {
	p := newPage(t, Config{MaxAgentSims: 1 << 30})
	c := p.dial(t, "")
	c.send(map[string]any{"op": "new", "lineup": map[string]any{"env": "express-v2", "params": map[string]any{"players": 2},
		"seats": []string{"human", "heuristic"}, "hint": "mcts", "agent_opts": map[string]any{"mcts": map[string]any{"sims": "100000000"}},
		"delay_ms": 0, "seed": 9}})
	s, v := c.table()
	acted := -1.0
	for s["to_move"].(float64) != 0 || len(v["actions"].([]any)) < 2 { // a decision worth searching
		if s["to_move"].(float64) == 0 && s["steps"].(float64) > acted {
			acted = s["steps"].(float64)
			c.send(map[string]any{"op": "act", "table": s["table"], "seat": 0, "action": v["actions"].([]any)[0].(map[string]any)["a"], "steps": s["steps"]})
		}
		s, v = c.table()
	}
	id := s["table"].(string)
	c.send(map[string]any{"op": "hint", "table": id, "seat": 0})
	p.h.mu.Lock()
	tb := p.h.tables[id]
	var server *conn
	for sc := range p.h.conns {
		server = sc
	}
	p.h.mu.Unlock()
	// Wait for the hint's search: it holds the hinter's lock.
	deadline := time.Now().Add(30 * time.Second)
	for tb.hinter.mu.TryLock() {
		tb.hinter.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatal("no hint began")
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	server.close(websocket.CloseGoingAway, "test: the page left")
	stopped := make(chan struct{})
	go func() {
		tb.hinter.mu.Lock()
		//lint:ignore SA2001 taking the lock is the wait: the hint holds it
		tb.hinter.mu.Unlock()
		close(stopped)
	}()
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("the hint's search went on 5 s after its page left")
	}
}

// TestPageGuidedMCTS: an mcts seat may be guided by one of the weights
// files the server offers for the environment (mcts@weights, resolved
// like policy's); its thoughts show the root's visits; a file not offered
// is refused.
func TestPageGuidedMCTS(t *testing.T) {
	const w = "express-v2-selfplay.npz"
	if _, err := os.Stat(filepath.Join("..", "notebooks", "weights", w)); err != nil {
		t.Skip("no committed weights for express-v2")
	}
	p := newPage(t, Config{WeightsDir: filepath.Join("..", "notebooks", "weights")})
	c := p.dial(t, "")
	lineup := func(weights string) map[string]any {
		return map[string]any{"op": "new", "lineup": map[string]any{"env": "express-v2", "params": map[string]any{"players": 2},
			"seats": []string{"mcts", "heuristic"}, "agent_opts": map[string]any{"mcts": map[string]any{"sims": "8", "weights": weights}},
			"delay_ms": 0, "paused": true, "seed": 3}}
	}
	for _, bad := range []string{"galaxy-express-v1-bc.npz", "../weights/" + w, "nothing.npz"} {
		if code, msg := c.expectErrMsg(lineup(bad)); code != "bad_lineup" || !strings.Contains(msg, "not one of the server's weights") {
			t.Errorf("weights %q: %s %q, want bad_lineup", bad, code, msg)
		}
	}
	c.send(lineup(w))
	s, _ := c.table()
	p.h.mu.Lock()
	tb := p.h.tables[s["table"].(string)]
	p.h.mu.Unlock()
	tb.mu.Lock()
	m, ok := tb.seats[0].(*agents.MCTS)
	tb.mu.Unlock()
	if !ok || m.Guide() == nil {
		t.Fatalf("seat 0 is %T, want a guided *agents.MCTS", tb.seats[0])
	}
}
