package galaxyfighters

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

// pos builds a position: cells maps global cell names (r<row>c<col>) to
// notation tokens; the four ships stand on their home spaces unless moved;
// fields are appended (default: seat 0 in its command phase with one of
// every command symbol).
func pos(t *testing.T, cells map[string]string, fields string) *State {
	t.Helper()
	return posCfg(t, DefaultConfig(IDv1, 4), cells, fields)
}

func posCfg(t *testing.T, cfg *Config, cells map[string]string, fields string) *State {
	t.Helper()
	var grid [Cells]string
	for g := range grid {
		grid[g] = "#"
		if onBoard[g] {
			grid[g] = "."
		}
	}
	shipSet := map[byte]bool{}
	for name, tok := range cells {
		var r, c int
		if _, err := fmt.Sscanf(name, "r%dc%d", &r, &c); err != nil {
			t.Fatalf("cell %q", name)
		}
		grid[r*Side+c] = tok
		if tok[0] == '@' {
			shipSet[tok[1]] = true
		}
	}
	for k := 0; k < NumSeats; k++ {
		if !shipSet[byte('0'+k)] {
			grid[HomeCell(k)] = "@" + itoa(k)
		}
	}
	if !strings.Contains(fields, "pool=") {
		fields += " pool=1,1,1,1"
	}
	if !strings.Contains(fields, "used=") {
		fields += " used=1"
	}
	text := strings.Join(grid[:], " ") + " " + fields
	s, err := ParsePosition(text, cfg)
	if err != nil {
		t.Fatalf("ParsePosition: %v\n%s", err, text)
	}
	return s
}

func actionOf(t *testing.T, name string) int {
	t.Helper()
	a := slices.Index(actionNames, name)
	if a < 0 {
		t.Fatalf("no action %q", name)
	}
	return a
}

func legalNames(s *State) []string {
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

// play applies the named actions, each checked legal, and returns the
// summed rewards of player 0.
func play(t *testing.T, s *State, names ...string) float64 {
	t.Helper()
	total := 0.0
	for _, n := range names {
		a := actionOf(t, n)
		if !slices.Contains(legalNames(s), n) {
			t.Fatalf("%s is not legal; legal: %v\n%s", n, legalNames(s), s.Position())
		}
		r := make([]float64, s.cfg.players)
		s.Apply(a, r)
		total += r[0]
	}
	return total
}

func cell(t *testing.T, s *State, name string) string {
	t.Helper()
	var r, c int
	fmt.Sscanf(name, "r%dc%d", &r, &c)
	return s.cellToken(r*Side + c)
}

func expectCells(t *testing.T, s *State, want map[string]string) {
	t.Helper()
	for name, tok := range want {
		if got := cell(t, s, name); got != tok {
			t.Errorf("%s = %q, want %q\n%s", name, got, tok, s)
		}
	}
}

// deck keeps the game going after the turn (a spawn card to draw); card 3
// puts nothing near the tested spaces... it is read from the next seat.
const deck = " deck=1,1,1"

func TestRotationRoundTrip(t *testing.T) {
	n := 0
	for seat := 0; seat < NumSeats; seat++ {
		for g := 0; g < Cells; g++ {
			if Global(seat, Local(seat, g)) != g || Local(seat, Global(seat, g)) != g {
				t.Fatalf("seat %d cell %d: rotation does not round trip", seat, g)
			}
			if onBoard[g] != onBoard[Global(seat, g)] {
				t.Fatalf("rotation moves cell %d off the board", g)
			}
		}
		if z := Zone(seat, HomeCell(seat)); z != 1 {
			t.Errorf("seat %d home zone %d", seat, z)
		}
		for d := 0; d < 4; d++ {
			if LocalDir(seat, GlobalDir(seat, d)) != d {
				t.Errorf("direction round trip")
			}
		}
		if FacedSeat(DistrictDir(seat)) != seat {
			t.Errorf("seat %d: district direction", seat)
		}
	}
	for g := 0; g < Cells; g++ {
		if onBoard[g] {
			n++
		}
	}
	if n != 85 {
		t.Errorf("%d spaces, want 85", n)
	}
	want := map[int]string{0: "r10c5", 1: "r5c0", 2: "r0c5", 3: "r5c10"}
	for k, name := range want {
		if CellName(HomeCell(k)) != name {
			t.Errorf("home of seat %d is %s, want %s", k, CellName(HomeCell(k)), name)
		}
	}
	// Zones from seat 1 (west): column 0 is zone 1, columns 3-7 zones 4-8.
	if Zone(1, 5*Side+0) != 1 || Zone(1, 5*Side+3) != 4 || Zone(1, 5*Side+7) != 8 || Zone(1, 5*Side+9) != 0 {
		t.Errorf("zones of seat 1 wrong")
	}
}

func TestApproach(t *testing.T) {
	tests := []struct {
		name  string
		cells map[string]string
		want  map[string]string
	}{
		{"Yellum moves 1 toward the district", map[string]string{"r5c5": "Yv"}, map[string]string{"r5c5": ".", "r6c5": "Yv"}},
		{"Bluvol moves 2", map[string]string{"r5c5": "Bv"}, map[string]string{"r7c5": "Bv"}},
		{"Magentis moves 3", map[string]string{"r5c5": "Mv"}, map[string]string{"r8c5": "Mv"}},
		{"aliens facing another district wait", map[string]string{"r5c5": "Y>", "r5c4": "B^"},
			map[string]string{"r5c5": "Y>", "r5c4": "B^"}},
		{"landing on an alien stacks on top", map[string]string{"r5c5": "Yv", "r6c5": "B<"},
			map[string]string{"r6c5": "B<Yv"}},
		{"frenzy: the whole stack moves, each by its facing", map[string]string{"r5c5": "Y<M^Bv"},
			map[string]string{"r5c5": ".", "r7c5": "Bv", "r2c5": "M^", "r5c4": "Y<"}},
		{"a covered alien does not move", map[string]string{"r5c5": "BvY<"}, map[string]string{"r5c5": "BvY<"}},
		{"zone 1 moves first: no double move", map[string]string{"r7c5": "Yv", "r6c5": "Yv"},
			map[string]string{"r8c5": "Yv", "r7c5": "Yv"}},
		{"an alien passes through a drone", map[string]string{"r7c4": "Bv", "r8c4": "d0", "r9c5": "@0"},
			map[string]string{"r9c4": "Bv", "r8c4": "d0"}},
		{"an alien flying into a corner drifts away (seat 1's turn: the alien faces Atomville)",
			map[string]string{"r8c3": "Y<"}, map[string]string{"r8c3": "."}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fields := deck
			if strings.Contains(fmt.Sprint(tc.cells), "d0") {
				fields += " ship0=gladius/wide-beam/warp-drive/fire"
			}
			if strings.Contains(tc.name, "seat 1") {
				fields += " seat=1"
			}
			s := pos(t, tc.cells, fields)
			play(t, s, "end-turn")
			expectCells(t, s, tc.want)
		})
	}
}

func TestDroneDestroysAlienStoppingOnIt(t *testing.T) {
	s := pos(t, map[string]string{"r7c4": "Yv", "r8c4": "d0", "r9c5": "@0"}, deck+" ship0=gladius/wide-beam/warp-drive/fire")
	play(t, s, "end-turn")
	expectCells(t, s, map[string]string{"r8c4": "d0"})
	if s.Destroyed() != 1 {
		t.Errorf("destroyed %d, want 1", s.Destroyed())
	}
}

func TestDroneFollowsTheShip(t *testing.T) {
	s := pos(t, map[string]string{"r10c4": "d0"}, deck+" ship0=gladius/wide-beam/warp-drive/fire")
	play(t, s, "move-n") // ship r10c5 -> r9c5, the drone takes r10c5
	expectCells(t, s, map[string]string{"r9c5": "@0", "r10c5": "d0", "r10c4": "."})
	play(t, s, "warp-zone-3-col-1") // warp to r8c3: the drone goes beside it (w is off the atmosphere: e)
	expectCells(t, s, map[string]string{"r8c3": "@0", "r8c4": "d0"})
}

func TestCrashShieldAndReplacement(t *testing.T) {
	s := pos(t, map[string]string{"r7c5": "Mv", "r9c5": "@0"}, deck+" yard=g,p")
	play(t, s, "end-turn")
	// The Magentis hits the ship on r9c5: both destroyed; the Phalanx from
	// the shipyard's top stands shielded on the home space.
	expectCells(t, s, map[string]string{"r9c5": ".", "r10c5": "@0*", "r8c5": "."})
	if s.ships[0].model != Phalanx || s.yardN != 1 || s.shipsLost != 1 || s.crashes != 1 {
		t.Errorf("after the crash: %s", s.Position())
	}
	// A shielded ship survives; the alien is destroyed.
	s = pos(t, map[string]string{"r8c5": "Bv", "r10c5": "@0*"}, deck)
	play(t, s, "end-turn")
	expectCells(t, s, map[string]string{"r10c5": "@0*", "r9c5": "."})
	if s.shipsLost != 0 || s.crashes != 1 {
		t.Errorf("shielded ship: lost %d crashes %d", s.shipsLost, s.crashes)
	}
	// The shield lasts until the start of the ship's own next turn.
	s = pos(t, map[string]string{"r5c0": "@1*"}, deck)
	play(t, s, "end-turn")
	if s.Seat() != 1 || s.Shielded(1) {
		t.Errorf("seat 1's shield should end as its turn starts")
	}
}

func TestReplacedShipIsRefitted(t *testing.T) {
	s := pos(t, map[string]string{"r6c1": "Bv", "r5c0": "@1", "r7c1": "."}, deck+" yard=a")
	// Seat 0's turn; the Bluvol faces south (Rocketown): it does not move.
	play(t, s, "end-turn")
	if s.Seat() != 1 || s.Phase() != PhaseCommand {
		t.Fatalf("seat 1 should command, got %s", s.Position())
	}
	s = pos(t, map[string]string{"r5c2": "B<", "r5c0": "@1"}, deck+" yard=a seat=1 ship1=gladius/laser-beam/warp-drive/move")
	play(t, s, "end-turn") // the Bluvol crashes into seat 1's ship
	if s.ships[1].model != AstroWing || s.ships[1].weapon != -1 || s.ships[1].bonus != FaceMove {
		t.Fatalf("replacement: %s", s.Position())
	}
	// At seat 1's next turn, its player chooses a weapon and an engine again.
	s.cur, s.phase = 0, PhaseCommand
	s.pool = [numFaces]int8{1, 0, 0, 0}
	s.used = 1
	s.ships[0].cell = int8(HomeCell(0))
	play(t, s, "end-turn")
	if got := legalNames(s); s.Phase() != PhaseWeapon || s.Seat() != 1 {
		t.Fatalf("refit expected, got phase %s %v", s.phase, got)
	}
	play(t, s, "weapon-spread-shot")
	if got := legalNames(s); !slices.Equal(got, []string{"engine-thrusters", "engine-warp-drive"}) {
		t.Fatalf("Astro Wing engines: %v", got)
	}
	play(t, s, "engine-warp-drive")
	if s.Phase() != PhaseCommand {
		t.Fatalf("command expected after the refit")
	}
}

func TestInvasionAndSpillOver(t *testing.T) {
	s := pos(t, map[string]string{"r10c4": "Yv"}, deck)
	play(t, s, "end-turn")
	if s.invaders[0] != 1 || s.invasions != 1 {
		t.Fatalf("invaders %v", s.invaders)
	}
	// Rocketown is full: the player chooses the left (Atomville) or right
	// (Astrofield) neighbour.
	s = pos(t, map[string]string{"r10c4": "Yv"}, deck+" inv=10,0,0,0")
	play(t, s, "end-turn")
	if got := legalNames(s); s.Phase() != PhaseSpill || !slices.Equal(got, []string{"spill-left", "spill-right"}) {
		t.Fatalf("spill decision expected, got %v", got)
	}
	play(t, s, "spill-right")
	if s.invaders != [4]int8{10, 0, 0, 1} || s.Phase() != PhaseCommand || s.Seat() != 1 {
		t.Fatalf("after spill-right: %s", s.Position())
	}
	// With one neighbour full, the alien goes to the other without a decision.
	s = pos(t, map[string]string{"r10c4": "Yv"}, deck+" inv=10,10,0,0 ")
	s.cfg = NewConfig(mustResolve(t, map[string]any{"districts_to_lose": 3})).c
	play(t, s, "end-turn")
	if s.invaders != [4]int8{10, 10, 0, 1} {
		t.Fatalf("automatic spill: %v", s.invaders)
	}
}

func mustResolve(t *testing.T, p map[string]any) env.Params {
	t.Helper()
	r, err := Game{v1: true}.Spec().Resolve(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestInvaderSpacesSix(t *testing.T) {
	cfg := NewConfig(mustResolve(t, map[string]any{"invader_spaces": 6}))
	s := posCfg(t, cfg, map[string]string{"r10c4": "Yv"}, deck+" inv=5,6,0,0")
	reward := play(t, s, "end-turn")
	// The sixth invader fills Rocketown: with Atomville full, two districts
	// are invaded and the Expert mission is lost.
	if !s.Lost() || reward != -1 || s.DistrictsInvaded() != 2 {
		t.Fatalf("want a loss, got %s", s.Position())
	}
}

func TestWeapons(t *testing.T) {
	tests := []struct {
		name, ship, action string
		cells, want        map[string]string
	}{
		{"fire hits the closest alien of the column, the top of its stack", "astro-wing/wide-beam/thrusters/fire", "fire",
			map[string]string{"r4c5": "Yv", "r6c5": "Y<Bv"}, map[string]string{"r4c5": "Yv", "r6c5": "Y<"}},
		{"wide beam hits the whole zone, side atmospheres included", "astro-wing/wide-beam/thrusters/fire", "use-weapon",
			map[string]string{"r6c5": "Yv", "r6c0": "B>", "r6c9": "Y<Mv", "r5c5": "Yv"},
			map[string]string{"r6c5": ".", "r6c0": ".", "r6c9": "Y<", "r5c5": "Yv"}},
		{"laser beam hits every space of the column, into the opposite atmosphere", "astro-wing/laser-beam/thrusters/fire",
			"use-weapon", map[string]string{"r6c5": "Yv", "r4c5": "YvBv", "r1c5": "M^", "r0c5": "."},
			map[string]string{"r6c5": ".", "r4c5": "Yv", "r1c5": "."}},
		{"spread shot hits ahead and on both forward diagonals", "astro-wing/spread-shot/thrusters/fire", "use-weapon",
			map[string]string{"r5c5": "Yv", "r4c5": "Yv", "r7c2": "B>", "r6c1": "Yv", "r6c9": "Mv", "r3c7": "Yv"},
			map[string]string{"r5c5": ".", "r4c5": "Yv", "r7c2": ".", "r6c1": "Yv", "r6c9": ".", "r3c7": "Yv"}},
		{"missile command strikes the deep-space spaces of one zone", "astro-wing/wide-beam/thrusters/fire", "missile-zone-6",
			map[string]string{"r5c3": "Yv", "r5c7": "BvMv", "r5c1": "Y>", "r4c4": "Yv"},
			map[string]string{"r5c3": ".", "r5c7": "Bv", "r5c1": "Y>", "r4c4": "Yv"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := pos(t, tc.cells, deck+" pool=1,0,1,1 ship0="+tc.ship)
			play(t, s, tc.action)
			expectCells(t, s, tc.want)
		})
	}
}

func TestWeaponLegality(t *testing.T) {
	s := pos(t, map[string]string{"r4c4": "Yv"}, deck+" pool=1,0,0,0")
	// Nothing straight ahead: fire is not legal, and no command is: the
	// player may end the turn without using a die.
	if got := legalNames(s); !slices.Equal(got, []string{"end-turn"}) {
		t.Fatalf("legal %v", got)
	}
	// The Fire-or-Special face fires only when no Fire face is left, and
	// missile command needs two Special symbols.
	s = pos(t, map[string]string{"r4c5": "YvYvYv"}, deck+" pool=1,0,1,1")
	play(t, s, "fire")
	if s.pool != [4]int8{0, 0, 1, 1} {
		t.Fatalf("fire spends the Fire face first: %v", s.pool)
	}
	play(t, s, "fire")
	if s.pool != [4]int8{0, 0, 1, 0} || slices.Contains(legalNames(s), "missile-zone-7") {
		t.Fatalf("pool %v legal %v", s.pool, legalNames(s))
	}
	if !slices.Contains(legalNames(s), "end-turn") {
		t.Fatalf("end-turn is legal once a die is used")
	}
}

func TestShieldedDefenseSystem(t *testing.T) {
	s := pos(t, map[string]string{"r7c5": "Bv", "r4c5": "Yv"}, deck+" ship0=phalanx/wide-beam/deflector/fire pool=1,0,2,0")
	play(t, s, "shielded-defense") // a tile on r9c5, ahead of the ship
	expectCells(t, s, map[string]string{"r9c5": "x0"})
	// The tile blocks fire: nothing ahead can be targeted.
	if slices.Contains(legalNames(s), "fire") {
		t.Fatalf("fire through an SDS tile")
	}
	play(t, s, "end-turn")
	// The Bluvol flies into the tile and is destroyed; the tile stays.
	expectCells(t, s, map[string]string{"r7c5": ".", "r8c5": ".", "r9c5": "x0"})
	if s.Destroyed() != 1 {
		t.Errorf("destroyed %d", s.Destroyed())
	}
}

func TestEngines(t *testing.T) {
	s := pos(t, nil, deck+" ship0=phalanx/wide-beam/deflector/fire pool=1,0,1,0")
	play(t, s, "deflector")
	if !s.Shielded(0) {
		t.Fatal("deflector should shield the ship")
	}
	s = pos(t, nil, deck+" ship0=astro-wing/wide-beam/thrusters/fire pool=1,0,1,0")
	play(t, s, "move-ne") // thrusters: the Special face moves the ship
	expectCells(t, s, map[string]string{"r9c6": "@0"})
	s = pos(t, nil, deck+" ship0=gladius/wide-beam/deflector/fire pool=1,0,1,0")
	if slices.Contains(legalNames(s), "move-n") {
		t.Fatal("without Move symbol or thrusters the ship cannot move")
	}
}

func TestWinAtDeckExhaustion(t *testing.T) {
	s := pos(t, map[string]string{"r4c5": "Yv"}, "pool=1,0,0,0")
	if r := play(t, s, "fire"); r != 1 || !s.Won() {
		t.Fatalf("destroying the last alien with the deck exhausted wins: reward %v, %s", r, s.Position())
	}
	// last_card: the turn that drew the last card wins at its end.
	cfg := NewConfig(mustResolve(t, map[string]any{"win_on": "last_card"}))
	s = posCfg(t, cfg, map[string]string{"r4c4": "Yv"}, "pool=1,0,0,0")
	if r := play(t, s, "end-turn"); r != 1 || !s.Won() {
		t.Fatalf("last_card: reward %v, %s", r, s.Position())
	}
	// clear: with aliens left, the game goes on without spawning.
	s = pos(t, map[string]string{"r4c4": "Y>"}, "pool=1,0,0,0")
	play(t, s, "end-turn")
	if s.Terminal() || s.Seat() != 1 || s.card != -1 {
		t.Fatalf("the game should go on: %s", s.Position())
	}
}

func TestLossByEmptyShipyard(t *testing.T) {
	s := pos(t, map[string]string{"r8c5": "Bv"}, deck)
	if r := play(t, s, "end-turn"); r != -1 || !s.Lost() || !s.noShip {
		t.Fatalf("a ship that cannot be replaced loses: %v %s", r, s.Position())
	}
}

func TestSpawnFromTheCurrentPlayersSide(t *testing.T) {
	// Card 3 has a Bluvol facing the reader on row 4, column 2 (as read):
	// read by seat 1 (west) it lands on r5..., facing west.
	s := pos(t, nil, "deck=3")
	play(t, s, "end-turn")
	if s.Seat() != 1 {
		t.Fatal("seat 1's turn expected")
	}
	// Row 3 (0-based) col 1 as read from seat 1: local (6, 4).
	g := Global(1, 6*Side+4)
	if st := s.Stack(g); len(st) != 1 || st[0] != [2]int{Bluvol, West} {
		t.Fatalf("%s holds %v\n%s", CellName(g), st, s)
	}
}

func TestControllers(t *testing.T) {
	for _, tc := range []struct {
		players int
		want    []int
	}{
		{4, []int{0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3}},
		{3, []int{0, 1, 2, 0, 0, 1, 2, 1, 0, 1, 2, 2}},
		{2, []int{0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1}},
	} {
		s := &State{cfg: &config{players: tc.players}}
		var got []int
		for i := 0; i < 12; i++ {
			s.cur = int8(i % 4)
			got = append(got, s.CurrentPlayer())
			if s.cur == 3 {
				s.turns3++
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%d players: %v, want %v", tc.players, got, tc.want)
		}
	}
}

func TestObservationHidesDeckOrder(t *testing.T) {
	a := pos(t, nil, "deck=1,2,3 yard=a,p")
	b := pos(t, nil, "deck=3,2,1 yard=p,a")
	oa, ob := make([]uint8, ObsSize), make([]uint8, ObsSize)
	for p := 0; p < 4; p++ {
		a.Observe(p, oa)
		b.Observe(p, ob)
		if !slices.Equal(oa, ob) {
			t.Fatalf("player %d sees the deck or shipyard order", p)
		}
	}
	// Each player sees the board from its own side: its ship at the bottom.
	for p := 0; p < 4; p++ {
		a.Observe(p, oa)
		if oa[OffShips+10*Side+5] != 1 {
			t.Errorf("player %d does not see its ship at its zone 1 centre", p)
		}
	}
}
