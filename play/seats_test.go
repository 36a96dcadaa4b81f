package play

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/galaxygym/galaxygym/env"
)

// read returns the next message of any op, and its bytes.
func (c *client) read() (map[string]any, []byte) {
	c.t.Helper()
	_ = c.ws.SetReadDeadline(time.Now().Add(60 * time.Second))
	_, b, err := c.ws.ReadMessage()
	if err != nil {
		c.t.Fatalf("reading: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		c.t.Fatal(err)
	}
	return m, b
}

// secrets reads the secret messages a new or join sends, up to the table
// message that follows them: seat -> secret (FaceUp for the creator's),
// and that table message's status and view.
func (c *client) secrets() (map[int]string, map[string]any, map[string]any) {
	c.t.Helper()
	out := map[int]string{}
	for {
		m, _ := c.read()
		switch m["op"] {
		case "secret":
			k := FaceUp
			if m["creator"] != true {
				k = int(m["seat"].(float64))
			}
			out[k] = m["secret"].(string)
		case "table":
			v, _ := m["view"].(map[string]any)
			return out, m["status"].(map[string]any), v
		case "error":
			c.t.Fatalf("error %v: %v", m["code"], m["message"])
		}
	}
}

// tableWhere reads table messages until one whose status satisfies ok
// (within a minute), and returns its status, view and bytes.
func (c *client) tableWhere(what string, ok func(s, v map[string]any) bool) (map[string]any, map[string]any, []byte) {
	c.t.Helper()
	end := time.Now().Add(time.Minute)
	for time.Now().Before(end) {
		m, b := c.read()
		if m["op"] != "table" {
			continue
		}
		s := m["status"].(map[string]any)
		v, _ := m["view"].(map[string]any)
		if ok(s, v) {
			return s, v, b
		}
	}
	c.t.Fatalf("no table message with %s in a minute", what)
	return nil, nil, nil
}

// handCards is the bracketed hand of an Express seat's view ("[BX,BX,TK]").
var handCards = regexp.MustCompile(`\[[A-Z0-9!,]+\]`)

// twoPeople starts an Express table with two human seats: a takes seat 0,
// b joins seat 1. It returns the table id and both seats' secrets.
func twoPeople(t *testing.T, p *page, a, b *client) (string, string, string) {
	t.Helper()
	a.send(map[string]any{"op": "new", "lineup": map[string]any{"env": "express-v2", "params": map[string]any{"players": 2},
		"seats": []string{"human", "human"}, "delay_ms": 0, "seed": 11}, "take": []int{0}})
	sa, s, _ := a.secrets()
	id := s["table"].(string)
	b.send(map[string]any{"op": "join", "table": id, "seat": 1})
	sb, s, v := b.secrets()
	if len(sa[0]) < 32 || len(sb[1]) < 32 || len(sa[FaceUp]) < 32 || sa[0] == sb[1] || sa[0] == sa[FaceUp] {
		t.Fatalf("secrets %q %q (creator %q): want distinct, at least 128 bits", sa[0], sb[1], sa[FaceUp])
	}
	if yours := s["yours"].([]any); len(yours) != 1 || yours[0].(float64) != 1 || v["seat"].(float64) != 1 {
		t.Fatalf("after join: yours %v, view of %v", s["yours"], v["seat"])
	}
	// a hears of the join, and never of b's secret.
	for {
		m, raw := a.read()
		if bytes.Contains(raw, []byte(sb[1])) {
			t.Fatalf("b's secret reached a: %s", raw)
		}
		if m["op"] == "table" && m["status"].(map[string]any)["held"].([]any)[1] == true {
			break
		}
	}
	return id, sa[0], sb[1]
}

// TestAnotherTabSeesNoHand is the reported leak: a seated person opens the
// page again (a second connection, without the seat's secret) and asks to
// watch the other seat, or every card face up: refused; the second page
// gets the public view, which carries neither hand; joining a held seat
// needs its secret, and with it the page is that seat's person.
func TestAnotherTabSeesNoHand(t *testing.T) {
	p := newPage(t, Config{})
	a, b := p.dial(t, ""), p.dial(t, "")
	id, secretA, secretB := twoPeople(t, p, a, b)
	handA := handCards.FindString(p.seatView(t, id, 0).Hand)
	handB := handCards.FindString(p.seatView(t, id, 1).Hand)
	if handA == "" || handB == "" {
		t.Fatalf("no hands: %q %q", handA, handB)
	}

	tab := p.dial(t, "")
	for _, view := range []int{1, 0, FaceUp} {
		if code := tab.expectErr(map[string]any{"op": "watch", "table": id, "view": view}); code != "hidden" {
			t.Fatalf("a second tab watching view %d: %q, want hidden", view, code)
		}
	}
	tab.send(map[string]any{"op": "watch", "table": id})
	s, v, raw := tab.tableWhere("the public view", func(s, v map[string]any) bool { return true })
	if v["seat"].(float64) != Public || v["hand"] != nil || v["cards"] != nil || v["actions"] != nil || len(s["yours"].([]any)) != 0 {
		t.Fatalf("a spectator's view: seat %v, hand %v, cards %v, actions %v", v["seat"], v["hand"], v["cards"], v["actions"])
	}
	if bytes.Contains(raw, []byte(handA)) || bytes.Contains(raw, []byte(handB)) {
		t.Fatalf("the public view carries a hand (%s or %s):\n%s", handA, handB, v["text"])
	}
	for _, tc := range []struct {
		m    map[string]any
		code string
	}{
		{map[string]any{"op": "join", "table": id, "seat": 1}, "seat_taken"},
		{map[string]any{"op": "join", "table": id, "seat": 1, "secret": secretA}, "bad_secret"},
		{map[string]any{"op": "join", "table": id, "seat": 1, "secret": strings.Repeat("0", len(secretB))}, "bad_secret"},
		{map[string]any{"op": "act", "table": id, "seat": int(s["to_move"].(float64)), "action": 0, "steps": 0}, "not_your_seat"},
		{map[string]any{"op": "hint", "table": id, "seat": 1}, "no_hints"},
	} {
		if code := tab.expectErr(tc.m); code != tc.code {
			t.Errorf("%v: %q, want %q", tc.m, code, tc.code)
		}
	}
	// With seat 0's secret the tab is seat 0's person: its view, never seat 1's.
	tab.send(map[string]any{"op": "join", "table": id, "seat": 0, "secret": secretA})
	s, v, raw = tab.tableWhere("seat 0's view", func(s, v map[string]any) bool { return len(s["yours"].([]any)) == 1 })
	if v["seat"].(float64) != 0 || s["yours"].([]any)[0].(float64) != 0 || !bytes.Contains(raw, []byte(handA)) || bytes.Contains(raw, []byte(handB)) {
		t.Fatalf("joined with seat 0's secret: yours %v, view of %v", s["yours"], v["seat"])
	}
	if code := tab.expectErr(map[string]any{"op": "watch", "table": id, "view": 1}); code != "hidden" {
		t.Fatalf("seat 0's person watching seat 1: %q", code)
	}
}

// seatView is seat k's view of table id's position now.
func (p *page) seatView(t *testing.T, id string, k int) *View {
	t.Helper()
	p.h.mu.Lock()
	tb := p.h.tables[id]
	p.h.mu.Unlock()
	tb.mu.Lock()
	defer tb.mu.Unlock()
	v, err := SeatView(tb.e.Spec(), tb.e.Params(), tb.e.State(), k)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestDroppedSeatIsKeptForItsPerson: when a seated page drops, the seat
// stays its person's for the grace period: nobody else can join it or act
// for it, and the person comes back with the seat's secret from a new
// connection, to the same seat and hand.
func TestDroppedSeatIsKeptForItsPerson(t *testing.T) {
	p := newPage(t, Config{SeatGrace: time.Hour})
	a, b := p.dial(t, ""), p.dial(t, "")
	id, _, secretB := twoPeople(t, p, a, b)
	handB := p.seatView(t, id, 1).Hand
	b.ws.Close()
	s, _, _ := a.tableWhere("seat 1 away", func(s, v map[string]any) bool { return s["away"].([]any)[1] == true })
	if s["held"].([]any)[1] != true || s["grace_s"].(float64) != 3600 {
		t.Fatalf("seat 1 after its page dropped: held %v, grace %v s", s["held"], s["grace_s"])
	}
	x := p.dial(t, "")
	if code := x.expectErr(map[string]any{"op": "join", "table": id, "seat": 1}); code != "seat_taken" {
		t.Fatalf("joining a dropped person's seat without its secret: %q, want seat_taken", code)
	}
	if code := x.expectErr(map[string]any{"op": "act", "table": id, "seat": 1, "action": 0, "steps": 0}); code != "not_your_seat" {
		t.Fatalf("acting for a dropped person's seat: %q", code)
	}
	b2 := p.dial(t, "")
	b2.send(map[string]any{"op": "join", "table": id, "seat": 1, "secret": secretB})
	s, v := b2.table()
	if v["seat"].(float64) != 1 || s["yours"].([]any)[0].(float64) != 1 || v["hand"] != handB {
		t.Fatalf("back with the secret: yours %v, view of %v, hand %q (was %q)", s["yours"], v["seat"], v["hand"], handB)
	}
	a.tableWhere("seat 1 back", func(s, v map[string]any) bool { return s["away"].([]any)[1] == false })
}

// TestSeatAfterTheGrace: a seat whose person stays away longer than the
// grace period goes to the heuristic (the status says so), which then
// plays it; it is never offered to whoever has the link, nor to the
// person's secret. With GraceAgent "close" the table is closed instead.
func TestSeatAfterTheGrace(t *testing.T) {
	t.Run("heuristic", func(t *testing.T) {
		p := newPage(t, Config{SeatGrace: 20 * time.Millisecond})
		a, b := p.dial(t, ""), p.dial(t, "")
		id, _, secretB := twoPeople(t, p, a, b)
		b.ws.Close()
		acted := -1.0
		play := func(s, v map[string]any) {
			if s["to_move"].(float64) == 0 && v != nil && v["actions"] != nil && s["steps"].(float64) > acted {
				acted = s["steps"].(float64)
				a.send(map[string]any{"op": "act", "table": id, "seat": 0, "action": v["actions"].([]any)[0].(map[string]any)["a"], "steps": s["steps"]})
			}
		}
		// a plays seat 0 meanwhile; seat 1 waits for its person, then goes
		// to the heuristic.
		a.tableWhere("seat 1 given to the heuristic", func(s, v map[string]any) bool {
			if s["heirs"].([]any)[1] == "heuristic" {
				return true
			}
			if s["last_player"].(float64) == 1 {
				t.Fatal("seat 1 moved while its person was away")
			}
			play(s, v)
			return false
		})
		x := p.dial(t, "")
		for _, m := range []map[string]any{{"op": "join", "table": id, "seat": 1}, {"op": "join", "table": id, "seat": 1, "secret": secretB}} {
			if code := x.expectErr(m); code != "bad_seat" {
				t.Fatalf("%v after the grace: %q, want bad_seat", m, code)
			}
		}
		// The heuristic moves for seat 1 (a asks for the table again, in
		// case seat 0 is to act and the heir's message was the last).
		a.send(map[string]any{"op": "join", "table": id, "seat": 0})
		a.tableWhere("a move of seat 1", func(s, v map[string]any) bool {
			if s["over"] == true {
				t.Fatal("the game ended before seat 1 moved")
			}
			if s["last_player"].(float64) == 1 {
				return true
			}
			play(s, v)
			return false
		})
	})
	t.Run("close", func(t *testing.T) {
		p := newPage(t, Config{SeatGrace: 20 * time.Millisecond, GraceAgent: GraceClose})
		a, b := p.dial(t, ""), p.dial(t, "")
		id, _, _ := twoPeople(t, p, a, b)
		b.ws.Close()
		s, _, _ := a.tableWhere("the table closed", func(s, v map[string]any) bool { return s["over"] == true })
		if !strings.Contains(s["error"].(string), "closed") || s["result"] != nil {
			t.Fatalf("closed table: error %v, result %v", s["error"], s["result"])
		}
		if code := a.expectErr(map[string]any{"op": "act", "table": id, "seat": 0, "action": 0, "steps": s["steps"]}); code != "game_over" {
			t.Fatalf("acting at a closed table: %q", code)
		}
	})
	if _, err := New(Config{GraceAgent: "nobody"}); err == nil {
		t.Fatal("an unknown grace agent was accepted")
	}
}

// TestOnlySeatedPeopleControl: a spectator cannot pause a person's game,
// step it or change its speed; the seated person can. Where nobody is
// seated, the table's creator can, from any connection that presents the
// creator's secret, and nobody else.
func TestOnlySeatedPeopleControl(t *testing.T) {
	p := newPage(t, Config{})
	a := p.dial(t, "")
	a.send(map[string]any{"op": "new", "lineup": map[string]any{"env": "express-v2", "params": map[string]any{"players": 2},
		"seats": []string{"human", "heuristic"}, "delay_ms": 0, "seed": 3}})
	_, s, _ := a.secrets()
	id := s["table"]
	x := p.dial(t, "")
	x.send(map[string]any{"op": "watch", "table": id})
	if s, _ := x.table(); s["control"] != false {
		t.Fatal("a spectator is told it may control")
	}
	for _, m := range []map[string]any{{"paused": true}, {"delay_ms": 5000}, {"advance": 1}} {
		m["op"], m["table"] = "control", id
		if code := x.expectErr(m); code != "not_allowed" {
			t.Fatalf("a spectator's %v: %q, want not_allowed", m, code)
		}
	}
	a.send(map[string]any{"op": "control", "table": id, "paused": true})
	if s, _, _ := a.tableWhere("paused", func(s, v map[string]any) bool { return s["paused"] == true }); s["control"] != true {
		t.Fatal("the seated person is not told it may control")
	}

	// A table of agents: its creator controls it.
	c := p.dial(t, "")
	c.send(map[string]any{"op": "new", "lineup": map[string]any{"env": "express-v2", "params": map[string]any{"players": 2},
		"seats": []string{"random", "random"}, "delay_ms": 0, "paused": true, "seed": 3}})
	sc, s, _ := c.secrets()
	id = s["table"]
	y := p.dial(t, "")
	y.send(map[string]any{"op": "watch", "table": id})
	y.table()
	if code := y.expectErr(map[string]any{"op": "control", "table": id, "advance": 1}); code != "not_allowed" {
		t.Fatalf("a watcher stepping another's table: %q", code)
	}
	if code := y.expectErr(map[string]any{"op": "watch", "table": id, "secret": strings.Repeat("0", len(sc[FaceUp]))}); code != "bad_secret" {
		t.Fatalf("a wrong creator's secret: %q", code)
	}
	// The creator's secret from another connection (a reload).
	y.send(map[string]any{"op": "watch", "table": id, "secret": sc[FaceUp]})
	y.tableWhere("control", func(s, v map[string]any) bool { return s["control"] == true })
	y.send(map[string]any{"op": "control", "table": id, "advance": 1})
	y.tableWhere("a step", func(s, v map[string]any) bool { return s["steps"].(float64) == 1 })

	// Human seats nobody took yet: the creator; once someone sits, only them.
	d := p.dial(t, "")
	d.send(map[string]any{"op": "new", "lineup": map[string]any{"env": "express-v2", "params": map[string]any{"players": 2},
		"seats": []string{"human", "heuristic"}, "delay_ms": 0, "paused": true, "seed": 3}, "take": []int{}})
	_, s, v := d.secrets()
	id = s["table"]
	if s["control"] != true || v["seat"].(float64) != Public {
		t.Fatalf("creator of a table nobody sits at: control %v, view %v", s["control"], v["seat"])
	}
	z := p.dial(t, "")
	z.send(map[string]any{"op": "join", "table": id, "seat": 0})
	z.secrets()
	if code := d.expectErr(map[string]any{"op": "control", "table": id, "paused": false}); code != "not_allowed" {
		t.Fatalf("the creator, once a person sits: %q", code)
	}
}

// TestStaleActRefused: every act names the position it answers (the
// status's steps); a move for an older position, or the same click twice,
// is refused with "stale" and changes nothing.
func TestStaleActRefused(t *testing.T) {
	p := newPage(t, Config{})
	a := p.dial(t, "")
	a.send(map[string]any{"op": "new", "lineup": map[string]any{"env": "express-v2", "params": map[string]any{"players": 2},
		"seats": []string{"human", "human"}, "delay_ms": 0, "seed": 5}})
	s, v, _ := a.tableWhere("a decision", func(s, v map[string]any) bool { return v["actions"] != nil })
	id, k, steps := s["table"], v["seat"], s["steps"].(float64)
	act := v["actions"].([]any)[0].(map[string]any)["a"]
	if code := a.expectErr(map[string]any{"op": "act", "table": id, "seat": k, "action": act}); code != "bad_request" {
		t.Fatalf("an act without steps: %q", code)
	}
	if code := a.expectErr(map[string]any{"op": "act", "table": id, "seat": k, "action": act, "steps": steps + 1}); code != "stale" {
		t.Fatalf("an act for another position: %q, want stale", code)
	}
	click := map[string]any{"op": "act", "table": id, "seat": k, "action": act, "steps": steps}
	a.send(click)
	a.tableWhere("the move", func(s, v map[string]any) bool { return s["steps"].(float64) == steps+1 })
	if code := a.expectErr(click); code != "stale" {
		t.Fatalf("the same click twice: %q, want stale", code)
	}
	if got := len(p.history(id)); got != int(steps)+1 {
		t.Fatalf("%d moves played, want %d", got, int(steps)+1)
	}
}

func (p *page) history(id any) []step {
	p.h.mu.Lock()
	tb := p.h.tables[id.(string)]
	p.h.mu.Unlock()
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return append([]step(nil), tb.history...)
}

// TestSpectatorSeesFaceUpAtTheEnd: a spectator of a person's game gets
// the public view while it is played and every card face up once it is
// over.
func TestSpectatorSeesFaceUpAtTheEnd(t *testing.T) {
	p := newPage(t, Config{})
	a := p.dial(t, "")
	a.send(map[string]any{"op": "new", "lineup": map[string]any{"env": "galaxy-express-v1", "seats": []string{"human"}, "delay_ms": 0, "seed": 8}})
	_, s, _ := a.secrets()
	id := s["table"]
	x := p.dial(t, "")
	x.send(map[string]any{"op": "watch", "table": id})
	if _, v := x.table(); v["seat"].(float64) != Public {
		t.Fatalf("a spectator during the game: view %v", v["seat"])
	}
	acted := -1.0
	a.tableWhere("the end", func(s, v map[string]any) bool {
		if s["over"] == true {
			return true
		}
		if v["actions"] != nil && s["steps"].(float64) > acted {
			acted = s["steps"].(float64)
			a.send(map[string]any{"op": "act", "table": id, "seat": 0, "action": v["actions"].([]any)[0].(map[string]any)["a"], "steps": s["steps"]})
		}
		return false
	})
	x.tableWhere("the face-up end", func(s, v map[string]any) bool {
		if s["over"] != true && v["seat"].(float64) != Public {
			t.Fatalf("a spectator during the game: view %v", v["seat"])
		}
		return s["over"] == true && v["seat"].(float64) == FaceUp
	})
}

// TestPublicViewHidesEveryHand is the public view's hidden-information
// proof: for every game with a determinizer and player count, along random
// games, a chain of twins (each drawn by the determinizer from one seat's
// observation of the one before, seat after seat, so that every player's
// hidden cards are redrawn) gives byte-identical public views, scenes
// included; the public view carries no hand, no cards and no actions, and
// a game that presents itself has a scene with nothing private in it.
func TestPublicViewHidesEveryHand(t *testing.T) {
	forEachSeatedGame(t, publicTwins)
}

func publicTwins(t *testing.T, g env.Game, det env.Determinizer, params map[string]any) {
	e, err := env.New(g, params)
	if err != nil {
		t.Fatal(err)
	}
	sp := e.Spec()
	obs := make([]uint8, sp.ObsSize())
	differ, checked := 0, 0
	for seed := uint64(1); seed <= 2; seed++ {
		e.Reset(seed)
		rng := rand.New(rand.NewPCG(seed, 9))
		for step := 0; !e.Done() && step < 240; step++ {
			if step%23 == 0 {
				st := e.State()
				want := publicJSON(t, sp, e.Params(), st)
				var v map[string]any
				_ = json.Unmarshal(want, &v)
				if v["hand"] != nil || v["cards"] != nil || v["trains"] != nil || v["actions"] != nil || v["seat"].(float64) != Public {
					t.Fatalf("the public view carries a hand, cards or actions: %s", want)
				}
				checkPublicScene(t, g, want)
				sj, _ := st.MarshalJSON()
				twin := st
				for i := range sp.NumPlayers {
					seat := i % sp.NumPlayers
					twin.Observe(seat, obs)
					twin, err = det.Determinize(e.Params(), seat, obs, seed*7919+uint64(step*31+i), nil)
					if err != nil {
						t.Fatalf("seed %d step %d seat %d: determinize: %v", seed, step, seat, err)
					}
					if got := publicJSON(t, sp, e.Params(), twin); !bytes.Equal(got, want) {
						var a, b View
						_, _ = json.Unmarshal(want, &a), json.Unmarshal(got, &b)
						sa, _ := json.Marshal(a.Scene)
						sb, _ := json.Marshal(b.Scene)
						t.Fatalf("seed %d step %d seat %d: the public views of two positions that differ only in hidden cards differ (pictures equal: %v, scenes equal: %v):\n%s\n%s\nscenes:\n%s\n%s",
							seed, step, seat, a.Image == b.Image, bytes.Equal(sa, sb), a.Text, b.Text, sa, sb)
					}
					if tj, _ := twin.MarshalJSON(); !bytes.Equal(sj, tj) {
						differ++
					}
					checked++
				}
			}
			m := e.Mask()
			var legal []int
			for i, x := range m {
				if x != 0 {
					legal = append(legal, i)
				}
			}
			if _, err := e.Step(legal[rng.IntN(len(legal))]); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("%d twins checked, %d with other hidden cards than the true position", checked, differ)
	if differ == 0 && sp.NumPlayers > 1 {
		t.Fatalf("%s: no twin differed from the true position: the test proves nothing", sp.ID)
	}
}

// checkPublicScene fails unless the public view (JSON) of a game that
// presents itself carries a scene with nothing of one seat's: no private
// zone, no zone of one seat's alone, no private card, no move, no turn of
// the board; and a game that does not, none.
func checkPublicScene(t *testing.T, g env.Game, view []byte) {
	t.Helper()
	var v View
	if err := json.Unmarshal(view, &v); err != nil {
		t.Fatal(err)
	}
	if _, ok := g.(env.Presenter); !ok {
		if v.Scene != nil {
			t.Fatalf("%s presents nothing, yet its public view has a scene", v.Env)
		}
		return
	}
	sc := v.Scene
	if sc == nil {
		t.Fatalf("%s presents itself, yet its public view has no scene", v.Env)
	}
	if len(sc.Moves) != 0 || sc.Rotate != 0 {
		t.Fatalf("the public scene has %d moves, turns %d degrees", len(sc.Moves), sc.Rotate)
	}
	for _, z := range sc.Zones {
		if z.Private || z.ObserverOnly {
			t.Fatalf("the public scene has zone %+v", z)
		}
		for _, c := range z.Cards {
			if c.Private {
				t.Fatalf("the public scene shows private card %+v in zone %q", c, z.ID)
			}
		}
	}
}

func publicJSON(t *testing.T, sp *env.Spec, params env.Params, st env.State) []byte {
	t.Helper()
	v, err := PublicView(sp, params, st)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
