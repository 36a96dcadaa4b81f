package express

import (
	"math/bits"
	"math/rand/v2"

	"github.com/galaxygym/galaxygym/env"
)

// Phases: the decision the current player faces.
const (
	PhaseDraw  = iota // draw two cards or take the top discard
	PhaseMeld         // meld, then end the turn (discard, Disaster, Turntable, end-meld)
	PhaseBlock        // the attacked player blocks a Disaster or lets it happen
	PhaseOver         // the game has ended
	numPhases
)

// phaseNames name the phases (notation, render, observation byte values).
var phaseNames = [numPhases]string{"draw", "meld", "block", "over"}

// Car codes as they lie in a train (and in the observation): 1 + kind for a
// freight or passenger car (kinds 0-10) and the Caboose; a Wild is
// carWildAs + section type when declared or matching, carWildOpen while it
// is the undeclared end car, carWildLink once it is a transition.
const (
	carWildAs   = 30
	carWildOpen = 36
	carWildLink = 37
	carMax      = carWildLink
)

// Train flags.
const (
	flagNew     = 1 // started this turn
	flagWildNew = 2 // the undeclared Wild at its end was played this turn
)

// train is one train slot: loco < 0 means the slot is empty.
type train struct {
	loco  int8
	n     uint8
	flags uint8
	cars  [MaxCars]uint8
}

// player is one player's hand, knowledge others have of it, trains, Way
// Cars and score.
type player struct {
	hand   [NumKinds]uint8
	handN  uint8
	known  [NumKinds]uint8 // public lower bounds of the hand (A26)
	way    [numWayKinds]uint8
	perm   uint8 // bit w: immune to disaster w for the rest of the hand
	derail uint8 // turns to skip
	played bool  // completed a turn this hand
	score  int32
	trains [MaxTrains]train
}

// pending is a Disaster waiting for the attacked player's block decision.
type pending struct {
	kind  int8 // disaster index 0-4 (BrokenCar+kind), -1 none
	by    int8 // attacker
	on    int8 // attacked player
	train int8 // target train, -1 for Derailment
	own   int8 // attacker's train for Switch Engines, -1 otherwise
}

// config holds the resolved parameters.
type config struct {
	v2          bool // express-v2 rules (A29-A31)
	wildAny     bool // a passenger Wild scores as the best passenger car (A30)
	players     int
	target      int
	openingHand int
	maxHands    int
	reshuffles  int
	progressive bool
	handOnly    bool
	zeroSum     bool
}

// State is one Express position: every hand, the deck order, the table,
// the scores and the chance generator.
type State struct {
	cfg *config
	n   int

	pl [MaxPlayers]player

	deck  [DeckSize]uint8 // draw pile, drawn from the end
	deckN int
	disc  [DeckSize]uint8 // discard pile, newest last
	discN int
	slot  [NumKinds]uint8 // disaster slot (played Disasters and Turntables)
	top   int8            // newest card of the disaster slot, -1 none
	aside [NumKinds]uint8 // set-aside stuck hands
	asN   int

	phase   int8
	cur     int8
	dir     int8 // +1 clockwise, -1 counterclockwise
	pendT   int8 // own train that must get its next car now, -1 none
	swapped bool // a locomotive was swapped this turn
	trans   bool // a Wild played this turn became a transition
	pend    pending

	hand    int // hands completed
	hturns  int // turns completed this hand
	turns   int // turns completed this episode
	tt      int // Turntables played this hand
	resh    int // draw pile rebuilds this hand
	wentOut int // hands ended by going out

	truncated bool
	rng       rand.PCG
}

func (s *State) intN(n int) int {
	hi, _ := bits.Mul64(s.rng.Uint64(), uint64(n))
	return int(hi)
}

func (s *State) shuffle(a []uint8) {
	for i := len(a) - 1; i > 0; i-- {
		j := s.intN(i + 1)
		a[i], a[j] = a[j], a[i]
	}
}

const rngStream = 0x6578707265737321 // "express!"

// newState deals the first hand of a game from seed.
func newState(cfg *config, seed uint64) *State {
	s := &State{cfg: cfg, n: cfg.players}
	s.rng = *newRNG(seed)
	for i := range s.pl {
		s.pl[i].reset()
	}
	s.deal()
	return s
}

func (p *player) reset() {
	score := p.score
	*p = player{score: score}
	for t := range p.trains {
		p.trains[t].loco = -1
	}
}

// deal starts hand s.hand+1: the whole deck shuffled, opening hands dealt,
// the hand's first player (A9) to draw.
func (s *State) deal() {
	for i := 0; i < s.n; i++ {
		s.pl[i].reset()
	}
	s.deckN = 0
	for k := 0; k < NumKinds; k++ {
		for c := deckCount(k, s.n); c > 0; c-- {
			s.deck[s.deckN] = uint8(k)
			s.deckN++
		}
	}
	s.shuffle(s.deck[:s.deckN])
	s.discN, s.asN, s.tt, s.resh, s.hturns = 0, 0, 0, 0, 0
	s.slot, s.aside = [NumKinds]uint8{}, [NumKinds]uint8{}
	s.top, s.pendT = -1, -1
	s.swapped, s.trans = false, false
	s.pend = pending{kind: -1, train: -1, own: -1}
	for i := 0; i < s.n; i++ {
		p := &s.pl[i]
		for c := 0; c < s.cfg.openingHand; c++ {
			s.deckN--
			p.hand[s.deck[s.deckN]]++
		}
		p.handN = uint8(s.cfg.openingHand)
	}
	s.cur, s.dir, s.phase = int8(s.hand%s.n), 1, PhaseDraw
}

// Phase returns the current phase (PhaseDraw ... PhaseOver).
func (s *State) Phase() int { return int(s.phase) }

// Scores returns every player's total score (len players).
func (s *State) Scores() []int {
	out := make([]int, s.n)
	for i := range out {
		out[i] = int(s.pl[i].score)
	}
	return out
}

// HandSize returns player p's number of cards in hand.
func (s *State) HandSize(p int) int { return int(s.pl[p].handN) }

// Hands returns the number of hands completed.
func (s *State) Hands() int { return s.hand }

// MarshalJSON serializes the state as {"position": notation}
// (env.MarshalPosition): the notation is complete, every hand, the deck
// order and the generator included.
func (s *State) MarshalJSON() ([]byte, error) { return env.MarshalPosition(s.Position()) }

// Clone returns an independent deep copy.
func (s *State) Clone() env.State {
	c := *s
	return &c
}
