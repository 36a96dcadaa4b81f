package server

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
)

// TestOpponentsOverCap: opponents over the server's agent limits are
// refused at make with limit_exceeded and the cap in the message; a weights
// name inside another option (rollout.weights) is resolved like policy's.
func TestOpponentsOverCap(t *testing.T) {
	_, url := startServer(t, Config{WeightsDir: t.TempDir()})
	for _, tc := range []struct {
		opp  string
		code Code
		want string
	}{
		{"mcts@sims=100000000", CodeLimitExceeded, fmt.Sprintf("limit of %d simulations per decision", agents.DefaultMaxMCTSSims)},
		{"mcts@ms=600000", CodeLimitExceeded, fmt.Sprintf("limit of %d ms per decision", agents.DefaultMaxMCTSTime.Milliseconds())},
		{"mcts@rollout=policy@rollout.weights=../x.npz", CodeBadRequest, "weights"},
	} {
		c := dial(t, url, nil)
		hello(t, c)
		m, raw := makeMsg(t, c, map[string]any{"env": "express-v2", "opponents": tc.opp})
		msg, _ := raw["message"].(string)
		if m.Type == MsgMade || raw["code"] != string(tc.code) || !strings.Contains(msg, tc.want) {
			t.Errorf("make with opponents %s: %v, want error %s naming %q", tc.opp, raw, tc.code, tc.want)
		}
		c.Close()
	}
	// A cap raised by the configuration admits the same spec; hello
	// states the caps.
	_, url2 := startServer(t, Config{MaxAgentSims: 1 << 30})
	c := dial(t, url2, nil)
	sendJSON(t, c, map[string]any{"type": "hello", "version": Version})
	lim, _ := recvJSON(t, c)["limits"].(map[string]any)
	if lim["max_agent_sims"] != float64(1<<30) || lim["max_agent_time_s"] != agents.DefaultMaxMCTSTime.Seconds() {
		t.Errorf("hello's limits %v", lim)
	}
	if m, raw := makeMsg(t, c, map[string]any{"env": "express-v2", "opponents": "mcts@sims=100000000"}); m.Type != MsgMade {
		t.Errorf("raised cap: %v", raw)
	}
}

// searchSession opens a session whose opponent searches for hours (an mcts
// with its caps raised, or slowStop), resets it and steps it until a step does not
// answer within 300 ms: an opponent's search is under way. It returns that
// connection, whose reads are then spent (a read timed out).
func searchSession(t *testing.T, url string, stepping <-chan struct{}, opponent string) *websocket.Conn {
	t.Helper()
	c := dial(t, url, nil)
	hello(t, c)
	m, raw := makeMsg(t, c, map[string]any{"env": "express-v2", "params": map[string]any{"players": 2},
		"opponents": opponent})
	if m.Type != MsgMade {
		t.Fatalf("make: %v", raw)
	}
	r := decodeReply(t, resetSeeds(t, c, 1), m.Layout)
	for range 100 {
		if err := c.WriteMessage(websocket.BinaryMessage, stepFrame(firstLegal(r)...)); err != nil {
			t.Fatal(err)
		}
		select {
		case <-stepping:
		case <-time.After(10 * time.Second):
			t.Fatal("the step was not handled")
		}
		c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		_, data, err := c.ReadMessage()
		if err != nil {
			return c // searching
		}
		r = decodeReply(t, data, m.Layout)
	}
	t.Fatal("100 steps answered at once: no opponent searched")
	return nil
}

// slowStop is an opponent whose search runs until its context is done and
// then takes 300 ms more to stop, like a search that notices late (a
// decision begun after that returns at once): the
// window in which a slot freed before the work stopped would show.
type slowStop struct {
	agents.Random
	ctx context.Context
}

func (s *slowStop) SetContext(ctx context.Context) { s.ctx = ctx }

func (s *slowStop) Act(player int, obs, mask []uint8) int {
	if s.ctx == nil || s.ctx.Err() == nil { // a decision begun once done is quick
		select {
		case <-s.ctx.Done():
		case <-time.After(time.Minute):
		}
		time.Sleep(300 * time.Millisecond)
	}
	return s.Random.Act(player, obs, mask)
}

func init() {
	agents.Register("test-slow-stop", "searches until its context is done, then stops 300 ms later (server tests)",
		func(*env.Spec, agents.Options) (agents.Agent, error) { return &slowStop{}, nil })
}

// TestDroppedClientStopsSearch: a client whose step set an opponent's
// search going (one of hours) drops its connection: the search stops
// within a few seconds, and the session keeps its slot (Sessions, the
// /healthz count) for as long as its work runs.
func TestDroppedClientStopsSearch(t *testing.T) {
	for _, opp := range []string{"mcts@sims=100000000", "test-slow-stop"} {
		t.Run(opp, func(t *testing.T) { droppedClientStops(t, opp) })
	}
}

func droppedClientStops(t *testing.T, opp string) {
	srv, url := startServer(t, Config{MaxAgentSims: 1 << 30})
	stepping := make(chan struct{}, 1)
	srv.stepHook = func() { stepping <- struct{}{} }
	c := searchSession(t, url, stepping, opp)
	if n := srv.inFlight.Load(); n != 1 {
		t.Fatalf("%d requests in flight during the search, want 1", n)
	}
	c.NetConn().Close() // drop, no close frame
	deadline := time.Now().Add(5 * time.Second)
	for srv.inFlight.Load() > 0 {
		if s := srv.Sessions(); s != 1 {
			t.Fatalf("the session's slot was freed (%d sessions) while its step still ran", s)
		}
		if time.Now().After(deadline) {
			t.Fatal("the search went on 5 s after its client dropped")
		}
		time.Sleep(2 * time.Millisecond)
	}
	for srv.Sessions() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the session was not released after its work stopped")
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestDropReconnectBoundedByMaxSessions: with MaxSessions 2, a client that
// holds two long searches and repeatedly drops one and reconnects never
// has more than 2 of them running at once: a slot is freed only once its
// session's work has stopped.
func TestDropReconnectBoundedByMaxSessions(t *testing.T) {
	for _, opp := range []string{"mcts@sims=100000000", "test-slow-stop"} {
		t.Run(opp, func(t *testing.T) { dropReconnect(t, opp) })
	}
}

func dropReconnect(t *testing.T, opp string) {
	srv, url := startServer(t, Config{MaxAgentSims: 1 << 30, MaxSessions: 2})
	stepping := make(chan struct{}, 8)
	srv.stepHook = func() { stepping <- struct{}{} }
	var most atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			if n := srv.inFlight.Load(); n > most.Load() {
				most.Store(n)
			}
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	// Two searching sessions; then, four times, drop the older and
	// connect again as soon as a slot is free.
	conns := []*websocket.Conn{searchSession(t, url, stepping, opp), searchSession(t, url, stepping, opp)}
	for range 4 {
		conns[0].NetConn().Close()
		deadline := time.Now().Add(10 * time.Second)
		for srv.Sessions() >= 2 {
			if time.Now().After(deadline) {
				t.Fatal("no slot came free within 10 s")
			}
			time.Sleep(time.Millisecond)
		}
		conns = []*websocket.Conn{conns[1], searchSession(t, url, stepping, opp)}
	}
	for _, c := range conns {
		c.NetConn().Close()
	}
	deadline := time.Now().Add(10 * time.Second)
	for srv.inFlight.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	if n := most.Load(); n > 2 {
		t.Errorf("%d searches ran at once with MaxSessions 2", n)
	}
	if n := srv.inFlight.Load(); n != 0 {
		t.Errorf("%d searches still running 10 s after the last client dropped", n)
	}
}

// TestDroppedClientStopsRender: an rgb_array render of many environments
// stops at its next frame when the client drops, and the slot is held until
// it has.
func TestDroppedClientStopsRender(t *testing.T) {
	srv, url := startServer(t, Config{MaxSessions: 1})
	c := dial(t, url, nil)
	hello(t, c)
	const n = 64
	makeEnv(t, c, testEnv, n, nil)
	resetSeeds(t, c, make([]uint64, n)...)
	var frames atomic.Int64
	held := make(chan bool, 1)
	renderHook = func(ctx context.Context, k int) {
		if frames.Add(1) != 1 {
			return
		}
		c.NetConn().Close()
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Second):
		}
		held <- srv.Sessions() == 1
	}
	defer func() { renderHook = nil }()
	sendJSON(t, c, map[string]any{"type": "render", "mode": "rgb_array"})
	if !<-held {
		t.Fatal("the slot was freed while the render ran")
	}
	deadline := time.Now().Add(10 * time.Second)
	for (srv.wgCount() > 0 || srv.Sessions() > 0) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if got := frames.Load(); got != 1 {
		t.Fatalf("the render of a client that left went on: %d of %d frames", got, n)
	}
}

// actCount counts the decisions of test-count agents.
var actCount atomic.Int64

type countingAgent struct{ agents.Random }

func (a *countingAgent) Act(player int, obs, mask []uint8) int {
	actCount.Add(1)
	return a.Random.Act(player, obs, mask)
}

func init() {
	agents.Register("test-count", "random, counting its decisions (server tests)",
		func(*env.Spec, agents.Options) (agents.Agent, error) { return &countingAgent{}, nil })
}

// TestBatchStopsBetweenEnvironments: once the session's context is done, a
// step of a batch with opponents stops before its next environment (here
// before the first: no opponent decides) and answers cancelled, and so
// does a reset.
func TestBatchStopsBetweenEnvironments(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b, perr := newLearnerBatch(ctx, "express-v2", 8, map[string]any{"players": 2}, NextStep, func() uint64 { return 3 }, 1, 1<<40,
		&Opponents{Agents: []byte(`"test-count"`)}, agents.Limits{}, false)
	if perr != nil {
		t.Fatal(perr)
	}
	if _, perr := b.reset(ctx, &Control{}); perr != nil {
		t.Fatal(perr)
	}
	cancel()
	before := actCount.Load()
	for range 20 {
		for i, e := range b.envs {
			for a, x := range e.Mask() {
				if x != 0 {
					b.actions[i] = int32(a)
					break
				}
			}
		}
		if _, perr := b.step(nil); perr == nil || perr.Code != CodeCancelled {
			t.Fatalf("a step after the session's context was done: %v, want %s", perr, CodeCancelled)
		}
	}
	if n := actCount.Load() - before; n != 0 {
		t.Errorf("%d opponent decisions after the session's context was done", n)
	}
	if _, perr := b.reset(ctx, &Control{}); perr == nil || perr.Code != CodeCancelled {
		t.Errorf("a reset after the session's context was done: %v, want %s", perr, CodeCancelled)
	}
}
