package galaxyexpress

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

// The rules tests read like the seed: positions are written in the notation
// of notation.go (six rows of eight cells, a1 top left, then key=value
// fields), and moves by their action names.

// mustParse parses a position, failing the test on error.
func mustParse(t *testing.T, text string, scanWrap bool) *State {
	t.Helper()
	s, err := ParsePosition(text, scanWrap)
	if err != nil {
		t.Fatalf("ParsePosition: %v\n%s", err, text)
	}
	return s
}

var actionByName = func() map[string]int {
	m := map[string]int{}
	for a, n := range spec.ActionNames {
		m[n] = a
	}
	return m
}()

// playActions plays the named actions, each of which must be legal, and
// returns the summed reward.
func playActions(t *testing.T, s *State, names ...string) float64 {
	t.Helper()
	mask := make([]uint8, NumActions)
	r := []float64{0}
	for _, name := range names {
		a, ok := actionByName[name]
		if !ok {
			t.Fatalf("no action named %q", name)
		}
		s.LegalMask(mask)
		if mask[a] == 0 {
			t.Fatalf("%s is not legal; legal: %v\n%s", name, legalNames(s), s)
		}
		s.Apply(a, r)
	}
	return r[0]
}

// legalNames lists the legal actions by name.
func legalNames(s *State) []string {
	mask := make([]uint8, NumActions)
	s.LegalMask(mask)
	var out []string
	for a, m := range mask {
		if m == 1 {
			out = append(out, spec.ActionNames[a])
		}
	}
	return out
}

// posField returns the value of key=... in the state's notation.
func posField(s *State, key string) string {
	for _, f := range strings.Fields(s.Position()) {
		if v, ok := strings.CutPrefix(f, key+"="); ok {
			return v
		}
	}
	return ""
}

// withFields replaces fields of the state's notation (the way a test
// stipulates a chance outcome, e.g. the coins a refuel turns up).
func withFields(t *testing.T, s *State, fields ...string) *State {
	t.Helper()
	text := s.Position()
	for _, f := range fields {
		key, _, _ := strings.Cut(f, "=")
		old := key + "=" + posField(s, key)
		if !strings.Contains(text, old) {
			t.Fatalf("no field %s in %s", key, text)
		}
		text = strings.Replace(text, old, f, 1)
	}
	return mustParse(t, text, s.cfg.scanWrap)
}

// scanned reports, for planet numbers 0-5, which are face up, e.g. "0 2 5".
func scanned(s *State) string {
	var out []string
	for n := 0; n < numPlanets; n++ {
		if s.known&(1<<s.sqOf[n]) != 0 {
			out = append(out, fmt.Sprint(n))
		}
	}
	return strings.Join(out, " ")
}

// sq returns the square index of a name like "c4".
func sq(name string) int { return int(name[1]-'1')*Cols + int(name[0]-'a') }

// chart draws a Star Chart with the ship on square ship (or "" for none)
// and the given planets, each "square=cell", e.g. "c1=5?".
func chart(ship string, planets ...string) string {
	cells := make([]string, Squares)
	for i := range cells {
		cells[i] = "."
	}
	for _, p := range planets {
		name, cell, _ := strings.Cut(p, "=")
		cells[sq(name)] = cell
	}
	if ship != "" {
		i := sq(ship)
		if cells[i] == "." {
			cells[i] = "@"
		} else {
			cells[i] = "@" + strings.TrimSuffix(cells[i], "?")
		}
	}
	var b strings.Builder
	for r := 0; r < Rows; r++ {
		b.WriteString(strings.Join(cells[r*Cols:(r+1)*Cols], " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// farPlanets are six planets, all scanned, none on or next to the squares
// the movement tables use.
var farPlanets = []string{"c1=5", "h1=1", "f4=2", "c5=0", "g5=3", "a6=4"}

func TestWarpSlideWrapsAround(t *testing.T) {
	// seed: "Movement on the board wraps around to the other side of the
	// board"; a slide is exactly speed squares in one direction.
	cases := []struct {
		from  string
		speed int
		move  string // a coin that keeps the speed: thrust-0-<dir>
		to    string
	}{
		{"h2", 3, "thrust-0-east", "c2"},  // off the right edge, on from the left
		{"a2", 3, "thrust-0-west", "f2"},  // off the left edge
		{"a2", 2, "thrust-0-north", "a6"}, // off the top, on from the bottom
		{"a6", 2, "thrust-0-south", "a2"}, // off the bottom
		{"b3", 10, "thrust-0-east", "d3"}, // 10 across = a lap and 2
		{"d3", 10, "thrust-0-north", "d5"},
		{"d2", 7, "thrust-0-west", "e2"}, // 7 west = 1 east
		{"e3", 5, "thrust-0-south", "e2"},
	}
	for _, c := range cases {
		t.Run(c.from+"-"+c.move, func(t *testing.T) {
			s := mustParse(t, chart(c.from, farPlanets...)+fmt.Sprintf("speed=%d", c.speed), false)
			playActions(t, s, c.move)
			if got := squareName(s.Ship()); got != c.to || s.Speed() != c.speed {
				t.Errorf("ship at %s speed %d, want %s speed %d", got, s.Speed(), c.to, c.speed)
			}
		})
	}
}

func TestSpeedClamps(t *testing.T) {
	// seed: "if a 4-point Thrust Coin is played when the speed is already 8,
	// then the resulting speed is the maximum, 10. Likewise, if a 4-point
	// Brake Coin is played when the speed is only 2, the resulting speed is 0."
	cases := []struct {
		speed int
		coins string
		move  string
		want  int
	}{
		{8, "thrust=4,5/0,1", "thrust-4-east", 10},
		{10, "thrust=4,5/0,1", "thrust-5-east", 10},
		{2, "brake=4,5/0,1", "brake-4-north", 0},
		{0, "brake=4,5/0,1", "brake-5-north", 0},
		{3, "brake=1,3/0,2", "brake-3-north", 0},
		{3, "thrust=0,4/1,5", "thrust-0-east", 3},
		{6, "brake=1,3/0,2", "brake-1-east", 5},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%d-%s", c.speed, c.move), func(t *testing.T) {
			s := mustParse(t, chart("b3", farPlanets...)+fmt.Sprintf("speed=%d %s", c.speed, c.coins), false)
			playActions(t, s, c.move)
			if s.Speed() != c.want {
				t.Errorf("speed %d, want %d", s.Speed(), c.want)
			}
			if c.want == 0 && s.Ship() != sq("b3") {
				t.Errorf("at speed 0 the ship moved to %s", squareName(s.Ship()))
			}
		})
	}
}

func TestDeliveryOnlyAtSpeedZero(t *testing.T) {
	// The target is planet 3 on g5; the ship is on h5, next to it.
	const board = `
. . 5 . . . . 1
. . . . . . . .
. . . . . 2 . .
. . . . . . . .
. . 0 . . . 3 @
4 . . . . . . .
`
	t.Run("landing at speed 1 is a fly-by", func(t *testing.T) {
		s := mustParse(t, board+"speed=3 queue=3,0,1,2,4,5 brake=2,3/0,1,4,5", false)
		if r := playActions(t, s, "brake-2-west"); r != 0 {
			t.Errorf("reward %v", r)
		}
		if squareName(s.Ship()) != "g5" || s.Deliveries() != 0 || s.Phase() != PhaseCoin {
			t.Fatalf("after the fly-by: ship %s, %d deliveries, phase %d", squareName(s.Ship()), s.Deliveries(), s.Phase())
		}
		// Braking to 0 on it makes the delivery.
		if r := playActions(t, s, "brake-3-north"); r != DeliveryReward {
			t.Errorf("delivery reward %v, want %d", r, DeliveryReward)
		}
		if s.Deliveries() != 1 || s.Target() != 0 || s.Phase() != PhaseRefuel {
			t.Errorf("after the stop: %d deliveries, target %d, phase %d", s.Deliveries(), s.Target(), s.Phase())
		}
	})
	t.Run("sliding across the target is nothing", func(t *testing.T) {
		s := mustParse(t, board+"speed=2 queue=3,0,1,2,4,5 thrust=0,1/2,3,4,5", false)
		playActions(t, s, "thrust-0-west") // h5 -> g5 -> f5
		if squareName(s.Ship()) != "f5" || s.Deliveries() != 0 {
			t.Errorf("ship %s, %d deliveries", squareName(s.Ship()), s.Deliveries())
		}
	})
	t.Run("stopping on another planet offers only a refuel", func(t *testing.T) {
		// The ship is on planet 3 (g5), but the target is planet 0.
		s := mustParse(t, strings.Replace(board, "3 @", "@3 .", 1)+"speed=1 queue=0,3,1,2,4,5 brake=1,3/0,2,4,5", false)
		if r := playActions(t, s, "brake-1-north"); r != 0 {
			t.Errorf("reward %v at a planet that is not the target", r)
		}
		if s.Deliveries() != 0 || s.Phase() != PhaseRefuel {
			t.Errorf("%d deliveries, phase %d; want 0 and the refuel decision", s.Deliveries(), s.Phase())
		}
		if got := legalNames(s); !slices.Equal(got, []string{"refuel", "no-refuel"}) {
			t.Errorf("legal %v", got)
		}
	})
	t.Run("stopping in empty space is no orbit", func(t *testing.T) {
		s := mustParse(t, board+"speed=2 queue=3,0,1,2,4,5 brake=2,3/0,1,4,5", false)
		playActions(t, s, "brake-2-north")
		if s.Phase() != PhaseCoin || s.Deliveries() != 0 {
			t.Errorf("phase %d, %d deliveries", s.Phase(), s.Deliveries())
		}
	})
}

func TestScanAdjacency(t *testing.T) {
	// The ship slides from a6 three squares north (wrapping: a6, a5, a4, a3)
	// and ends on a3. Planet 0 on b3 is orthogonally next to a3; 1 on b2 is
	// diagonal; 2 on h3 is next to a3 only across the edge; 3 on b5 was next
	// to a square the ship passed; 4 and 5 are far away.
	const board = `
. . . . 4? . . .
. 1? . . . . . .
. 0? . . . . . 2?
. . . . . . . .
. 3? . . . . . .
@ . . . . . 5? .
thrust=3,4/0,1,2,5`
	cases := []struct {
		scanWrap bool
		want     string
	}{
		{false, "0"},
		{true, "0 2"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("scan_wrap=%v", c.scanWrap), func(t *testing.T) {
			s := mustParse(t, board, c.scanWrap)
			playActions(t, s, "thrust-3-north")
			if squareName(s.Ship()) != "a3" {
				t.Fatalf("ship on %s, want a3", squareName(s.Ship()))
			}
			if got := scanned(s); got != c.want {
				t.Errorf("scanned %q, want %q", got, c.want)
			}
		})
	}
	t.Run("a planet under the ship is scanned", func(t *testing.T) {
		s := mustParse(t, `
. . . . 4? . . .
. 1? . . . . . .
. 0? . . . . . 2?
. . . . . . . .
. 3? . . . . . .
. . . . @ . 5? .
speed=2`, false)
		playActions(t, s, "thrust-0-east") // e6 -> g6, onto planet 5
		if squareName(s.Ship()) != "g6" || scanned(s) != "5" {
			t.Errorf("ship on %s, scanned %q; want g6 and planet 5", squareName(s.Ship()), scanned(s))
		}
	})
}

// sampleStart is the seed's sample game after setup, as far as its text
// pins the Star Chart down: the launch planet 2 is in the 3rd column from
// the right and the 3rd row from the bottom (f4); the other planets are
// placed where the sample's scans find them, one per tile. The queue starts
// with crown 2, then 3 and 0 (the sample's first two deliveries); the coins
// come up in the order the sample reports.
const sampleStart = `
. . 5? . . . . 1?
. . . . . . . .
. . . . . . . .
. . . . . 2? . .
. . 0? . . . 3? .
4? . . . . . . .
phase=start queue=2,3,0,4,5,1 thrust=0,3/1,2,4,5 brake=1,4/0,2,3,5`

func TestSampleGame(t *testing.T) {
	s := mustParse(t, sampleStart, false)
	ret := 0.0
	turn := func(move, wantShip, wantScanned, wantThrust, wantBrake string) {
		t.Helper()
		ret += playActions(t, s, move)
		if got := squareName(s.Ship()); got != wantShip {
			t.Errorf("after %s: ship on %s, want %s", move, got, wantShip)
		}
		if got := scanned(s); got != wantScanned {
			t.Errorf("after %s: planets scanned %q, want %q", move, got, wantScanned)
		}
		if got := posField(s, "thrust"); got != wantThrust {
			t.Errorf("after %s: thrust coins %s, want %s", move, got, wantThrust)
		}
		if got := posField(s, "brake"); got != wantBrake {
			t.Errorf("after %s: brake coins %s, want %s", move, got, wantBrake)
		}
	}

	// After Setup: launch from f4, planet 2, the top of the queue, so crown 2
	// goes to the bottom and planet 3 is the first target.
	if legal := legalNames(s); len(legal) != 6 || legal[2] != "launch-planet-2" {
		t.Fatalf("legal at launch: %v", legal)
	}
	turn("launch-planet-2", "f4", "2", "0,3/1,2,4,5", "1,4/0,2,3,5")
	if s.Target() != 3 || posField(s, "queue") != "3,0,4,5,1,2" || posField(s, "bottom") != "2" {
		t.Fatalf("after launch: target %d, queue %s, bottom %s", s.Target(), posField(s, "queue"), posField(s, "bottom"))
	}
	// Turn 1: Thrust 3, slide left to c4, next to planet 0; a Thrust 1 turns up.
	turn("thrust-3-west", "c4", "0 2", "0,1/2,4,5", "1,4/0,2,3,5")
	// Turn 2: Brake 1 (speed 2), up to c2, next to planet 5; a Brake 0 turns up.
	turn("brake-1-north", "c2", "0 2 5", "0,1/2,4,5", "0,4/2,3,5")
	// Turn 3: Thrust 1 (speed 3), left across the edge to h2, next to planet
	// 1; a Thrust 2 turns up.
	turn("thrust-1-west", "h2", "0 1 2 5", "0,2/4,5", "0,4/2,3,5")
	// Turn 4: Brake 0 (speed 3): "3 squares below". On a board 6 tall a slide
	// of 3 north and 3 south end on the same square, so that move is one
	// action, the north one; it ends on h5, next to planet 3. A Brake 2.
	if got := legalNames(s); slices.Contains(got, "brake-0-south") || !slices.Contains(got, "brake-0-north") {
		t.Errorf("speed-3 slides: legal %v", got)
	}
	turn("brake-0-north", "h5", "0 1 2 3 5", "0,2/4,5", "2,4/3,5")
	// Turns 5 and 6: Brake 2 (speed 1) left onto planet 3; a Brake 3 turns
	// up, and brings the ship to a full stop: delivery.
	turn("brake-2-west", "g5", "0 1 2 3 5", "0,2/4,5", "3,4/5")
	before := ret
	turn("brake-3-north", "g5", "0 1 2 3 5", "0,2/4,5", "4/5")
	if ret-before != DeliveryReward || s.Deliveries() != 1 || s.Target() != 0 || s.Phase() != PhaseRefuel {
		t.Fatalf("turn 6: reward %v, %d deliveries, target %d, phase %d", ret-before, s.Deliveries(), s.Target(), s.Phase())
	}
	turn("no-refuel", "g5", "0 1 2 3 5", "0,2/4,5", "4,5/-")
	// Turns 7-9: both Thrust coins, four squares left in two slides, onto
	// planet 0; then a Brake for the delivery.
	turn("thrust-2-west", "e5", "0 1 2 3 5", "0,4/5", "4,5/-")
	turn("thrust-0-west", "c5", "0 1 2 3 5", "4,5/-", "4,5/-")
	turn("brake-4-north", "c5", "0 1 2 3 5", "4,5/-", "5/-")
	if s.Deliveries() != 2 || s.UnspentCoins() != 3 {
		t.Fatalf("after turn 9: %d deliveries, %d coins left", s.Deliveries(), s.UnspentCoins())
	}
	// "I was down to a single Brake Coin at that point, so I refueled."
	before = ret
	ret += playActions(t, s, "refuel")
	if ret-before != RefuelPenalty || s.Refuels() != 1 || s.UnspentCoins() != 12 || s.Lost() {
		t.Fatalf("refuel: reward %v, refuels %d, coins %d", ret-before, s.Refuels(), s.UnspentCoins())
	}
	if ret != 30 {
		t.Fatalf("return after turn 9: %v, want 20+20-10", ret)
	}

	// Game summary. The text skips the deliveries of planets 4 and 5; we
	// take up the game with the ship at rest on planet 5 (c1) and "just 1
	// Brake Coin (5) and 2 Thrust Coins (2 & 5) left": planet 1 is "exactly
	// 5 spaces away" (c1 to h1).
	ret += 2 * DeliveryReward
	s = mustParse(t, `
. . @5 . . . . 1
. . . . . . . .
. . . . . . . .
. . . . . 2 . .
. . 0 . . . 3 .
4 . . . . . . .
delivered=3,0,4,5 queue=1,2 bottom=2 refuels=1 thrust=2,5/- brake=5/-`, false)
	ret += playActions(t, s, "thrust-5-east", "brake-5-north")
	if s.Deliveries() != 5 || squareName(s.Ship()) != "h1" || s.Phase() != PhaseRefuel {
		t.Fatalf("lucky delivery: %d deliveries, ship %s, phase %d", s.Deliveries(), squareName(s.Ship()), s.Phase())
	}
	ret += playActions(t, s, "refuel") // the second refuel
	// The refuel's shuffle is chance; stipulate the coins it turned up.
	s = withFields(t, s, "thrust=1,2/0,3,4,5", "brake=0,3/1,2,4,5")
	// The last delivery, to planet 2 on f4, with three coins: two left,
	// three down (wrapping), stop.
	ret += playActions(t, s, "thrust-2-west", "thrust-1-north", "brake-3-north")
	if !s.Terminal() || s.Lost() || s.Deliveries() != 6 || s.Refuels() != 2 || s.UnspentCoins() != 9 {
		t.Fatalf("end: terminal %v, lost %v, %d deliveries, %d refuels, %d coins", s.Terminal(), s.Lost(),
			s.Deliveries(), s.Refuels(), s.UnspentCoins())
	}
	// "a very nice score of 109 (120 for the six deliveries, subtract 2x10
	// for refueling, and add 9 for remaining Thrust/Brake Coins)".
	if s.Score() != 109 || ret != 109 {
		t.Errorf("score %d, return %v, want 109", s.Score(), ret)
	}
	var in env.Info
	s.Info(&in)
	if in.Outcome != env.OutcomeWin || in.Score != 109 {
		t.Errorf("info %s", in.AppendJSON(nil))
	}
	if r, _ := in.Label("rating"); r != RatingEmployee {
		t.Errorf("rating %q", r)
	}
}

func TestLaunch(t *testing.T) {
	cases := []struct {
		name      string
		queue     string
		launch    string // action
		wantShip  string
		wantQueue string
		bottom    string
	}{
		{"the top crown goes to the bottom", "2,3,0,4,5,1", "launch-planet-2", "f4", "3,0,4,5,1,2", "2"},
		{"another planet changes nothing", "3,2,0,4,5,1", "launch-planet-2", "f4", "3,2,0,4,5,1", ""},
		{"reading order: first planet", "5,2,0,4,3,1", "launch-planet-0", "c1", "2,0,4,3,1,5", "5"},
		{"reading order: last planet", "5,2,0,4,3,1", "launch-planet-5", "a6", "5,2,0,4,3,1", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := withFields(t, mustParse(t, sampleStart, false), "queue="+c.queue)
			if r := playActions(t, s, c.launch); r != 0 {
				t.Errorf("launch reward %v", r)
			}
			if got := squareName(s.Ship()); got != c.wantShip {
				t.Errorf("ship on %s, want %s", got, c.wantShip)
			}
			if got := posField(s, "queue"); got != c.wantQueue {
				t.Errorf("queue %s, want %s", got, c.wantQueue)
			}
			if got := posField(s, "bottom"); got != c.bottom {
				t.Errorf("bottom %q, want %q", got, c.bottom)
			}
			// Assumptions: no refuel decision at launch, speed 0, and only
			// the launch planet is flipped.
			if s.Phase() != PhaseCoin || s.Speed() != 0 || s.Turn() != 0 || strings.Count(s.Position(), "?") != 5 {
				t.Errorf("after launch: phase %d speed %d turn %d\n%s", s.Phase(), s.Speed(), s.Turn(), s.Position())
			}
		})
	}
	t.Run("neighbours are not scanned at launch", func(t *testing.T) {
		s := mustParse(t, `
. . . . . . . .
. . . . . . . .
. . . . . 1? . .
. . . . . 2? . .
. . 0? . . . 3? .
4? . . . . 5? . .
phase=start queue=0,1,2,3,4,5 thrust=0,3/1,2,4,5`, false)
		playActions(t, s, "launch-planet-1") // 2 on f4, next to 1 on f3
		if scanned(s) != "2" {
			t.Errorf("scanned %q after launch, want only the launch planet", scanned(s))
		}
		// A null Thrust at speed 0 slides nowhere, so nothing is scanned
		// (Assumption: scanning follows a Warp Slide only).
		playActions(t, s, "thrust-0-north")
		if scanned(s) != "2" || s.Phase() != PhaseRefuel {
			t.Errorf("scanned %q, phase %d after a null Thrust at rest", scanned(s), s.Phase())
		}
	})
}

func TestRefuel(t *testing.T) {
	// The ship has just braked to 0 on planet 0 (c5) with a Brake coin; the
	// replacement Brake coin is owed until the refuel decision.
	const orbit = `
. . 5 . . . . 1
. . . . . . . .
. . . . . . . .
. . . . . 2 . .
. . @0 . . . 3 .
4 . . . . . . .
phase=refuel queue=3,4,5,1,2 delivered=0 thrust=3,4/5 brake=5/0,2 pending=brake refuels=1 turns=9`
	t.Run("refuel", func(t *testing.T) {
		s := mustParse(t, orbit, false)
		if r := playActions(t, s, "refuel"); r != RefuelPenalty {
			t.Errorf("reward %v, want %d", r, RefuelPenalty)
		}
		// Every spent coin is back, both stacks reshuffled, two face up each,
		// and no replacement coin on top of those.
		for _, suit := range []string{"thrust", "brake"} {
			up, down, _ := strings.Cut(posField(s, suit), "/")
			if strings.Count(up, ",") != 1 || strings.Count(down, ",") != 3 {
				t.Errorf("%s coins %s/%s: want 2 face up, 4 face down", suit, up, down)
			}
		}
		if s.Refuels() != 2 || s.UnspentCoins() != 12 || s.Phase() != PhaseCoin || s.Score() != 1*20-2*10+12 { // one delivery (planet 0), two refuels, 12 unspent coins
			t.Errorf("refuels %d, coins %d, phase %d, score %d", s.Refuels(), s.UnspentCoins(), s.Phase(), s.Score())
		}
	})
	t.Run("no refuel", func(t *testing.T) {
		s := mustParse(t, orbit, false)
		if r := playActions(t, s, "no-refuel"); r != 0 {
			t.Errorf("reward %v", r)
		}
		// The owed Brake coin turns up now (turn step 5).
		if posField(s, "brake") != "0,5/2" || posField(s, "thrust") != "3,4/5" || s.Refuels() != 1 {
			t.Errorf("coins thrust=%s brake=%s, refuels %d", posField(s, "thrust"), posField(s, "brake"), s.Refuels())
		}
	})
	t.Run("refuel is offered at every stop on a planet", func(t *testing.T) {
		s := mustParse(t, orbit, false)
		playActions(t, s, "no-refuel", "brake-0-north") // stay in orbit
		if s.Phase() != PhaseRefuel {
			t.Errorf("phase %d after staying at rest on a planet", s.Phase())
		}
	})
}

func TestLostInSpace(t *testing.T) {
	// The ship coasts at speed 3 with a null Thrust, the last Thrust coin.
	// Afterwards Brakes 0 and 1 are face up: on their own they cannot bring
	// speed 3 to 0.
	const board = `
. . 5 . . . . 1
. . . . . . . .
. . . . . . . .
@ . . . . 2 . .
. . 0 . . . 3 .
4 . . . . . . .
speed=3 queue=3,4,5,1,2 delivered=0 thrust=0/-`
	t.Run("face-down coins rescue the ship", func(t *testing.T) {
		// A face-down Brake 2 remains: Brake 1 (speed 2) then Brake 2 stop the
		// ship two squares on, and from d4 (after the slide east) f4 holds
		// planet 2. The coin's position in the stack does not matter.
		for _, brakes := range []string{"brake=0,1/2", "brake=0,1/2,5", "brake=0,1/5,2"} {
			s := mustParse(t, board+" "+brakes, false)
			r := playActions(t, s, "thrust-0-east")
			if s.Lost() || s.Terminal() || r != 0 {
				t.Errorf("%s: lost %v, reward %v\n%s", brakes, s.Lost(), r, s)
			}
			if !CanStop(s.Ship(), s.Speed(), s.unspent(), 1<<sq("f4")) {
				t.Errorf("%s: f4 should be reachable", brakes)
			}
		}
	})
	t.Run("no stop possible", func(t *testing.T) {
		s := mustParse(t, board+" brake=0,1/-", false)
		r := playActions(t, s, "thrust-0-east")
		if !s.Lost() || !s.Terminal() {
			t.Fatalf("not lost with brakes 0 and 1 at speed 3:\n%s", s)
		}
		// The game ends; the unspent coins are paid.
		if r != 2 || s.Score() != 20+2 {
			t.Errorf("reward %v (want the 2 unspent coins), score %d", r, s.Score())
		}
		var in env.Info
		s.Info(&in)
		if in.Outcome != env.OutcomeLoss {
			t.Errorf("outcome %q", in.Outcome)
		}
	})
	t.Run("a stop in empty space is no rescue", func(t *testing.T) {
		// Brake 3 brings the ship to rest on d4, where there is no planet.
		s := mustParse(t, board+" brake=3/-", false)
		playActions(t, s, "thrust-0-east")
		if !s.Lost() {
			t.Errorf("not lost:\n%s", s)
		}
	})
	t.Run("declining to refuel with no way to stop again", func(t *testing.T) {
		const orbit = `
. . 5 . . . . 1
. . . . . . . .
. . . . . . . .
. . . . . 2 . .
. . @0 . . . 3 .
4 . . . . . . .
phase=refuel queue=3,4,5,1,2 delivered=0 brake=-/- pending=brake `
		s := mustParse(t, orbit+"thrust=4/-", false)
		playActions(t, s, "no-refuel")
		if !s.Lost() {
			t.Errorf("only Thrust 4 left, yet not lost")
		}
		// A null Thrust keeps the ship at rest in orbit: not lost.
		s = mustParse(t, orbit+"thrust=0,4/-", false)
		playActions(t, s, "no-refuel")
		if s.Lost() {
			t.Errorf("lost, although a null Thrust stops the ship on planet 0 again")
		}
	})
}

func TestDuplicateMoves(t *testing.T) {
	// A coin's slide directions that end on the same square are one move;
	// only the first in N, E, S, W order is legal.
	cases := []struct {
		speed int
		dirs  string // legal directions of thrust-0 at this speed
	}{
		{0, "N"}, // nothing slides: the direction is moot
		{1, "NESW"},
		{2, "NESW"},
		{3, "NEW"}, // 3 north = 3 south on 6 rows
		{4, "NES"}, // 4 east = 4 west on 8 columns
		{5, "NESW"},
		{6, "NEW"}, // a lap north = a lap south
		{7, "NESW"},
		{8, "NES"}, // a lap east = a lap west
		{9, "NEW"},
		{10, "NESW"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.speed), func(t *testing.T) {
			s := mustParse(t, chart("b3", farPlanets...)+fmt.Sprintf("speed=%d thrust=0,5/1,2,3,4", c.speed), false)
			got := ""
			for _, n := range legalNames(s) {
				if d, ok := strings.CutPrefix(n, "thrust-0-"); ok {
					got += strings.ToUpper(d[:1])
				}
			}
			if got != c.dirs {
				t.Errorf("legal directions %s, want %s", got, c.dirs)
			}
		})
	}
	t.Run("laps", func(t *testing.T) {
		for _, c := range []struct {
			speed int
			move  string
		}{{8, "thrust-0-east"}, {6, "thrust-0-north"}} {
			s := mustParse(t, chart("b3", farPlanets...)+fmt.Sprintf("speed=%d thrust=0,5/1,2,3,4", c.speed), false)
			playActions(t, s, c.move)
			if squareName(s.Ship()) != "b3" {
				t.Errorf("speed %d %s ends on %s, want b3 (a full lap)", c.speed, c.move, squareName(s.Ship()))
			}
		}
	})
	t.Run("all brakes to 0 at speed 0", func(t *testing.T) {
		s := mustParse(t, chart("b3", farPlanets...)+"brake=2,4/0,1,3,5", false)
		if got := strings.Join(legalNames(s), " "); !strings.Contains(got, "brake-2-north brake-4-north") ||
			strings.Contains(got, "brake-2-east") || strings.Contains(got, "brake-4-west") {
			t.Errorf("legal %s", got)
		}
	})
}

func TestWinAtSixthDelivery(t *testing.T) {
	// Speed 1 west onto planet 4 (a6), the last crown, then Brake 1.
	s := mustParse(t, `
. . 5 . . . . 1
. . . . . . . .
. . . . . . . .
. . . . . 2 . .
. . 0 . . . 3 .
4 @ . . . . . .
speed=1 delivered=3,0,1,2,5 queue=4 refuels=1 thrust=0,3/5 brake=1,2/3,4,5`, false)
	r := playActions(t, s, "thrust-0-west", "brake-1-north")
	if !s.Terminal() || s.Lost() || s.Deliveries() != 6 {
		t.Fatalf("terminal %v lost %v deliveries %d", s.Terminal(), s.Lost(), s.Deliveries())
	}
	// No refuel decision after the last delivery: the game is over, and the
	// six unspent coins (Thrust 3, 5; Brake 2-5) are paid with the delivery.
	if s.Phase() != PhaseOver || len(legalNames(s)) != 0 || s.Target() != -1 {
		t.Errorf("phase %d, legal %v, target %d", s.Phase(), legalNames(s), s.Target())
	}
	if r != DeliveryReward+6 || s.Score() != 120-10+6 {
		t.Errorf("reward %v, score %d", r, s.Score())
	}
	var in env.Info
	s.Info(&in)
	if in.Outcome != env.OutcomeWin {
		t.Errorf("outcome %q", in.Outcome)
	}
}

func TestScoreFormula(t *testing.T) {
	// 20 per delivery, -10 per refuel, +1 per unspent coin, face-down ones
	// included.
	cases := []struct {
		fields string
		score  int
		rating string
	}{
		{"delivered=3,0,4,5,1,2 refuels=2 thrust=0,1/2,3,4 brake=0,1/2,3 phase=over", 109, RatingEmployee},
		{"delivered=3,0,4,5,1,2 refuels=2 thrust=-/- brake=-/- phase=over", 100, RatingEmployee},
		{"delivered=3,0,4,5,1,2 refuels=2 thrust=-/- brake=1/- phase=over", 101, RatingEmployee},
		{"delivered=3,0,4,5,1,2 refuels=3 thrust=0/- brake=-/- phase=over", 91, RatingNice},
		{"delivered=3,0,4,5,1 queue=2 refuels=1 thrust=4,5/- brake=-/- phase=over lost=true", 92, RatingNice},
		{"delivered=3,0,4,5,1 queue=2 refuels=1 thrust=-/- brake=-/- phase=over lost=true", 90, RatingNice},
		{"delivered=3,0,4,5,1 queue=2 refuels=2 thrust=0,1/2,3,4 brake=0,1/2,3 phase=over lost=true", 89, RatingRookie},
		{"delivered=3,0,4,5,1 queue=2 refuels=2 thrust=-/- brake=-/- phase=over lost=true", 80, RatingRookie},
		{"delivered=3,0,4,5 queue=1,2 refuels=1 thrust=0,1/2,3,4 brake=0,1/2,3 phase=over lost=true", 79, RatingAcademy},
		{"delivered=3,0,4,5,1 queue=2 refuels=3 thrust=4,5/3,2 brake=-/5 phase=over lost=true", 75, RatingAcademy},
		{"delivered=3 queue=0,4,5,1,2 refuels=4 thrust=0,1/2,3,4,5 brake=0,1/2,3,4,5", -8, RatingAcademy},
		{"queue=3,0,4,5,1,2", 12, RatingAcademy},
	}
	for _, c := range cases {
		t.Run(c.fields, func(t *testing.T) {
			s := mustParse(t, chart("c5", farPlanets...)+c.fields, false)
			if s.Score() != c.score || Rating(s.Score()) != c.rating {
				t.Errorf("score %d (%s), want %d (%s)", s.Score(), Rating(s.Score()), c.score, c.rating)
			}
		})
	}
}

func TestTruncationPaysUnspentCoins(t *testing.T) {
	e, err := env.Make(ID, map[string]any{"max_turns": 2})
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= 20; seed++ {
		e.Reset(seed)
		var last env.StepResult
		for !e.Done() {
			a := 0
			for e.Mask()[a] == 0 {
				a++
			}
			if last, err = e.Step(a); err != nil {
				t.Fatal(err)
			}
		}
		in := e.Info()
		if e.Returns()[0] != in.Score {
			t.Fatalf("seed %d: return %v != score %v", seed, e.Returns()[0], in.Score)
		}
		if !e.Truncated() {
			continue // lost within two turns
		}
		s := e.State().(*State)
		if in.Outcome != env.OutcomeTruncated || s.Turn() != 2 || last.Rewards[0] < float64(s.UnspentCoins()) {
			t.Fatalf("seed %d: outcome %q, turn %d, last reward %v, unspent %d", seed, in.Outcome, s.Turn(),
				last.Rewards[0], s.UnspentCoins())
		}
		return
	}
	t.Fatal("no seed reached truncation")
}
