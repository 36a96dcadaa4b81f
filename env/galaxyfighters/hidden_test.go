package galaxyfighters

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

// hiddenOf returns player's hidden part of s.
func hiddenOf(s *State, player int) []uint8 {
	h := make([]uint8, HiddenSize)
	s.ObserveHidden(player, h)
	return h
}

// TestHiddenLayout: for both versions and every player count the layout
// tiles the HiddenSize bytes with the fields the constants name, the
// Env reports the same size, and every bound is a code's largest class.
func TestHiddenLayout(t *testing.T) {
	want := []struct {
		name   string
		offset int
		size   int
		high   uint8
	}{
		{"spawn_deck", HidDeck, maxDeckSize, poolCards},
		{"shipyard", HidYard, maxBackup, numModels},
		{"fourth_ship_player", HidFourthPlayer, 1, NumSeats},
	}
	for _, id := range []string{ID, IDv1} {
		for players := 2; players <= 4; players++ {
			e, err := env.Make(id, map[string]any{"players": players})
			if err != nil {
				t.Fatal(err)
			}
			layout, high := e.HiddenLayout()
			if e.HiddenSize() != HiddenSize || len(high) != HiddenSize || HiddenSize != 31 {
				t.Fatalf("%s %d players: size %d, %d bounds, want %d", id, players, e.HiddenSize(), len(high), HiddenSize)
			}
			if err := layout.Check(HiddenSize); err != nil {
				t.Fatalf("%s %d players: %v", id, players, err)
			}
			if len(layout) != len(want) {
				t.Fatalf("%s: %d fields, want %d", id, len(layout), len(want))
			}
			for i, w := range want {
				f := layout[i]
				if f.Name != w.name || f.Offset != w.offset || f.Size() != w.size || f.Classes != int(w.high)+1 {
					t.Errorf("%s field %d: %s at %d, %d bytes, %d classes; want %s at %d, %d bytes, %d classes",
						id, i, f.Name, f.Offset, f.Size(), f.Classes, w.name, w.offset, w.size, w.high+1)
				}
				for b := f.Offset; b < f.End(); b++ {
					if high[b] != w.high {
						t.Errorf("%s: HiddenHigh[%d] (%s) = %d, want %d", id, b, f.Name, high[b], w.high)
					}
				}
			}
		}
	}
}

// TestHiddenDeckAndShipyard: the spawn deck reads top first (the notation
// lists it from the bottom), the shipyard as model + 1, zero past their
// ends; the spawn card laid at the next turn's start is position 0, and
// the deck moves up by one.
func TestHiddenDeckAndShipyard(t *testing.T) {
	s := pos(t, nil, "deck=3,7,12 yard=a,p")
	want := make([]uint8, HiddenSize)
	want[HidDeck], want[HidDeck+1], want[HidDeck+2] = 12, 7, 3
	want[HidYard], want[HidYard+1] = Phalanx+1, AstroWing+1
	for p := 0; p < NumSeats; p++ {
		if got := hiddenOf(s, p); !slices.Equal(got, want) {
			t.Fatalf("player %d: hidden part %v, want %v", p, got, want)
		}
	}
	play(t, s, "end-turn") // seat 1's turn starts: it draws the top card
	if s.card != 12 || s.deckN != 2 {
		t.Fatalf("seat 1 should have drawn card 12: %s", s.Position())
	}
	if got := hiddenOf(s, 2)[HidDeck : HidDeck+4]; !slices.Equal(got, []uint8{7, 3, 0, 0}) {
		t.Errorf("after the draw the deck reads %v, want [7 3 0 0]", got)
	}
}

// TestHiddenShipyardReplacesACrashedShip: the ship that replaces a
// destroyed one is the model at the shipyard's position 0.
func TestHiddenShipyardReplacesACrashedShip(t *testing.T) {
	s := pos(t, map[string]string{"r7c5": "Mv", "r9c5": "@0"}, deck+" yard=g,p")
	h := hiddenOf(s, 0)
	if h[HidYard] != Phalanx+1 || h[HidYard+1] != Gladius+1 || h[HidYard+2] != 0 {
		t.Fatalf("shipyard %v, want [Phalanx+1 Gladius+1 0 ...]", h[HidYard:HidYard+maxBackup])
	}
	play(t, s, "end-turn") // the Magentis destroys seat 0's ship
	if int(s.ships[0].model) != int(h[HidYard])-1 {
		t.Fatalf("the replacement is %s, the shipyard's position 0 was %d", modelNames[s.ships[0].model], h[HidYard])
	}
	if h := hiddenOf(s, 3); h[HidYard] != Gladius+1 || h[HidYard+1] != 0 {
		t.Errorf("after the replacement the shipyard reads %v", h[HidYard:HidYard+maxBackup])
	}
}

// TestHiddenFollowsPlay plays seeded random games of both versions and
// every player count: the hidden part is the deck and shipyard read from
// the end, the same for every player (but the fourth ship's controller);
// every spawn card drawn was the deck's position 0 before the step and
// the rest moved up; replacement ships come off the front of the shipyard;
// with 3 players the fourth_ship_player byte names the player whose own
// observation marks the fourth ship "played by me".
func TestHiddenFollowsPlay(t *testing.T) {
	obs := make([]uint8, ObsSize)
	for ci, tc := range []struct {
		id      string
		players int
	}{{ID, 4}, {ID, 3}, {ID, 2}, {IDv1, 4}, {IDv1, 3}} {
		e, err := env.Make(tc.id, map[string]any{"players": tc.players, "mission": "ace"})
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(uint64(ci), 17))
		draws, crashes := 0, 0
		for ep := uint64(0); ep < 4; ep++ {
			e.Reset(ep + 10*uint64(ci))
			for !e.Done() {
				s := e.State().(*State)
				before := hiddenOf(s, 0)
				for i := 0; i < maxDeckSize; i++ {
					w := uint8(0) // past the deck's end
					if i < int(s.deckN) {
						w = uint8(s.deck[int(s.deckN)-1-i])
					}
					if before[HidDeck+i] != w {
						t.Fatalf("%s: deck position %d = %d, want %d\n%s", tc.id, i, before[HidDeck+i], w, s.Position())
					}
				}
				for p := 0; p < tc.players; p++ {
					h := hiddenOf(s, p)
					if !slices.Equal(h[:HidFourthPlayer], before[:HidFourthPlayer]) {
						t.Fatalf("%s: players 0 and %d have different decks or shipyards", tc.id, p)
					}
					if tc.players != 3 {
						if h[HidFourthPlayer] != 0 {
							t.Fatalf("%s %d players: fourth_ship_player = %d", tc.id, tc.players, h[HidFourthPlayer])
						}
						continue
					}
					q := (p + int(h[HidFourthPlayer]) - 1) % NumSeats
					if h[HidFourthPlayer] == 0 || q >= 3 {
						t.Fatalf("3 players: player %d's fourth_ship_player = %d", p, h[HidFourthPlayer])
					}
					e.Observe(q, obs)
					if obs[OffSeats+((3-q+NumSeats)%NumSeats)*seatBytes+SeatPlayedByMe] != 1 {
						t.Fatalf("player %d's hidden part names player %d for the fourth ship, who does not play it", p, q)
					}
				}
				deckN, yardN := s.deckN, s.yardN
				legal := []int{}
				for a, m := range e.Mask() {
					if m == 1 {
						legal = append(legal, a)
					}
				}
				e.Step(legal[rng.IntN(len(legal))])
				s = e.State().(*State)
				after := hiddenOf(s, 0)
				if s.deckN == deckN-1 {
					draws++
					if int(s.card) != int(before[HidDeck]) {
						t.Fatalf("%s: drew card %d, the deck's position 0 was %d", tc.id, s.card, before[HidDeck])
					}
					if !slices.Equal(after[HidDeck:HidDeck+maxDeckSize-1], before[HidDeck+1:HidDeck+maxDeckSize]) {
						t.Fatalf("%s: the deck did not move up: %v then %v", tc.id, before[:maxDeckSize], after[:maxDeckSize])
					}
				} else if s.deckN != deckN {
					t.Fatalf("%s: %d spawn cards drawn in one step", tc.id, deckN-s.deckN)
				}
				if n := int(yardN - s.yardN); n > 0 {
					crashes++
					if !slices.Equal(after[HidYard:HidYard+maxBackup-n], before[HidYard+n:HidYard+maxBackup]) {
						t.Fatalf("%s: the shipyard did not lose its first %d: %v then %v", tc.id, n,
							before[HidYard:HidYard+maxBackup], after[HidYard:HidYard+maxBackup])
					}
				}
			}
		}
		if draws < 20 || crashes < 1 {
			t.Errorf("%s %d players: only %d draws and %d replacements checked", tc.id, tc.players, draws, crashes)
		}
	}
}

// TestHiddenFourthShipPastTurn255: with 3 players, once the turns byte
// saturates, the observation of a player who does not play the fourth ship
// cannot tell which of the other two does, though they see it; the hidden
// part tells them apart.
func TestHiddenFourthShipPastTurn255(t *testing.T) {
	cfg := DefaultConfig(ID, 3)
	a := posCfg(t, cfg, nil, "turns=300 turns3=75") // 75 mod 3: player 0 plays the fourth ship
	b := posCfg(t, cfg, nil, "turns=300 turns3=76") // player 1 does
	oa, ob := make([]uint8, ObsSize), make([]uint8, ObsSize)
	a.Observe(2, oa)
	b.Observe(2, ob)
	if !slices.Equal(oa, ob) {
		t.Fatal("player 2 should observe both positions alike")
	}
	a.Observe(0, oa)
	b.Observe(0, ob)
	if slices.Equal(oa, ob) {
		t.Fatal("player 0 should see whether it plays the fourth ship")
	}
	// Player 2 at seat 2: player 0 is across (relative seat 2), player 1
	// its right neighbour (relative seat 3).
	if ha, hb := hiddenOf(a, 2)[HidFourthPlayer], hiddenOf(b, 2)[HidFourthPlayer]; ha != 3 || hb != 4 {
		t.Errorf("fourth_ship_player for player 2: %d and %d, want 3 and 4", ha, hb)
	}
	if h := hiddenOf(a, 0)[HidFourthPlayer]; h != 1 {
		t.Errorf("player 0 plays the fourth ship: fourth_ship_player = %d, want 1", h)
	}
}

// TestHiddenLeavesOutPublicStacks: what the observation leaves out for
// every seat alike (the order of the aliens under a stack's top, the
// district a waiting alien spills from) is public, not hidden: two
// positions differing only there have the same hidden part.
func TestHiddenLeavesOutPublicStacks(t *testing.T) {
	a := pos(t, map[string]string{"r4c4": "YvBvMv"}, "deck=1,2")
	b := pos(t, map[string]string{"r4c4": "BvYvMv"}, "deck=1,2")
	oa, ob := make([]uint8, ObsSize), make([]uint8, ObsSize)
	for p := 0; p < NumSeats; p++ {
		a.Observe(p, oa)
		b.Observe(p, ob)
		if !slices.Equal(oa, ob) || !slices.Equal(hiddenOf(a, p), hiddenOf(b, p)) {
			t.Errorf("player %d: the order under the top changed the observation or the hidden part", p)
		}
	}
	c := pos(t, map[string]string{"r4c4": "YvBvMv"}, "deck=2,1")
	if slices.Equal(hiddenOf(a, 0), hiddenOf(c, 0)) {
		t.Error("the hidden part should tell the deck orders apart")
	}
}

// TestObserveHiddenWritesEveryByteWithoutAllocating: stale bytes in dst
// are overwritten, and ObserveHidden allocates nothing.
func TestObserveHiddenWritesEveryByteWithoutAllocating(t *testing.T) {
	s := newState(NewConfig(mustResolve(t, map[string]any{"players": 3})).c, 5)
	want := hiddenOf(s, 1)
	dst := make([]uint8, HiddenSize)
	for i := range dst {
		dst[i] = 0xff
	}
	s.ObserveHidden(1, dst)
	if !slices.Equal(dst, want) {
		t.Fatalf("stale bytes survive: %v, want %v", dst, want)
	}
	if n := testing.AllocsPerRun(100, func() { s.ObserveHidden(1, dst) }); n != 0 {
		t.Errorf("ObserveHidden allocates %v times", n)
	}
}
