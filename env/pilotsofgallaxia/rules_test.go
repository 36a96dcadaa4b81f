package pilotsofgallaxia

import (
	"slices"

	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

// pos reads a position (4 pilots unless the text says otherwise).
func pos(t *testing.T, text string) *State {
	t.Helper()
	s, err := ParsePosition(text, nil)
	if err != nil {
		t.Fatalf("ParsePosition(%q): %v", text, err)
	}
	return s
}

// actionID returns the action named name.
func actionID(t *testing.T, name string) int {
	t.Helper()
	i := slices.Index(actionNames, name)
	if i < 0 {
		t.Fatalf("no action %q", name)
	}
	return i
}

// legal reports whether the action named name is legal now.
func legal(t *testing.T, s *State, name string) bool {
	t.Helper()
	m := make([]uint8, NumActions)
	s.LegalMask(m)
	return m[actionID(t, name)] == 1
}

// play plays the named actions (in the acting pilot's frame), failing on
// an illegal one, and returns the summed rewards.
func play(t *testing.T, s *State, names ...string) []float64 {
	t.Helper()
	r := make([]float64, s.cfg.players)
	for _, n := range names {
		if !legal(t, s, n) {
			m := make([]uint8, NumActions)
			s.LegalMask(m)
			var ok []string
			for a, v := range m {
				if v == 1 {
					ok = append(ok, actionNames[a])
				}
			}
			t.Fatalf("%s is not legal; legal: %v\n%s", n, ok, s.Position())
		}
		s.Apply(actionID(t, n), r)
	}
	return r
}

// dice reseeds the generator of s so that its next rolls are the given
// (sides, value) pairs, in order.
func dice(t *testing.T, s *State, rolls ...[2]int) {
	t.Helper()
	for x := uint64(0); x < 1<<22; x++ {
		c := *s
		c.rng.Seed(x, rngStream)
		ok := true
		for _, r := range rolls {
			if c.intN(r[0])+1 != r[1] {
				ok = false
				break
			}
		}
		if ok {
			s.rng.Seed(x, rngStream)
			return
		}
	}
	t.Fatalf("no generator seed gives %v", rolls)
}

func sp(t *testing.T, name string) int16 {
	t.Helper()
	id, ok := Space(name)
	if !ok {
		t.Fatalf("no space %q", name)
	}
	return int16(id)
}

func TestBoardSymmetry(t *testing.T) {
	b := theBoard
	for id := 0; id < NumSpaces; id++ {
		r := rotate(id, 1)
		if b.kind[r] != b.kind[id] || b.number[r] != b.number[id] || b.local[r] != b.local[id] {
			t.Fatalf("%s and %s differ", b.names[id], b.names[r])
		}
		var n1, n2 []int
		for _, y := range b.adj[id][:b.deg[id]] {
			n1 = append(n1, rotate(int(y), 1))
		}
		for _, y := range b.adj[r][:b.deg[r]] {
			n2 = append(n2, int(y))
		}
		slices.Sort(n1)
		slices.Sort(n2)
		if !slices.Equal(n1, n2) {
			t.Fatalf("neighbours of %s turned by a sektor: %v, of %s: %v", b.names[id], n1, b.names[r], n2)
		}
		if (b.routeOf[id] < 0) != (b.routeOf[r] < 0) {
			t.Fatalf("route membership of %s and %s differs", b.names[id], b.names[r])
		}
	}
	for r := range b.routes {
		rr := b.routes[b.routeRot[r][1]]
		if int(rr.a) != rotate(int(b.routes[r].a), 1) || int(rr.b) != rotate(int(b.routes[r].b), 1) {
			t.Fatalf("route %d does not turn onto a route", r)
		}
	}
	// The rules document's figures: 20 spaces from home to the hostage.
	if d := Dist(Hangar(0), Planet(3, 4)); d != 20 {
		t.Errorf("home to the opposite P4: %d spaces, the rules say 20", d)
	}
	if b.kind[Lair(0)] != KindLair || b.deg[Lair(0)] != 0 {
		t.Errorf("the LAIR must be off the graph")
	}
}

// A planet card warps a ship onto its planet, which picks up the hostage
// there (L56, L175); with a scientist aboard, only to P2 of the card's
// sektor (L105, L179).
func TestWarp(t *testing.T) {
	s := pos(t, "cur=0 p0.hand=4.P4,3.P5")
	play(t, s, "ship-1", "card-s3-P4")
	if s.pos[0] != sp(t, "4.P4") || s.cargo[0] != 1 {
		t.Fatalf("warp to 4.P4: ship at %s, cargo %d", SpaceName(int(s.pos[0])), s.cargo[0])
	}
	if s.phase != PhMain || s.moved != 1 || s.handN[0] != 1 {
		t.Fatalf("after the warp: phase %s moved %d hand %d", phaseNames[s.phase], s.moved, s.handN[0])
	}
	if legal(t, s, "ship-1") {
		t.Fatal("a ship moves once per turn")
	}
	play(t, s, "ship-2")
	if legal(t, s, "card-s2-P5") {
		// ship 2 carries no scientist: 3.P5 is allowed
	} else {
		t.Fatal("ship 2 may warp to 3.P5")
	}
	s = pos(t, "cur=0 p0.hand=3.P5 p0.ships=4.P6,1.H rings=0@ship:0.0,1@5.P4,2@1.P4,3@2.P4")
	play(t, s, "ship-1", "card-s2-P5")
	if s.pos[0] != sp(t, "3.P2") {
		t.Fatalf("a ship with a scientist warps to P2 of the card's sektor, got %s", SpaceName(int(s.pos[0])))
	}
	// An occupied planet cannot be warped to.
	s = pos(t, "cur=0 p0.hand=4.P4 p1.ships=4.P4,2.H")
	play(t, s, "ship-1")
	if legal(t, s, "card-s3-P4") {
		t.Fatal("warp onto an occupied planet")
	}
}

// The base move, bypassing, the last free space (A13), delivery at home (L34).
func TestMoveAndDeliver(t *testing.T) {
	s := pos(t, "cur=0 p0.ships=1.P2,1.H rings=0@ship:0.0,1@5.P4,2@1.P4,3@2.P4")
	r := play(t, s, "ship-1", "base-move", "to-s0-H")
	if !s.over || s.winner != 0 || r[0] != 1 || r[1] != -1 || r[3] != -1 {
		t.Fatalf("delivery: over %v winner %d rewards %v", s.over, s.winner, r)
	}
	// Bypass: a ship passes another but cannot stop on it; stopping there
	// ends on the last free space passed.
	s = pos(t, "cur=0 p0.ships=1.P1,1.H p1.ships=1.r0a,2.H")
	play(t, s, "ship-1", "base-move", "to-s0-r0a", "no-claim")
	if s.budget != 1 || s.at != sp(t, "1.r0a") {
		t.Fatalf("bypass: at %s budget %d", SpaceName(int(s.at)), s.budget)
	}
	play(t, s, "stop")
	if s.pos[0] != sp(t, "1.P1") {
		t.Fatalf("stopping on an occupied space ends on the last free one: %s", SpaceName(int(s.pos[0])))
	}
	// Opponent hangars cannot be entered (L98).
	s = pos(t, "cur=0 p0.ships=2.P1,1.H")
	play(t, s, "ship-1", "base-move")
	if legal(t, s, "to-s1-H") {
		t.Fatal("entered an opponent's hangar")
	}
}

// Claims (L72), quickroutes (L76): 1 point for the owner, 2 for others, not
// for others through a BLOKK (L165).
func TestQuickrouteAndBlokk(t *testing.T) {
	s := pos(t, "cur=0 p0.ships=1.P1,1.H p0.hand=f4")
	play(t, s, "ship-1", "card-f4", "to-s0-r0a", "claim", "to-s0-r0b", "claim-blokk", "to-s0-r0c", "claim", "stop")
	if s.car[sp(t, "1.r0a")] != 1 || !s.blokk[sp(t, "1.r0b")] || s.carLeft[0] != 9 || s.blkLeft[0] != 1 {
		t.Fatalf("claims: %s", s.Position())
	}
	owner := "car=1.r0a:0,1.r0b:0,1.r0c:0 "
	s = pos(t, owner+"cur=0 p0.ships=1.P1,1.H")
	play(t, s, "ship-1", "base-move", "to-s0-P3")
	if s.budget != 1 || s.at != sp(t, "1.P3") {
		t.Fatalf("owner's quickroute costs 1: budget %d at %s", s.budget, SpaceName(int(s.at)))
	}
	s = pos(t, owner+"cur=1 p1.ships=1.P1,2.H")
	play(t, s, "ship-1", "base-move", "to-s5-P3")
	if s.phase != PhMain || s.pos[3] != sp(t, "1.P3") {
		t.Fatalf("another pilot's quickroute costs 2: phase %s at %s", phaseNames[s.phase], SpaceName(int(s.pos[3])))
	}
	s = pos(t, "car=1.r0a:0,1.r0b:0!,1.r0c:0 cur=1 p1.ships=1.P1,2.H p1.hand=f5")
	play(t, s, "ship-1", "card-f5")
	if legal(t, s, "to-s5-P3") {
		t.Fatal("another pilot took a quickroute with a BLOKK")
	}
	play(t, s, "to-s5-r0a")
	if legal(t, s, "to-s5-r0b") {
		t.Fatal("another pilot entered a BLOKK space")
	}
}

// Teleprisms (L111-L119): the d6 picks the sektor; the same sektor pays the
// PRISM BONUS of 2 cards; the piece slides off onto a caravan space.
func TestTeleprism(t *testing.T) {
	s := pos(t, "cur=0 p0.ships=1.t1,1.H")
	play(t, s, "ship-1", "base-move")
	dice(t, s, [2]int{6, 1})
	play(t, s, "to-s0-T")
	if s.phase != PhSlide || s.handN[0] != 2 {
		t.Fatalf("prism bonus: phase %s hand %d", phaseNames[s.phase], s.handN[0])
	}
	play(t, s, "to-s0-t2", "no-claim")
	if s.pos[0] != sp(t, "1.t2") || s.phase != PhMain || s.teleports != 1 {
		t.Fatalf("slide-off: %s", s.Position())
	}
	s = pos(t, "cur=0 p0.ships=1.t1,1.H p2.ships=4.t1,4.H")
	play(t, s, "ship-1", "base-move")
	dice(t, s, [2]int{6, 4})
	play(t, s, "to-s0-T", "claim")
	if s.pos[0] != sp(t, "4.t2") || s.handN[0] != 0 || s.car[sp(t, "4.t2")] != 1 {
		t.Fatalf("teleport to sektor 4, one free slide-off space, claimed: %s", s.Position())
	}
}

// Raids (L183-L201): ties favour the defender; the loser draws and flees to
// the d6+d8 planet; a scientist aboard is stranded on the raid space; the
// winner takes the loser's card or draws.
func TestRaid(t *testing.T) {
	base := "cur=0 p0.ships=1.P1,1.H p1.ships=1.r0a,2.H "
	s := pos(t, base+"p0.hand=f5 p1.hand=f4 deck=f3,f6,f7")
	play(t, s, "ship-1", "base-move", "raid-r1-ship-1", "card-f5")
	if s.CurrentPlayer() != 1 || s.phase != PhRaidD || s.handN[0] != 1 {
		t.Fatalf("the defender chooses next; the raider's hand still counts its card: %s", s.Position())
	}
	dice(t, s, [2]int{6, 3}, [2]int{6, 4}, [2]int{6, 2}, [2]int{8, 7})
	play(t, s, "card-f4") // 3+5 = 8 against 4+4 = 8: the defender wins
	if s.rwin || s.pos[0] != sp(t, "2.P7") || s.handN[0] != 1 {
		t.Fatalf("tie to the defender, the raider flees to 2.P7 with a drawn card: %s", s.Position())
	}
	if s.CurrentPlayer() != 1 || s.phase != PhRaidWin {
		t.Fatalf("the winner chooses its spoils")
	}
	play(t, s, "take-card")
	if s.hand[1][KindFuel+2] != 1 || s.phase != PhMain || s.CurrentPlayer() != 0 {
		t.Fatalf("the defender took the f5: %s", s.Position())
	}
	// The raider wins; the defender's scientist is stranded; the raider
	// goes on with its points (L183).
	s = pos(t, base+"rings=0@4.P4,1@ship:1.0,2@1.P4,3@2.P4 p0.hand=f5")
	play(t, s, "ship-1", "base-move", "raid-r1-ship-1", "no-card")
	dice(t, s, [2]int{6, 6}, [2]int{6, 1}, [2]int{6, 5}, [2]int{8, 1})
	play(t, s, "no-card")
	if !s.rwin || s.cargo[3] != 0 || s.ringAt[1] != sp(t, "1.r0a") || s.pos[3] != sp(t, "5.P1") {
		t.Fatalf("stranded scientist, defender fled to 5.P1: %s", s.Position())
	}
	if s.phase != PhPath || s.budget != 1 {
		t.Fatalf("the victor moves on: phase %s budget %d", phaseNames[s.phase], s.budget)
	}
	if legal(t, s, "raid-r1-ship-2") {
		t.Fatal("one raid per move")
	}
}

// Durriken (L205-L215): hired, warped by a Durriken card to any planet of
// its value, destroying the trade routes there, BLOKKs included.
func TestDurriken(t *testing.T) {
	s := pos(t, "cur=0 p0.hand=d3 car=2.r0b:1,2.r2a:2!,2.r2b:2,2.r1a:3")
	if legal(t, s, "durriken") {
		t.Fatal("an unhired Durriken moved")
	}
	play(t, s, "hire", "durriken", "card-d3", "to-s1-P3")
	if s.pos[2] != sp(t, "2.P3") || !s.deployed[0] {
		t.Fatalf("Durriken warp: %s", s.Position())
	}
	if s.car[sp(t, "2.r0b")] != 0 || s.car[sp(t, "2.r2a")] != 0 || s.blokk[sp(t, "2.r2a")] || s.car[sp(t, "2.r2b")] != 0 {
		t.Fatalf("routes at 2.P3 survive: %s", s.Position())
	}
	if s.car[sp(t, "2.r1a")] != 4 || s.carLeft[2] != 12 || s.blkLeft[2] != 2 {
		t.Fatalf("caravans go back to their supplies; 2.r1a is not at 2.P3: %s", s.Position())
	}
	// A deployed Durriken has a base move of 3.
	s = pos(t, "cur=0 p0.hired=1 p0.deployed=1 p0.dur=2.P3")
	play(t, s, "durriken", "base-move")
	if s.budget != 3 {
		t.Fatalf("Durriken base move %d", s.budget)
	}
}

// The Gambit (L131-L143): a right guess goes on, a tie is a push, a wrong
// guess loses the cards up and draws one.
func TestGambit(t *testing.T) {
	s := pos(t, "cur=0 deck=f5,f5,f8")
	play(t, s, "end-moves", "higher")
	if s.phase != PhPush {
		t.Fatalf("a tie is a push: %s", phaseNames[s.phase])
	}
	if legal(t, s, "higher") {
		t.Fatal("no guess after a push")
	}
	play(t, s, "take")
	if s.hand[0][KindFuel+2] != 2 || s.cur != 1 {
		t.Fatalf("push taken: %s", s.Position())
	}
	s = pos(t, "cur=0 deck=f5,d3,f8")
	play(t, s, "end-moves", "higher")
	if s.handN[0] != 1 || s.hand[0][KindFuel+5] != 1 || s.disc[KindFuel+2] != 1 || s.cur != 1 {
		t.Fatalf("a wrong guess loses the cards up and draws one: %s", s.Position())
	}
	s = pos(t, "cur=0 deck=f3,f5,f8")
	play(t, s, "end-moves", "higher", "higher")
	if s.handN[0] != 3 || s.cur != 1 {
		t.Fatalf("three right: %s", s.Position())
	}
	s = pos(t, "cur=0 deck=f3,f3")
	play(t, s, "end-moves", "lower", "cash-in")
	if s.handN[0] != 1 || s.hand[0][KindAfterburner]+s.hand[0][KindDeflector]+s.hand[0][KindSalvage] != 1 {
		t.Fatalf("a push cashed in for a Captain's Card: %s", s.Position())
	}
}

// The Rekkoning (L147-L151): everyone discards down to 5; in The Gambit the
// pilot loses the cards up and draws one.
func TestRekkoning(t *testing.T) {
	s := pos(t, "cur=0 deck=f4,R,f8 p1.hand=f3,f3,f4,f5,f6,f7,d1")
	play(t, s, "end-moves", "higher")
	if s.handN[0] != 1 || s.hand[0][KindFuel+5] != 1 {
		t.Fatalf("Gambit Rekkoning: the cards up are lost, one drawn: %s", s.Position())
	}
	if s.CurrentPlayer() != 1 || s.discarder != 1 {
		t.Fatalf("pilot 1 with 7 cards must discard: %s", s.Position())
	}
	play(t, s, "card-d1", "card-f3")
	if s.handN[1] != 5 || s.rekk || s.CurrentPlayer() != 1 || s.phase != PhMain {
		t.Fatalf("after the discards pilot 1 plays its turn: %s", s.Position())
	}
	// In a battle the raider wins and the turn ends: the Durriken's
	// random card is the Rekkoning.
	s = pos(t, "cur=0 p0.hired=1 p0.deployed=1 p0.dur=1.P1 p1.ships=1.r0a,2.H deck=R,f3,f4")
	play(t, s, "durriken", "base-move", "raid-r1-ship-1", "no-card")
	dice(t, s, [2]int{6, 1}, [2]int{6, 6}, [2]int{6, 1}, [2]int{8, 1})
	play(t, s, "no-card")
	if s.cur != 1 || s.pos[3] == sp(t, "1.r0a") || s.rekkonings != 1 {
		t.Fatalf("Rekkoning in a battle: the raider wins, the turn ends: %s", s.Position())
	}
}

// Captain's Cards (L323-L329): a planet card or two fuel cards buy a draw,
// once a turn (A12); landing on a planet whose card is in hand.
func TestCaptainsCards(t *testing.T) {
	s := pos(t, "cur=0 p0.hand=f3,f4,2.P2 cdeck=salvage,afterburner")
	play(t, s, "card-f3", "card-f4")
	if s.hand[0][KindSalvage] != 1 || !s.bought {
		t.Fatalf("two fuel cards bought a Captain's Card: %s", s.Position())
	}
	if legal(t, s, "card-s1-P2") {
		t.Fatal("a second purchase in one turn")
	}
	play(t, s, "card-salvage")
	if s.handN[0] != 3 {
		t.Fatalf("Salvage draws 2: %s", s.Position())
	}
	s = pos(t, "cur=0 p0.ships=1.r0c,1.H p0.hand=1.P3 cdeck=deflector")
	play(t, s, "ship-1", "base-move", "to-s0-P3", "stop", "card-s0-P3")
	if s.hand[0][KindDeflector] != 1 || s.hand[0][planetCard(int(sp(t, "1.P3")))] != 0 {
		t.Fatalf("landing discard: %s", s.Position())
	}
}

// A New Life (L253-L307): countdown points for a trade route between
// planets in hand, picking up and bringing home one's scientist, a raid won.
func TestANewLife(t *testing.T) {
	c := DefaultConfig(4)
	c.c.mode = ModeANewLife
	s, err := ParsePosition("mode=a_new_life cur=0 p0.ships=1.r0b,1.H p0.hand=1.P1,1.P3,f3 car=1.r0a:0,1.r0c:0", c)
	if err != nil {
		t.Fatal(err)
	}
	r := play(t, s, "ship-1", "card-f3", "to-s0-r0a", "to-s0-r0b", "claim")
	if s.points[0] != 4 || r[0] != 4 || s.routeScored[theBoard.routeOf[sp(t, "1.r0a")]] != 1 {
		t.Fatalf("a completed trade route between planets in hand scores 4: %s", s.Position())
	}
	if !strings.Contains(s.Position(), "scored=0:0") {
		t.Fatalf("scored route missing from the notation: %s", s.Position())
	}
}

// The notation writes every position back identically.
func TestPositionRoundTrip(t *testing.T) {
	for _, params := range []map[string]any{{"players": 3, "hideouts": true}, {"players": 6, "mode": "a_new_life"}} {
		for _, id := range []string{IDv1, ID} {
			randomPositions(t, id, params, 5, 2000, func(e *env.Env) {
				s := e.State().(*State)
				c, _ := NewConfigOf(id, e.Params())
				back, err := ParsePosition(s.Position(), c)
				if err != nil {
					t.Fatalf("%v\n%s", err, s.Position())
				}
				if back.Position() != s.Position() {
					t.Fatalf("round trip differs:\n%s\n%s", s.Position(), back.Position())
				}
			})
		}
	}
}
