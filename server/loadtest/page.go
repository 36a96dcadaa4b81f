package loadtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

// PageLoad is the browser page's share of a load test (docs/play.md):
// Tables connections each open a game of agents only at delay 0 (a new
// one when it ends) and Watchers more connections watch them, every card
// face up (watcher i watches table i mod Tables), reading everything they
// are sent, for the test's Duration. It runs beside the training sessions,
// against the same server's /play/ws.
type PageLoad struct {
	// Tables and Watchers are the page's games and its watchers; 0 and 0
	// leave the page alone.
	Tables, Watchers int
	// Env, Params and Agent make each game: every seat plays Agent.
	Env    string
	Params map[string]any
	Agent  string
}

// PageReport is what the page's side did.
type PageReport struct {
	Tables, Watchers int
	Games            int64 // games opened
	Moves            int64 // agent moves seen by the tables' own connections
	Messages         int64 // messages the watchers read
	Bytes            int64 // their bytes
	Errors           int64
	ErrorSamples     []string
}

func (r *PageReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "page: %d tables, %d watchers: %d games, %d agent moves, watchers read %d messages (%.1f MiB), errors %d\n",
		r.Tables, r.Watchers, r.Games, r.Moves, r.Messages, float64(r.Bytes)/(1<<20), r.Errors)
	for _, e := range r.ErrorSamples {
		fmt.Fprintf(&b, "page error: %s\n", e)
	}
	return b.String()
}

// pageURL is the page's websocket address on the server of the training
// URL raw.
func pageURL(raw, token string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", err
	}
	u.Path = "/play/ws"
	q := url.Values{}
	if token != "" {
		q.Set("token", token)
	}
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// pageDriver runs a PageLoad.
type pageDriver struct {
	cfg  PageLoad
	url  string
	rep  PageReport
	mu   sync.Mutex
	ids  []atomic.Value // the current game of each table, a string
	news []chan struct{}
}

func (d *pageDriver) fail(format string, args ...any) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.rep.Errors++
	if len(d.rep.ErrorSamples) < 10 {
		d.rep.ErrorSamples = append(d.rep.ErrorSamples, fmt.Sprintf(format, args...))
	}
}

func (d *pageDriver) dial(ctx context.Context) (*websocket.Conn, bool) {
	dl := websocket.Dialer{HandshakeTimeout: 10 * time.Second}
	ws, resp, err := dl.DialContext(ctx, d.url, nil)
	if err != nil {
		code := 0
		if resp != nil {
			code = resp.StatusCode
		}
		d.fail("page dial: %v (HTTP %d)", err, code)
		return nil, false
	}
	return ws, true
}

// runPage drives the page until deadline and returns what it did.
func runPage(ctx context.Context, cfg PageLoad, rawURL, token string, deadline time.Time) *PageReport {
	u, err := pageURL(rawURL, token)
	d := &pageDriver{cfg: cfg, url: u, ids: make([]atomic.Value, cfg.Tables), news: make([]chan struct{}, cfg.Tables)}
	d.rep.Tables, d.rep.Watchers = cfg.Tables, cfg.Watchers
	if err != nil {
		d.fail("page URL: %v", err)
		return &d.rep
	}
	for i := range d.news {
		d.news[i] = make(chan struct{}, cfg.Watchers+1)
	}
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	var wg sync.WaitGroup
	for i := range cfg.Tables {
		wg.Add(1)
		go func() { defer wg.Done(); d.table(ctx, i) }()
	}
	for i := range cfg.Watchers {
		wg.Add(1)
		go func() { defer wg.Done(); d.watcher(ctx, i%cfg.Tables) }()
	}
	wg.Wait()
	return &d.rep
}

// closeOn closes ws when ctx ends, which ends its reads.
func closeOn(ctx context.Context, ws *websocket.Conn) func() {
	stop := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
		case <-stop:
		}
		ws.Close()
	}()
	return func() { close(stop) }
}

// table opens games one after the other on one connection.
func (d *pageDriver) table(ctx context.Context, i int) {
	ws, ok := d.dial(ctx)
	if !ok {
		return
	}
	defer closeOn(ctx, ws)()
	seats := []string{}
	for range 8 {
		seats = append(seats, d.cfg.Agent)
	}
	players := 2
	if p, ok := d.cfg.Params["players"].(int); ok {
		players = p
	}
	seats = seats[:players]
	for ctx.Err() == nil {
		if err := ws.WriteJSON(map[string]any{"op": "new", "lineup": map[string]any{"env": d.cfg.Env, "params": d.cfg.Params,
			"seats": seats, "delay_ms": 0, "seed": i + 1}}); err != nil {
			return
		}
		atomic.AddInt64(&d.rep.Games, 1)
		steps := 0.0
		for {
			var m struct {
				Op      string `json:"op"`
				Code    string `json:"code"`
				Message string `json:"message"`
				Status  struct {
					Table string  `json:"table"`
					Steps float64 `json:"steps"`
					Over  bool    `json:"over"`
				} `json:"status"`
			}
			if err := ws.ReadJSON(&m); err != nil {
				if ctx.Err() == nil {
					d.fail("table %d: read: %v", i, err)
				}
				return
			}
			if m.Op == "error" {
				d.fail("table %d: %s: %s", i, m.Code, m.Message)
				return
			}
			if m.Op != "table" {
				continue
			}
			if d.ids[i].Load() != m.Status.Table {
				d.ids[i].Store(m.Status.Table)
				for range d.cfg.Watchers + 1 {
					select {
					case d.news[i] <- struct{}{}:
					default:
					}
				}
			}
			if m.Status.Steps > steps {
				atomic.AddInt64(&d.rep.Moves, int64(m.Status.Steps-steps))
				steps = m.Status.Steps
			}
			if m.Status.Over {
				break
			}
		}
	}
}

// watcher watches table i's current game, and the next when it ends.
func (d *pageDriver) watcher(ctx context.Context, i int) {
	ws, ok := d.dial(ctx)
	if !ok {
		return
	}
	defer closeOn(ctx, ws)()
	reads := make(chan []byte, 64)
	go func() {
		defer close(reads)
		for {
			_, b, err := ws.ReadMessage()
			if err != nil {
				return
			}
			reads <- b
		}
	}()
	watching := ""
	for {
		if id, _ := d.ids[i].Load().(string); id != "" && id != watching {
			watching = id
			if err := ws.WriteJSON(map[string]any{"op": "watch", "table": id, "view": -1}); err != nil {
				return
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-d.news[i]:
		case b, ok := <-reads:
			if !ok {
				if ctx.Err() == nil {
					d.fail("watcher of table %d: connection closed", i)
				}
				return
			}
			atomic.AddInt64(&d.rep.Messages, 1)
			atomic.AddInt64(&d.rep.Bytes, int64(len(b)))
			var m struct {
				Op   string `json:"op"`
				Code string `json:"code"`
			}
			if json.Unmarshal(b, &m) == nil && m.Op == "error" && m.Code != "unknown_table" {
				d.fail("watcher of table %d: %s", i, b)
			}
		}
	}
}
