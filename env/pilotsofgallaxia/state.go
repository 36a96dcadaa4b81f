package pilotsofgallaxia

import (
	"math/bits"
	"math/rand/v2"

	"github.com/galaxygym/galaxygym/env"
)

// MaxPlayers is the largest number of pilots (one per sektor).
const MaxPlayers = NumSektors

// Card kinds (docs/rules/pilots-of-gallaxia.md, A4 and A5). A hand is a
// count per kind; cards of one kind are interchangeable.
const (
	KindPlanetCard    = 0  // 0..47: the planet card of planet n of sektor k is 8k + n-1
	KindFuel          = 48 // 48..53: fuel 3..8
	KindDurriken      = 54 // 54..61: Durriken 1..8
	KindRekkoning     = 62
	KindAfterburner   = 63 // Captain's Cards
	KindDeflector     = 64
	KindSalvage       = 65
	NumKinds          = 66
	numGallaxiaKinds  = 63
	deckSize          = 48 + 24 + 16 + 1 // 89 Gallaxia cards
	captainSize       = 12
	captainCopies     = 4
	fuelCopies        = 4
	durrikenCopies    = 2
	maxRings          = MaxPlayers + 2*MaxPlayers
	maxHand           = deckSize + captainSize
	handLimit         = 5 // the Rekkoning's limit (L149)
	baseShipMove      = 2 // L68
	baseDurrikenMove  = 3 // L215
	afterburnerPoints = 10
	deflectorValue    = 9
	prismBonus        = 2 // L115
	startHand         = 6 // L38
	maxCaravans       = 30
)

// Copies returns how many cards of kind the game holds.
func Copies(kind int) int {
	switch {
	case kind < KindFuel:
		return 1
	case kind < KindDurriken:
		return fuelCopies
	case kind < KindRekkoning:
		return durrikenCopies
	case kind == KindRekkoning:
		return 1
	default:
		return captainCopies
	}
}

// Value returns a card's value: the planet's number, the fuel or Durriken
// value, 0 for the Rekkoning, the Deflector's raid value 9, 0 for the other
// Captain's Cards.
func Value(kind int) int {
	switch {
	case kind < KindFuel:
		return kind%8 + 1
	case kind < KindDurriken:
		return kind - KindFuel + 3
	case kind < KindRekkoning:
		return kind - KindDurriken + 1
	case kind == KindDeflector:
		return deflectorValue
	}
	return 0
}

// planetCard returns the card kind naming planet space sp.
func planetCard(sp int) int { return SektorOf(sp)*8 + int(theBoard.number[sp]) - 1 }

// planetOfCard returns the space of the planet a planet card names.
func planetOfCard(kind int) int { return Planet(kind/8, kind%8+1) }

// Phases: the decision the acting player faces.
const (
	PhMain     = iota // a main action: move a ship or the Durriken, hire, buy, play Salvage, end the moves
	PhWay             // the way the chosen piece moves: base move, fuel, Afterburner, planet or Durriken card
	PhPath            // the next space of a move, a raid, or stop
	PhClaim           // claim the caravan space just entered, as a caravan or a BLOKK, or not
	PhDWarp           // the planet a Durriken warps to
	PhSlide           // the caravan space to slide off a Teleprism onto
	PhLand            // discard the card of the planet landed on for a Captain's draw, or pass
	PhSellFuel        // the second fuel card of a Captain's purchase
	PhRaidA           // the raider's hidden card (or none)
	PhRaidD           // the defender's hidden card (or none): a step of the defender
	PhRaidWin         // the raid's winner takes the loser's card or draws
	PhGambit          // The Gambit: take the cards up, or guess higher or lower
	PhPush            // a push: take the cards, or cash the push in for a Captain's draw
	PhOver            // the game has ended
	numPhases
)

// phaseNames name the phases (used by the notation and the render).
var phaseNames = [numPhases]string{"main", "way", "path", "claim", "dwarp", "slide", "land", "sellfuel",
	"raidA", "raidD", "raidwin", "gambit", "push", "over"}

// Modes.
const (
	ModeRookieRun = 0
	ModeANewLife  = 1
)

var modeNames = []string{"rookie_run", "a_new_life"}

// Life flags: the one-time countdown points of A New Life (L257, L299-L307).
const (
	flagPickedOwn = 1 << iota
	flagHomeOwn
	flagRaidShip
	flagRaidDurriken
)

// Ring states.
const (
	ringOnBoard   = 0
	ringAboard    = 1
	ringDelivered = 2
)

// config holds the resolved parameters.
type config struct {
	id          string // ID or IDv1
	v2          bool   // pilots-of-gallaxia-v2 rules (docs/rules/pilots-of-gallaxia.md, version history)
	players     int
	mode        int
	shaping     float64
	caravans    int
	blokks      int
	hideouts    bool
	ringsToWin  int
	countdown   int
	routePoints int
	p2Cards     bool // a ship with a scientist warps only with #2 planet cards (A10)
}

// State is one Pilots of Gallaxia position, hidden information (hands,
// deck order, hidden raid cards) and the chance generator included.
//
// Pieces are numbered 3p+k for pilot p: k = 0, 1 the starships, 2 the
// Durriken. Spaces are absolute ids (board.go); observations and actions
// turn them to the observer's sektor.
type State struct {
	cfg *config

	sek      [MaxPlayers]int8      // sektor index (0-5) of every seat
	pos      [3 * MaxPlayers]int16 // space of every piece (hangar, LAIR included)
	occ      [NumSpaces]int8       // piece+1 on a space (hangars and LAIRs not tracked)
	hired    [MaxPlayers]bool
	deployed [MaxPlayers]bool
	car      [NumSpaces]int8  // caravan owner + 1, 0 none (written by setCar only)
	carSet   [carWords]uint64 // bit sp%64 of word sp/64: car[sp] > 0 (Observe visits these spaces only)
	blokk    [NumSpaces]bool
	carLeft  [MaxPlayers]int8
	blkLeft  [MaxPlayers]int8

	nRings    int8
	ringOwner [maxRings]int8 // pilot, -1 for a yellow ring
	ringState [maxRings]int8
	ringAt    [maxRings]int16 // space while on the board
	ringsOn   [NumSpaces]uint8
	cargo     [3 * MaxPlayers]int8 // ring + 1 aboard a starship
	delivered [MaxPlayers]int8

	hand  [MaxPlayers][NumKinds]uint8
	handN [MaxPlayers]uint8 // hand sizes, a hidden raid card included until the reveal
	deck  [deckSize]uint8   // the Gallaxia deck, drawn from the end
	deckN uint8
	disc  [NumKinds]uint8 // discard piles by kind (Captain's kinds: the Captain's discard)
	cdeck [captainSize]uint8
	cdckN uint8

	cur    int8
	phase  int8
	turn   int32
	moved  uint8 // pieces (k) moved this turn
	bought bool

	mover    int8  // k of the piece moving
	at       int16 // the moving piece's space
	budget   int8
	lastFree int16
	raided   bool
	endAfter bool // the move ends after the claim decision (a slide-off)
	sellFuel int8 // kind of the first fuel card of a purchase, -1 none
	warpVal  int8 // the Durriken card's value while choosing its planet

	raider, defender int8 // pieces
	rcard, dcard     int8 // hidden raid cards, kind + 1, 0 none
	rrand, drand     int8 // the Durriken's random cards, kind + 1, 0 none
	rdie, ddie       int8
	rwin             bool // the raider won
	rekkEnd          bool // the Rekkoning turned up in the battle: the turn ends after it

	exp  [3]uint8 // The Gambit's cards up
	nexp int8

	rekk      bool // the Rekkoning is being resolved: discards down to 5
	discarder int8 // the pilot discarding, -1 none

	points      [MaxPlayers]int16
	flags       [MaxPlayers]uint8
	routeScored [NumRoutes]int8 // pilot + 1 who scored the route in A New Life

	winner    int8 // -1 none
	over      bool
	truncated bool

	raids, teleports, rekkonings int32

	rw  []float64 // the rewards of the step being applied (nil outside Apply)
	rng rand.PCG
}

func (s *State) intN(n int) int {
	hi, _ := bits.Mul64(s.rng.Uint64(), uint64(n))
	return int(hi)
}

func (s *State) d6() int { return s.intN(6) + 1 }
func (s *State) d8() int { return s.intN(8) + 1 }

func (s *State) shuffle(a []uint8) {
	for i := len(a) - 1; i > 0; i-- {
		j := s.intN(i + 1)
		a[i], a[j] = a[j], a[i]
	}
}

// seatSektors lists the sektors (indices 0-5) the seats take (A3).
var seatSektors = [MaxPlayers + 1][]int8{
	2: {0, 3},
	3: {0, 2, 4},
	4: {0, 1, 3, 4},
	5: {0, 1, 2, 3, 4},
	6: {0, 1, 2, 3, 4, 5},
}

const rngStream = 0x70696c6f7473 // "pilots"

// newState sets up a game (L19-L40): pieces, rings, the deal, the first player.
func newState(cfg *config, seed uint64) *State {
	s := &State{cfg: cfg}
	s.rng = *rand.NewPCG(seed, rngStream)
	s.reset()
	for p := 0; p < cfg.players; p++ {
		s.placeRing(p, Planet((int(s.sek[p])+3)%NumSektors, 4))
	}
	// Deal without the Rekkoning, then shuffle it in (L38-L39).
	n := 0
	for k := 0; k < numGallaxiaKinds; k++ {
		if k == KindRekkoning {
			continue
		}
		for c := 0; c < Copies(k); c++ {
			s.deck[n] = uint8(k)
			n++
		}
	}
	s.deckN = uint8(n)
	s.shuffle(s.deck[:n])
	for p := 0; p < cfg.players; p++ {
		for i := 0; i < startHand; i++ {
			s.deckN--
			s.addCard(p, int(s.deck[s.deckN]))
		}
	}
	s.deck[s.deckN] = KindRekkoning
	s.deckN++
	s.shuffle(s.deck[:s.deckN])
	for k := 0; k < 3; k++ {
		for c := 0; c < captainCopies; c++ {
			s.cdeck[s.cdckN] = uint8(KindAfterburner + k)
			s.cdckN++
		}
	}
	s.shuffle(s.cdeck[:s.cdckN])
	// Highest d6 first, the highest tying roll again (L40, A8).
	var in [MaxPlayers]bool
	for p := 0; p < cfg.players; p++ {
		in[p] = true
	}
	for {
		best, nb := 0, 0
		var roll [MaxPlayers]int
		for p := 0; p < cfg.players; p++ {
			if in[p] {
				roll[p] = s.d6()
				if roll[p] > best {
					best, nb = roll[p], 0
				}
				if roll[p] == best {
					nb++
				}
			}
		}
		for p := 0; p < cfg.players; p++ {
			in[p] = in[p] && roll[p] == best
		}
		if nb == 1 {
			break
		}
	}
	for p := 0; p < cfg.players; p++ {
		if in[p] {
			s.cur = int8(p)
		}
	}
	return s
}

// reset clears everything but the configuration and the generator, and
// puts the pieces at home: the state of an empty table.
func (s *State) reset() {
	cfg, rng := s.cfg, s.rng
	*s = State{cfg: cfg, rng: rng, sellFuel: -1, discarder: -1, winner: -1, raider: -1, defender: -1}
	for p := 0; p < cfg.players; p++ {
		k := int(seatSektors[cfg.players][p])
		s.sek[p] = int8(k)
		s.pos[3*p], s.pos[3*p+1], s.pos[3*p+2] = int16(Hangar(k)), int16(Hangar(k)), int16(Lair(k))
		s.carLeft[p], s.blkLeft[p] = int8(cfg.caravans), int8(cfg.blokks)
	}
}

func (s *State) placeRing(owner, sp int) {
	r := s.nRings
	s.nRings++
	s.ringOwner[r], s.ringState[r], s.ringAt[r] = int8(owner), ringOnBoard, int16(sp)
	s.ringsOn[sp]++
}

// carWords is the number of 64-bit words of State.carSet.
const carWords = (NumSpaces + 63) / 64

// setCar puts caravan owner + 1 (0: none) on space sp, keeping carSet.
func (s *State) setCar(sp int, v int8) {
	s.car[sp] = v
	if v > 0 {
		s.carSet[sp/64] |= 1 << (sp % 64)
	} else {
		s.carSet[sp/64] &^= 1 << (sp % 64)
	}
}

func (s *State) addCard(p, k int) {
	s.hand[p][k]++
	s.handN[p]++
}

func (s *State) removeCard(p, k int) {
	s.hand[p][k]--
	s.handN[p]--
}

// owner returns the pilot of a piece.
func owner(piece int) int { return piece / 3 }

// free reports whether a piece may end its move on sp: nobody else there
// (the own hangar holds both ships).
func (s *State) free(sp int) bool {
	return s.occ[sp] == 0 || theBoard.kind[sp] == KindHangar
}

// popDeck takes the top Gallaxia card, shuffling the discard pile into a
// new deck when the deck is empty (A7); ok is false when no card is left.
func (s *State) popDeck() (kind int, ok bool) {
	if s.deckN == 0 {
		for k := 0; k < numGallaxiaKinds; k++ {
			for ; s.disc[k] > 0; s.disc[k]-- {
				s.deck[s.deckN] = uint8(k)
				s.deckN++
			}
		}
		if s.deckN == 0 {
			return 0, false
		}
		s.shuffle(s.deck[:s.deckN])
	}
	s.deckN--
	return int(s.deck[s.deckN]), true
}

// draw gives pilot p n cards from the deck; a Rekkoning drawn takes effect
// and is replaced (L147-L149, A25).
func (s *State) draw(p, n int) {
	for i, tries := 0, 0; i < n && tries < 4; {
		k, ok := s.popDeck()
		if !ok {
			return
		}
		if k == KindRekkoning {
			s.rekkoning()
			tries++
			continue
		}
		s.addCard(p, k)
		i++
	}
}

// rekkoning puts the Rekkoning on the discard pile and starts the discards
// down to 5 (L149).
func (s *State) rekkoning() {
	s.disc[KindRekkoning]++
	s.rekk = true
	s.rekkonings++
}

// captainDraw gives pilot p the top Captain's Card (L323-L329), shuffling
// the Captain's discard into a new deck when it is empty.
func (s *State) captainDraw(p int) {
	if s.cdckN == 0 {
		for k := KindAfterburner; k <= KindSalvage; k++ {
			for ; s.disc[k] > 0; s.disc[k]-- {
				s.cdeck[s.cdckN] = uint8(k)
				s.cdckN++
			}
		}
		if s.cdckN == 0 {
			return
		}
		s.shuffle(s.cdeck[:s.cdckN])
	}
	s.cdckN--
	s.addCard(p, int(s.cdeck[s.cdckN]))
}

// discard moves one card of kind from p's hand to its discard pile.
func (s *State) discard(p, k int) {
	s.removeCard(p, k)
	s.disc[k]++
}

// settle finds the next pilot who must discard down to 5 while the
// Rekkoning is resolved, clockwise from the pilot whose turn it is.
func (s *State) settle() {
	s.discarder = -1
	if !s.rekk || s.over {
		s.rekk = false
		return
	}
	n := s.cfg.players
	for i := 0; i < n; i++ {
		p := (int(s.cur) + i) % n
		if s.handN[p] > handLimit {
			s.discarder = int8(p)
			return
		}
	}
	s.rekk = false
}

func (s *State) reward(p int, r float64) {
	if s.rw != nil {
		s.rw[p] += r
	}
}

// score adds countdown points in A New Life (L253) and ends the game at
// the target (A28).
func (s *State) score(p, pts int) {
	if s.cfg.mode != ModeANewLife || pts == 0 || s.over {
		return
	}
	s.points[p] += int16(pts)
	s.reward(p, float64(pts))
	if int(s.points[p]) >= s.cfg.countdown {
		s.winner = int8(p)
		s.finish()
	}
}

// finish ends the game; Rookie Run pays +1 to the winner, -1 to the others.
func (s *State) finish() {
	s.over = true
	s.phase = PhOver
	s.rekk, s.discarder = false, -1
	if s.cfg.mode == ModeRookieRun {
		for p := 0; p < s.cfg.players; p++ {
			if p == int(s.winner) {
				s.reward(p, 1)
			} else {
				s.reward(p, -1)
			}
		}
	}
}

// togo is the number of spaces pilot p's best-placed starship still has to
// cover on the empty board to bring its next ring home (0 once it has won).
func (s *State) togo(p int) int {
	if s.over && int(s.winner) == p {
		return 0
	}
	home := Hangar(int(s.sek[p]))
	best := 1000
	for k := 0; k < 2; k++ {
		piece := 3*p + k
		at := int(s.pos[piece])
		if s.cargo[piece] > 0 {
			best = min(best, int(s.cfg.board().distances()[at][home]))
			continue
		}
		for r := 0; r < int(s.nRings); r++ {
			if s.ringState[r] != ringOnBoard || (s.ringOwner[r] != int8(p) && s.ringOwner[r] >= 0) {
				continue
			}
			sp := int(s.ringAt[r])
			best = min(best, int(s.cfg.board().distances()[at][sp])+int(s.cfg.board().distances()[sp][home]))
		}
	}
	if best == 1000 {
		return 0
	}
	return best
}

// Scores returns every pilot's score: Rookie Run 100 * rings home - spaces
// to go (togo), A New Life the countdown points.
func (s *State) Scores(dst []float64) []float64 {
	for p := 0; p < s.cfg.players; p++ {
		if s.cfg.mode == ModeANewLife {
			dst = append(dst, float64(s.points[p]))
		} else {
			dst = append(dst, float64(100*int(s.delivered[p])-s.togo(p)))
		}
	}
	return dst
}

// MarshalJSON serializes the state as {"position": notation}
// (env.MarshalPosition): the notation is complete, hidden cards and the
// generator included.
func (s *State) MarshalJSON() ([]byte, error) { return env.MarshalPosition(s.Position()) }

// Clone returns an independent copy.
func (s *State) Clone() env.State {
	c := *s
	c.rw = nil
	return &c
}
