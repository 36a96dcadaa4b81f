package play

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/galaxygym/galaxygym/server"
)

// trainer is a hand-written training client of one environment.
type trainer struct {
	t   *testing.T
	ws  *websocket.Conn
	lay server.Layout
	out []byte // the last reset or step reply
}

func (tr *trainer) call(m map[string]any) map[string]any {
	tr.t.Helper()
	if err := tr.ws.WriteJSON(m); err != nil {
		tr.t.Fatal(err)
	}
	_ = tr.ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	mt, b, err := tr.ws.ReadMessage()
	if err != nil {
		tr.t.Fatal(err)
	}
	if mt == websocket.BinaryMessage {
		tr.out = b
		return nil
	}
	var r map[string]any
	if err := json.Unmarshal(b, &r); err != nil || r["type"] == "error" {
		tr.t.Fatalf("reply %s (%v)", b, err)
	}
	return r
}

// startTrainer opens a training session of galaxy-express-v1 on addr,
// resets it and asks for its watch id and key.
func startTrainer(t *testing.T, addr string) (*trainer, string, string) {
	t.Helper()
	tr := &trainer{t: t, ws: dialWS(t, addr, "/")}
	tr.call(map[string]any{"type": "hello", "version": server.Version})
	made := tr.call(map[string]any{"type": "make", "env": "galaxy-express-v1"})
	lb, _ := json.Marshal(made["layout"])
	if err := json.Unmarshal(lb, &tr.lay); err != nil {
		t.Fatal(err)
	}
	tr.call(map[string]any{"type": "reset", "seeds": []uint64{5}})
	k := tr.call(map[string]any{"type": "watch_key"})
	return tr, k["session"].(string), k["key"].(string)
}

// step plays the first legal action.
func (tr *trainer) step() {
	tr.t.Helper()
	mask := tr.out[tr.lay.Mask : tr.lay.Mask+tr.lay.A]
	a := int32(0)
	for i, v := range mask {
		if v == 1 {
			a = int32(i)
			break
		}
	}
	if err := tr.ws.WriteMessage(websocket.BinaryMessage, server.AppendStepRequest(nil, 0, []int32{a})); err != nil {
		tr.t.Fatal(err)
	}
	_ = tr.ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	mt, b, err := tr.ws.ReadMessage()
	if err != nil || mt != websocket.BinaryMessage {
		tr.t.Fatalf("step reply: %v (type %d) %s", err, mt, b)
	}
	tr.out = b
}

// TestWatchTraining: a page with a training session's watch key gets its
// position as read-only face-up views, the latest after steps, then
// training_ended when the session ends; without the key, or with a wrong
// one, a clear error.
func TestWatchTraining(t *testing.T) {
	s := startServing(t, server.Config{}, Config{})
	tr, id, key := startTrainer(t, s.addr)
	pg := &client{t, dialWS(t, s.addr, "/play/ws")}
	if code := pg.expectErr(map[string]any{"op": "watch_training", "session": id}); code != "bad_request" {
		t.Fatalf("no key: %s", code)
	}
	wrong := []byte(key)
	wrong[5] ^= 1
	if code := pg.expectErr(map[string]any{"op": "watch_training", "session": id, "key": string(wrong)}); code != "watch_denied" {
		t.Fatalf("a wrong key: %s", code)
	}
	if code := pg.expectErr(map[string]any{"op": "watch_training", "session": id, "key": key, "index": 1}); code != "bad_request" {
		t.Fatalf("index 1 of 1 env: %s", code)
	}
	pg.send(map[string]any{"op": "watch_training", "session": id, "key": key, "index": 0})
	m := pg.next("training")
	if !strings.Contains(m["banner"].(string), "watching training session "+id[:8]+"…, env 0") {
		t.Fatalf("banner %q", m["banner"])
	}
	v := m["view"].(map[string]any)
	if v["seat"].(float64) != FaceUp || v["env"] != "galaxy-express-v1" || len(v["actions"].([]any)) != 0 {
		t.Fatalf("view seat %v env %v actions %v: want the face-up view, read-only", v["seat"], v["env"], v["actions"])
	}
	if sc, ok := v["scene"].(map[string]any); !ok || len(sc["moves"].([]any)) != 0 {
		t.Fatalf("scene %v: want one without moves", v["scene"])
	}
	turn := v["turn"].(float64)
	for range 5 {
		tr.step()
	}
	for {
		v := pg.next("training")["view"].(map[string]any)
		if v["turn"].(float64) > turn {
			break
		}
	}
	tr.call(map[string]any{"type": "close"})
	if e := pg.next("training_ended"); e["session"] != id {
		t.Fatalf("training_ended %v", e)
	}
}

// TestWatchTrainingBounds: one watch a page connection (a second
// replaces the first), and a page that leaves frees its place among the
// session's server.MaxWatchers.
func TestWatchTrainingBounds(t *testing.T) {
	s := startServing(t, server.Config{}, Config{})
	_, id, key := startTrainer(t, s.addr)
	pg := &client{t, dialWS(t, s.addr, "/play/ws")}
	for range 3 {
		pg.send(map[string]any{"op": "watch_training", "session": id, "key": key})
		pg.next("training")
	}
	// The page holds one watcher: the others fit, once the replaced ones
	// are gone.
	var ws []*server.Watcher
	deadline := time.Now().Add(10 * time.Second)
	for len(ws) < server.MaxWatchers-1 {
		w, err := s.srv.Watch(id, key, 0)
		if err != nil {
			if time.Now().After(deadline) {
				t.Fatalf("watcher %d: %v", len(ws)+1, err)
			}
			time.Sleep(10 * time.Millisecond)
			continue
		}
		ws = append(ws, w)
	}
	if _, err := s.srv.Watch(id, key, 0); err == nil {
		t.Fatal("a watcher over the limit")
	}
	pg.ws.Close() // the tab leaves
	for {
		w, err := s.srv.Watch(id, key, 0)
		if err == nil {
			w.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the page left, its watcher stays: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, w := range ws {
		w.Close()
	}
}
