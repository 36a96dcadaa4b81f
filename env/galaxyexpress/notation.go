package galaxyexpress

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"

	"github.com/galaxygym/galaxygym/env"
)

// The position notation is a compact, complete text form of a state (hidden
// information included), used by table tests, bug reports and the JSON
// serialization. Six lines of eight cells draw the Star Chart, top row first:
//
//	.    empty square
//	N    scanned planet numbered N (0-5)
//	N?   planet numbered N, not yet scanned
//	@    the Starship on an empty square
//	@N   the Starship on (scanned) planet N
//
// then space-separated fields, all optional but the board:
//
//	phase=start|coin|refuel|over   (default coin; start needs no ship)
//	speed=S                        (default 0)
//	queue=A,B,...                  undelivered crowns, top first (default:
//	                               every planet number not delivered, ascending)
//	delivered=A,B,...              delivered crowns in order (default none)
//	bottom=N                       crown moved to the bottom at launch
//	thrust=UP/DOWN brake=UP/DOWN   face-up values / face-down values in draw
//	                               order; every other value is spent
//	                               (default 0,1/2,3,4,5 for both)
//	refuels=R turns=T lost=true
//	pending=thrust|brake           replacement reveal owed after the refuel
//	                               decision (phase=refuel)
//	rng=HI:LO                      the chance generator's state (hex)
//
// Example, the ship at speed 2 on d2 next to unscanned planet 4:
//
//	. . . . . . . .
//	. . . @ 4? . . .
//	. 1? . . . . . .
//	. . . . . . 0 .
//	3? . . . . . . 5?
//	. . 2? . . . . .
//	speed=2 queue=4,0,1,2,3,5 thrust=3,5/0,1 brake=2/4,5
//
// perr returns an *env.PositionError: "galaxyexpress: position: REASON".
func perr(format string, a ...any) error { return env.PositionErrorf("galaxyexpress", format, a...) }

// ParsePosition reads the position notation. scanWrap selects the scan_wrap
// parameter. Errors are prefixed "galaxyexpress: position:".
func ParsePosition(text string, scanWrap bool) (*State, error) {
	cfg := &configs[0]
	if scanWrap {
		cfg = &configs[1]
	}
	s := &State{cfg: cfg, ship: -1, bottom: -1, pendingRev: -1, phase: PhaseCoin}
	for i := range s.numAt {
		s.numAt[i] = -1
	}
	for i := range s.sqOf {
		s.sqOf[i] = -1
	}
	fields := strings.Fields(text)
	if len(fields) < Squares {
		return nil, perr("want 48 board cells, got %d tokens", len(fields))
	}
	if err := s.parseBoard(fields[:Squares]); err != nil {
		return nil, err
	}
	for suit := 0; suit < 2; suit++ {
		s.up[suit] = 0b11
		s.deck[suit] = [numValues]int8{5, 4, 3, 2}
		s.deckN[suit] = 4
	}
	var q positionQueue
	for _, f := range fields[Squares:] {
		key, val, ok := strings.Cut(f, "=")
		if !ok {
			return nil, perr("field %q is not key=value", f)
		}
		if err := s.parseField(f, key, val, &q); err != nil {
			return nil, err
		}
	}
	if err := s.setQueue(q); err != nil {
		return nil, err
	}
	if err := s.validate(); err != nil {
		return nil, err
	}
	return s, nil
}

// parseBoard reads the 48 cells of the Star Chart: the ship, the planets
// and which are scanned.
func (s *State) parseBoard(cells []string) error {
	for sq, tok := range cells {
		if strings.HasPrefix(tok, "@") {
			if s.ship >= 0 {
				return perr("two ships")
			}
			s.ship = int8(sq)
			tok = tok[1:]
			if tok == "" {
				continue
			}
		}
		if tok == "." {
			continue
		}
		scanned := !strings.HasSuffix(tok, "?")
		n, err := strconv.Atoi(strings.TrimSuffix(tok, "?"))
		if err != nil || n < 0 || n >= numPlanets {
			return perr("bad cell %q at %s", cells[sq], squareName(sq))
		}
		if s.sqOf[n] >= 0 {
			return perr("planet %d twice", n)
		}
		if int(s.ship) == sq && !scanned {
			return perr("the ship's planet at %s must be scanned", squareName(sq))
		}
		s.sqOf[n] = int8(sq)
		s.numAt[sq] = int8(n)
		s.planets |= 1 << sq
		if scanned {
			s.known |= 1 << sq
		}
	}
	for n, sq := range s.sqOf {
		if sq < 0 {
			return perr("planet %d missing", n)
		}
	}
	return nil
}

// positionQueue is what the queue and delivered fields give.
type positionQueue struct {
	queue, delivered       []int8
	queueSet, deliveredSet bool
}

// parseField reads one key=value field after the board (field f).
func (s *State) parseField(f, key, val string, q *positionQueue) error {
	var err error
	switch key {
	case "phase":
		i := map[string]Phase{"start": PhaseStart, "coin": PhaseCoin, "refuel": PhaseRefuel, "over": PhaseOver}
		p, ok := i[val]
		if !ok {
			return perr("phase %q", val)
		}
		s.phase = p
	case "speed":
		var v int
		v, err = strconv.Atoi(val)
		if err != nil || v < 0 || v > maxSpeed {
			return perr("speed %q not in 0..10", val)
		}
		s.speed = int8(v)
	case "queue":
		q.queue, err = parseList(val)
		q.queueSet = true
	case "delivered":
		q.delivered, err = parseList(val)
		q.deliveredSet = true
	case "bottom":
		var v int
		v, err = strconv.Atoi(val)
		if err != nil || v < 0 || v >= numPlanets {
			return perr("bottom %q", val)
		}
		s.bottom = int8(v)
	case "thrust", "brake":
		suit := Thrust
		if key == "brake" {
			suit = Brake
		}
		return s.parseCoins(suit, val)
	case "refuels", "turns":
		var v int
		v, err = strconv.Atoi(val)
		if err != nil || v < 0 || v > 30000 {
			return perr("%s %q", key, val)
		}
		if key == "refuels" {
			s.refuels = int16(v)
		} else {
			s.turns = int16(v)
		}
	case "lost":
		s.lost, err = strconv.ParseBool(val)
	case "pending":
		switch val {
		case "thrust":
			s.pendingRev = int8(Thrust)
		case "brake":
			s.pendingRev = int8(Brake)
		default:
			return perr("pending %q", val)
		}
	case "rng":
		hi, lo, ok := strings.Cut(val, ":")
		var h, l uint64
		if ok {
			h, err = strconv.ParseUint(hi, 16, 64)
			if err == nil {
				l, err = strconv.ParseUint(lo, 16, 64)
			}
		}
		if !ok || err != nil {
			return perr("rng %q is not HI:LO in hex", val)
		}
		s.rng.Seed(0, 0)
		s.setRNG(h, l)
		return nil
	default:
		return perr("unknown field %q", key)
	}
	if err != nil {
		return perr("field %q: %v", f, err)
	}
	return nil
}

// setQueue builds the queue: the delivered crowns, then the undelivered
// ones top first (either list may be left out and is then completed from
// the other).
func (s *State) setQueue(q positionQueue) error {
	seen := [numPlanets]bool{}
	for _, n := range q.delivered {
		if seen[n] {
			return perr("crown %d twice", n)
		}
		seen[n] = true
	}
	if !q.queueSet {
		for n := int8(0); n < numPlanets; n++ {
			if !seen[n] {
				q.queue = append(q.queue, n)
			}
		}
	}
	if !q.deliveredSet && q.queueSet {
		inQueue := [numPlanets]bool{}
		for _, n := range q.queue {
			if n >= 0 && n < numPlanets {
				inQueue[n] = true
			}
		}
		for n := int8(0); n < numPlanets; n++ {
			if !inQueue[n] {
				q.delivered = append(q.delivered, n)
				seen[n] = true
			}
		}
	}
	for _, n := range q.queue {
		if seen[n] {
			return perr("crown %d twice", n)
		}
		seen[n] = true
	}
	if len(q.delivered)+len(q.queue) != numPlanets {
		return perr("queue and delivered hold %d crowns, want 6", len(q.delivered)+len(q.queue))
	}
	copy(s.queue[:], q.delivered)
	copy(s.queue[len(q.delivered):], q.queue)
	s.delivered = int8(len(q.delivered))
	return nil
}

func parseList(val string) ([]int8, error) {
	if val == "" || val == "-" {
		return nil, nil
	}
	var out []int8
	for _, p := range strings.Split(val, ",") {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n >= numPlanets {
			return nil, fmt.Errorf("%q is not a number 0-5", p)
		}
		out = append(out, int8(n))
	}
	return out, nil
}

func (s *State) parseCoins(suit Suit, val string) error {
	upTxt, downTxt, _ := strings.Cut(val, "/")
	up, err := parseList(upTxt)
	if err != nil {
		return perr("coins %q: %v", val, err)
	}
	down, err := parseList(downTxt)
	if err != nil {
		return perr("coins %q: %v", val, err)
	}
	if len(up)+len(down) > numValues {
		return perr("coins %q: more than %d coins", val, numValues)
	}
	s.up[suit] = 0
	var seen uint8
	for _, v := range up {
		if seen&(1<<v) != 0 {
			return perr("coin %d twice in %q", v, val)
		}
		seen |= 1 << v
		s.up[suit] |= 1 << v
	}
	s.deckN[suit] = int8(len(down))
	for i, v := range down {
		if seen&(1<<v) != 0 {
			return perr("coin %d twice in %q", v, val)
		}
		seen |= 1 << v
		s.deck[suit][len(down)-1-i] = v // drawn from the end
	}
	s.spent[suit] = allValues &^ seen
	return nil
}

// validate checks the invariants the rules rely on.
func (s *State) validate() error {
	for suit := 0; suit < 2; suit++ {
		if bits.OnesCount8(s.up[suit]) > faceUpEach {
			return perr("more than two face-up coins of one suit")
		}
		if s.phase == PhaseCoin && s.deckN[suit] > 0 && bits.OnesCount8(s.up[suit]) < faceUpEach && s.pendingRev != int8(suit) {
			return perr("a suit has a face-down coin but fewer than two face up")
		}
	}
	if s.phase == PhaseCoin && s.up[Thrust]|s.up[Brake] == 0 {
		return perr("phase=coin with no face-up coin (the game would be Lost in Space)")
	}
	if s.lost && s.phase != PhaseOver {
		return perr("lost=true needs phase=over")
	}
	if s.phase != PhaseStart && s.ship < 0 {
		return perr("no ship outside phase=start")
	}
	if s.phase == PhaseStart && (s.ship >= 0 || s.known != 0 || s.turns != 0) {
		return perr("phase=start wants no ship, no scanned planet and no turns")
	}
	if s.phase == PhaseRefuel && (s.speed != 0 || s.planets&(1<<s.ship) == 0) {
		return perr("phase=refuel needs the ship at speed 0 on a planet")
	}
	if s.pendingRev >= 0 && s.phase != PhaseRefuel {
		return perr("pending reveal outside phase=refuel")
	}
	if (s.phase == PhaseOver) != (s.lost || s.delivered == MaxDeliveries) && s.phase == PhaseOver {
		return perr("phase=over needs lost=true or six deliveries")
	}
	if s.delivered == MaxDeliveries && s.phase != PhaseOver {
		return perr("six deliveries made but phase is not over")
	}
	return nil
}

func (s *State) setRNG(hi, lo uint64) {
	var b [20]byte
	copy(b[:4], "pcg:")
	for i := 0; i < 8; i++ {
		b[4+i] = byte(hi >> (56 - 8*i))
		b[12+i] = byte(lo >> (56 - 8*i))
	}
	_ = s.rng.UnmarshalBinary(b[:])
}

func (s *State) rngState() (hi, lo uint64) {
	b, _ := s.rng.MarshalBinary()
	for i := 0; i < 8; i++ {
		hi = hi<<8 | uint64(b[4+i])
		lo = lo<<8 | uint64(b[12+i])
	}
	return hi, lo
}

// Position writes the state in the position notation; ParsePosition reads it
// back to an identical state.
func (s *State) Position() string {
	var b strings.Builder
	for r := 0; r < Rows; r++ {
		for c := 0; c < Cols; c++ {
			sq := r*Cols + c
			if c > 0 {
				b.WriteByte(' ')
			}
			if int(s.ship) == sq {
				b.WriteByte('@')
			}
			switch {
			case s.planets&(1<<sq) != 0:
				b.WriteByte(byte('0' + s.numAt[sq]))
				if s.known&(1<<sq) == 0 {
					b.WriteByte('?')
				}
			case int(s.ship) != sq:
				b.WriteByte('.')
			}
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "phase=%s speed=%d queue=%s delivered=%s", s.phase,
		s.speed, intList(s.queue[s.delivered:]), intList(s.queue[:s.delivered]))
	if s.bottom >= 0 {
		fmt.Fprintf(&b, " bottom=%d", s.bottom)
	}
	for suit := Thrust; suit <= Brake; suit++ {
		var down []int8
		for i := int(s.deckN[suit]) - 1; i >= 0; i-- {
			down = append(down, s.deck[suit][i])
		}
		var up []int8
		for v := int8(0); v < numValues; v++ {
			if s.up[suit]&(1<<v) != 0 {
				up = append(up, v)
			}
		}
		fmt.Fprintf(&b, " %s=%s/%s", suit, intList(up), intList(down))
	}
	fmt.Fprintf(&b, " refuels=%d turns=%d", s.refuels, s.turns)
	if s.lost {
		b.WriteString(" lost=true")
	}
	if s.pendingRev >= 0 {
		fmt.Fprintf(&b, " pending=%s", Suit(s.pendingRev))
	}
	hi, lo := s.rngState()
	fmt.Fprintf(&b, " rng=%x:%x", hi, lo)
	return b.String()
}

func intList(a []int8) string {
	if len(a) == 0 {
		return "-"
	}
	parts := make([]string, len(a))
	for i, v := range a {
		parts[i] = strconv.Itoa(int(v))
	}
	return strings.Join(parts, ",")
}
