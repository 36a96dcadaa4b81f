package pilotsofgallaxia

import (
	"bytes"
	"fmt"
	"image"
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

// posOf reads a position under the default configuration of id (4 pilots
// unless the text says otherwise).
func posOf(t *testing.T, id, text string) *State {
	t.Helper()
	players := 4
	for _, tok := range strings.Fields(text) {
		if v, ok := strings.CutPrefix(tok, "players="); ok {
			players = int(v[0] - '0')
		}
	}
	s, err := ParsePosition(text, DefaultConfigOf(id, players))
	if err != nil {
		t.Fatalf("ParsePosition(%q): %v", text, err)
	}
	return s
}

// roundTrips reports whether the position reads back as itself: the same
// text and the same holder of every space (occ), which is what a raid
// fights and a move may enter.
func roundTrips(s *State) error {
	q, err := ParsePosition(s.Position(), &Config{s.cfg})
	if err != nil {
		return err
	}
	if q.Position() != s.Position() || q.occ != s.occ {
		return fmt.Errorf("read back as %s", q.Position())
	}
	return nil
}

// TestV2Defects: each rule v2 changes, in the rules' own words, played
// on v1 (which keeps its published behaviour) and on v2 (which fixes it).
func TestV2Defects(t *testing.T) {
	type check func(t *testing.T, id string, s *State)
	rows := []struct {
		rule    string
		pos     string
		actions []string
		dice    [][2]int // fixed before the last action
		v1, v2  check
	}{
		{
			rule: "L329 and A29: a starship landing on a planet may discard that planet's card for a Captain's draw; " +
				"v2 asks on every landing (pass always legal) so the phase does not tell the others what the pilot holds",
			pos:     "cur=0 p0.ships=1.r0c,1.H p0.hand=f5",
			actions: []string{"ship-1", "base-move", "to-s0-P3", "stop"},
			v1: func(t *testing.T, id string, s *State) {
				if s.phase != PhMain {
					t.Errorf("%s: no card, no decision: phase %s", id, phaseNames[s.phase])
				}
			},
			v2: func(t *testing.T, id string, s *State) {
				if s.phase != PhLand || !legal(t, s, "pass") || legal(t, s, "card-s0-P3") {
					t.Errorf("%s: landing decision with only pass legal: phase %s", id, phaseNames[s.phase])
				}
			},
		},
		{
			rule: "L99 (pieces cannot co-occupy spaces), L197 (the loser flees to the d6+d8 planet), A22: " +
				"the flee roll lands on the raider's own square",
			pos:     "cur=0 p0.ships=1.P1,1.H p1.ships=1.r0a,2.H p0.hand=deflector",
			actions: []string{"ship-1", "base-move", "raid-r1-ship-1", "card-deflector", "no-card", "stop"},
			dice:    [][2]int{{6, 1}, {6, 1}, {6, 1}, {8, 1}}, // raider 1+9, defender 1; flee to 1.P1
			v1: func(t *testing.T, id string, s *State) {
				if s.pos[0] != s.pos[3] || s.occ[s.pos[0]] != 1 {
					t.Errorf("%s: the defender fled onto the raider's 1.P1, which the raider holds (the published behaviour): %s", id, s.Position())
				}
				if err := roundTrips(s); err != nil {
					t.Errorf("%s: %v", id, err)
				}
			},
			v2: func(t *testing.T, id string, s *State) {
				if s.pos[0] == s.pos[3] || s.pos[0] != sp(t, "1.P1") {
					t.Errorf("%s: two pieces on one space: %s", id, s.Position())
				}
				if err := roundTrips(s); err != nil {
					t.Errorf("%s: %v", id, err)
				}
			},
		},
		{
			rule: "L99 and A13: a move that stops on an occupied space ends on the last free space it passed; " +
				"the defender fled there in the meantime",
			pos: "cur=0 p0.ships=1.P1,1.H p2.ships=1.r0a,4.H p1.ships=1.r0b,2.H p0.hand=deflector,f5",
			actions: []string{"ship-1", "card-f5", "to-s0-r0a", "no-claim", "raid-r1-ship-1", "card-deflector", "no-card",
				"stop"},
			dice: [][2]int{{6, 1}, {6, 1}, {6, 1}, {8, 1}},
			v1: func(t *testing.T, id string, s *State) {
				if s.pos[0] != s.pos[3] || s.occ[s.pos[0]] != 1 {
					t.Errorf("%s: the raider fell back onto the fled defender and holds the space (the published behaviour): %s", id, s.Position())
				}
				if err := roundTrips(s); err != nil {
					t.Errorf("%s: %v", id, err)
				}
			},
			v2: func(t *testing.T, id string, s *State) {
				if s.pos[0] == s.pos[3] || s.pos[0] != sp(t, "1.P1") {
					t.Errorf("%s: two pieces on one space: %s", id, s.Position())
				}
				if err := roundTrips(s); err != nil {
					t.Errorf("%s: %v", id, err)
				}
			},
		},
		{
			rule: "L165 (BLOKK spaces stop other pilots), L119 and A17: a slide-off never lands on another pilot's " +
				"BLOKK; with no space to slide onto the piece goes back to the last free space it passed",
			pos:     "cur=0 p0.ships=1.t1,1.H p2.ships=4.t1,4.H car=4.t2:2!",
			actions: []string{"ship-1", "base-move", "to-s0-T"},
			dice:    [][2]int{{6, 4}},
			v1: func(t *testing.T, id string, s *State) {
				if s.pos[0] != sp(t, "4.t2") {
					t.Errorf("%s: slid onto the BLOKK (the published behaviour): %s", id, s.Position())
				}
			},
			v2: func(t *testing.T, id string, s *State) {
				if s.pos[0] != sp(t, "1.t1") || s.phase != PhMain {
					t.Errorf("%s: back to 1.t1: %s", id, s.Position())
				}
			},
		},
		{
			rule:    "L165 and L119: of the two slide-off spaces, another pilot's BLOKK is not one to slide onto",
			pos:     "cur=0 p0.ships=1.t1,1.H car=4.t2:2!",
			actions: []string{"ship-1", "base-move", "to-s0-T"},
			dice:    [][2]int{{6, 4}},
			v1: func(t *testing.T, id string, s *State) {
				if s.phase != PhSlide {
					t.Errorf("%s: both spaces offered (the published behaviour): %s", id, s.Position())
				}
			},
			v2: func(t *testing.T, id string, s *State) {
				if s.at != sp(t, "4.t1") || s.phase != PhClaim {
					t.Errorf("%s: slid onto 4.t1, the only space not BLOKKed: %s", id, s.Position())
				}
			},
		},
		{
			rule:    "L183 and L98: a raid is fought from a space on the board, never from inside one's own hangar",
			pos:     "cur=0 p0.ships=1.H,1.H p1.ships=1.P1,2.H",
			actions: []string{"ship-1", "base-move"},
			v1: func(t *testing.T, id string, s *State) {
				if !legal(t, s, "raid-r1-ship-1") {
					t.Errorf("%s: raid from the hangar (the published behaviour)", id)
				}
			},
			v2: func(t *testing.T, id string, s *State) {
				if legal(t, s, "raid-r1-ship-1") {
					t.Errorf("%s: raid from inside the hangar", id)
				}
				play(t, s, "to-s0-P2")
				if !legal(t, s, "stop") {
					t.Errorf("%s: the move goes on", id)
				}
			},
		},
	}
	for i, r := range rows {
		for _, id := range []string{IDv1, ID} {
			s := posOf(t, id, r.pos)
			n := len(r.actions)
			if r.dice != nil {
				// The dice are fixed before the action that rolls them:
				// the raid's reveal (the defender's card) or the Teleprism.
				last := n - 1
				if r.actions[n-1] == "stop" {
					last = n - 2
				}
				play(t, s, r.actions[:last]...)
				dice(t, s, r.dice...)
				play(t, s, r.actions[last:]...)
			} else {
				play(t, s, r.actions...)
			}
			if id == IDv1 {
				r.v1(t, id, s)
			} else {
				r.v2(t, id, s)
			}
			if t.Failed() {
				t.Fatalf("row %d, rule: %s", i, r.rule)
			}
		}
	}
}

// TestLandingHiddenInformation: twins that differ only in pilot 0's hand
// (the card of the planet it lands on, or another card) play the same
// actions. In v2 pilot 1 observes the same bytes, text and rgb renders,
// current player and phase after every step; in v1 the landing decision
// shows pilot 1 that pilot 0 holds the card.
func TestLandingHiddenInformation(t *testing.T) {
	twins := [2]string{"cur=0 p0.ships=1.r0c,1.H p0.hand=1.P3,f5 deck=f3,f4,f6",
		"cur=0 p0.ships=1.r0c,1.H p0.hand=2.P5,f5 deck=f3,f4,f6"}
	actions := []string{"ship-1", "base-move", "to-s0-P3", "stop", "pass", "end-moves"}
	for _, id := range []string{IDv1, ID} {
		a, b := posOf(t, id, twins[0]), posOf(t, id, twins[1])
		oa, ob := make([]uint8, ObsSize), make([]uint8, ObsSize)
		differ := -1
		for i := 0; i <= len(actions); i++ {
			a.Observe(1, oa)
			b.Observe(1, ob)
			w, h := a.RenderSize()
			ia, ib := image.NewRGBA(image.Rect(0, 0, w, h)), image.NewRGBA(image.Rect(0, 0, w, h))
			a.Render(ia)
			b.Render(ib)
			if !bytes.Equal(oa, ob) || a.String() != b.String() || a.CurrentPlayer() != b.CurrentPlayer() ||
				a.phase != b.phase || !bytes.Equal(ia.Pix, ib.Pix) {
				differ = i
				break
			}
			if i == len(actions) {
				break
			}
			name := actions[i]
			if name == "pass" && !legal(t, a, "pass") {
				continue // v1 without the card: no decision
			}
			play(t, a, name)
			play(t, b, name)
		}
		switch {
		case id == ID && differ >= 0:
			t.Errorf("%s: pilot 1's view of the twins differs after %d steps", id, differ)
		case id == IDv1 && differ != 4:
			t.Errorf("%s: the landing decision should show pilot 1 the card (step 4), differs at %d", id, differ)
		}
	}
}

// TestPositionErrorsQuote: errors quote the position's text in printable
// ASCII and cut it short, whatever the input.
func TestPositionErrorsQuote(t *testing.T) {
	for _, text := range []string{"p0.ships=\x00\x01\xff" + strings.Repeat("x", 5000), "k\x1b[31m=v", "\xc3\x28=1",
		"p0.\x07bell=1", "p0.ships=" + strings.Repeat("é", 500), "players=\x00"} {
		_, err := ParsePosition(text, nil)
		if err == nil {
			t.Fatalf("%q accepted", text)
		}
		msg := err.Error()
		if len(msg) > 200 {
			t.Errorf("error of %d bytes: %.80s...", len(msg), msg)
		}
		for _, c := range []byte(msg) {
			if c < 0x20 || c > 0x7e {
				t.Errorf("error %q holds byte %#x", msg, c)
				break
			}
		}
	}
}

// TestV1SharedSpace: v1 reaches positions where two pieces share a space
// (TestV2Defects' flee rows); its notation writes and reads them, which
// piece holds the space included (the occ token, written only where the
// game's record differs from the rule holdOcc rebuilds it by), and a
// position rebuilt from each pilot's observation shows that pilot the same
// bytes and the same legal actions. v2 refuses them.
func TestV1SharedSpace(t *testing.T) {
	s := posOf(t, IDv1, "cur=0 p0.ships=1.P1,1.H p1.ships=1.r0a,2.H p0.hand=deflector")
	play(t, s, "ship-1", "base-move", "raid-r1-ship-1", "card-deflector")
	dice(t, s, [2]int{6, 1}, [2]int{6, 1}, [2]int{6, 1}, [2]int{8, 1})
	play(t, s, "no-card", "stop")
	p1 := sp(t, "1.P1")
	if s.pos[0] != p1 || s.pos[3] != p1 || s.occ[p1] != 1 {
		t.Fatalf("the raider 0.0 and the fled 1.0 on 1.P1, the raider holding it: %s", s.Position())
	}
	if strings.Contains(s.Position(), " occ=") {
		t.Errorf("the holder is the rule's (the pilot to move, the last to arrive): no occ token: %s", s.Position())
	}
	params, _ := specV1.Resolve(map[string]any{"players": 4})
	obs, obs2 := make([]uint8, ObsSize), make([]uint8, ObsSize)
	for p := 0; p < 4; p++ {
		s.Observe(p, obs)
		d, err := Game{v1: true}.Determinize(params, p, obs, 7, nil)
		if err != nil {
			t.Fatalf("pilot %d: %v", p, err)
		}
		ds := d.(*State)
		ds.Observe(p, obs2)
		if !bytes.Equal(obs, obs2) || ds.occ != s.occ || ds.CurrentPlayer() != s.CurrentPlayer() {
			t.Errorf("pilot %d: the rebuilt position differs: %s", p, ds.Position())
		}
		m, dm := make([]uint8, NumActions), make([]uint8, NumActions)
		s.LegalMask(m)
		ds.LegalMask(dm)
		if p == s.CurrentPlayer() && !bytes.Equal(m, dm) {
			t.Errorf("pilot %d: the rebuilt position's legal actions differ", p)
		}
	}

	// A uniformly random three-pilot v1 game (seed 1657) that reaches a
	// shared space, as the page's browser test once did: every pilot's
	// observation rebuilds at every step.
	sharedSteps := 0
	randomPositions(t, IDv1, map[string]any{"players": 3}, 1657, 1<<20, func(e *env.Env) {
		s := e.State().(*State)
		if s.pos[3] == s.pos[8] && s.occ[s.pos[3]] == 9 {
			sharedSteps++
		}
		for p := 0; p < 3; p++ {
			s.Observe(p, obs)
			if _, err := (Game{v1: true}).Determinize(e.Params(), p, obs, 7, nil); err != nil {
				t.Fatalf("step %d pilot %d: %v", e.Steps(), p, err)
			}
		}
	})
	if sharedSteps == 0 {
		t.Error("seed 1657 no longer puts 1.0 and 2.2 on one space, held by 2.2: pick another game")
	}

	// The game's record where the rule cannot know it: the holder left
	// (none holds the space) or another piece holds it.
	shared := "cur=2 p0.ships=1.P1,1.H p1.ships=1.P1,2.H "
	for _, occ := range []string{"1.P1:-", "1.P1:1.0"} {
		s := posOf(t, IDv1, shared+"occ="+occ)
		if !strings.Contains(s.Position(), " occ="+occ+" ") {
			t.Errorf("occ=%s not written back: %s", occ, s.Position())
		}
		if err := roundTrips(s); err != nil {
			t.Errorf("occ=%s: %v", occ, err)
		}
	}
	if s := posOf(t, IDv1, shared); s.occ[p1] != 1 || strings.Contains(s.Position(), " occ=") {
		t.Errorf("no pilot to move among them: the first piece holds the space: %s", s.Position())
	}
	for _, bad := range []struct{ id, text, want string }{
		{ID, shared, "share 1.P1"},
		{ID, shared + "occ=1.P1:1.0", "share 1.P1"},
		{ID, "cur=0 p0.ships=1.P1,1.H occ=1.P1:0.0", "only v1"},
		{IDv1, shared + "occ=1.P2:-", "no piece stands on 1.P2"},
		{IDv1, shared + "occ=1.P1:2.0", "piece 2.0 is not on 1.P1"},
		{IDv1, shared + "occ=1.P1", "bad occ entry"},
	} {
		_, err := ParsePosition(bad.text, DefaultConfigOf(bad.id, 4))
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s %q: error %v, want %q", bad.id, bad.text, err, bad.want)
		}
	}
}
