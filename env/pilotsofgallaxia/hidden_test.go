package pilotsofgallaxia

import (
	"bytes"
	"image"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

var _ env.Renderer = (*State)(nil)

// TestHiddenInformation: two positions that differ only in what pilot 0
// cannot see (another pilot's hand of the same size, the deck order, the
// Captain's deck order, the raider's face-down card while pilot 0 defends)
// give pilot 0 the same observation and the same renders (text and
// rgb_array).
func TestHiddenInformation(t *testing.T) {
	pairs := [][2]string{
		{"cur=1 p0.hand=f5 p1.hand=f3,2.P4,d5 deck=f4,f8,3.P1", "cur=1 p0.hand=f5 p1.hand=f8,3.P1,d6 deck=f3,2.P4,f4"},
		{"cur=0 p0.hand=f5 p2.hand=d1,d2 cdeck=salvage,deflector", "cur=0 p0.hand=f5 p2.hand=d1,d2 cdeck=deflector,salvage"},
		{"cur=1 phase=raidD p1.ships=1.P1,2.H p0.ships=1.r0a,1.H mover=0 at=1.P1 lastfree=1.P1 budget=1 raided=1 " +
			"raider=1.0 defender=0.0 rcard=f8 p1.hand=d3 p0.hand=f5",
			"cur=1 phase=raidD p1.ships=1.P1,2.H p0.ships=1.r0a,1.H mover=0 at=1.P1 lastfree=1.P1 budget=1 raided=1 " +
				"raider=1.0 defender=0.0 rcard=- p1.hand=f8,d3 p0.hand=f5"},
	}
	o1, o2 := make([]uint8, ObsSize), make([]uint8, ObsSize)
	for i, p := range pairs {
		a, b := pos(t, p[0]), pos(t, p[1])
		if a.Position() == b.Position() {
			t.Fatalf("pair %d: the positions do not differ", i)
		}
		a.Observe(0, o1)
		b.Observe(0, o2)
		if !bytes.Equal(o1, o2) {
			t.Errorf("pair %d: pilot 0's observations differ", i)
		}
		if a.String() != b.String() {
			t.Errorf("pair %d: renders differ:\n%s\n%s", i, a, b)
		}
		w, h := a.RenderSize()
		ia, ib := image.NewRGBA(image.Rect(0, 0, w, h)), image.NewRGBA(image.Rect(0, 0, w, h))
		a.Render(ia)
		b.Render(ib)
		if !bytes.Equal(ia.Pix, ib.Pix) {
			t.Errorf("pair %d: rgb_array renders differ", i)
		}
		// The pilot who holds the hidden cards sees them.
		a.Observe(1, o1)
		b.Observe(1, o2)
		if i != 1 && bytes.Equal(o1, o2) {
			t.Errorf("pair %d: pilot 1's observations do not show its own cards", i)
		}
	}
}

// hidden returns pilot p's hidden part of s.
func hidden(s *State, p int) []uint8 {
	h := make([]uint8, HiddenSize)
	s.ObserveHidden(p, h)
	return h
}

// deal deals a pilots-of-gallaxia-v2 game of n pilots from seed.
func deal(t *testing.T, n int, seed uint64) *State {
	t.Helper()
	p, err := specV2.Resolve(map[string]any{"players": n})
	if err != nil {
		t.Fatal(err)
	}
	return Game{}.NewState(p, seed).(*State)
}

// absKind turns a card code of pilot p's frame (kind + 1) back into a kind.
func absKind(s *State, p int, code uint8) int {
	return obsKind(int(code)-1, (NumSektors-int(s.sek[p]))%NumSektors)
}

// TestHiddenLayout: for both versions and every number of pilots the
// hidden part is HiddenSize bytes tiled by its fields, with a bound per
// byte, and the Env writes it.
func TestHiddenLayout(t *testing.T) {
	for _, id := range []string{IDv1, ID} {
		for n := 2; n <= MaxPlayers; n++ {
			e, err := env.Make(id, map[string]any{"players": n})
			if err != nil {
				t.Fatal(err)
			}
			l, high := e.HiddenLayout()
			if e.HiddenSize() != HiddenSize || len(high) != HiddenSize {
				t.Fatalf("%s %d pilots: size %d, %d bounds, want %d", id, n, e.HiddenSize(), len(high), HiddenSize)
			}
			if err := l.Check(HiddenSize); err != nil {
				t.Fatalf("%s %d pilots: %v", id, n, err)
			}
			e.Reset(uint64(n))
			if err := e.ObserveHidden(n-1, make([]uint8, HiddenSize)); err != nil {
				t.Fatalf("%s %d pilots: %v", id, n, err)
			}
		}
	}
	if got := hiddenLayout.Offset("deck"); got != HidDeck {
		t.Fatalf("deck at %d, want %d", got, HidDeck)
	}
}

// TestHiddenHands: at the deal (6 cards each, L38) every pilot's hidden
// part holds each other pilot's exact hand, row r-1 for the pilot r seats
// clockwise, in the observer's card frame; rows past the pilots are zero.
func TestHiddenHands(t *testing.T) {
	for n := 2; n <= MaxPlayers; n++ {
		s := deal(t, n, uint64(40+n))
		for p := 0; p < n; p++ {
			h := hidden(s, p)
			for r := 1; r < MaxPlayers; r++ {
				row := h[HidHands+(r-1)*NumKinds : HidHands+r*NumKinds]
				var want [NumKinds]uint8
				if r < n {
					q := (p + r) % n
					for k, c := range s.hand[q] {
						want[obsKind(k, int(s.sek[p]))] = c
					}
					sum := 0
					for _, c := range row {
						sum += int(c)
					}
					if sum != startHand || sum != int(s.handN[q]) {
						t.Fatalf("%d pilots: pilot %d sees %d cards of pilot %d, who holds %d", n, p, sum, q, s.handN[q])
					}
				}
				if string(row) != string(want[:]) {
					t.Fatalf("%d pilots: pilot %d's row %d is %v, want %v", n, p, r-1, row, want)
				}
			}
		}
	}
	// The frame: pilot 1 (sektor 2) sees pilot 0's 1.P3 as it would play
	// it, card-s5-P3; pilot 0's own cards are never in its hidden part.
	s := pos(t, "cur=0 p0.hand=f5,f5,d2,2.P2 p1.hand=f8 p3.hand=1.P3")
	if h := hidden(s, 1); h[HidHands+1*NumKinds+actionID(t, "card-s5-P3")-ActCard] != 1 { // pilot 3: 2 seats on
		t.Fatalf("pilot 1 does not see pilot 3's 1.P3 as card-s5-P3: %v", h[HidHands+1*NumKinds:HidHands+2*NumKinds])
	}
	h := hidden(s, 0)
	total := 0
	for _, c := range h[HidHands:HidRaiderCard] {
		total += int(c)
	}
	if total != 2 || h[HidHands+KindFuel+5] != 1 || h[HidHands+2*NumKinds+2] != 1 { // pilot 1's f8, pilot 3's 1.P3
		t.Fatalf("pilot 0's hidden hands hold %d cards, want pilot 1's f8 and pilot 3's 1.P3 only", total)
	}
}

// TestHiddenDeck: position 0 of the deck is the card the next draw gives
// (The Gambit's first flip), and the rest moves up by one; the Captain's
// deck likewise for a Captain's draw (L323).
func TestHiddenDeck(t *testing.T) {
	flips := 0
	for seed := uint64(1); seed <= 30; seed++ {
		s := deal(t, 4, seed)
		p := (int(s.cur) + 2) % 4
		before := hidden(s, p)
		if int(s.deckN) != deckSize-4*startHand || before[HidDeck+int(s.deckN)-1] == 0 || before[HidDeck+int(s.deckN)] != 0 {
			t.Fatalf("seed %d: deck of %d cards, codes %v", seed, s.deckN, before[HidDeck:HidCaptainDeck])
		}
		top := absKind(s, p, before[HidDeck])
		play(t, s, "end-moves")
		after := hidden(s, p)
		if top == KindRekkoning {
			if s.rekkonings != 1 {
				t.Fatalf("seed %d: the top card is the Rekkoning, but none was drawn", seed)
			}
			continue
		}
		if s.nexp != 1 || int(s.exp[0]) != top {
			t.Fatalf("seed %d: the Gambit turned %s, position 0 said %s", seed, CardName(int(s.exp[0])), CardName(top))
		}
		if string(after[HidDeck:HidCaptainDeck-1]) != string(before[HidDeck+1:HidCaptainDeck]) {
			t.Fatalf("seed %d: the deck did not move up by one card", seed)
		}
		flips++
	}
	if flips < 20 {
		t.Fatalf("only %d flips checked", flips)
	}
	s := pos(t, "cur=0 p0.hand=f3,f4 cdeck=salvage,afterburner deck=f5,d3,2.P4")
	h := hidden(s, 1)
	want := []uint8{3, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3} // the rest below the written top, in kind order
	if string(h[HidCaptainDeck:]) != string(want) {
		t.Fatalf("Captain's deck %v, want %v", h[HidCaptainDeck:], want)
	}
	if absKind(s, 1, h[HidDeck]) != KindFuel+2 || absKind(s, 1, h[HidDeck+1]) != KindDurriken+2 ||
		absKind(s, 1, h[HidDeck+2]) != planetCard(int(sp(t, "2.P4"))) {
		t.Fatalf("deck top %v, want f5 d3 2.P4", h[HidDeck:HidDeck+3])
	}
	play(t, s, "card-f3", "card-f4")
	if s.hand[0][KindSalvage] != 1 || string(hidden(s, 1)[HidCaptainDeck:]) != string(append(want[1:], 0)) {
		t.Fatalf("the Captain's draw gave %s, not position 0's Salvage: %v", s.Position(), hidden(s, 1)[HidCaptainDeck:])
	}
}

// TestHiddenRaidCard: the raider's card laid face down (L187) is in the
// defender's and the bystanders' hidden parts, not in the raider's (its
// observation shows it), and not counted in the raider's hand as well;
// once both cards are revealed it is nobody's hidden card.
func TestHiddenRaidCard(t *testing.T) {
	s := pos(t, "cur=0 p0.ships=1.P1,1.H p1.ships=1.r0a,2.H p0.hand=f5 p1.hand=f4 deck=f3,f6,f7")
	play(t, s, "ship-1", "base-move", "raid-r1-ship-1", "card-f5")
	f5 := uint8(KindFuel + 2 + 1)
	for p, want := range []uint8{0, f5, f5, f5} {
		h := hidden(s, p)
		if h[HidRaiderCard] != want || h[HidDefendCard] != 0 {
			t.Fatalf("pilot %d: raider's card %d, defender's %d; want %d, 0", p, h[HidRaiderCard], h[HidDefendCard], want)
		}
		if p != 0 {
			r := (0 - p + 4) % 4
			if row := h[HidHands+(r-1)*NumKinds : HidHands+r*NumKinds]; row[KindFuel+2] != 0 {
				t.Fatalf("pilot %d counts the raider's f5 in its hand too", p)
			}
		}
	}
	dice(t, s, [2]int{6, 3}, [2]int{6, 4}, [2]int{6, 2}, [2]int{8, 7})
	play(t, s, "card-f4")
	for p := range 4 {
		if h := hidden(s, p); h[HidRaiderCard] != 0 || h[HidDefendCard] != 0 {
			t.Fatalf("pilot %d: revealed cards still hidden (phase %s)", p, phaseNames[s.phase])
		}
	}
}

// TestHiddenTellsTwinsApart: the pairs of TestHiddenInformation look the
// same to pilot 0, and its hidden part tells them apart.
func TestHiddenTellsTwinsApart(t *testing.T) {
	for i, p := range [][2]string{
		{"cur=1 p0.hand=f5 p1.hand=f3,2.P4,d5 deck=f4,f8,3.P1", "cur=1 p0.hand=f5 p1.hand=f8,3.P1,d6 deck=f3,2.P4,f4"},
		{"cur=0 p0.hand=f5 p2.hand=d1,d2 cdeck=salvage,deflector", "cur=0 p0.hand=f5 p2.hand=d1,d2 cdeck=deflector,salvage"},
		{"cur=0 p0.hand=f5 deck=f4,f8", "cur=0 p0.hand=f5 deck=f8,f4"},
		{"cur=1 phase=raidD p1.ships=1.P1,2.H p0.ships=1.r0a,1.H mover=0 at=1.P1 lastfree=1.P1 budget=1 raided=1 " +
			"raider=1.0 defender=0.0 rcard=f8 p1.hand=d3 p0.hand=f5",
			"cur=1 phase=raidD p1.ships=1.P1,2.H p0.ships=1.r0a,1.H mover=0 at=1.P1 lastfree=1.P1 budget=1 raided=1 " +
				"raider=1.0 defender=0.0 rcard=- p1.hand=f8,d3 p0.hand=f5"},
	} {
		if string(hidden(pos(t, p[0]), 0)) == string(hidden(pos(t, p[1]), 0)) {
			t.Errorf("pair %d: pilot 0's hidden parts are equal", i)
		}
	}
}

// setHidden writes pilot p's hidden part h into s: the other pilots'
// hands, the face-down raid cards p does not own, both decks.
func setHidden(s *State, p int, h []uint8) {
	n := s.cfg.players
	for r := 1; r < n; r++ {
		q := (p + r) % n
		for i := 0; i < NumKinds; i++ {
			s.hand[q][absKind(s, p, uint8(i+1))] = h[HidHands+(r-1)*NumKinds+i]
		}
	}
	card := func(c uint8) int8 {
		if c == 0 {
			return 0
		}
		return int8(absKind(s, p, c) + 1)
	}
	if s.phase == PhRaidA || s.phase == PhRaidD {
		if owner(int(s.raider)) != p {
			s.rcard = card(h[HidRaiderCard])
		}
		if owner(int(s.defender)) != p {
			s.dcard = card(h[HidDefendCard])
		}
	}
	for i := 0; i < int(s.deckN); i++ {
		s.deck[int(s.deckN)-1-i] = uint8(absKind(s, p, h[HidDeck+i]))
	}
	for i := 0; i < int(s.cdckN); i++ {
		s.cdeck[int(s.cdckN)-1-i] = h[HidCaptainDeck+i] - 1 + KindAfterburner
	}
}

// TestHiddenCompletesObservation: in random games of both versions, a
// state sampled from pilot p's observation (Determinize) that is given
// p's hidden part of the true state (setHidden: the other hands, the
// face-down raid cards, both decks) writes p's hidden part and every pilot's observation as the
// true state does: nothing another pilot sees lies outside p's
// observation and hidden part. The hidden part survives Clone and a
// MarshalJSON/LoadState round trip.
func TestHiddenCompletesObservation(t *testing.T) {
	for _, id := range []string{IDv1, ID} {
		g := Game{v1: id == IDv1}
		for ci, params := range []map[string]any{{"players": 2}, {"players": 4}, {"players": 6, "mode": "a_new_life"}} {
			obs, o1, o2 := make([]uint8, ObsSize), make([]uint8, ObsSize), make([]uint8, ObsSize)
			n := 0
			randomPositions(t, id, params, uint64(300+ci), 1500, func(e *env.Env) {
				s := e.State().(*State)
				for p := 0; p < s.cfg.players; p++ {
					want := hidden(s, p)
					if string(hidden(s.Clone().(*State), p)) != string(want) {
						t.Fatalf("%s: Clone changes the hidden part", id)
					}
					s.Observe(p, obs)
					d, err := g.Determinize(e.Params(), p, obs, uint64(n), nil)
					if err != nil {
						t.Fatal(err)
					}
					n++
					tw := d.(*State)
					setHidden(tw, p, want)
					if string(hidden(tw, p)) != string(want) {
						t.Fatalf("%s step %d pilot %d: the twin's hidden part differs\n%s\n%s", id, e.Steps(), p, s.Position(), tw.Position())
					}
					for q := 0; q < s.cfg.players; q++ {
						s.Observe(q, o1)
						tw.Observe(q, o2)
						if string(o1) != string(o2) {
							t.Fatalf("%s step %d: pilot %d's hidden part is complete, but pilot %d observes the twin differently\n%s\n%s",
								id, e.Steps(), p, q, s.Position(), tw.Position())
						}
					}
				}
				if e.Steps()%50 == 0 {
					b, err := s.MarshalJSON()
					if err != nil {
						t.Fatal(err)
					}
					l, err := g.LoadState(e.Params(), b)
					if err != nil {
						t.Fatal(err)
					}
					for p := 0; p < s.cfg.players; p++ {
						if string(hidden(l.(*State), p)) != string(hidden(s, p)) {
							t.Fatalf("%s step %d: the loaded state's hidden part differs", id, e.Steps())
						}
					}
				}
			})
		}
	}
}

// TestObserveHiddenAllocs: ObserveHidden allocates nothing.
func TestObserveHiddenAllocs(t *testing.T) {
	s := pos(t, "cur=0 p0.hand=f5 p1.hand=f3,2.P4,d5")
	dst := make([]uint8, HiddenSize)
	if a := testing.AllocsPerRun(100, func() { s.ObserveHidden(1, dst) }); a != 0 {
		t.Fatalf("ObserveHidden allocates %v times", a)
	}
}
