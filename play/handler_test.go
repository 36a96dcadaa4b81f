package play

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	_ "github.com/galaxygym/galaxygym/agents/all"
	"github.com/galaxygym/galaxygym/datasets"
)

// page is a test server of the page alone.
type page struct {
	h   *Handler
	srv *httptest.Server
}

func newPage(t *testing.T, cfg Config) *page {
	t.Helper()
	h, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	training := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "training", http.StatusTeapot)
	})
	srv := httptest.NewServer(Mount(training, h))
	t.Cleanup(func() { h.Close(); srv.Close() })
	return &page{h, srv}
}

// client is a hand-written page client.
type client struct {
	t  *testing.T
	ws *websocket.Conn
}

func (p *page) dial(t *testing.T, query string) *client {
	t.Helper()
	u := "ws" + strings.TrimPrefix(p.srv.URL, "http") + "/play/ws" + query
	ws, resp, err := websocket.DefaultDialer.Dial(u, nil)
	if err != nil {
		code := 0
		if resp != nil {
			code = resp.StatusCode
		}
		t.Fatalf("dial: %v (HTTP %d)", err, code)
	}
	t.Cleanup(func() { ws.Close() })
	return &client{t, ws}
}

func (c *client) send(m map[string]any) {
	c.t.Helper()
	if err := c.ws.WriteJSON(m); err != nil {
		c.t.Fatal(err)
	}
}

// next returns the next message with op (skipping others).
func (c *client) next(op string) map[string]any {
	c.t.Helper()
	_ = c.ws.SetReadDeadline(time.Now().Add(60 * time.Second))
	for {
		var m map[string]any
		if err := c.ws.ReadJSON(&m); err != nil {
			c.t.Fatalf("waiting for %s: %v", op, err)
		}
		if m["op"] == op {
			return m
		}
		if m["op"] == "error" && op != "error" {
			c.t.Fatalf("waiting for %s: error %v: %v", op, m["code"], m["message"])
		}
	}
}

// expectErr sends m and returns the error code it gets.
func (c *client) expectErr(m map[string]any) string {
	c.t.Helper()
	c.send(m)
	e := c.next("error")
	return e["code"].(string)
}

func TestHelloListsEveryGameAndDataset(t *testing.T) {
	dir := t.TempDir()
	generate(t, filepath.Join(dir, "ge"), "galaxy-express-v1", []string{"heuristic"}, 2)
	p := newPage(t, Config{Datasets: []string{dir}})
	c := p.dial(t, "")
	c.send(map[string]any{"op": "hello"})
	m := c.next("hello")
	envs := m["envs"].([]any)
	ids := map[string]bool{}
	for _, e := range envs {
		ids[e.(map[string]any)["id"].(string)] = true
	}
	for _, id := range []string{"galaxy-express-v1", "galaxy-fighters-v1", "express-v1", "pilots-of-gallaxia-v1"} {
		if !ids[id] {
			t.Errorf("hello lacks %s", id)
		}
	}
	ds := m["datasets"].([]any)
	if len(ds) != 1 || ds[0].(map[string]any)["name"] != filepath.Base(dir)+"/ge" || ds[0].(map[string]any)["replayable"] != true {
		t.Fatalf("datasets: %v", ds)
	}
}

func generate(t *testing.T, out, id string, seats []string, episodes int64) {
	t.Helper()
	cfg := datasets.Config{Env: id, Episodes: episodes, Seed: 5, Workers: 1, Out: out}
	if len(seats) == 1 {
		cfg.Agent = seats[0]
	} else {
		cfg.Seats = seats
	}
	if _, err := datasets.Generate(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
}

// table waits for the next table message and returns status and view.
func (c *client) table() (map[string]any, map[string]any) {
	c.t.Helper()
	m := c.next("table")
	v, _ := m["view"].(map[string]any)
	return m["status"].(map[string]any), v
}

// TestBadInputChangesNothing: unknown actions, moves out of turn, a seat
// that is not yours, an illegal action and unknown tables get clear
// errors and leave the game as it was.
func TestBadInputChangesNothing(t *testing.T) {
	p := newPage(t, Config{})
	c := p.dial(t, "")
	c.send(map[string]any{"op": "new", "lineup": map[string]any{"env": "express-v1", "params": map[string]any{"players": 2},
		"seats": []string{"human", "human"}, "delay_ms": 0}, "take": []int{0}})
	s, v := c.table()
	id := s["table"].(string)
	if v["seat"].(float64) != 0 {
		t.Fatalf("view of seat %v, want 0", v["seat"])
	}
	toMove := int(s["to_move"].(float64))
	other := p.dial(t, "")
	other.send(map[string]any{"op": "join", "table": id, "seat": 1})
	other.table()
	c.next("table") // the join's broadcast

	mover, idle := c, other
	if toMove == 1 {
		mover, idle = other, c
	}
	for _, tc := range []struct {
		who  *client
		m    map[string]any
		code string
	}{
		{mover, map[string]any{"op": "act", "table": id, "seat": toMove, "action": 100000, "steps": 0}, "unknown_action"},
		{mover, map[string]any{"op": "act", "table": id, "seat": toMove, "action": -1, "steps": 0}, "unknown_action"},
		{idle, map[string]any{"op": "act", "table": id, "seat": 1 - toMove, "action": 0, "steps": 0}, "out_of_turn"},
		{idle, map[string]any{"op": "act", "table": id, "seat": toMove, "action": 0, "steps": 0}, "not_your_seat"},
		{mover, map[string]any{"op": "act", "table": id, "seat": 7, "action": 0, "steps": 0}, "bad_seat"},
		{mover, map[string]any{"op": "act", "table": "nope", "seat": toMove, "action": 0, "steps": 0}, "unknown_table"},
		{mover, map[string]any{"op": "act", "table": id, "seat": toMove}, "bad_request"},
		{idle, map[string]any{"op": "join", "table": id, "seat": toMove}, "seat_taken"},
		{idle, map[string]any{"op": "watch", "table": id, "view": -1}, "hidden"},
		{mover, map[string]any{"op": "frobnicate"}, "unknown_op"},
		{mover, map[string]any{"op": "replay", "dataset": "../../etc", "episode": 0}, "unknown_dataset"},
		{mover, map[string]any{"op": "new", "lineup": map[string]any{"env": "no-such-v1", "seats": []string{"human"}}}, "unknown_env"},
		{mover, map[string]any{"op": "new", "lineup": map[string]any{"env": "express-v1", "params": map[string]any{"players": 2}, "seats": []string{"human"}}}, "bad_lineup"},
		{mover, map[string]any{"op": "new", "lineup": map[string]any{"env": "express-v1", "params": map[string]any{"players": 2}, "seats": []string{"human", "mcts"},
			"agent_opts": map[string]any{"mcts": map[string]any{"ms": "10"}}}}, "bad_lineup"},
	} {
		if got := tc.who.expectErr(tc.m); got != tc.code {
			t.Errorf("%v: error %q, want %q", tc.m, got, tc.code)
		}
	}
	// An illegal (but existing) action: take the first action not offered.
	offered := map[int]bool{}
	var mv map[string]any
	mover.send(map[string]any{"op": "watch", "table": id, "view": toMove})
	if code := mover.next("error")["code"]; code != "hidden" {
		t.Fatalf("a player watching: %v", code)
	}
	p.h.mu.Lock()
	tb := p.h.tables[id]
	p.h.mu.Unlock()
	tb.mu.Lock()
	steps := len(tb.history)
	sv, err := SeatView(tb.e.Spec(), tb.e.Params(), tb.e.State(), toMove)
	tb.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range sv.Actions {
		offered[a.A] = true
	}
	illegal := 0
	for offered[illegal] {
		illegal++
	}
	if got := mover.expectErr(map[string]any{"op": "act", "table": id, "seat": toMove, "action": illegal, "steps": 0}); got != "illegal_action" {
		t.Errorf("illegal action: %q", got)
	}
	tb.mu.Lock()
	if len(tb.history) != steps || steps != 0 {
		t.Errorf("bad input changed the game: %d moves", len(tb.history))
	}
	tb.mu.Unlock()
	// A legal move works.
	mover.send(map[string]any{"op": "act", "table": id, "seat": toMove, "action": sv.Actions[0].A, "steps": 0})
	s, mv = mover.table()
	if s["steps"].(float64) != 1 || mv == nil {
		t.Fatalf("after a legal move: %v", s)
	}
}

// TestPlayRecordReplay plays a game with a person's seat against the
// heuristic to the end through the protocol, checks the recording read back
// with datasets.Open, and replays it.
func TestPlayRecordReplay(t *testing.T) {
	t.Run("stored", func(t *testing.T) { playRecordReplay(t, "") })
	// A compact recording (serve --record-observations none) replays the
	// same way and materializes to the full dataset.
	t.Run("compact", func(t *testing.T) { playRecordReplay(t, datasets.ObsNone) })
}

func playRecordReplay(t *testing.T, obs datasets.Observations) {
	rec := filepath.Join(t.TempDir(), "rec")
	p := newPage(t, Config{RecordDir: rec, RecordObservations: obs})
	c := p.dial(t, "")
	c.send(map[string]any{"op": "new", "lineup": map[string]any{"env": "galaxy-fighters-v1",
		"params": map[string]any{"players": 2, "mission": "rookie"}, "seats": []string{"human", "heuristic"}, "delay_ms": 0, "seed": 77}})
	var s, v map[string]any
	moves := 0
	for {
		s, v = c.table()
		if s["over"] == true {
			break
		}
		acts, _ := v["actions"].([]any)
		if len(acts) == 0 || v["seat"].(float64) != 0 || s["to_move"].(float64) != 0 {
			continue
		}
		if s["thought"] != nil || s["last"] != nil || s["returns"] != nil {
			t.Fatal("a seated person is told an agent's thoughts, moves or returns")
		}
		a := acts[len(acts)/2].(map[string]any)["a"]
		c.send(map[string]any{"op": "act", "table": s["table"], "seat": 0, "action": a, "steps": s["steps"]})
		moves++
	}
	if s["error"] != nil {
		t.Fatalf("error: %v", s["error"])
	}
	name, _ := s["record"].(string)
	if name == "" || moves == 0 {
		t.Fatalf("not recorded (%d moves): %v", moves, s)
	}
	d, err := datasets.Open(filepath.Join(rec, filepath.Base(name)))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(d.Manifest.Seats, ","); got != "human,heuristic" {
		t.Fatalf("seats %q", got)
	}
	if d.Manifest.Compact() != (obs == datasets.ObsNone) {
		t.Fatalf("observations %q in the manifest of a recording with %q", d.Manifest.Observations, obs)
	}
	if obs == datasets.ObsNone {
		full := filepath.Join(t.TempDir(), "full")
		if _, err := datasets.Materialize(context.Background(), datasets.MaterializeConfig{In: d.Dir, Out: full}); err != nil {
			t.Fatalf("Materialize the recording: %v", err)
		}
		fd, err := datasets.Open(full)
		if err != nil {
			t.Fatal(err)
		}
		rows := 0
		for st, err := range fd.Steps() {
			if err != nil || len(st.Obs) != fd.Manifest.EnvSpec.ObsSize() {
				t.Fatalf("materialized row %d: %v, %d bytes of obs", rows, err, len(st.Obs))
			}
			rows++
		}
		if int64(rows) != fd.Manifest.TotalSteps+1 {
			t.Fatalf("%d materialized rows", rows)
		}
	}
	n := 0
	for ep, err := range d.Episodes() {
		if err != nil {
			t.Fatal(err)
		}
		n++
		if ep.Seats[0] != Human {
			t.Fatalf("seat_agents %v", ep.Seats)
		}
		result := s["result"].(map[string]any)
		if ep.Outcome != result["outcome"] {
			t.Fatalf("recorded outcome %s, page %v", ep.Outcome, result["outcome"])
		}
	}
	if n != 1 {
		t.Fatalf("%d episodes", n)
	}
	// Replay the recording, by the name the page was given.
	c.send(map[string]any{"op": "replay", "dataset": name, "episode": 0, "step": 3, "view": 0})
	f := c.next("replay")["frame"].(map[string]any)
	if f["step"].(float64) != 3 || f["view"].(map[string]any)["seat"].(float64) != 0 {
		t.Fatalf("frame %v", f["step"])
	}
	c.send(map[string]any{"op": "replay", "dataset": name, "episode": 0, "step": 1 << 30})
	f = c.next("replay")["frame"].(map[string]any)
	if f["over"] != true || f["result"] == nil {
		t.Fatal("the last frame is not the end")
	}
	if code := c.expectErr(map[string]any{"op": "replay", "dataset": name, "episode": 5}); code != "unknown_episode" {
		t.Fatalf("episode 5: %s", code)
	}
}

// TestReplayMatchesTheEpisode checks a frame against the position reached
// by stepping the episode's actions, and a dataset of another env version.
func TestReplayMatchesTheEpisode(t *testing.T) {
	dir := t.TempDir()
	generate(t, filepath.Join(dir, "pg"), "pilots-of-gallaxia-v1", []string{"random", "heuristic", "random", "heuristic"}, 2)
	p := newPage(t, Config{Datasets: []string{filepath.Join(dir, "pg")}})
	c := p.dial(t, "")
	c.send(map[string]any{"op": "replay", "dataset": "pg", "episode": 1, "step": 5, "view": -1})
	f := c.next("replay")["frame"].(map[string]any)
	d, err := datasets.Open(filepath.Join(dir, "pg"))
	if err != nil {
		t.Fatal(err)
	}
	var want int
	for st, err := range d.Steps() {
		if err != nil {
			t.Fatal(err)
		}
		if st.EpisodeID == 1 && st.Step == 5 {
			want = st.Action
		}
	}
	if got := f["action"].(map[string]any)["a"].(float64); int(got) != want {
		t.Fatalf("step 5 action %v, dataset %d", got, want)
	}
	// Another version of the environment: the manifest names an id this
	// build lacks.
	other := filepath.Join(dir, "old")
	if err := os.CopyFS(other, os.DirFS(filepath.Join(dir, "pg"))); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(other, datasets.ManifestFile))
	b = []byte(strings.ReplaceAll(string(b), `"env_id": "pilots-of-gallaxia-v1"`, `"env_id": "pilots-of-gallaxia-v0"`))
	_ = os.WriteFile(filepath.Join(other, datasets.ManifestFile), b, 0o644)
	p2 := newPage(t, Config{Datasets: []string{other}})
	c2 := p2.dial(t, "")
	c2.send(map[string]any{"op": "hello"})
	ds := c2.next("hello")["datasets"].([]any)[0].(map[string]any)
	if ds["replayable"] != false || !strings.Contains(ds["reason"].(string), "another version") {
		t.Fatalf("dataset of another version: %v", ds)
	}
	if code := c2.expectErr(map[string]any{"op": "replay", "dataset": "old", "episode": 0}); code != "not_replayable" {
		t.Fatalf("replay of another version: %s", code)
	}
}

// TestProtections: Host, Origin, token and message size, as the training
// protocol checks them.
func TestProtections(t *testing.T) {
	p := newPage(t, Config{ReadLimit: 1024})
	get := func(path, host string) int {
		req, _ := http.NewRequest("GET", p.srv.URL+path, nil)
		if host != "" {
			req.Host = host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := get("/", ""); code != 200 {
		t.Fatalf("GET / %d", code)
	}
	if code := get("/", "evil.example:80"); code != 403 {
		t.Fatalf("GET / with a foreign Host: %d", code)
	}
	if code := get("/play/static/app.js", ""); code != 200 {
		t.Fatalf("app.js %d", code)
	}
	for _, bad := range []string{"/play/static/../handler.go", "/play/static/%2e%2e/handler.go", "/play/x"} {
		if code := get(bad, ""); code == 200 {
			t.Fatalf("%s served", bad)
		}
	}
	if code := get("/healthz", ""); code != http.StatusTeapot {
		t.Fatalf("/healthz did not reach the training handler: %d", code)
	}
	u := "ws" + strings.TrimPrefix(p.srv.URL, "http") + "/play/ws"
	hdr := http.Header{"Origin": []string{"https://evil.example"}}
	if _, resp, err := websocket.DefaultDialer.Dial(u, hdr); err == nil || resp.StatusCode != 403 {
		t.Fatal("a foreign Origin was accepted")
	}
	c := p.dial(t, "")
	_ = c.ws.WriteMessage(websocket.TextMessage, []byte(`{"op":"hello","pad":"`+strings.Repeat("x", 2000)+`"}`))
	_ = c.ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		if _, _, err := c.ws.ReadMessage(); err != nil {
			if !websocket.IsCloseError(err, websocket.CloseMessageTooBig) {
				t.Fatalf("oversized message: %v", err)
			}
			break
		}
	}
	tp := newPage(t, Config{Token: "s3cret"})
	tu := "ws" + strings.TrimPrefix(tp.srv.URL, "http") + "/play/ws"
	if _, resp, err := websocket.DefaultDialer.Dial(tu, nil); err == nil || resp.StatusCode != 401 {
		t.Fatal("no token accepted")
	}
	tp.dial(t, "?token=s3cret")
}

// TestMountSendsUpgradesToTraining: a websocket upgrade at / is the
// training protocol's, a GET the page's.
func TestMountSendsUpgradesToTraining(t *testing.T) {
	p := newPage(t, Config{})
	u := "ws" + strings.TrimPrefix(p.srv.URL, "http") + "/"
	_, resp, err := websocket.DefaultDialer.Dial(u, nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusTeapot {
		t.Fatalf("upgrade at / did not reach training: %v", err)
	}
}

// TestWatchShowsThoughts: a table of agents only shows every card face up,
// the moves by name, the returns and the heuristic's action values; the
// step-by-step mode moves one agent per advance.
func TestWatchShowsThoughts(t *testing.T) {
	p := newPage(t, Config{})
	c := p.dial(t, "")
	c.send(map[string]any{"op": "new", "lineup": map[string]any{"env": "galaxy-express-v1", "seats": []string{"heuristic"},
		"delay_ms": 0, "paused": true, "seed": 3}})
	s, v := c.table()
	if v["seat"].(float64) != FaceUp || s["steps"].(float64) != 0 {
		t.Fatalf("first view: seat %v, %v steps", v["seat"], s["steps"])
	}
	for i := 1; i <= 3; i++ {
		c.send(map[string]any{"op": "control", "table": s["table"], "advance": 1})
		for {
			s, _ = c.table()
			if s["steps"].(float64) == float64(i) {
				break
			}
			if s["steps"].(float64) > float64(i) {
				t.Fatalf("advance 1 moved to step %v", s["steps"])
			}
		}
		th, _ := s["thought"].([]any)
		if len(th) == 0 || s["last"] == nil || s["returns"] == nil {
			t.Fatalf("step %d: no thoughts, move or returns: %v", i, s)
		}
		if _, ok := th[0].(map[string]any)["v"]; !ok {
			t.Fatalf("the heuristic's thoughts carry no values: %v", th[0])
		}
	}
	// A seat's view on request.
	c.send(map[string]any{"op": "watch", "table": s["table"], "view": 0})
	if _, v = c.table(); v["seat"].(float64) != 0 {
		t.Fatalf("view %v after watching seat 0", v["seat"])
	}
}

// TestWatchPolicyProbs: the committed policy weights are offered for their
// environment, and a policy seat shows its probabilities.
func TestWatchPolicyProbs(t *testing.T) {
	p := newPage(t, Config{WeightsDir: filepath.Join("..", "notebooks", "weights")})
	c := p.dial(t, "")
	c.send(map[string]any{"op": "hello"})
	var weights []any
	for _, e := range c.next("hello")["envs"].([]any) {
		if e.(map[string]any)["id"] == "galaxy-express-v1" {
			weights, _ = e.(map[string]any)["weights"].([]any)
		}
	}
	if len(weights) == 0 {
		t.Skip("no committed weights for galaxy-express-v1")
	}
	c.send(map[string]any{"op": "new", "lineup": map[string]any{"env": "galaxy-express-v1", "seats": []string{"policy"},
		"agent_opts": map[string]any{"policy": map[string]any{"weights": weights[0]}}, "delay_ms": 0, "paused": true}})
	s, _ := c.table()
	c.send(map[string]any{"op": "control", "table": s["table"], "advance": 1})
	for s["steps"].(float64) < 1 {
		s, _ = c.table()
	}
	th, _ := s["thought"].([]any)
	sum := 0.0
	for _, a := range th {
		sum += a.(map[string]any)["p"].(float64)
	}
	if len(th) == 0 || sum < 0.99 || sum > 1.01 {
		t.Fatalf("policy thoughts %v (sum %v)", th, sum)
	}
	if code := c.expectErr(map[string]any{"op": "new", "lineup": map[string]any{"env": "galaxy-express-v1", "seats": []string{"policy"},
		"agent_opts": map[string]any{"policy": map[string]any{"weights": "../../etc/passwd"}}}}); code != "bad_lineup" {
		t.Fatalf("weights outside the folder: %s", code)
	}
}
