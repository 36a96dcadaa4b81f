package server

import (
	"context"
	"errors"
	"regexp"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/galaxygym/galaxygym/server/wsconn"
)

// watchKey asks c's session for its watch id and key.
func watchKey(t *testing.T, c *websocket.Conn) (string, string) {
	t.Helper()
	sendJSON(t, c, map[string]any{"type": MsgWatchKey})
	m := recvJSON(t, c)
	if m["type"] != MsgWatchKey || m["page"] != "/play/" {
		t.Fatalf("watch_key reply %v", m)
	}
	id, _ := m["session"].(string)
	key, _ := m["key"].(string)
	if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(id) || !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(key) {
		t.Fatalf("watch id %q, key %q: want 32 and 64 hex digits", id, key)
	}
	return id, key
}

// ansiFrame is environment i's text board, from a render request.
func ansiFrame(t *testing.T, c *websocket.Conn, i int) string {
	t.Helper()
	sendJSON(t, c, map[string]any{"type": "render", "indices": []int{i}})
	m := recvJSON(t, c)
	f, _ := m["frames"].([]any)
	if len(f) != 1 {
		t.Fatalf("render reply %v", m)
	}
	return f[0].(string)
}

func watchCode(err error) string {
	var we *WatchError
	if errors.As(err, &we) {
		return we.Code
	}
	return ""
}

func nextState(t *testing.T, w *Watcher) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := w.Next(ctx)
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	return st.String()
}

// stepFirst steps every environment of c's session with its first legal
// action n times, from the reply out; it returns the last reply.
func stepFirst(t *testing.T, c *websocket.Conn, l Layout, out []byte, n int) []byte {
	t.Helper()
	for range n {
		if err := c.WriteMessage(websocket.BinaryMessage, stepFrame(firstLegal(decodeReply(t, out, l))...)); err != nil {
			t.Fatal(err)
		}
		out = recvBinary(t, c)
	}
	return out
}

// TestWatchSeesPositions: a watcher with the session's key gets the
// current position, then the latest one after steps (the positions in
// between dropped), never sooner than WatchInterval after the previous.
func TestWatchSeesPositions(t *testing.T) {
	srv, url := startServer(t, Config{})
	c := dial(t, url, nil)
	hello(t, c)
	sendJSON(t, c, map[string]any{"type": MsgWatchKey})
	expectError(t, c, CodeNotMade)
	m := makeBatch(t, c, 2, "", nil)
	out := resetSeeds(t, c, 7, 8)
	id, key := watchKey(t, c)
	if id2, key2 := watchKey(t, c); id2 != id || key2 != key {
		t.Fatal("a second watch_key gave another id or key")
	}
	w, err := srv.Watch(id, key, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if w.Spec().ID != testEnv || w.Index() != 1 {
		t.Fatalf("watcher of %s env %d", w.Spec().ID, w.Index())
	}
	first := time.Now() // before the first Next: no later than the time it returns its position
	if got, want := nextState(t, w), ansiFrame(t, c, 1); got != want {
		t.Fatalf("first position:\n%s\nwant\n%s", got, want)
	}
	out = stepFirst(t, c, m.Layout, out, 30)
	want := ansiFrame(t, c, 1)
	if got := nextState(t, w); got != want {
		t.Fatalf("position after 30 steps:\n%s\nwant the latest\n%s", got, want)
	}
	if d := time.Since(first); d < WatchInterval {
		t.Fatalf("two positions %v apart, under WatchInterval %v", d, WatchInterval)
	}
	// Steps while the watcher waits: it gets a position once they happen.
	got := make(chan string, 1)
	go func() {
		st, err := w.Next(context.Background())
		if err != nil {
			got <- err.Error()
			return
		}
		got <- st.String()
	}()
	stepFirst(t, c, m.Layout, out, 3)
	want = ansiFrame(t, c, 1)
	for {
		select {
		case s := <-got:
			if s == want {
				return
			}
			// An intermediate position: the latest comes next.
			go func() {
				st, err := w.Next(context.Background())
				if err != nil {
					got <- err.Error()
					return
				}
				got <- st.String()
			}()
		case <-time.After(10 * time.Second):
			t.Fatal("no position after the steps")
		}
	}
}

// TestWatchRefused: an unknown session, a wrong key, an index out of
// range and a fifth watcher are refused with their codes; a closed
// watcher frees its place.
func TestWatchRefused(t *testing.T) {
	srv, url := startServer(t, Config{})
	c, _ := openSession(t, url, 2, "")
	resetSeeds(t, c, 1, 2)
	id, key := watchKey(t, c)
	other := []byte(key)
	other[0] ^= 1
	for _, tc := range []struct {
		id, key string
		index   int
		code    string
	}{
		{"00000000000000000000000000000000", key, 0, "watch_denied"},
		{id, string(other), 0, "watch_denied"},
		{id, "", 0, "watch_denied"},
		{id, key[:63], 0, "watch_denied"},
		{id, key, 2, "bad_request"},
		{id, key, -1, "bad_request"},
	} {
		if _, err := srv.Watch(tc.id, tc.key, tc.index); watchCode(err) != tc.code {
			t.Errorf("Watch(%q, %q, %d): %v, want code %s", tc.id, tc.key, tc.index, err, tc.code)
		}
	}
	var ws []*Watcher
	for range MaxWatchers {
		w, err := srv.Watch(id, key, 0)
		if err != nil {
			t.Fatal(err)
		}
		ws = append(ws, w)
	}
	if _, err := srv.Watch(id, key, 1); watchCode(err) != "limit_exceeded" {
		t.Fatalf("watcher %d: %v, want limit_exceeded", MaxWatchers+1, err)
	}
	ws[0].Close()
	ws[0].Close()
	select {
	case <-ws[0].Done():
	default:
		t.Fatal("a closed watcher is not done")
	}
	if _, err := srv.Watch(id, key, 1); err != nil {
		t.Fatalf("after a Close: %v", err)
	}
}

// TestWatchEndsWithSession: the session's end ends its watchers (Next
// answers watch_ended), and its id is forgotten.
func TestWatchEndsWithSession(t *testing.T) {
	srv, url := startServer(t, Config{})
	c, _ := openSession(t, url, 1, "")
	resetSeeds(t, c, 3)
	id, key := watchKey(t, c)
	w, err := srv.Watch(id, key, 0)
	if err != nil {
		t.Fatal(err)
	}
	nextState(t, w)
	errc := make(chan error, 1)
	go func() { // positions until the end (the close message is one more message)
		for {
			if _, err := w.Next(context.Background()); err != nil {
				errc <- err
				return
			}
		}
	}()
	sendJSON(t, c, map[string]any{"type": "close"})
	select {
	case err := <-errc:
		if watchCode(err) != "watch_ended" {
			t.Fatalf("Next after the session's end: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Next still waits after the session ended")
	}
	<-w.Done()
	if _, err := srv.Watch(id, key, 0); watchCode(err) != "watch_denied" {
		t.Fatalf("Watch of an ended session: %v", err)
	}
}

// TestWatchNewMakeEndsWatchers: a second make ends the watchers of the
// first batch.
func TestWatchNewMakeEndsWatchers(t *testing.T) {
	srv, url := startServer(t, Config{})
	c, _ := openSession(t, url, 1, "")
	id, key := watchKey(t, c)
	w, err := srv.Watch(id, key, 0)
	if err != nil {
		t.Fatal(err)
	}
	makeBatch(t, c, 1, "", nil)
	select {
	case <-w.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the watcher of the old batch goes on")
	}
}

// TestWatchStepPathAllocs: what the session does after each message for
// its watchers allocates nothing, with no watcher and with one that does
// not want a position yet.
func TestWatchStepPathAllocs(t *testing.T) {
	srv, url := startServer(t, Config{})
	c, _ := openSession(t, url, 4, "")
	resetSeeds(t, c, 1, 2, 3, 4)
	id, key := watchKey(t, c)
	srv.mu.Lock()
	ss := srv.watchable[id]
	srv.mu.Unlock()
	after := func() {
		ss.mu.Lock()
		if ss.watching.Load() {
			ss.publishWatchLocked(true)
		}
		ss.mu.Unlock()
	}
	if n := testing.AllocsPerRun(1000, after); n != 0 {
		t.Fatalf("%v allocations per message with nobody watching", n)
	}
	w, err := srv.Watch(id, key, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if n := testing.AllocsPerRun(1000, after); n != 0 {
		t.Fatalf("%v allocations per message with a watcher waiting", n)
	}
}

// TestWatchersAtOnce: MaxWatchers watchers asking at the same moment of
// an idle session all get the position (one's publish serves the others
// that wait, and none is left waiting for a message that never comes).
func TestWatchersAtOnce(t *testing.T) {
	srv, url := startServer(t, Config{})
	c, m := openSession(t, url, 1, "")
	out := resetSeeds(t, c, 9)
	id, key := watchKey(t, c)
	var ws []*Watcher
	for range MaxWatchers {
		w, err := srv.Watch(id, key, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		ws = append(ws, w)
	}
	for round := range 3 {
		want := ansiFrame(t, c, 0)
		got := make(chan string, len(ws))
		for _, w := range ws {
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				st, err := w.Next(ctx)
				if err != nil {
					got <- err.Error()
					return
				}
				got <- st.String()
			}()
		}
		for range ws {
			if s := <-got; s != want {
				t.Fatalf("round %d: a watcher got\n%s\nwant\n%s", round, s, want)
			}
		}
		out = stepFirst(t, c, m.Layout, out, 1)
	}
}

// BenchmarkStepWatched is BenchmarkStepRoundTrip at N=64 with nobody
// watching and with a watcher taking every position it may (one clone
// every WatchInterval): the step path's cost of being watched.
func BenchmarkStepWatched(b *testing.B) {
	for _, watched := range []bool{false, true} {
		name := "nobody"
		if watched {
			name = "watched"
		}
		b.Run(name, func(b *testing.B) {
			const n = 64
			srv, url := startServer(b, Config{})
			c, m := openSession(b, url, n, "")
			seeds := make([]uint64, n)
			for i := range seeds {
				seeds[i] = uint64(i)
			}
			out := resetSeeds(b, c, seeds...)
			if watched {
				sendJSON(b, c, map[string]any{"type": MsgWatchKey})
				k := recvJSON(b, c)
				w, err := srv.Watch(k["session"].(string), k["key"].(string), 0)
				if err != nil {
					b.Fatal(err)
				}
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				go func() {
					defer w.Close()
					for {
						if _, err := w.Next(ctx); err != nil {
							return
						}
					}
				}()
			}
			l := m.Layout
			actions := make([]int32, n)
			req := make([]byte, 0, StepRequestSize(n))
			_ = c.SetReadDeadline(time.Time{})
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				pickFirstLegal(out, &l, actions)
				req = AppendStepRequest(req[:0], 0, actions)
				if err := c.WriteMessage(websocket.BinaryMessage, req); err != nil {
					b.Fatal(err)
				}
				_, r, err := c.NextReader()
				if err != nil {
					b.Fatal(err)
				}
				if out, err = wsconn.ReadAll(r, out); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "env-steps/s")
		})
	}
}
