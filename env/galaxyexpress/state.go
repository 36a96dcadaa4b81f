package galaxyexpress

import (
	"math/bits"
	"math/rand/v2"
	"strconv"

	"github.com/galaxygym/galaxygym/env"
)

// Phase is the kind of decision a turn is at; the observation's phase
// plane has one byte per phase before PhaseOver (OffPhase + phase).
type Phase int8

// Phases of a turn (one per kind of decision).
const (
	PhaseStart  Phase = iota // choose the launch planet
	PhaseCoin                // play a face-up coin (and a slide direction)
	PhaseRefuel              // orbiting a planet: refuel or not
	PhaseOver                // the game has ended
)

var phaseNames = [...]string{"start", "coin", "refuel", "over"}

// String returns "start", "coin", "refuel" or "over" (the phase's number
// for any other value).
func (p Phase) String() string {
	if p >= 0 && int(p) < len(phaseNames) {
		return phaseNames[p]
	}
	return "phase(" + strconv.Itoa(int(p)) + ")"
}

// Suit is a suit of the Thrust/Brake coins; it indexes the per-suit
// planes of the observation (OffUp + 6*suit, ...) and the coin actions
// ([CoinAction]).
type Suit int

// Suits of the Thrust/Brake coins.
const (
	Thrust Suit = 0 // Sun coins: add their value to the speed
	Brake  Suit = 1 // Moon coins: subtract their value from the speed
)

var suitNames = [...]string{"thrust", "brake"}

// String returns "thrust" or "brake", the names the position notation and
// the action names use ("suit(N)" for any other value).
func (s Suit) String() string {
	if s >= 0 && int(s) < len(suitNames) {
		return suitNames[s]
	}
	return "suit(" + strconv.Itoa(int(s)) + ")"
}

const (
	numPlanets = 6
	numValues  = 6 // coin values null=0, ace=1, 2, 3, 4, 5
	allValues  = uint8(1)<<numValues - 1
	maxSpeed   = 10
	faceUpEach = 2
)

// State is one Galaxy Express position, hidden information included: the
// planet numbers under face-down coins, the delivery queue below its top,
// the order of the face-down coin stacks and the chance generator that
// shuffles them on a refuel.
type State struct {
	cfg *config

	phase Phase
	ship  int8 // square of the Starship, -1 before launch
	speed int8

	planets uint64           // squares holding a planet
	known   uint64           // planets scanned (face up)
	numAt   [Squares]int8    // planet number on each square, -1 for none
	sqOf    [numPlanets]int8 // square of planet number k

	queue      [numPlanets]int8 // delivery queue, queue[delivered] is the top
	delivered  int8             // deliveries made
	bottom     int8             // crown moved to the bottom at launch, -1 none
	refuels    int16
	turns      int16
	lost       bool
	pendingRev int8 // suit whose replacement coin is revealed after the refuel decision, -1 none

	up    [2]uint8           // face-up coin values per suit (bit v)
	spent [2]uint8           // spent coin values per suit
	deck  [2][numValues]int8 // face-down stack per suit, drawn from the end
	deckN [2]int8

	rng rand.PCG
}

// config holds the resolved parameters of a game instance.
type config struct {
	scanWrap bool
	scan     *[Squares]uint64
}

var configs = [2]config{{false, &scanTables[0]}, {true, &scanTables[1]}}

func configFor(p env.Params) *config {
	if p.Bool("scan_wrap") {
		return &configs[1]
	}
	return &configs[0]
}

// newState deals a game from seed: tiles for the six planets, their quadrants
// and numbers, the delivery queue, and both coin stacks, in that order.
func newState(cfg *config, seed uint64) *State {
	s := &State{cfg: cfg, ship: -1, bottom: -1, pendingRev: -1}
	s.rng = *rand.NewPCG(seed, 0x6761_6c61_7879_6578) // "galaxyex"
	for i := range s.numAt {
		s.numAt[i] = -1
	}
	// Six distinct tiles of the twelve (seed: one coin per tile; the six Arms
	// coins stay on the board), each coin in a random quadrant.
	var tiles [12]int8
	for i := range tiles {
		tiles[i] = int8(i)
	}
	s.shuffle8(tiles[:])
	var numbers [numPlanets]int8
	for i := range numbers {
		numbers[i] = int8(i)
	}
	s.shuffle8(numbers[:])
	quads := s.rng.Uint64() // two bits a planet: uniform quadrants
	for k := 0; k < numPlanets; k++ {
		t := int(tiles[k])
		q := int(quads >> (2 * k) & 3)
		r := (t/4)*2 + q/2
		c := (t%4)*2 + q%2
		sq := r*Cols + c
		s.planets |= 1 << sq
		s.numAt[sq] = numbers[k]
		s.sqOf[numbers[k]] = int8(sq)
	}
	for i := range s.queue {
		s.queue[i] = int8(i)
	}
	s.shuffle8(s.queue[:])
	s.shuffleCoins()
	return s
}

// shuffle8 permutes a (at most 20 elements) uniformly with Fisher-Yates,
// taking every index from one 64-bit draw: the indices are the mixed-radix
// digits of floor(x*len(a)!/2^64), read by successive multiplications, and a
// draw is rejected exactly when Lemire's single-bound rejection would reject
// x for the bound len(a)!, so no permutation is favoured (Brackett-Rozinsky
// and Lemire, "Batched ranged random integer generation", 2024). For 12
// elements a redraw happens once in 2^35 shuffles.
func (s *State) shuffle8(a []int8) {
	n := len(a)
	if n < 2 {
		return
	}
	f := factorial[n]
	x := s.rng.Uint64()
	for x*f < -f%f {
		x = s.rng.Uint64()
	}
	for i := n - 1; i > 0; i-- {
		var j uint64
		j, x = bits.Mul64(x, uint64(i+1))
		a[i], a[j] = a[j], a[i]
	}
}

// factorial[n] is n! for n <= 20, the largest that fits 64 bits.
var factorial = func() (f [21]uint64) {
	f[0] = 1
	for i := 1; i < len(f); i++ {
		f[i] = f[i-1] * uint64(i)
	}
	return f
}()

// shuffleCoins returns every coin to its stack, shuffles both stacks and
// turns the top two of each face up (seed: setup and Refueling step 2-3).
func (s *State) shuffleCoins() {
	for suit := Thrust; suit <= Brake; suit++ {
		d := &s.deck[suit]
		for v := range d {
			d[v] = int8(v)
		}
		s.shuffle8(d[:])
		s.deckN[suit] = numValues
		s.spent[suit] = 0
		s.up[suit] = 0
		for i := 0; i < faceUpEach; i++ {
			s.reveal(suit)
		}
	}
}

// reveal turns the top face-down coin of suit face up, if any remains.
func (s *State) reveal(suit Suit) {
	if n := s.deckN[suit]; n > 0 {
		s.deckN[suit] = n - 1
		s.up[suit] |= 1 << s.deck[suit][n-1]
	}
}

// unspent returns the coins not yet spent (face up and face down) of both
// suits as a 12-bit set: bits 0-5 Thrust values, bits 6-11 Brake values.
func (s *State) unspent() uint16 {
	return uint16(allValues&^s.spent[Thrust]) | uint16(allValues&^s.spent[Brake])<<numValues
}

// Clone returns an independent copy (the generator included).
func (s *State) Clone() env.State { c := *s; return &c }

// Phase returns the current phase (PhaseStart .. PhaseOver).
func (s *State) Phase() Phase { return s.phase }

// Speed returns the Starship's speed, 0..10.
func (s *State) Speed() int { return int(s.speed) }

// Ship returns the Starship's square (row*8+col), or -1 before launch.
func (s *State) Ship() int { return int(s.ship) }

// Deliveries returns the number of deliveries made, 0..6.
func (s *State) Deliveries() int { return int(s.delivered) }

// Refuels returns the number of refuels, the value on the Refueling Dice.
func (s *State) Refuels() int { return int(s.refuels) }

// Lost reports whether the game ended Lost in Space.
func (s *State) Lost() bool { return s.lost }

// UnspentCoins returns the number of unspent Thrust and Brake coins, 0..12.
func (s *State) UnspentCoins() int { return popcount(uint64(s.unspent())) }

// Score returns the printed rules' score so far: 20 per delivery, minus 10
// per refuel, plus 1 per unspent coin.
func (s *State) Score() int {
	return 20*int(s.delivered) - 10*int(s.refuels) + s.UnspentCoins()
}

// Target returns the planet number at the top of the delivery queue, or -1
// once all six deliveries are made.
func (s *State) Target() int {
	if s.delivered >= numPlanets {
		return -1
	}
	return int(s.queue[s.delivered])
}

// MarshalJSON serializes the state as {"position": notation}
// (env.MarshalPosition): the notation is complete, hidden information and
// the chance generator included.
func (s *State) MarshalJSON() ([]byte, error) { return env.MarshalPosition(s.Position()) }
