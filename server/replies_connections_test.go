package server

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// Tests of the server's replies and connections: error replies are valid
// JSON, request ids are echoed, a dropped client frees its slot, shutdown
// cancels long work, tokens, keep-alive and per-address limits.

const pilotsEnv = "pilots-of-gallaxia-v1"

// TestErrorRepliesAreValidJSON: a
// Pilots state whose position holds a NUL and raw bytes is refused with a
// bad_state reply that is valid JSON. strconv.AppendQuote wrote \x00.
func TestErrorRepliesAreValidJSON(t *testing.T) {
	_, url := startServer(t, Config{})
	c := dial(t, url, nil)
	hello(t, c)
	makeEnv(t, c, pilotsEnv, 1, nil)
	for _, pos := range []string{"players=\x00", "players=\xff\xfe", "a\u2028b=\x01\x7f", `"quoted"=\`} {
		sendJSON(t, c, map[string]any{"type": "reset", "id": 77, "options": map[string]any{"state": map[string]any{"position": pos}}})
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, data, err := c.ReadMessage()
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(data) {
			t.Fatalf("position %q: error reply is not JSON: %s", pos, data)
		}
		var m map[string]any
		json.Unmarshal(data, &m)
		if m["code"] != string(CodeBadState) || m["id"] != float64(77) {
			t.Fatalf("position %q: reply %s, want bad_state with id 77", pos, data)
		}
	}
}

// FuzzErrorJSON: every error reply is valid JSON, whatever its message.
func FuzzErrorJSON(f *testing.F) {
	f.Add("players=\x00", 3, uint32(9))
	f.Add("\xff\xfe\"\\\u2028</script>", -1, uint32(0))
	f.Fuzz(func(t *testing.T, msg string, index int, id uint32) {
		for _, code := range []Code{CodeBadState, CodeIllegalAction, Code(msg)} {
			e := errorf(code, "%s", msg)
			e.Index, e.Action = index, index
			for _, pid := range []*uint32{nil, &id} {
				b := errorJSON(e, pid)
				if !json.Valid(b) {
					t.Fatalf("not JSON: %q", b)
				}
				var r errorReply
				if err := json.Unmarshal(b, &r); err != nil || r.Type != MsgError || (pid != nil && (r.ID == nil || *r.ID != id)) {
					t.Fatalf("reply %s decodes to %+v (%v)", b, r, err)
				}
			}
		}
	})
}

// fuzzConn is one session shared by FuzzReplies' executions.
var fuzzConn struct {
	c   *websocket.Conn
	url string
}

// FuzzReplies sends arbitrary text frames to a live session (after hello
// and make): every text reply the server sends is valid JSON, and the
// session stays usable (a list request still answers).
func FuzzReplies(f *testing.F) {
	f.Add(`{"type":"reset","options":{"state":{"position":"players=\u0000"}}}`)
	f.Add(`{"type":"reset","id":5,"options":{"states":[{"position":"\u0001"},null]}}`)
	f.Add(`{"type":"get_state","index":1,"id":4294967295}`)
	f.Add(`{"type":"render","indices":[0,0]}`)
	f.Add(`{"type":"nope\u0000","id":1}`)
	f.Add("\xff\xfe{")
	f.Add(`{"type":"observe","index":0,"player":9}`)
	srv, err := New(Config{})
	if err != nil {
		f.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		f.Fatal(err)
	}
	go srv.Serve(l)
	f.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	})
	url := "http://" + l.Addr().String()
	connect := func(t *testing.T) *websocket.Conn {
		c, _, err := websocket.DefaultDialer.Dial(wsURL(url, "/"), nil)
		if err != nil {
			t.Fatal(err)
		}
		hello(t, c)
		makeEnv(t, c, pilotsEnv, 2, nil)
		resetSeeds(t, c, 1, 2)
		return c
	}
	f.Fuzz(func(t *testing.T, msg string) {
		if fuzzConn.c == nil || fuzzConn.url != url {
			fuzzConn.c, fuzzConn.url = connect(t), url
		}
		c := fuzzConn.c
		c.SetWriteDeadline(time.Now().Add(5 * time.Second))
		if err := c.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
			t.Fatal(err)
		}
		if err := c.WriteMessage(websocket.TextMessage, []byte(`{"type":"list","id":424242}`)); err != nil {
			t.Fatal(err)
		}
		for {
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			mt, data, err := c.ReadMessage()
			if err != nil {
				var ce *websocket.CloseError
				if errors.As(err, &ce) {
					// A close message, a hello of another version, a binary
					// frame that is not a step request: the server closed
					// the session, as documented; reconnect next time.
					fuzzConn.c = nil
					return
				}
				t.Fatalf("after %q: %v", msg, err)
			}
			if mt == websocket.TextMessage {
				if !json.Valid(data) {
					t.Fatalf("after %q: reply is not JSON: %q", msg, data)
				}
				var m map[string]any
				json.Unmarshal(data, &m)
				if m["type"] == MsgEnvs && m["id"] == float64(424242) {
					return
				}
			}
		}
	})
}

// TestRequestIDsEchoed: protocol version 3 echoes a control message's id
// in its reply (error replies included) and a step request's id in its
// reply's trailer.
func TestRequestIDsEchoed(t *testing.T) {
	_, url := startServer(t, Config{})
	c := dial(t, url, nil)
	sendJSON(t, c, map[string]any{"type": "hello", "version": Version, "id": 1})
	if m := recvJSON(t, c); m["id"] != float64(1) {
		t.Fatalf("hello reply %v has no id 1", m)
	}
	sendJSON(t, c, map[string]any{"type": "make", "env": testEnv, "num_envs": 2, "id": 2})
	var mk made
	{
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, data, err := c.ReadMessage()
		if err != nil {
			t.Fatal(err)
		}
		json.Unmarshal(data, &mk)
		var m map[string]any
		json.Unmarshal(data, &m)
		if m["id"] != float64(2) {
			t.Fatalf("made reply has id %v", m["id"])
		}
	}
	sendJSON(t, c, map[string]any{"type": "reset", "seeds": []uint64{1, 2}, "id": 0xfffffffe})
	b := recvBinary(t, c)
	if id := binary.LittleEndian.Uint32(b[len(b)-4:]); id != 0xfffffffe {
		t.Fatalf("reset reply trailer %#x", id)
	}
	r := decodeReply(t, b, mk.Layout)
	c.WriteMessage(websocket.BinaryMessage, AppendStepRequest(nil, 31337, firstLegal(r)))
	b = recvBinary(t, c)
	if id := binary.LittleEndian.Uint32(b[len(b)-4:]); id != 31337 {
		t.Fatalf("step reply trailer %d", id)
	}
	c.WriteMessage(websocket.BinaryMessage, AppendStepRequest(nil, 99, []int32{-5, -5}))
	if e := expectError(t, c, CodeIllegalAction); e["id"] != float64(99) {
		t.Fatalf("step error %v does not echo id 99", e)
	}
	sendJSON(t, c, map[string]any{"type": "info", "indices": []int{0}, "id": 7})
	if m := recvJSON(t, c); m["id"] != float64(7) || m["type"] != MsgInfo {
		t.Fatalf("info reply %v", m)
	}
	sendJSON(t, c, map[string]any{"type": "frobnicate", "id": 8})
	if e := expectError(t, c, CodeUnknownMessage); e["id"] != float64(8) {
		t.Fatalf("unknown-type error %v does not echo id 8", e)
	}
	// A version 2 client is refused with a message that says what to do.
	c2 := dial(t, url, nil)
	sendJSON(t, c2, map[string]any{"type": "hello", "version": 2})
	if e := expectError(t, c2, CodeVersionMismatch); !strings.Contains(e["message"].(string), "request ids") {
		t.Fatalf("version 2 refusal %v", e)
	}
}

// TestResetParsesStateOnce: options.state is parsed once for
// the whole batch, not once per environment, for a snapshot and for a
// bare game state alike; the loaded environments are all in the state.
func TestResetParsesStateOnce(t *testing.T) {
	_, url := startServer(t, Config{})
	c := dial(t, url, nil)
	hello(t, c)
	const n = 64
	lay := makeEnv(t, c, pilotsEnv, n, nil)
	seeds := make([]uint64, n)
	for i := range seeds {
		seeds[i] = uint64(i)
	}
	resetSeeds(t, c, seeds...)
	sendJSON(t, c, map[string]any{"type": "get_state", "index": 3})
	snap := recvJSON(t, c)["state"].(map[string]any)
	for _, state := range []any{snap, snap["state"]} {
		before := stateParses.Load()
		sendJSON(t, c, map[string]any{"type": "reset", "options": map[string]any{"state": state}})
		decodeReply(t, recvBinary(t, c), lay)
		if got := stateParses.Load() - before; got != 1 {
			t.Fatalf("a reset of %d environments from one state parsed it %d times, want 1", n, got)
		}
		sendJSON(t, c, map[string]any{"type": "render", "indices": []int{0, n - 1}})
		fr := recvJSON(t, c)["frames"].([]any)
		if fr[0] != fr[1] {
			t.Fatal("environments loaded from one state differ")
		}
	}
}

// TestDroppedClientStopsWorkAndFreesSlot: the slot of a
// dropped connection. While a long reset runs, the client drops; the
// reset is cancelled and stops instead of loading every environment, and
// the slot is held until it has stopped (work of a client that
// left counts against MaxSessions), then freed for a new client.
func TestDroppedClientStopsWorkAndFreesSlot(t *testing.T) {
	srv, url := startServer(t, Config{MaxSessions: 1})
	c := dial(t, url, nil)
	hello(t, c)
	const n = 256
	makeEnv(t, c, testEnv, n, nil)
	seeds := make([]uint64, n)
	resetSeeds(t, c, seeds...)
	sendJSON(t, c, map[string]any{"type": "get_state", "index": 0})
	snap := recvJSON(t, c)["state"]
	var calls atomic.Int64
	held := make(chan bool, 1)
	resetLoadHook = func(ctx context.Context, i int) {
		if calls.Add(1) != 1 {
			return
		}
		c.NetConn().Close() // the client drops mid-request
		select {            // the work is cancelled
		case <-ctx.Done():
		case <-time.After(10 * time.Second):
		}
		time.Sleep(50 * time.Millisecond) // the work goes on a little after the cancel
		held <- srv.Sessions() == 1
	}
	defer func() { resetLoadHook = nil }()
	sendJSON(t, c, map[string]any{"type": "reset", "options": map[string]any{"state": snap}})
	if !<-held {
		t.Fatal("the slot of a connection that dropped during a request was freed before its work stopped")
	}
	// The first session's handler ends: the reset stopped at its next
	// environment instead of loading all of them, and the slot is free.
	deadline := time.Now().Add(10 * time.Second)
	for (srv.wgCount() > 0 || srv.Sessions() > 0) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if got := calls.Load(); got > 1 {
		t.Fatalf("the reset of a client that left went on: %d of %d environments loaded", got, n)
	}
	// A new client gets the only slot.
	c2 := dial(t, url, nil)
	hello(t, c2)
}

// TestShutdownCancelsLongReset: Shutdown does not wait for a
// long request: the reset is cancelled and the session closed with 1001.
func TestShutdownCancelsLongReset(t *testing.T) {
	srv, url := startServer(t, Config{})
	c := dial(t, url, nil)
	hello(t, c)
	makeEnv(t, c, testEnv, 4, nil)
	resetSeeds(t, c, 1, 2, 3, 4)
	sendJSON(t, c, map[string]any{"type": "get_state", "index": 0})
	snap := recvJSON(t, c)["state"]
	inside := make(chan struct{})
	var once atomic.Bool
	resetLoadHook = func(ctx context.Context, i int) {
		if once.Swap(true) {
			return
		}
		close(inside)
		select { // a load that takes "minutes" unless cancelled
		case <-ctx.Done():
		case <-time.After(60 * time.Second):
		}
	}
	defer func() { resetLoadHook = nil }()
	sendJSON(t, c, map[string]any{"type": "reset", "options": map[string]any{"state": snap}})
	<-inside
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown waited for the reset in flight: %v", err)
	}
	e := expectError(t, c, CodeCancelled)
	if !strings.Contains(e["message"].(string), "no environment was reset") {
		t.Fatalf("cancelled reply %v", e)
	}
	expectClose(t, c, websocket.CloseGoingAway)
}

// TestTokenRules: blank, whitespace, control-character and
// short tokens are refused with a reason; an empty query token never
// authenticates.
func TestTokenRules(t *testing.T) {
	for _, tc := range []struct{ tok, why string }{
		{" ", "blank"}, {"\t \n", "blank"}, {"                    ", "blank"},
		{"short", "at least 16"}, {"exactly15bytes!", "at least 16"},
		{" padded-token-0123456789 ", "0x20"}, {"tok\x00en-0123456789", "0x00"}, {"tøken-0123456789", "0xc3"},
	} {
		_, err := New(Config{Token: tc.tok})
		var ce *ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.why) {
			t.Errorf("token %q: got %v, want a ConfigError saying %q", tc.tok, err, tc.why)
		}
	}
	if _, err := New(Config{Token: "0123456789abcdef"}); err != nil {
		t.Fatalf("a 16-byte token: %v", err)
	}
	srv, err := New(Config{Token: "0123456789abcdef"})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"", "token=", "token=%20"} {
		r, _ := http.NewRequest("GET", "http://127.0.0.1/?"+q, nil)
		if srv.authorized(r) {
			t.Errorf("query %q authenticates", q)
		}
	}
}

// serveLoopback runs srv.Serve on a loopback listener until the test ends
// and returns its address.
func serveLoopback(t *testing.T, srv *Server) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(l)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	})
	return l.Addr().String()
}

// TestIdleKeepAliveClosed: a keep-alive connection that made one
// /healthz request is closed by the server after KeepAliveTimeout.
func TestIdleKeepAliveClosed(t *testing.T) {
	srv, err := New(Config{Token: "0123456789abcdef", KeepAliveTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	addr := serveLoopback(t, srv)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := br.ReadByte(); err != io.EOF {
		t.Fatalf("an idle keep-alive connection was not closed by the server: %v", err)
	}
}

// TestConnectionsPerAddress: one address holds at most
// MaxConnsPerAddr connections; one more is closed at once, and closing
// one gives its place back.
func TestConnectionsPerAddress(t *testing.T) {
	srv, err := New(Config{LimitLoopback: true, MaxSessionsPerAddr: 2, MaxConnsPerAddr: 3})
	if err != nil {
		t.Fatal(err)
	}
	addr := serveLoopback(t, srv)
	healthy := func(conn net.Conn) error {
		conn.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := fmt.Fprintf(conn, "GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n", addr); err != nil {
			return err
		}
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	}
	var conns []net.Conn
	for i := 0; i < 3; i++ {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if err := healthy(conn); err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		conns = append(conns, conn)
	}
	extra, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	if err := healthy(extra); err == nil {
		t.Fatal("a fourth connection from one address was served")
	}
	extra.Close()
	conns[0].Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		err = healthy(conn)
		conn.Close()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a closed connection's place was not given back")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestPoolStopThenSubmit: a submit after stop runs on the caller (no
// send on a closed channel, no recover).
func TestPoolStopThenSubmit(t *testing.T) {
	p := newPool(2)
	p.stop()
	p.stop()
	for i := 0; i < 100; i++ {
		if p.submit(&chunk{}) {
			t.Fatal("a stopped pool took a chunk")
		}
	}
}
