package express

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

// perturb returns a copy of s that differs only in what player cannot
// see: the cards in other hands that are not known to be there, the other
// players' locomotives and the draw pile are dealt again at random among
// themselves, and the generator (the future shuffles) is reseeded.
func perturb(s *State, player int, rng *rand.Rand) *State {
	c := s.Clone().(*State)
	var pool []uint8
	for q := 0; q < c.n; q++ {
		if q == player {
			continue
		}
		p := &c.pl[q]
		for k := range p.hand {
			for i := p.known[k]; i < p.hand[k]; i++ {
				pool = append(pool, uint8(k))
			}
			p.hand[k] = p.known[k]
		}
		for t := range p.trains {
			if p.trains[t].loco >= 0 {
				pool = append(pool, uint8(p.trains[t].loco))
			}
		}
	}
	pool = append(pool, c.deck[:c.deckN]...)
	rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	i := 0
	for q := 0; q < c.n; q++ {
		if q == player {
			continue
		}
		p := &c.pl[q]
		known := 0
		for k := range p.known {
			known += int(p.known[k])
		}
		for ; known < int(p.handN); known++ {
			p.hand[pool[i]]++
			i++
		}
		for t := range p.trains {
			if p.trains[t].loco >= 0 {
				p.trains[t].loco = int8(pool[i])
				i++
			}
		}
	}
	copy(c.deck[:], pool[i:])
	c.rng = *rand.NewPCG(rng.Uint64(), 1)
	return c
}

// TestHiddenInformation: two states differing only in what a player cannot
// see give that player identical observations and identical renders
// (StringFor(player), and String(), the public table), at every position of
// random games with 2, 4 and 6 players. The perturbed state must differ
// (Position) in most positions, or the test would prove nothing.
func TestHiddenInformation(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	a, b := make([]uint8, ObsSize), make([]uint8, ObsSize)
	for _, players := range []int{2, 4, 6} {
		positions, differ := 0, 0
		visitRandom(t, players, 2, func(s *State) {
			for p := 0; p < players; p++ {
				c := perturb(s, p, rng)
				s.Observe(p, a)
				c.Observe(p, b)
				if !bytes.Equal(a, b) {
					t.Fatalf("player %d's observation changed with hidden information\n%s\n%s", p, s.Position(), c.Position())
				}
				if s.StringFor(p) != c.StringFor(p) || s.String() != c.String() {
					t.Fatalf("player %d's render changed with hidden information:\n%s\n%s", p, s.StringFor(p), c.StringFor(p))
				}
				positions++
				if s.Position() != c.Position() {
					differ++
				}
			}
		})
		if differ < positions*9/10 {
			t.Fatalf("players %d: only %d of %d perturbed states differ", players, differ, positions)
		}
	}
}

// TestOwnLocomotiveVisible: a player sees the kinds of his own locomotives
// and not those of the others.
func TestOwnLocomotiveVisible(t *testing.T) {
	s := pos(t, 2, "deck cards=...\np0.t0 loco=AU cars=BX\np1.t3 loco=WD cars=TK\n")
	obs := make([]uint8, ObsSize)
	s.Observe(0, obs)
	own := OffPlayer + PTrain
	other := OffPlayer + PlayerBytes + PTrain + 3*TrainBytes
	if obs[own+TLoco] != 2+AutoCarrier || obs[other+TLoco] != 1 || obs[other+TCars] != TankCar+1 {
		t.Fatalf("locomotives: own %d, other %d", obs[own+TLoco], obs[other+TLoco])
	}
}

// TestObserveAllocs: encoding an observation and the mask allocate nothing.
func TestObserveAllocs(t *testing.T) {
	states := randomPositions(16, 4)
	obs, mask := make([]uint8, ObsSize), make([]uint8, NumActions)
	allocs := testing.AllocsPerRun(100, func() {
		for i, s := range states {
			s.Observe(i%4, obs)
			s.LegalMask(mask)
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per run", allocs)
	}
}

// hiddenOf returns player's hidden part of s.
func hiddenOf(s *State, player int) []uint8 {
	h := make([]uint8, HiddenSize)
	s.ObserveHidden(player, h)
	return h
}

// TestHiddenLayout: the hidden part's layout tiles HiddenSize bytes, the
// same for every number of players and both versions, with its bounds.
func TestHiddenLayout(t *testing.T) {
	want := []string{"other_hands", "other_locos", "deck_order", "discard_order"}
	for _, id := range []string{ID, IDv2} {
		for n := 2; n <= MaxPlayers; n++ {
			e, err := env.Make(id, map[string]any{"players": n})
			if err != nil {
				t.Fatal(err)
			}
			l, high := e.HiddenLayout()
			if err := l.Check(HiddenSize); err != nil {
				t.Fatalf("%s players=%d: %v", id, n, err)
			}
			if e.HiddenSize() != HiddenSize || len(high) != HiddenSize {
				t.Fatalf("%s players=%d: size %d, %d bounds, want %d", id, n, e.HiddenSize(), len(high), HiddenSize)
			}
			var names []string
			for _, f := range l {
				names = append(names, f.Name)
			}
			if !slices.Equal(names, want) {
				t.Fatalf("fields %v, want %v", names, want)
			}
		}
	}
	// a hand may hold every card of a kind; codes are kind+1
	if hiddenHigh[HidHands+BoxCar] != 12 || hiddenHigh[HidHands+4*NumKinds+Wreck] != 1 ||
		hiddenHigh[HidLocos] != NumKinds || hiddenHigh[HiddenSize-1] != NumKinds {
		t.Fatalf("bounds %v", hiddenHigh)
	}
}

// TestHiddenHands: in a dealt position each player's hidden part holds the
// next players' hands and locomotives, seat-relative, and nothing of the
// own hand; the seats past the number of players are zero.
func TestHiddenHands(t *testing.T) {
	s := pos(t, 3, "deck cards=...\n"+
		"p0 hand=BX,BX,TK\np0.t0 loco=AU cars=CN\n"+
		"p1 known=WD hand=WD,SL\np1.t2 loco=HC cars=RF\n"+
		"p2 hand=TT\n")
	row := func(h []uint8, j int) (hand [NumKinds]uint8, locos [MaxTrains]uint8) {
		copy(hand[:], h[HidHands+j*NumKinds:])
		copy(locos[:], h[HidLocos+j*MaxTrains:])
		return
	}
	for _, c := range []struct {
		player, row, seat int
		hand              map[int]uint8
		locos             [MaxTrains]uint8
	}{
		{0, 0, 1, map[int]uint8{Wild: 1, Sleeper: 1}, [MaxTrains]uint8{2: HeavyCrane + 1}},
		{0, 1, 2, map[int]uint8{Turntable: 1}, [MaxTrains]uint8{}},
		{1, 0, 2, map[int]uint8{Turntable: 1}, [MaxTrains]uint8{}},
		{1, 1, 0, map[int]uint8{BoxCar: 2, TankCar: 1}, [MaxTrains]uint8{0: AutoCarrier + 1}},
		{2, 0, 0, map[int]uint8{BoxCar: 2, TankCar: 1}, [MaxTrains]uint8{0: AutoCarrier + 1}},
		{2, 1, 1, map[int]uint8{Wild: 1, Sleeper: 1}, [MaxTrains]uint8{2: HeavyCrane + 1}},
	} {
		h := hiddenOf(s, c.player)
		hand, locos := row(h, c.row)
		var want [NumKinds]uint8
		for k, m := range c.hand {
			want[k] = m
		}
		if hand != want || hand != s.pl[c.seat].hand || locos != c.locos {
			t.Fatalf("player %d, row %d: hand %v locos %v, want %v %v", c.player, c.row, hand, locos, want, c.locos)
		}
		for j := 2; j < MaxPlayers-1; j++ {
			if hand, locos := row(h, j); hand != ([NumKinds]uint8{}) || locos != ([MaxTrains]uint8{}) {
				t.Fatalf("player %d: absent seat row %d not zero", c.player, j)
			}
		}
	}
}

// TestHiddenDeckIsNextDraw: deck_order position 0 and 1 are the two cards
// a draw gives, and after the draw the order moves up by two; seen by the
// drawing player and by every other player alike.
func TestHiddenDeckIsNextDraw(t *testing.T) {
	draws := 0
	for _, players := range []int{2, 4, 6} {
		visitRandom(t, players, 2, func(s *State) {
			if s.phase != PhaseDraw || s.deckN < 3 {
				return
			}
			actor := s.CurrentPlayer()
			for p := 0; p < players; p++ {
				before := hiddenOf(s, p)
				c := s.Clone().(*State)
				c.Apply(ActDraw, make([]float64, players))
				var got [NumKinds]int
				for k := range got {
					got[k] = int(c.pl[actor].hand[k]) - int(s.pl[actor].hand[k])
				}
				var want [NumKinds]int
				want[before[HidDeck]-1]++
				want[before[HidDeck+1]-1]++
				if got != want {
					t.Fatalf("player %d's hidden deck starts %d %d, the draw gave %v\n%s", p, before[HidDeck], before[HidDeck+1], got, s.Position())
				}
				after := hiddenOf(c, p)
				if !bytes.Equal(after[HidDeck:HidDeck+s.deckN-2], before[HidDeck+2:HidDeck+s.deckN]) ||
					after[HidDeck+s.deckN-2] != 0 || before[HidDeck+s.deckN] != 0 || before[HidDeck+s.deckN-1] == 0 {
					t.Fatalf("deck order after the draw does not follow")
				}
				draws++
			}
		})
	}
	if draws < 100 {
		t.Fatalf("only %d draws checked", draws)
	}
}

// TestHiddenDiscardComesIntoView: taking the top discard of a pile longer
// than the observation's recent discards brings discard_order's position
// 0 into view as the last recent discard.
func TestHiddenDiscardComesIntoView(t *testing.T) {
	takes := 0
	obs := make([]uint8, ObsSize)
	visitRandom(t, 4, 4, func(s *State) {
		if s.phase != PhaseDraw || s.discN <= RecentDiscards || !isLegal(s, "take-discard") {
			return
		}
		for p := 0; p < s.n; p++ {
			h := hiddenOf(s, p)
			if h[HidDiscards+s.discN-RecentDiscards-1] == 0 || h[HidDiscards+s.discN-RecentDiscards] != 0 {
				t.Fatalf("discard_order holds not %d cards", s.discN-RecentDiscards)
			}
			c := s.Clone().(*State)
			c.Apply(ActTake, make([]float64, s.n))
			c.Observe(p, obs)
			if obs[OffRecent+RecentDiscards-1] != h[HidDiscards] {
				t.Fatalf("the discard come into view is %d, the hidden part said %d", obs[OffRecent+RecentDiscards-1], h[HidDiscards])
			}
			takes++
		}
	})
	if takes < 20 {
		t.Fatalf("only %d takes checked", takes)
	}
}

// TestHiddenConservation: a player's observation and hidden part account
// for every card of the deck exactly once, and the discard order with the
// recent discards is the discard pile's counts.
func TestHiddenConservation(t *testing.T) {
	obs := make([]uint8, ObsSize)
	for _, players := range []int{2, 3, 5, 6} {
		visitRandom(t, players, 1, func(s *State) {
			for p := 0; p < players; p++ {
				s.Observe(p, obs)
				h := hiddenOf(s, p)
				var n, disc [NumKinds]int
				for k := 0; k < NumKinds; k++ {
					n[k] += int(obs[OffHand+k]) + int(obs[OffDiscards+k]) + int(obs[OffSlot+k]) + int(obs[OffAside+k])
					for j := 0; j < MaxPlayers-1; j++ {
						n[k] += int(h[HidHands+j*NumKinds+k])
					}
				}
				for j := 0; j < players; j++ {
					b := obs[OffPlayer+j*PlayerBytes:]
					for w := 0; w < numWayKinds; w++ {
						n[LightCrane+w] += int(b[PWay+w])
					}
					for tr := 0; tr < MaxTrains; tr++ {
						o := b[PTrain+tr*TrainBytes:]
						if o[TLoco] >= 2 {
							n[o[TLoco]-2]++
						}
						for i := 0; i < int(o[TLen]); i++ {
							n[cardOf(o[TCars+i])]++
						}
					}
				}
				for _, c := range h[HidLocos:HidDiscards] {
					if c > 0 {
						n[c-1]++
					}
				}
				for _, c := range append(slices.Clone(obs[OffRecent:OffRecent+RecentDiscards]), h[HidDiscards:]...) {
					if c > 0 {
						disc[c-1]++
					}
				}
				for k := 0; k < NumKinds; k++ {
					if n[k] != deckCount(k, players) || disc[k] != int(obs[OffDiscards+k]) {
						t.Fatalf("player %d: %s counted %d times (deck %d), discards %d (pile %d)\n%s", p, kinds[k].Code,
							n[k], deckCount(k, players), disc[k], obs[OffDiscards+k], s.Position())
					}
				}
			}
		})
	}
}

// withoutRNG returns a position's notation without the generator's line.
func withoutRNG(s *State) string {
	var out []string
	for _, l := range strings.Split(s.Position(), "\n") {
		if !strings.HasPrefix(l, "rng ") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestHiddenCompletes: two positions that give a player the same
// observation (hidden cards dealt again, the discards below the recent
// ones reordered) are the same position, the generator aside, exactly when
// they give that player the same hidden part; and then every player
// observes the same.
func TestHiddenCompletes(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	oa, ob := make([]uint8, ObsSize), make([]uint8, ObsSize)
	for _, players := range []int{2, 4, 6} {
		same, differ := 0, 0
		visitRandom(t, players, 1, func(s *State) {
			for p := 0; p < players; p++ {
				c := perturb(s, p, rng)
				if below := c.discN - RecentDiscards; below > 1 && rng.IntN(2) == 0 {
					rng.Shuffle(below, func(i, j int) { c.disc[i], c.disc[j] = c.disc[j], c.disc[i] })
				}
				if rng.IntN(4) == 0 { // the same deal, the generator aside
					c = s.Clone().(*State)
					c.rng = *rand.NewPCG(rng.Uint64(), 2)
				}
				eq := bytes.Equal(hiddenOf(s, p), hiddenOf(c, p))
				if eq != (withoutRNG(s) == withoutRNG(c)) {
					t.Fatalf("player %d: equal hidden parts %v, positions\n%s\n%s", p, eq, s.Position(), c.Position())
				}
				if !eq {
					differ++
					continue
				}
				same++
				for q := 0; q < players; q++ {
					s.Observe(q, oa)
					c.Observe(q, ob)
					if !bytes.Equal(oa, ob) {
						t.Fatalf("player %d's hidden parts are equal, player %d's observations are not", p, q)
					}
				}
			}
		})
		if same == 0 || differ == 0 {
			t.Fatalf("players %d: %d equal, %d different hidden parts", players, same, differ)
		}
	}
}

// TestObserveHiddenAllocs: writing the hidden part allocates nothing, and
// the bytes of a dirty buffer are all rewritten.
func TestObserveHiddenAllocs(t *testing.T) {
	states := randomPositions(16, 6)
	h := make([]uint8, HiddenSize)
	allocs := testing.AllocsPerRun(100, func() {
		for i, s := range states {
			s.ObserveHidden(i%6, h)
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per run", allocs)
	}
	for i := range h {
		h[i] = 0xff
	}
	states[3].ObserveHidden(2, h)
	if !bytes.Equal(h, hiddenOf(states[3], 2)) {
		t.Fatal("a dirty buffer is not overwritten")
	}
}

// TestHiddenSerialized: the hidden part is the same on a Clone and on a
// Load of MarshalJSON.
func TestHiddenSerialized(t *testing.T) {
	g := V2()
	params, _ := g.Spec().Resolve(map[string]any{"players": 5})
	for i, s := range randomPositions(8, 5) {
		data, err := s.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		l, err := g.LoadState(params, data)
		if err != nil {
			t.Fatal(err)
		}
		p := i % 5
		want := hiddenOf(s, p)
		if !bytes.Equal(hiddenOf(s.Clone().(*State), p), want) || !bytes.Equal(hiddenOf(l.(*State), p), want) {
			t.Fatalf("position %d: hidden part changed by Clone or Load", i)
		}
	}
}
