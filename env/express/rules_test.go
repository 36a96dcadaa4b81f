package express

import (
	"slices"
	"strings"
	"testing"
)

// pos parses a position for players under the default parameters (with
// more by key=value pairs in opts, e.g. "freight_scoring=progressive").
func pos(t *testing.T, players int, text string, opts ...string) *State {
	t.Helper()
	cfg := DefaultConfig(players)
	for _, o := range opts {
		k, v, _ := strings.Cut(o, "=")
		switch k {
		case "freight_scoring":
			cfg.c.progressive = v == "progressive"
		case "hand_only":
			cfg.c.handOnly = v == "true"
		case "reshuffles":
			cfg.c.reshuffles = int(v[0] - '0')
		default:
			t.Fatalf("option %q", o)
		}
	}
	s, err := ParsePosition(text, cfg)
	if err != nil {
		t.Fatalf("ParsePosition: %v\n%s", err, text)
	}
	return s
}

// legal returns the names of the legal actions.
func legal(s *State) []string {
	mask := make([]uint8, NumActions)
	s.LegalMask(mask)
	var out []string
	for a, m := range mask {
		if m == 1 {
			out = append(out, actionNames[a])
		}
	}
	return out
}

func isLegal(s *State, name string) bool { return slices.Contains(legal(s), name) }

// act plays the named action, which must be legal, and returns the rewards.
func act(t *testing.T, s *State, name string) []float64 {
	t.Helper()
	a := slices.Index(actionNames, name)
	if a < 0 {
		t.Fatalf("no action %q", name)
	}
	if !isLegal(s, name) {
		t.Fatalf("%s is not legal; legal: %v\n%s", name, legal(s), s.Position())
	}
	r := make([]float64, s.n)
	s.Apply(a, r)
	return r
}

// A position after the first round, player 0 in the meld phase.
const meldHead = "express hand=0 turns=4 hturns=4 cur=0 phase=meld\ndeck cards=...\n"

// played marks players 1..n-1 as having completed a turn (player 0's line
// says it for player 0).
func played(n int) string { return playedBut(n, "") }

// playedBut is played without the player lines that text gives itself.
func playedBut(n int, text string) string {
	var b strings.Builder
	for i := 1; i < n; i++ {
		head := "p" + string(rune('0'+i)) + " "
		if !strings.Contains(text, head) {
			b.WriteString(head + "played=1\n")
		}
	}
	return b.String() + text
}

// TestWildFirstNeedsSecondCar: a Wild played first is a specific type and
// a second car must follow at once (seed).
func TestWildFirstNeedsSecondCar(t *testing.T) {
	s := pos(t, 4, meldHead+"p0 played=1 hand=WD,AU,BX,BR\np1 played=1\np2 played=1\np3 played=1\n")
	act(t, s, "start-BR")
	if got := legal(s); !slices.Contains(got, "wild-t0-AU") || !slices.Contains(got, "wild-t0-BX") ||
		slices.Contains(got, "wild-t0-TK") || slices.Contains(got, "discard-AU") || slices.Contains(got, "wild-t0-undeclared") {
		t.Fatalf("after a locomotive: legal %v", got)
	}
	act(t, s, "wild-t0-AU")
	if got := legal(s); !slices.Equal(got, []string{"add-t0-AU"}) {
		t.Fatalf("a Wild first as AU: legal %v, want only the second Auto Carrier", got)
	}
	act(t, s, "add-t0-AU")
	if !isLegal(s, "discard-BX") {
		t.Fatalf("after the second car the turn may end: %v", legal(s))
	}
}

// TestTransitionNeedsTwoCars: a Wild in second position is a specific
// (matching) car; an undeclared Wild, which may become a transition, only
// on a train of two or more cars (seed).
func TestTransitionNeedsTwoCars(t *testing.T) {
	s := pos(t, 4, meldHead+playedBut(4, "p0 played=1 hand=WD,WD,TK\np0.t0 loco=BX cars=AU\np0.t1 loco=BX cars=BX,BX\n"))
	got := legal(s)
	if !slices.Contains(got, "wild-t0-AU") || slices.Contains(got, "wild-t0-undeclared") || slices.Contains(got, "add-t0-TK") {
		t.Fatalf("one-car train: legal %v", got)
	}
	if !slices.Contains(got, "wild-t1-undeclared") || slices.Contains(got, "wild-t1-BX") || slices.Contains(got, "add-t1-TK") {
		t.Fatalf("two-car train: legal %v", got)
	}
	act(t, s, "wild-t1-undeclared")
	if !isLegal(s, "add-t1-TK") {
		t.Fatalf("an undeclared Wild may be covered by another type: %v", legal(s))
	}
	act(t, s, "add-t1-TK")
	if tr := s.pl[0].trains[1]; carsText(&tr) != "BX,BX,WD>,TK" || !s.trans {
		t.Fatalf("train %s, transition flag %v", carsText(&tr), s.trans)
	}
}

// goOutPos: player 0 holds a Wild and a Tank Car, trains of 5 and 4 cars
// and a 2-car Box train; with the Wild and the Tank Car on the Box train
// (3+2 cars) the hand is empty.
const goOutPos = meldHead + `p0 played=1 hand=WD,TK
p0.t0 loco=BX cars=AU,AU,AU,AU,AU
p0.t1 loco=BX cars=RF,RF,RF,RF
p0.t2 loco=BX cars=BX,BX
p1 played=1
p2 played=1
p3 played=1
`

// TestNoGoingOutOnTransitionTurn: no going out on the turn a Wild is played
// as a transition (seed, competitive rule); a Wild played earlier may be
// used as a transition and the player goes out.
func TestNoGoingOutOnTransitionTurn(t *testing.T) {
	s := pos(t, 4, goOutPos)
	act(t, s, "wild-t2-undeclared")
	act(t, s, "add-t2-TK")
	r := act(t, s, "end-meld")
	if s.hand != 0 || r[0] != 0 || s.cur != 1 {
		t.Fatalf("went out on the transition turn: hand %d rewards %v cur %d", s.hand, r, s.cur)
	}

	// The Wild was played on an earlier turn: covering it now is fine.
	s = pos(t, 4, strings.Replace(strings.Replace(goOutPos, "hand=WD,TK\n", "hand=TK\n", 1), "cars=BX,BX\n", "cars=BX,BX,WD?\n", 1))
	act(t, s, "add-t2-TK")
	r = act(t, s, "end-meld")
	if s.hand != 1 || s.wentOut != 1 {
		t.Fatalf("did not go out: hand %d", s.hand)
	}
	// 25 + 16 + (2*1 Box + 0 transition + 2 Tank) + 5 bonus (4 players)
	if r[0] != 25+16+4+5 {
		t.Fatalf("going out scored %v, want %d", r[0], 25+16+4+5)
	}
}

// TestUncoveredWildScoresMatching: a Wild left undeclared at the end scores
// as a matching car (seed); a matching Wild played this turn allows going
// out.
func TestUncoveredWildScoresMatching(t *testing.T) {
	s := pos(t, 4, strings.Replace(goOutPos, "hand=WD,TK\n", "hand=WD\n", 1))
	act(t, s, "wild-t2-undeclared")
	r := act(t, s, "end-meld")
	if s.hand != 1 || r[0] != 25+16+3+5 {
		t.Fatalf("hand %d, rewards %v: want going out for %d", s.hand, r, 25+16+3+5)
	}
}

// TestFirstRound: no Disasters and no going out until every player has
// completed a turn.
func TestFirstRound(t *testing.T) {
	s := pos(t, 4, strings.Replace(strings.Replace(goOutPos, "p3 played=1", "p3 played=0", 1), "hand=WD,TK", "hand=WD,BR", 1))
	if isLegal(s, "broken-p1-t0") || !isLegal(s, "discard-BR") {
		t.Fatalf("first round: legal %v", legal(s))
	}
	act(t, s, "wild-t2-undeclared")
	act(t, s, "discard-BR")
	if s.hand != 0 {
		t.Fatal("went out in the first round")
	}
}

// TestHandLimit: the turn ends only with at most five cards in hand.
func TestHandLimit(t *testing.T) {
	s := pos(t, 4, meldHead+playedBut(4, "p0 played=1 hand=BR,BR,DR,DR,ST,ST,AU\np1.t0 loco=BX cars=AU\n"))
	got := legal(s)
	if slices.Contains(got, "discard-BR") || slices.Contains(got, "wreck-p1-t0") || !slices.Contains(got, "start-BR") {
		t.Fatalf("7 cards: legal %v", got)
	}
}

// TestStuckHand: a hand that cannot get down to five is set aside and
// replaced; the set-aside cards return to the draw pile at the round's end.
func TestStuckHand(t *testing.T) {
	s := pos(t, 4, meldHead+playedBut(4, "p0 played=1 hand=BR,BR,DR,DR,ST,ST,WR\n"))
	if got := legal(s); !slices.Equal(got, []string{"stuck"}) {
		t.Fatalf("legal %v, want only stuck", got)
	}
	deck := s.deckN
	act(t, s, "stuck")
	if s.pl[0].handN != 7 || s.asN != 7 || s.deckN != deck-7 || s.aside[BrokenCar] != 2 || s.phase != PhaseMeld {
		t.Fatalf("after stuck: hand %d aside %d deck %d\n%s", s.pl[0].handN, s.asN, s.deckN, s.Position())
	}
	obs := make([]uint8, ObsSize)
	s.Observe(2, obs)
	if obs[OffAside+BrokenCar] != 2 {
		t.Fatal("the set-aside hand is not public")
	}
	for s.pl[0].handN > 5 || s.cur == 0 && s.phase == PhaseMeld {
		names := legal(s)
		var pick string
		for _, n := range names {
			if strings.HasPrefix(n, "discard-") || n == "end-meld" {
				pick = n
				break
			}
		}
		if pick == "" {
			pick = names[0]
		}
		act(t, s, pick)
	}
	// hturns was 4: the turn just ended was the 5th, so the round ends
	// after 8; play three more turns by drawing and discarding.
	for s.hturns < 8 {
		act(t, s, "draw")
		// The player who drew melds until a discard ends the turn.
		for p := s.cur; s.cur == p && s.phase == PhaseMeld; {
			names := legal(s)
			pick := names[len(names)-1]
			for _, n := range names {
				if strings.HasPrefix(n, "discard-") {
					pick = n
				}
			}
			act(t, s, pick)
		}
	}
	if s.asN != 0 {
		t.Fatalf("set-aside cards not returned at the end of the round: %d", s.asN)
	}
}

// TestReshuffleKeepsNewest: the draw pile is rebuilt from the discards but
// the newest 1 + (unplayed Turntables); the disaster slot stays (seed).
func TestReshuffleKeepsNewest(t *testing.T) {
	// 4 players: 3 Turntables, one played: keep 1 + 2 = 3 discards.
	s := pos(t, 4, `express phase=draw tt=1
deck cards=
discard cards=...,BX,TK,CN,RF
slot top=TT cards=TT,BR
p0 played=1
p1 played=1
p2 played=1
p3 played=1
`, "reshuffles=1")
	n := s.discN
	act(t, s, "draw")
	if s.discN != 3 || listText(s.disc[:3]) != "TK,CN,RF" || s.deckN != n-3-2 || s.slot[BrokenCar] != 1 {
		t.Fatalf("after the rebuild: discard %s, deck %d (of %d)", listText(s.disc[:s.discN]), s.deckN, n)
	}
	// A second rebuild is beyond reshuffles=1: the hand ends.
	s.deckN = 0
	s.cur, s.phase = 1, PhaseDraw
	act(t, s, "draw")
	if s.hand != 1 {
		t.Fatal("the hand did not end when no card could be drawn")
	}
}

// TestSelfDisasterCannotBeBlocked: a Disaster on oneself needs no matching
// Way Car in play and cannot be blocked from hand (seed).
func TestSelfDisasterCannotBeBlocked(t *testing.T) {
	s := pos(t, 4, meldHead+playedBut(4, "p0 played=1 hand=BR,LC\np0.t0 loco=BX cars=AU,AU,AU\n"))
	act(t, s, "broken-p0-t0")
	if s.phase == PhaseBlock || s.pl[0].trains[0].n != 2 || s.pl[0].perm != 0 {
		t.Fatalf("self-Disaster: phase %s, train %d cars", phaseNames[s.phase], s.pl[0].trains[0].n)
	}
	s = pos(t, 4, meldHead+playedBut(4, "p0 played=1 hand=BR way=LC\np0.t0 loco=BX cars=AU,AU,AU\n"))
	if isLegal(s, "broken-p0-t0") {
		t.Fatal("a Disaster on oneself with the Way Car in play")
	}
}

// TestBlockIsPermanent: blocking with a Way Car from hand is a decision of
// the attacked player; the Way Car (and its twin) stays for the hand and
// the player is immune (seed).
func TestBlockIsPermanent(t *testing.T) {
	s := pos(t, 4, meldHead+playedBut(4, "p0 played=1 hand=BR,BR,CO\np2 played=1 hand=LC,LC\np2.t1 loco=BX cars=AU,AU\n"))
	act(t, s, "broken-p2-t1")
	if s.CurrentPlayer() != 2 || s.phase != PhaseBlock {
		t.Fatalf("no block decision: player %d phase %s", s.CurrentPlayer(), phaseNames[s.phase])
	}
	act(t, s, "block")
	if s.CurrentPlayer() != 1 || s.pl[2].trains[1].n != 2 || s.pl[2].way[0] != 1 || s.pl[2].perm != 1 {
		t.Fatalf("after the block: %s", s.Position())
	}
	// Later: player 0 again, the Broken Car is no longer legal on player 2.
	s.cur, s.phase = 0, PhaseMeld
	if isLegal(s, "broken-p2-t1") {
		t.Fatal("Broken Car legal against an immune player")
	}
	// Letting it happen breaks the end car.
	s = pos(t, 4, meldHead+playedBut(4, "p0 played=1 hand=BR,CO\np2 played=1 hand=LC\np2.t1 loco=BX cars=AU,AU\n"))
	act(t, s, "broken-p2-t1")
	act(t, s, "let-it-happen")
	if s.pl[2].trains[1].n != 1 || s.disc[s.discN-1] != AutoCarrier {
		t.Fatalf("let it happen: %s", s.Position())
	}
}

// TestWayCarInPlayIsCancelled: a Disaster on a player with the Way Car in
// play cancels it; no block decision (seed).
func TestWayCarInPlayIsCancelled(t *testing.T) {
	s := pos(t, 4, meldHead+playedBut(4, "p0 played=1 hand=ST,CO\np1 played=1 hand=OF way=OF\np1.t0 loco=BX cars=AU,AU\n"))
	act(t, s, "steal-p1-t0")
	if s.phase != PhaseDraw || s.pl[1].way[2] != 0 || s.pl[1].trains[0].n != 2 || s.pl[0].handN != 1 {
		t.Fatalf("after the cancelling Steal: %s", s.Position())
	}
}

// TestDisasterEffects: Steal takes the end car into the attacker's hand
// (public), a Caboose protects, Wreck destroys the train, Switch Engines
// swaps locomotives, Derailment skips a turn.
func TestDisasterEffects(t *testing.T) {
	s := pos(t, 4, meldHead+playedBut(4, "p0 played=1 hand=ST\np1.t0 loco=CO cars=AU,AU\np1.t1 loco=CO cars=AU,CB\n"))
	if isLegal(s, "steal-p1-t1") {
		t.Fatal("a Caboose at the end can be stolen")
	}
	act(t, s, "steal-p1-t0")
	if s.pl[0].hand[AutoCarrier] != 1 || s.pl[0].known[AutoCarrier] != 1 {
		t.Fatalf("steal: %s", s.Position())
	}
	s = pos(t, 4, meldHead+playedBut(4, "p0 played=1 hand=WR\np1.t1 loco=CO cars=AU,CB\n"))
	act(t, s, "wreck-p1-t1")
	if s.pl[1].trains[1].loco >= 0 || listText(s.disc[:s.discN]) != "AU,CB,CO" {
		t.Fatalf("wreck: %s", s.Position())
	}
	s = pos(t, 4, meldHead+playedBut(4, "p0 played=1 hand=SW\np0.t3 loco=BX cars=TK\np3.t1 loco=AU cars=AU,CB\n"))
	act(t, s, "switch-p3-t1-own3")
	if s.pl[0].trains[3].loco != AutoCarrier || s.pl[3].trains[1].loco != BoxCar {
		t.Fatalf("switch: %s", s.Position())
	}
	s = pos(t, 4, meldHead+playedBut(4, "p0 played=1 hand=DR\n"))
	act(t, s, "derail-p1")
	if s.cur != 2 || s.hturns != 6 {
		t.Fatalf("derailment: player %d to play after %d turns", s.cur, s.hturns)
	}
}

// TestTurntable: another full turn, direction reversed; the turn ends.
func TestTurntable(t *testing.T) {
	s := pos(t, 4, meldHead+playedBut(4, "p0 played=1 hand=TT,AU\n"))
	act(t, s, "turntable")
	if s.cur != 0 || s.dir != -1 || s.phase != PhaseDraw || s.tt != 1 {
		t.Fatalf("turntable: %s", s.Position())
	}
	act(t, s, "draw")
	for s.phase == PhaseMeld && s.cur == 0 {
		names := legal(s)
		act(t, s, names[len(names)-1])
	}
	if s.cur != 3 && s.phase != PhaseBlock {
		t.Fatalf("after the extra turn, counterclockwise: player %d", s.cur)
	}
}

// TestScoring: freight plain and progressive, passenger doublings, hand
// penalties, Way Cars.
func TestScoring(t *testing.T) {
	cases := []struct {
		cars        string
		plain, prog int
	}{
		{"AU,AU,AU,AU,AU", 25, 5 * (1 + 1 + 1 + 2 + 3)},
		{"BX,BX,WD>,TK,TK", 2 + 4, 2 + 4},
		{"BX,BX,BX,CB", 4, 1 + 1 + 1 + 2},
		{"ML,CO,DM,SL,OB", 5 * 2 * 2, 20},
		{"DS,ML,CO,DM,SL,OB", 6 * 2 * 2 * 2, 48},
		{"OB,ML", 2, 2},
		{"CO,CO,CO,CO,CO,CO", 6 * 2 * 2, 24},
		{"WD=PS,CO,WD?", 3, 3},
	}
	for _, c := range cases {
		s := pos(t, 4, "deck cards=...\np0.t0 loco=BX cars="+c.cars+"\n")
		tr := &s.pl[0].trains[0]
		if got := trainScore(tr, false, false); got != c.plain {
			t.Errorf("%s: plain %d, want %d", c.cars, got, c.plain)
		}
		if got := trainScore(tr, true, false); got != c.prog {
			t.Errorf("%s: progressive %d, want %d", c.cars, got, c.prog)
		}
	}
	s := pos(t, 4, "deck cards=...\np0 hand=WD,BR,AU,CO way=LC,HC\n")
	if got := s.handDelta(0); got != 2+2-5-3-5-1 {
		t.Errorf("hand delta %d", got)
	}
}

// TestKnowledge: a card taken from the discard pile is public until it is
// played; a face-down card lowers every known count (A26).
func TestKnowledge(t *testing.T) {
	s := pos(t, 4, "express phase=draw\ndeck cards=...\ndiscard cards=AU\n"+played(4)+"p0 played=1 hand=BX,AU,CO\n")
	act(t, s, "take-discard")
	obs := make([]uint8, ObsSize)
	s.Observe(1, obs)
	me := OffPlayer + 3*PlayerBytes // player 0 seen from player 1
	if obs[me+PKnown+AutoCarrier] != 1 || obs[me+PHandSize] != 4 {
		t.Fatalf("known Auto Carrier not shown: %v", obs[me+PKnown:me+PKnown+NumKinds])
	}
	act(t, s, "start-BX")
	if s.pl[0].known[AutoCarrier] != 0 {
		t.Fatal("a face-down card left the known count")
	}
}
