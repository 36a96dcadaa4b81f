package server

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/galaxygym/galaxygym/env"
)

// Tests of the server under hostile input.

// makeEnv makes n environments of id with params and returns the layout.
func makeEnv(t *testing.T, c *websocket.Conn, id string, n int, params map[string]any) Layout {
	t.Helper()
	sendJSON(t, c, map[string]any{"type": "make", "env": id, "num_envs": n, "params": params})
	var m made
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, data, err := c.ReadMessage()
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &m); err != nil || m.Type != MsgMade {
		t.Fatalf("make reply %s (%v)", data, err)
	}
	return m.Layout
}

// TestRenderInfoAmplification: a render listing environment 0 a
// hundred thousand times used to make a reply 100,000 frames long.
func TestRenderInfoAmplification(t *testing.T) {
	_, url := startServer(t, Config{MaxReplyBytes: 8 << 10})
	c, _ := openSession(t, url, 64, "")
	resetSeeds(t, c, make([]uint64, 64)...)
	many := make([]int, 100000) // a 200 KB request naming env 0 each time
	for _, typ := range []string{"render", "info"} {
		sendJSON(t, c, map[string]any{"type": typ, "indices": many})
		expectError(t, c, CodeBadRequest)
		sendJSON(t, c, map[string]any{"type": typ, "indices": []int{3, 5, 3}})
		if m := expectError(t, c, CodeBadRequest); m["index"] != 3.0 || !strings.Contains(m["message"].(string), "repeated") {
			t.Fatalf("%s with a repeated index: %v", typ, m)
		}
		sendJSON(t, c, map[string]any{"type": typ, "indices": []int{1, 64}})
		expectError(t, c, CodeBadRequest)
		// All 64 environments are over the 8 KiB reply limit: refused, and
		// the session goes on.
		sendJSON(t, c, map[string]any{"type": typ})
		expectError(t, c, CodeLimitExceeded)
		sendJSON(t, c, map[string]any{"type": typ, "indices": []int{2, 0}})
		m := recvJSON(t, c)
		key := map[string]string{"render": "frames", "info": "infos"}[typ]
		if list, _ := m[key].([]any); m["type"] != typ || len(list) != 2 {
			t.Fatalf("%s of 2 environments: %v", typ, m)
		}
	}
}

// TestSessionMemoryBound: a make whose footprint is over
// MaxSessionBytes is refused before anything is built.
func TestSessionMemoryBound(t *testing.T) {
	srv, url := startServer(t, Config{MaxSessionBytes: 40 << 20})
	c := dial(t, url, nil)
	hello(t, c)
	sendJSON(t, c, map[string]any{"type": "make", "env": "galaxy-fighters-v1", "num_envs": 4096, "autoreset_mode": "same_step"})
	m := expectError(t, c, CodeLimitExceeded)
	t.Log(m["message"])
	// The bound the error states is one that fits.
	cfg := srv.Config()
	budget := cfg.MaxSessionBytes - cfg.ReadLimit - int64(cfg.MaxReplyBytes)
	g, _ := env.Lookup("galaxy-fighters-v1")
	e, _ := env.New(g, nil)
	e.Reset(0)
	snap, _ := e.MarshalJSON()
	n := 4096
	for n > 1 && batchBytes(e.Spec(), n, SameStep, len(snap), 0) > budget {
		n /= 2
	}
	if n < 16 {
		t.Fatalf("a 20 MiB budget holds only %d Galaxy Fighters environments", n)
	}
	l := makeEnv(t, c, "galaxy-fighters-v1", n, nil)
	if l.N != n {
		t.Fatalf("made %d environments, want %d", l.N, n)
	}
}

// TestBatchBytesOverestimates checks the estimate against the heap that
// a batch really takes, for every registered game: it must not be below.
func TestBatchBytesOverestimates(t *testing.T) {
	for _, id := range env.IDs() {
		const n = 256
		before := heapInUse()
		b, perr := newBatch(id, n, nil, SameStep, func() uint64 { return 1 }, 1, 1<<40)
		if perr != nil {
			t.Fatal(perr)
		}
		for i := range b.envs {
			b.envs[i].Reset(uint64(i))
			b.seeded[i] = true
		}
		// A reset from states holds a clone of every env besides it.
		clones := make([]*env.Env, n)
		for i, e := range b.envs {
			clones[i] = e.Clone()
		}
		used := heapInUse() - before
		snap, _ := b.envs[0].MarshalJSON()
		est := batchBytes(b.spec, n, SameStep, len(snap), 0)
		t.Logf("%s: %d environments use %d KiB, estimated %d KiB", id, n, used>>10, est>>10)
		if est < used {
			t.Errorf("%s: estimate %d bytes is below the %d bytes used", id, est, used)
		}
		keep(b, clones)
	}
}

// TestResetRefusesSnapshotOfOtherShape, through the server: A
// 4-player snapshot into a 2-player session is refused (loaded, replies
// would carry current_player 2-3 in a 2-player layout).
func TestResetRefusesSnapshotOfOtherShape(t *testing.T) {
	_, url := startServer(t, Config{})
	c := dial(t, url, nil)
	hello(t, c)
	l := makeEnv(t, c, "galaxy-fighters-v1", 2, map[string]any{"players": 2})
	sendJSON(t, c, map[string]any{"type": "reset", "seeds": []uint64{1, 2}})
	recvBinary(t, c)
	before := getState(t, c, 1)

	four, _ := env.Make("galaxy-fighters-v1", map[string]any{"players": 4})
	four.Reset(3)
	snap, _ := four.MarshalJSON()
	var m map[string]any
	json.Unmarshal(snap, &m)
	m["returns"] = []float64{0, 0} // trimmed to the session's count
	trimmed, _ := json.Marshal(m)
	for _, s := range [][]byte{snap, trimmed} {
		sendJSON(t, c, map[string]any{"type": "reset", "options": map[string]any{"states": []any{nil, json.RawMessage(s)}}})
		e := expectError(t, c, CodeBadState)
		if e["index"] != 1.0 {
			t.Fatalf("bad_state names index %v, want 1", e["index"])
		}
	}
	if getState(t, c, 1) != before {
		t.Fatal("a refused reset changed environment 1")
	}
	if l.P != 2 {
		t.Fatalf("layout of %d players", l.P)
	}
}

// TestMakeTimeout: a connection that only says hello is closed
// after MakeTimeout; one that made its environments stays.
func TestMakeTimeout(t *testing.T) {
	srv, url := startServer(t, Config{MakeTimeout: 300 * time.Millisecond})
	working, _ := openSession(t, url, 1, "")
	idle := dial(t, url, nil)
	hello(t, idle)
	start := time.Now()
	expectClose(t, idle, websocket.ClosePolicyViolation)
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("closed after %v", d)
	}
	waitFor(t, func() bool { return srv.Sessions() == 1 })
	sendJSON(t, working, map[string]any{"type": "info"})
	if m := recvJSON(t, working); m["type"] != MsgInfo {
		t.Fatalf("the session that made its environments: %v", m)
	}
}

// TestIdleTimeoutCountsOnlyWork: Pings, pongs, hello and list do
// not keep a session alive; steps and infos do.
func TestIdleTimeoutCountsOnlyWork(t *testing.T) {
	srv, url := startServer(t, Config{IdleTimeout: 400 * time.Millisecond, PingInterval: 50 * time.Millisecond, PongTimeout: 2 * time.Second})
	chatty, _ := openSession(t, url, 1, "")
	worker, _ := openSession(t, url, 1, "")
	resetSeeds(t, worker, 1)
	stop := time.Now().Add(1500 * time.Millisecond)
	closed := false
	for time.Now().Before(stop) && !closed {
		chatty.WriteControl(websocket.PongMessage, nil, time.Now().Add(time.Second))
		if err := chatty.WriteJSON(map[string]any{"type": "list"}); err != nil {
			closed = true
		} else {
			chatty.SetReadDeadline(time.Now().Add(time.Second))
			if _, _, err := chatty.ReadMessage(); err != nil {
				if !websocket.IsCloseError(err, websocket.ClosePolicyViolation) {
					t.Fatalf("chatty session ended with %v, want close 1008", err)
				}
				closed = true
			}
		}
		sendJSON(t, worker, map[string]any{"type": "info"})
		recvJSON(t, worker)
		time.Sleep(50 * time.Millisecond)
	}
	if !closed {
		t.Fatal("a session sending only pongs and list was not closed by the idle timeout")
	}
	if srv.Sessions() != 1 {
		t.Fatalf("%d sessions, want the working one", srv.Sessions())
	}
}

// TestSessionsPerAddress: one address holds a bounded number of sessions.
func TestSessionsPerAddress(t *testing.T) {
	srv, url := startServer(t, Config{MaxSessionsPerAddr: 2, LimitLoopback: true})
	dial(t, url, nil)
	dial(t, url, nil)
	waitFor(t, func() bool { return srv.Sessions() == 2 })
	c := dial(t, url, nil)
	m := expectError(t, c, CodeTooManySessions)
	if !strings.Contains(m["message"].(string), "127.0.0.1") {
		t.Fatalf("refusal %v does not name the address", m)
	}
	expectClose(t, c, websocket.CloseTryAgainLater)
	// Loopback clients are exempt by default.
	srv2, url2 := startServer(t, Config{MaxSessionsPerAddr: 2})
	for range 3 {
		hello(t, dial(t, url2, nil))
	}
	if srv2.Sessions() != 3 {
		t.Fatalf("%d loopback sessions, want 3", srv2.Sessions())
	}
}

// TestHostCheck (DNS rebinding): without a token only loopback
// Host names (and --allow-host ones) are served, whatever the Origin.
func TestHostCheck(t *testing.T) {
	_, url := startServer(t, Config{AllowedHosts: []string{"lab.example"}})
	port := url[strings.LastIndex(url, ":")+1:]
	for host, ok := range map[string]bool{
		"evil.example:" + port:     false,
		"evil.example":             false,
		"127.0.0.1.evil.example":   false,
		"localhost:" + port:        true,
		"127.0.0.1:" + port:        true,
		"127.1.2.3:" + port:        true,
		"[::1]:" + port:            true,
		"lab.example:" + port:      true,
		"LOCALHOST":                true,
		"localhost.evil.example:1": false,
	} {
		h := http.Header{"Host": {host}, "Origin": {"http://" + host}}
		c, resp, err := websocket.DefaultDialer.Dial(wsURL(url, "/"), h)
		if ok != (err == nil) {
			t.Errorf("Host %s: err %v, want ok=%v", host, err, ok)
		}
		if !ok && resp != nil && resp.StatusCode != http.StatusForbidden {
			t.Errorf("Host %s: status %d, want 403", host, resp.StatusCode)
		}
		if c != nil {
			c.Close()
		}
		req, _ := http.NewRequest("GET", url+"/metrics", nil)
		req.Host = host
		resp, err = http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if (resp.StatusCode == http.StatusOK) != ok {
			t.Errorf("GET /metrics with Host %s: %d", host, resp.StatusCode)
		}
	}
	// With a token, the token is the check.
	_, url = startServer(t, Config{Token: "s3cret-token-0123456789"})
	h := http.Header{"Host": {"evil.example"}, "Authorization": {"Bearer s3cret-token-0123456789"}}
	c, _, err := websocket.DefaultDialer.Dial(wsURL(url, "/"), h)
	if err != nil {
		t.Fatalf("token and a foreign Host: %v", err)
	}
	c.Close()
}

// TestRefuseRemoteBindWithoutToken: a server on a non-loopback address without a token is refused.
func TestRefuseRemoteBindWithoutToken(t *testing.T) {
	l, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Skip("cannot listen on 0.0.0.0:", err)
	}
	srv, _ := New(Config{})
	var ce *ConfigError
	if err := srv.Serve(l); !errors.As(err, &ce) {
		t.Fatalf("Serve(0.0.0.0) without a token = %v, want a *ConfigError", err)
	}
	if _, err := l.Accept(); err == nil {
		t.Fatal("the refused listener is still open")
	}
	for _, cfg := range []Config{{Token: "x-long-enough-token-42"}, {AllowRemoteWithoutToken: true}} {
		l, err := net.Listen("tcp", "0.0.0.0:0")
		if err != nil {
			t.Fatal(err)
		}
		srv, _ := New(cfg)
		done := make(chan error, 1)
		go func() { done <- srv.Serve(l) }()
		time.Sleep(50 * time.Millisecond)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		srv.Shutdown(ctx)
		cancel()
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			t.Fatalf("Serve with %+v = %v, want it to serve", cfg, err)
		}
	}
	// Loopback needs nothing.
	srv, _ = New(Config{})
	err = srv.ListenAndServe("127.0.0.1:0", func(net.Addr) {
		go srv.Shutdown(context.Background())
	})
	if !errors.Is(err, http.ErrServerClosed) {
		t.Fatalf("ListenAndServe(127.0.0.1) = %v", err)
	}
}

// heapInUse returns the live heap after a collection.
func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

func keep(v ...any) { runtime.KeepAlive(v) }

// TestReplyLimitSparesFixedReplies: a small reply limit refuses what a
// client sizes, never the fixed replies (a make that succeeded must say
// so).
func TestReplyLimitSparesFixedReplies(t *testing.T) {
	_, url := startServer(t, Config{MaxReplyBytes: 1 << 10})
	c := dial(t, url, nil)
	hello(t, c)
	sendJSON(t, c, map[string]any{"type": "list"})
	if m := recvJSON(t, c); m["type"] != MsgEnvs {
		t.Fatalf("list: %v", m)
	}
	l := makeEnv(t, c, "galaxy-fighters-v1", 2, nil) // a made reply of about 20 KB
	sendJSON(t, c, map[string]any{"type": "reset", "seeds": []uint64{1, 2}})
	recvBinary(t, c)
	sendJSON(t, c, map[string]any{"type": "observe", "index": 0, "player": 0})
	expectError(t, c, CodeLimitExceeded)                            // 4092 numbers
	sendJSON(t, c, map[string]any{"type": "get_state", "index": 1}) // about 1000 bytes: fits
	if m := recvJSON(t, c); m["type"] != MsgState {
		t.Fatalf("get_state: %v", m)
	}
	if l.N != 2 {
		t.Fatal(l)
	}
}

// TestHelloOnlyClientsCannotHoldEverySlot: With
// every slot held by connections that only said hello (and answer pings),
// a new user is refused at first, and gets in once the make timeout has
// closed them.
func TestHelloOnlyClientsCannotHoldEverySlot(t *testing.T) {
	srv, url := startServer(t, Config{MaxSessions: 4, MakeTimeout: time.Second, PingInterval: 50 * time.Millisecond})
	for range 4 {
		c := dial(t, url, nil)
		hello(t, c)
		go func() { // answer pings until closed
			for {
				if _, _, err := c.ReadMessage(); err != nil {
					return
				}
			}
		}()
	}
	waitFor(t, func() bool { return srv.Sessions() == 4 })
	late := dial(t, url, nil)
	expectError(t, late, CodeTooManySessions)
	waitFor(t, func() bool { return srv.Sessions() == 0 })
	c, _ := openSession(t, url, 1, "")
	sendJSON(t, c, map[string]any{"type": "info"})
	if m := recvJSON(t, c); m["type"] != MsgInfo {
		t.Fatalf("the new user's session: %v", m)
	}
}
