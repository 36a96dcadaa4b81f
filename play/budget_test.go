package play

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/datasets"
	"github.com/galaxygym/galaxygym/env"
)

// Two agents for the budget tests, registered for every game:
// zz-test-block thinks until its context (agents.SetContext) is done, or
// 30 s without one; zz-test-nap thinks 10 ms and counts how many of its
// kind think at once.
var (
	blockStarted   = make(chan struct{}, 64)
	blockCancelled atomic.Int64 // Act calls that ended by their context
	blockRunning   atomic.Int64
	napNow, napMax atomic.Int64
	napMoves       atomic.Int64
)

func init() {
	every := func(*env.Spec) bool { return true }
	agents.RegisterGeneric("zz-test-block", "test agent: thinks until cancelled", every,
		func(*env.Spec, agents.Options) (agents.Agent, error) { return &blockAgent{}, nil })
	agents.RegisterGeneric("zz-test-nap", "test agent: thinks 10 ms", every,
		func(*env.Spec, agents.Options) (agents.Agent, error) { return &napAgent{}, nil })
}

type blockAgent struct {
	mu  sync.Mutex
	ctx context.Context
}

func (*blockAgent) Name() string { return "zz-test-block" }
func (*blockAgent) Reset(uint64) {}
func (a *blockAgent) SetContext(ctx context.Context) {
	a.mu.Lock()
	a.ctx = ctx
	a.mu.Unlock()
}
func (a *blockAgent) Act(_ int, _, mask []uint8) int {
	a.mu.Lock()
	ctx := a.ctx
	a.mu.Unlock()
	if ctx == nil {
		ctx = context.Background()
	}
	blockRunning.Add(1)
	defer blockRunning.Add(-1)
	select {
	case blockStarted <- struct{}{}:
	default:
	}
	select {
	case <-ctx.Done():
		blockCancelled.Add(1)
	case <-time.After(30 * time.Second):
	}
	return firstLegal(mask)
}

type napAgent struct{}

func (*napAgent) Name() string { return "zz-test-nap" }
func (*napAgent) Reset(uint64) {}
func (*napAgent) Act(_ int, _, mask []uint8) int {
	n := napNow.Add(1)
	for {
		m := napMax.Load()
		if n <= m || napMax.CompareAndSwap(m, n) {
			break
		}
	}
	time.Sleep(10 * time.Millisecond)
	napNow.Add(-1)
	napMoves.Add(1)
	return firstLegal(mask)
}

func firstLegal(mask []uint8) int {
	for i, m := range mask {
		if m != 0 {
			return i
		}
	}
	return 0
}

// agentTable asks for a table of agents of express-v2 (2 players) and returns
// its id.
func (c *client) agentTable(agent string, delayMS int) string {
	c.t.Helper()
	c.send(map[string]any{"op": "new", "lineup": map[string]any{"env": "express-v2", "params": map[string]any{"players": 2},
		"seats": []string{agent, agent}, "delay_ms": delayMS, "seed": 3}})
	s, _ := c.table()
	return s["table"].(string)
}

// waitRoom asks c for a table of agents until the server has room for
// it (not limit_exceeded), or fails after 10 s.
func waitRoom(t *testing.T, c *client) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c.send(map[string]any{"op": "new", "lineup": map[string]any{"env": "express-v2", "params": map[string]any{"players": 2},
			"seats": []string{"random", "random"}, "delay_ms": 60_000}})
		m := c.next2()
		if m["op"] == "table" {
			return
		}
		if m["op"] != "error" || m["code"] != "limit_exceeded" {
			t.Fatalf("new: %v", m)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no room after 10 s: %v", m["message"])
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// next2 returns the next message but a secret, whatever its op.
func (c *client) next2() map[string]any {
	c.t.Helper()
	_ = c.ws.SetReadDeadline(time.Now().Add(60 * time.Second))
	for {
		var m map[string]any
		if err := c.ws.ReadJSON(&m); err != nil {
			c.t.Fatal(err)
		}
		if m["op"] != "secret" { // a new table's creator secret comes before its first status
			return m
		}
	}
}

// TestTablesPerClientAndAddress: one connection opens at most
// MaxTablesPerClient live games, one address MaxTablesPerAddr; the others
// are refused with limit_exceeded naming the limit.
func TestTablesPerClientAndAddress(t *testing.T) {
	p := newPage(t, Config{Limits: Limits{MaxTablesPerClient: 2, MaxTablesPerAddr: 3}})
	c1 := p.dial(t, "")
	c1.agentTable("random", 60_000)
	c1.agentTable("random", 60_000)
	c1.send(map[string]any{"op": "new", "lineup": map[string]any{"env": "express-v2", "params": map[string]any{"players": 2}, "seats": []string{"random", "random"}, "delay_ms": 60_000}})
	if e := c1.next("error"); e["code"] != "limit_exceeded" || !strings.Contains(e["message"].(string), "2 games open") {
		t.Fatalf("third table of one page: %v", e)
	}
	c2 := p.dial(t, "")
	c2.agentTable("random", 60_000)
	c2.send(map[string]any{"op": "new", "lineup": map[string]any{"env": "express-v2", "params": map[string]any{"players": 2}, "seats": []string{"random", "random"}, "delay_ms": 60_000}})
	if e := c2.next("error"); e["code"] != "limit_exceeded" || !strings.Contains(e["message"].(string), "one address") {
		t.Fatalf("fourth table of one address: %v", e)
	}
}

// TestConnectionsPerAddress: loopback is not exempt; the connection over
// MaxConnsPerAddr gets HTTP 429, and a place comes back when one closes.
func TestConnectionsPerAddress(t *testing.T) {
	p := newPage(t, Config{Limits: Limits{MaxConnsPerAddr: 2}})
	p.dial(t, "")
	c2 := p.dial(t, "")
	u := "ws" + strings.TrimPrefix(p.srv.URL, "http") + "/play/ws"
	_, resp, err := websocket.DefaultDialer.Dial(u, nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("third connection from one address: %v (%v)", err, resp)
	}
	c2.ws.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		ws, _, err := websocket.DefaultDialer.Dial(u, nil)
		if err == nil {
			ws.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no place 5 s after a connection closed: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestLeftTablesEnd: the tables of a page that left, which nobody else
// watches, end (here Linger is short) and give their places back, so that
// one page cannot hold the server.
func TestLeftTablesEnd(t *testing.T) {
	p := newPage(t, Config{MaxTables: 3, Limits: Limits{Linger: 100 * time.Millisecond}})
	c1 := p.dial(t, "")
	var ids []string
	for range 3 {
		ids = append(ids, c1.agentTable("random", 60_000))
	}
	c1.ws.Close()
	c2 := p.dial(t, "")
	for range ids {
		waitRoom(t, c2)
	}
}

// TestIdleTablesReapedDespiteAgentMoves: a table at which no person did
// anything for IdleTimeout ends, though its agents keep moving and its
// page stays connected (it says hello now and then, which is not about
// the table).
func TestIdleTablesReapedDespiteAgentMoves(t *testing.T) {
	p := newPage(t, Config{IdleTimeout: time.Second, MaxTables: 1, Limits: Limits{Linger: time.Hour}})
	c1 := p.dial(t, "")
	c1.agentTable("zz-test-nap", 100)
	stop := make(chan struct{})
	defer close(stop)
	go func() { // keep c1 alive, reading what it is sent
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				_ = c1.ws.WriteJSON(map[string]any{"op": "hello"})
			}
		}
	}()
	go func() {
		for {
			if _, _, err := c1.ws.ReadMessage(); err != nil {
				return
			}
		}
	}()
	waitRoom(t, p.dial(t, ""))
}

// TestDroppedPageStopsItsWork: the agent move of a table only the page
// watched is cancelled when the page drops (agents.SetContext), and the
// page's place (one connection per address here) comes back only once
// that work stopped.
func TestDroppedPageStopsItsWork(t *testing.T) {
	p := newPage(t, Config{Limits: Limits{MaxConnsPerAddr: 1}})
	c1 := p.dial(t, "")
	before := blockCancelled.Load()
	for len(blockStarted) > 0 {
		<-blockStarted
	}
	c1.send(map[string]any{"op": "new", "lineup": map[string]any{"env": "express-v2", "params": map[string]any{"players": 2},
		"seats": []string{"zz-test-block", "zz-test-block"}, "delay_ms": 0, "seed": 3}})
	c1.table()
	select {
	case <-blockStarted:
	case <-time.After(10 * time.Second):
		t.Fatal("the agent did not start thinking")
	}
	c1.ws.Close()
	u := "ws" + strings.TrimPrefix(p.srv.URL, "http") + "/play/ws"
	deadline := time.Now().Add(5 * time.Second)
	for {
		ws, _, err := websocket.DefaultDialer.Dial(u, nil)
		if err == nil {
			ws.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the page's place did not come back within 5 s: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if blockCancelled.Load() == before || blockRunning.Load() != 0 {
		t.Fatalf("the place came back while the agent still thinks (cancelled %d, running %d)", blockCancelled.Load()-before, blockRunning.Load())
	}
}

// hintReady opens a table of express-v2 with a person at seat 0 and hint
// agent, and waits until seat 0 has a decision with two or more choices.
func hintReady(c *client, hint string) string {
	c.t.Helper()
	c.send(map[string]any{"op": "new", "lineup": map[string]any{"env": "express-v2", "params": map[string]any{"players": 2},
		"seats": []string{"human", "heuristic"}, "hint": hint, "delay_ms": 0, "seed": 9}})
	s, v := c.table()
	acted := -1.0
	for s["to_move"].(float64) != 0 || len(v["actions"].([]any)) < 2 {
		if s["to_move"].(float64) == 0 && s["steps"].(float64) > acted {
			acted = s["steps"].(float64)
			c.send(map[string]any{"op": "act", "table": s["table"], "seat": 0, "action": v["actions"].([]any)[0].(map[string]any)["a"], "steps": s["steps"]})
		}
		s, v = c.table()
	}
	return s["table"].(string)
}

// TestHintBudgetsAndCancel: one hint in flight per page and MaxHints in
// all (more: limit_exceeded at once, the page still answered), and a
// page's hint is cancelled when it drops.
func TestHintBudgetsAndCancel(t *testing.T) {
	p := newPage(t, Config{Limits: Limits{MaxHints: 1}})
	c1 := p.dial(t, "")
	id := hintReady(c1, "zz-test-block")
	before := blockCancelled.Load()
	for len(blockStarted) > 0 {
		<-blockStarted
	}
	c1.send(map[string]any{"op": "hint", "table": id, "seat": 0})
	select {
	case <-blockStarted:
	case <-time.After(10 * time.Second):
		t.Fatal("the hint did not start")
	}
	if e := c1.expectErr(map[string]any{"op": "hint", "table": id, "seat": 0}); e != "limit_exceeded" {
		t.Fatalf("a second hint of one page: %s", e)
	}
	c2 := p.dial(t, "")
	id2 := hintReady(c2, "zz-test-block")
	c2.send(map[string]any{"op": "hint", "table": id2, "seat": 0})
	if e := c2.next("error"); e["code"] != "limit_exceeded" || !strings.Contains(e["message"].(string), "1 hints") {
		t.Fatalf("a hint over MaxHints: %v", e)
	}
	c1.ws.Close()
	deadline := time.Now().Add(5 * time.Second)
	for blockCancelled.Load() == before {
		if time.Now().After(deadline) {
			t.Fatal("the hint of a page that dropped still runs after 5 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestPageWorkOnBoundedPool: with one worker, the agent moves of many
// tables are worked out one at a time.
func TestPageWorkOnBoundedPool(t *testing.T) {
	p := newPage(t, Config{Limits: Limits{Workers: 1, CPUShare: 1}})
	napMax.Store(0)
	start := napMoves.Load()
	c := p.dial(t, "")
	for range 3 {
		c.agentTable("zz-test-nap", 0)
	}
	go func() {
		for {
			if _, _, err := c.ws.ReadMessage(); err != nil {
				return
			}
		}
	}()
	deadline := time.Now().Add(20 * time.Second)
	for napMoves.Load()-start < 30 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if napMoves.Load()-start < 30 {
		t.Fatalf("%d moves", napMoves.Load()-start)
	}
	if m := napMax.Load(); m != 1 {
		t.Fatalf("%d agent moves at once with one worker", m)
	}
}

// TestViewsDrawnOncePerPosition: the watchers of one view of a position
// share one drawing of it.
func TestViewsDrawnOncePerPosition(t *testing.T) {
	p := newPage(t, Config{})
	c := p.dial(t, "")
	c.send(map[string]any{"op": "new", "lineup": map[string]any{"env": "express-v2", "params": map[string]any{"players": 2},
		"seats": []string{"random", "random"}, "paused": true, "seed": 3}})
	s, _ := c.table()
	before := viewsDrawn.Load()
	for range 5 {
		w := p.dial(t, "")
		w.send(map[string]any{"op": "watch", "table": s["table"], "view": 0})
		w.table()
	}
	if n := viewsDrawn.Load() - before; n > 1 {
		t.Fatalf("%d drawings for 5 watchers of one view of one position", n)
	}
}

// recordGame plays a one-person game of galaxy-fighters-v1 to its end
// through the table's code (no connection) and records it as if opened
// from addr.
func recordGame(t *testing.T, h *Handler, addr string, seed uint64) (string, error) {
	t.Helper()
	tb, err := h.newTable(Lineup{Env: "galaxy-fighters-v1", Params: map[string]any{"players": 2, "mission": "rookie"},
		Seats: []string{Human, "random"}, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	tb.id = fmt.Sprintf("r%d", seed)
	tb.b.owner = &pageClient{addr: addr}
	rng := rand.New(rand.NewPCG(seed, 1))
	obs := make([]uint8, tb.e.Spec().ObsSize())
	for !tb.e.Done() {
		p := tb.e.CurrentPlayer()
		mask := tb.e.Mask()
		a := -1
		if tb.seats[p] != nil {
			_ = tb.e.Observe(p, obs)
			a = tb.seats[p].Act(p, obs, mask)
		} else {
			var legal []int
			for i, m := range mask {
				if m != 0 {
					legal = append(legal, i)
				}
			}
			a = legal[rng.IntN(len(legal))]
		}
		tb.lastOf[p] = len(tb.history)
		tb.history = append(tb.history, step{Player: p, Action: a})
		if _, err := tb.e.Step(a); err != nil {
			t.Fatal(err)
		}
	}
	return h.record(tb)
}

// entries lists the folders under dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

// TestRecordBudgets: games per hour per address, bytes per hour per
// address and the record folder's size are bounded; a game over a limit
// is not recorded, with an error naming the limit, and leaves nothing
// behind.
func TestRecordBudgets(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "rec")
	p := newPage(t, Config{RecordDir: rec, Limits: Limits{RecordGamesPerHour: 2}})
	for i := range 2 {
		if _, err := recordGame(t, p.h, "10.0.0.1", uint64(i+1)); err != nil {
			t.Fatal(err)
		}
	}
	_, err := recordGame(t, p.h, "10.0.0.1", 3)
	if _, ok := err.(*RecordError); !ok || !strings.Contains(err.Error(), "2 games were recorded from 10.0.0.1") {
		t.Fatalf("third game of an address in an hour: %v", err)
	}
	if _, err := recordGame(t, p.h, "10.0.0.2", 4); err != nil {
		t.Fatalf("another address: %v", err)
	}
	if n := len(entries(t, rec)); n != 3 {
		t.Fatalf("%d folders under --record: %v", n, entries(t, rec))
	}

	// The folder's size: the next recording would pass it.
	size := dirSize(rec)
	rec2 := filepath.Join(t.TempDir(), "rec")
	if err := os.CopyFS(rec2, os.DirFS(rec)); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(rec2, tmpPrefix+"crashed"), 0o755); err != nil {
		t.Fatal(err)
	}
	p2 := newPage(t, Config{RecordDir: rec2, Limits: Limits{RecordMaxBytes: size + size/6}})
	_, err = recordGame(t, p2.h, "10.0.0.3", 5)
	if err == nil || !strings.Contains(err.Error(), "the record folder is full") {
		t.Fatalf("a recording over --record-max-bytes: %v", err)
	}
	if got := entries(t, rec2); len(got) != 3 {
		t.Fatalf("left under --record: %v", got)
	}

	// Bytes per hour.
	p3 := newPage(t, Config{RecordDir: filepath.Join(t.TempDir(), "rec"), Limits: Limits{RecordBytesPerHour: size / 2}})
	if _, err := recordGame(t, p3.h, "10.0.0.4", 6); err != nil {
		t.Fatal(err)
	}
	_, err = recordGame(t, p3.h, "10.0.0.4", 7)
	if err == nil || !strings.Contains(err.Error(), "in an hour") {
		t.Fatalf("a recording over the bytes per hour: %v", err)
	}
}

// TestManyRecordingsIndexedOnce: 300 recordings are indexed as they are
// written; hello, episodes and replay read no manifest but the one they
// name (here the others are damaged on disk after indexing, which a
// reread would show).
func TestManyRecordingsIndexedOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("300 recordings")
	}
	rec := filepath.Join(t.TempDir(), "rec")
	p := newPage(t, Config{RecordDir: rec, Limits: Limits{RecordGamesPerHour: 1000}})
	var names []string
	for i := range 300 {
		name, err := recordGame(t, p.h, "10.0.0.1", uint64(i+1))
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	for _, n := range names[1:] {
		if err := os.WriteFile(filepath.Join(rec, filepath.Base(n), datasets.ManifestFile), []byte("damaged"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := p.dial(t, "")
	c.send(map[string]any{"op": "hello"})
	ds := c.next("hello")["datasets"].([]any)
	if len(ds) != 300 {
		t.Fatalf("hello lists %d datasets", len(ds))
	}
	for _, d := range ds {
		if d.(map[string]any)["replayable"] != true {
			t.Fatalf("hello read a manifest again: %v", d)
		}
	}
	c.send(map[string]any{"op": "episodes", "dataset": names[0]})
	if eps := c.next("episodes")["episodes"].([]any); len(eps) != 1 {
		t.Fatalf("episodes: %v", eps)
	}
	c.send(map[string]any{"op": "replay", "dataset": names[0], "episode": 0, "step": 1})
	c.next("replay")
}

// TestLeftTablesMakeRoomForTheirAddress: the tables an address left
// (nobody watches them, nobody sits) give way to the address's new ones,
// and to anyone's when the server is full, before they would end by
// themselves; and a page plays game after game within its budget, since
// a finished game no longer counts.
func TestLeftTablesMakeRoomForTheirAddress(t *testing.T) {
	p := newPage(t, Config{MaxTables: 2, Limits: Limits{MaxTablesPerAddr: 2, MaxTablesPerClient: 1, Linger: time.Hour}})
	c1 := p.dial(t, "")
	c1.agentTable("random", 60_000)
	c1.ws.Close()
	c2 := p.dial(t, "")
	c2.agentTable("random", 60_000)
	waitRoom(t, p.dial(t, "")) // c1's table, left, gives way (Linger is an hour)

	p2 := newPage(t, Config{Limits: Limits{MaxTablesPerClient: 1, CPUShare: 1}})
	c := p2.dial(t, "")
	for range 2 {
		c.send(map[string]any{"op": "new", "lineup": map[string]any{"env": "galaxy-fighters-v1", "params": map[string]any{"players": 2, "mission": "rookie"},
			"seats": []string{"random", "random"}, "delay_ms": 0, "seed": 3}})
		for {
			s, _ := c.table()
			if s["over"] == true {
				break
			}
		}
	}
}
