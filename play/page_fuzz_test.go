package play_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	_ "github.com/galaxygym/galaxygym/agents/all"
	"github.com/galaxygym/galaxygym/datasets"
	"github.com/galaxygym/galaxygym/play"
	"github.com/galaxygym/galaxygym/server"
)

// FuzzPageMessage sends arbitrary bytes as one page message to /play/ws,
// through the public surface only: a websocket to an httptest.Server
// serving play.Mount(server.Handler(), page), as `galaxygym serve` mounts
// them. Each input gets a fresh server and page (so that a failing input
// replays alone) and a connection that has opened a game first: a
// one-seat Galaxy Express table with a heuristic hint, seated by this
// connection. In the input, the word TABLE stands for that table's id and
// DATASET for the name of a small dataset the page serves, so that join,
// watch, act, control, hint, episodes and replay reach past the lookups.
//
// Properties: the server never panics (a handler's panic, which net/http
// would recover and log, fails the input too) and never hangs (a hello
// sent after the input is answered within fuzzDeadline); every message the
// server sends is a JSON object with a string "op"; a connection the
// server closes gets a close frame (never an abrupt end); and a fresh
// connection is served afterwards.
//
//	go test ./play -run '^$' -fuzz FuzzPageMessage -fuzztime 1m
//
// (tools/fuzz/fuzz.sh and `make fuzz` run it with the others.)
func FuzzPageMessage(f *testing.F) {
	dir := f.TempDir()
	cfg := datasets.Config{Env: "galaxy-express-v1", Agent: "heuristic", Episodes: 2, Seed: 5, Workers: 1, Out: filepath.Join(dir, "ge")}
	if _, err := datasets.Generate(context.Background(), cfg); err != nil {
		f.Fatal(err)
	}
	dataset := filepath.Base(dir) + "/ge"
	for _, seed := range []string{
		`{"op":"hello"}`,
		`{"op":"hello","req":"r1"}`,
		`{"op":"new","req":"n","lineup":{"env":"express-v2","params":{"players":2},"seats":["human","random"],"seed":3,"delay_ms":0,"hint":"heuristic"}}`,
		`{"op":"new","lineup":{"env":"galaxy-fighters-v2","params":{"players":2},"seats":["heuristic","random"],"seed":1,"delay_ms":250,"paused":true}}`,
		`{"op":"new","lineup":{"env":"pilots-of-gallaxia-v2","seats":["human","mcts","random","human"],"agent_opts":{"mcts":{"sims":"8"}},"seed":9},"take":[3]}`,
		`{"op":"new","lineup":{"env":"galaxy-express-v1","seats":["policy"],"agent_opts":{"policy":{"weights":"../x.npz"}}}}`,
		`{"op":"join","req":"j","table":"TABLE","seat":0}`,
		`{"op":"watch","table":"TABLE","view":-1}`,
		`{"op":"watch","table":"TABLE","view":0}`,
		`{"op":"act","req":"a","table":"TABLE","seat":0,"action":3}`,
		`{"op":"act","table":"TABLE","seat":0,"action":-1}`,
		`{"op":"control","table":"TABLE","delay_ms":100,"paused":false,"advance":2}`,
		`{"op":"hint","req":"h","table":"TABLE","seat":0}`,
		`{"op":"rematch","req":"m","table":"TABLE"}`,
		`{"op":"rematch","table":["TABLE"],"seat":-1}`,
		`{"op":"episodes","dataset":"DATASET"}`,
		`{"op":"replay","dataset":"DATASET","episode":1,"step":4,"view":0}`,
		`{"op":"replay","dataset":"DATASET","episode":0,"step":-7,"view":-1}`,
		`{"op":"replay","dataset":"../../etc","episode":0}`,
		`{"op":"history","req":"y","table":"TABLE","step":3}`,
		`{"op":"history","dataset":"DATASET","episode":1}`,
		`{"op":"new","lineup":{"seats":["random"]},"from":{"table":"TABLE","step":2}}`,
		`{"op":"new","lineup":{"seats":["human"]},"from":{"dataset":"DATASET","episode":0,"step":-3}}`,
		`{"op":"nope"}`,
		`{"op":7}`,
		`[1,2,3]`,
		`null`,
		`{"op":"act","table":"TABLE","seat":0,"action":1e400}`,
		"\xff\xfe{\"op\":\"hello\"}",
		``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		p := startPage(t, dir)
		c := p.dial(t)
		table := c.openTable(t)
		msg = bytes.ReplaceAll(msg, []byte("TABLE"), []byte(table))
		msg = bytes.ReplaceAll(msg, []byte("DATASET"), []byte(dataset))
		if err := c.ws.WriteMessage(websocket.TextMessage, msg); err != nil {
			t.Fatalf("writing the message: %v", err)
		}
		c.sentinel(t)
		// The server still serves a new connection.
		p.dial(t).sentinel(t)
		p.checkLog(t)
	})
}

// fuzzDeadline bounds the wait for the hello sent after an input: far
// above what any request takes on a loaded machine, far below a hang.
const fuzzDeadline = 30 * time.Second

// fuzzPage is one server and page behind an httptest.Server.
type fuzzPage struct {
	url string
	log *lockedBuffer
}

func startPage(t *testing.T, datasetDir string) *fuzzPage {
	srv, err := server.New(server.Config{})
	if err != nil {
		t.Fatal(err)
	}
	page, err := play.New(play.Config{Datasets: []string{datasetDir}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(play.Mount(srv.Handler(), page))
	buf := &lockedBuffer{}
	hs.Config.ErrorLog = log.New(buf, "", 0)
	hs.Start()
	t.Cleanup(func() {
		page.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		hs.Close()
	})
	return &fuzzPage{url: "ws" + strings.TrimPrefix(hs.URL, "http") + "/play/ws", log: buf}
}

// checkLog fails on a panic that net/http recovered in a handler.
func (p *fuzzPage) checkLog(t *testing.T) {
	if s := p.log.String(); strings.Contains(s, "panic") {
		t.Fatalf("the server panicked:\n%s", s)
	}
}

type fuzzConn struct{ ws *websocket.Conn }

func (p *fuzzPage) dial(t *testing.T) *fuzzConn {
	ws, _, err := websocket.DefaultDialer.Dial(p.url, nil)
	if err != nil {
		p.checkLog(t)
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { ws.Close() })
	return &fuzzConn{ws}
}

// read returns the next message, checked to be a JSON object with a
// string "op".
func (c *fuzzConn) read(t *testing.T) (map[string]any, error) {
	_ = c.ws.SetReadDeadline(time.Now().Add(fuzzDeadline))
	typ, data, err := c.ws.ReadMessage()
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if typ != websocket.TextMessage {
		t.Fatalf("a binary message from the page: %q", data)
	}
	if err := json.Unmarshal(data, &m); err != nil || m == nil {
		t.Fatalf("a message that is not a JSON object: %q (%v)", data, err)
	}
	if _, ok := m["op"].(string); !ok {
		t.Fatalf("a message without a string op: %s", data)
	}
	return m, nil
}

// openTable opens a one-seat Galaxy Express game seated by c and returns
// its id.
func (c *fuzzConn) openTable(t *testing.T) string {
	lineup := map[string]any{"env": "galaxy-express-v1", "seats": []string{"human"}, "seed": 1, "hint": "heuristic"}
	if err := c.ws.WriteJSON(map[string]any{"op": "new", "lineup": lineup}); err != nil {
		t.Fatal(err)
	}
	for {
		m, err := c.read(t)
		if err != nil {
			t.Fatalf("opening a game: %v", err)
		}
		if m["op"] == "error" {
			t.Fatalf("opening a game: %v", m)
		}
		if st, _ := m["status"].(map[string]any); m["op"] == "table" && st != nil {
			if id, _ := st["table"].(string); id != "" {
				return id
			}
		}
	}
}

// sentinel sends a hello and reads until its answer, each message
// checked; a connection the server closed must have been closed with a
// close frame.
func (c *fuzzConn) sentinel(t *testing.T) {
	const req = "fuzz-sentinel"
	if err := c.ws.WriteJSON(map[string]any{"op": "hello", "req": req}); err != nil {
		c.closed(t, err)
		return
	}
	for {
		m, err := c.read(t)
		if err != nil {
			c.closed(t, err)
			return
		}
		if m["op"] == "hello" && m["req"] == req {
			return
		}
	}
}

// closed accepts a connection the server closed with a close frame
// (message too big, too many queued messages) and fails on anything else:
// an abrupt end, or no answer within fuzzDeadline (a hang).
func (c *fuzzConn) closed(t *testing.T, err error) {
	var ce *websocket.CloseError
	if errors.As(err, &ce) && ce.Code != websocket.CloseAbnormalClosure {
		return
	}
	t.Fatalf("the connection ended without a close frame or an answer within %v: %v", fuzzDeadline, err)
}

// lockedBuffer is an io.Writer for the http.Server's error log.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
