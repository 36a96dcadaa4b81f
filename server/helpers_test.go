package server

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	_ "github.com/galaxygym/galaxygym/env/all"
)

const testEnv = "galaxy-express-v1"

// startServer runs a server with cfg behind httptest; it is shut down when
// the test ends.
func startServer(tb testing.TB, cfg Config) (*Server, string) {
	tb.Helper()
	srv, err := New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		ts.Close()
	})
	return srv, ts.URL
}

func wsURL(httpURL, path string) string {
	return "ws" + strings.TrimPrefix(httpURL, "http") + path
}

func dial(tb testing.TB, url string, h http.Header) *websocket.Conn {
	tb.Helper()
	c, resp, err := websocket.DefaultDialer.Dial(wsURL(url, "/"), h)
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		tb.Fatalf("dial: %v (status %d)", err, status)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}

func sendJSON(tb testing.TB, c *websocket.Conn, v any) {
	tb.Helper()
	if err := c.WriteJSON(v); err != nil {
		tb.Fatal(err)
	}
}

func sendRaw(tb testing.TB, c *websocket.Conn, s string) {
	tb.Helper()
	if err := c.WriteMessage(websocket.TextMessage, []byte(s)); err != nil {
		tb.Fatal(err)
	}
}

// recvJSON reads a text frame into a map.
func recvJSON(tb testing.TB, c *websocket.Conn) map[string]any {
	tb.Helper()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	mt, data, err := c.ReadMessage()
	if err != nil {
		tb.Fatalf("read: %v", err)
	}
	if mt != websocket.TextMessage {
		tb.Fatalf("got a binary frame of %d bytes, want text", len(data))
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		tb.Fatalf("reply %q: %v", data, err)
	}
	return m
}

// recvBinary reads a binary frame; a text frame fails the test.
func recvBinary(tb testing.TB, c *websocket.Conn) []byte {
	tb.Helper()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	mt, data, err := c.ReadMessage()
	if err != nil {
		tb.Fatalf("read: %v", err)
	}
	if mt != websocket.BinaryMessage {
		tb.Fatalf("got text %s, want a binary frame", data)
	}
	return data
}

// expectError reads an error reply with code.
func expectError(tb testing.TB, c *websocket.Conn, code Code) map[string]any {
	tb.Helper()
	m := recvJSON(tb, c)
	if m["type"] != MsgError || m["code"] != string(code) {
		tb.Fatalf("got %v, want an error with code %s", m, code)
	}
	if msg, _ := m["message"].(string); !strings.HasPrefix(msg, "server: ") {
		tb.Fatalf("error message %q lacks the server: prefix", msg)
	}
	return m
}

// expectClose reads until the connection closes and checks the close code.
func expectClose(tb testing.TB, c *websocket.Conn, code int) {
	tb.Helper()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		_, _, err := c.ReadMessage()
		if err == nil {
			continue
		}
		if !websocket.IsCloseError(err, code) {
			tb.Fatalf("got %v, want close code %d", err, code)
		}
		return
	}
}

func hello(tb testing.TB, c *websocket.Conn) {
	tb.Helper()
	sendJSON(tb, c, map[string]any{"type": "hello", "version": Version})
	if m := recvJSON(tb, c); m["type"] != MsgHello {
		tb.Fatalf("hello reply %v", m)
	}
}

type made struct {
	Type          string         `json:"type"`
	NumEnvs       int            `json:"num_envs"`
	AutoresetMode string         `json:"autoreset_mode"`
	Layout        Layout         `json:"layout"`
	Spec          map[string]any `json:"spec"`
	StepBytes     int            `json:"step_request_bytes"`
}

func makeBatch(tb testing.TB, c *websocket.Conn, n int, mode string, params map[string]any) made {
	tb.Helper()
	msg := map[string]any{"type": "make", "env": testEnv, "num_envs": n}
	if mode != "" {
		msg["autoreset_mode"] = mode
	}
	if params != nil {
		msg["params"] = params
	}
	sendJSON(tb, c, msg)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, data, err := c.ReadMessage()
	if err != nil {
		tb.Fatal(err)
	}
	var m made
	if err := json.Unmarshal(data, &m); err != nil || m.Type != MsgMade {
		tb.Fatalf("make reply %s (%v)", data, err)
	}
	if m.Layout != NewLayout(n, 503, 56, 1) {
		tb.Fatalf("made layout %+v", m.Layout)
	}
	return m
}

// session dials, says hello and makes a batch.
func openSession(tb testing.TB, url string, n int, mode string) (*websocket.Conn, made) {
	c := dial(tb, url, nil)
	hello(tb, c)
	return c, makeBatch(tb, c, n, mode, nil)
}

func resetSeeds(tb testing.TB, c *websocket.Conn, seeds ...uint64) []byte {
	tb.Helper()
	sendJSON(tb, c, map[string]any{"type": "reset", "seeds": seeds})
	return recvBinary(tb, c)
}

func stepFrame(actions ...int32) []byte { return AppendStepRequest(nil, 0, actions) }

// reply is a decoded step or reset reply (copies, for tests).
type reply struct {
	kind                 byte
	k                    int
	rewards              []float32
	player, steps        []int32
	score                []float32
	term, trunc, outcome []uint8
	obs, mask            [][]byte
	finIndex, finSteps   []int32
	finScore             []float32
	finOutcome           []uint8
	finObs               [][]byte
	// per player, [env*P+player]
	scores, finScores     []float32
	ranks, finRanks       []int32
	outcomes, finOutcomes []uint8
}

func decodeReply(tb testing.TB, b []byte, l Layout) reply {
	tb.Helper()
	le := binary.LittleEndian
	if len(b) < ReplyHeaderSize || string(b[:2]) != Magic || b[2] != Version {
		tb.Fatalf("bad reply header % x", b[:min(len(b), 24)])
	}
	if int(le.Uint32(b[4:])) != l.N || int(le.Uint32(b[8:])) != l.O || int(le.Uint32(b[12:])) != l.A || int(le.Uint32(b[16:])) != l.P {
		tb.Fatalf("reply header % x does not match layout %+v", b[:24], l)
	}
	r := reply{kind: b[3], k: int(le.Uint32(b[20:]))}
	fl := l.Final(r.k)
	if len(b) != fl.Size+RequestIDSize {
		tb.Fatalf("reply of %d bytes, want %d (with the request id)", len(b), fl.Size+RequestIDSize)
	}
	b = b[:fl.Size]
	f32 := func(off, n int) []float32 {
		out := make([]float32, n)
		for i := range out {
			out[i] = math.Float32frombits(le.Uint32(b[off+4*i:]))
		}
		return out
	}
	i32 := func(off, n int) []int32 {
		out := make([]int32, n)
		for i := range out {
			out[i] = int32(le.Uint32(b[off+4*i:]))
		}
		return out
	}
	rows := func(off, n, w int) [][]byte {
		out := make([][]byte, n)
		for i := range out {
			out[i] = append([]byte(nil), b[off+w*i:off+w*(i+1)]...)
		}
		return out
	}
	r.rewards = f32(l.Rewards, l.N*l.P)
	r.player = i32(l.CurrentPlayer, l.N)
	r.score = f32(l.Score, l.N)
	r.steps = i32(l.Steps, l.N)
	r.term = append([]uint8(nil), b[l.Terminated:l.Terminated+l.N]...)
	r.trunc = append([]uint8(nil), b[l.Truncated:l.Truncated+l.N]...)
	r.outcome = append([]uint8(nil), b[l.Outcome:l.Outcome+l.N]...)
	r.obs = rows(l.Obs, l.N, l.O)
	r.mask = rows(l.Mask, l.N, l.A)
	r.scores = f32(l.Scores, l.N*l.P)
	r.ranks = i32(l.Ranks, l.N*l.P)
	r.outcomes = append([]uint8(nil), b[l.Outcomes:l.Outcomes+l.N*l.P]...)
	r.finIndex = i32(fl.Index, r.k)
	r.finScore = f32(fl.Score, r.k)
	r.finSteps = i32(fl.Steps, r.k)
	r.finOutcome = append([]uint8(nil), b[fl.Outcome:fl.Outcome+r.k]...)
	r.finScores = f32(fl.Scores, r.k*l.P)
	r.finRanks = i32(fl.Ranks, r.k*l.P)
	r.finOutcomes = append([]uint8(nil), b[fl.Outcomes:fl.Outcomes+r.k*l.P]...)
	r.finObs = rows(fl.Obs, r.k, l.O)
	return r
}

// firstLegal returns the first legal action of each mask.
func firstLegal(r reply) []int32 {
	out := make([]int32, len(r.mask))
	for i, m := range r.mask {
		out[i] = 0
		for a, v := range m {
			if v == 1 {
				out[i] = int32(a)
				break
			}
		}
	}
	return out
}

// pickLegal picks a legal action of each mask from a simple generator.
func pickLegal(r reply, x *uint64) []int32 {
	out := make([]int32, len(r.mask))
	for i, m := range r.mask {
		n := 0
		for _, v := range m {
			n += int(v)
		}
		if n == 0 {
			continue
		}
		*x = *x*6364136223846793005 + 1442695040888963407
		k := int((*x >> 33) % uint64(n))
		for a, v := range m {
			if v == 1 {
				if k == 0 {
					out[i] = int32(a)
					break
				}
				k--
			}
		}
	}
	return out
}
