package galaxyexpress

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/galaxygym/galaxygym/env"
)

// DeterminizeError reports an observation that is not one of a valid
// position, so that no state can be built from it.
type DeterminizeError struct{ Reason string }

func (e *DeterminizeError) Error() string { return "galaxyexpress: determinize: " + e.Reason }

func derr(format string, a ...any) error {
	return &DeterminizeError{fmt.Sprintf(format, a...)}
}

// Determinize returns a complete state drawn from those consistent with the
// observation obs (ObsSize bytes, as Observe writes them): every public
// part is read from obs, and the hidden part is sampled uniformly with a
// generator seeded from seed alone, never from anything else:
//
//   - the numbers of the unscanned planets: the numbers not seen, in a
//     uniformly random assignment to the unscanned squares;
//   - the delivery queue below its top: the undelivered numbers but the
//     top in uniformly random order (the crown moved to the bottom at launch
//     stays last); the delivered crowns come first, in ascending order (their
//     order does not matter to play);
//   - the order of each suit's face-down stack, uniformly random;
//   - the state's chance generator (the reshuffles of later refuels).
//
// This is the exact posterior of the hidden information given what the
// player has seen: the deal draws the planet numbers, the queue and the coin
// stacks uniformly and independently of the board, and play reveals them
// only through the observation. So Observe of the result writes obs again,
// and its legal mask and its every later rule (Lost in Space included) are
// those of the true position.
//
// Two facts are not pinned down by the observation. The replacement coin
// owed at a refuel decision is inferred: its suit is the one with a
// face-down coin and fewer than two face up; if no suit has one, the reveal
// is void whichever suit it is, and the lowest suit with fewer than two
// face up is recorded. This never changes play. The turn and refuel
// counters saturate at 255 in the observation and are copied as shown: the
// refuel count only enters the score, but past 255 turns a max_turns above
// 255 can no longer be followed exactly.
//
// It returns a *DeterminizeError (message prefixed "galaxyexpress:") when
// obs is not the observation of a valid position.
func Determinize(obs []uint8, scanWrap bool, seed uint64) (*State, error) {
	s := new(State)
	if err := DeterminizeInto(s, obs, scanWrap, seed); err != nil {
		return nil, err
	}
	return s, nil
}

// DeterminizeInto is [Determinize] writing into dst, which it overwrites
// entirely; it does not allocate. On error dst is left in an unspecified
// state.
func DeterminizeInto(dst *State, obs []uint8, scanWrap bool, seed uint64) error {
	if err := checkObsBytes(obs); err != nil {
		return err
	}
	cfg := &configs[0]
	if scanWrap {
		cfg = &configs[1]
	}
	*dst = State{cfg: cfg, ship: -1, bottom: -1, pendingRev: -1}
	s := dst
	for i := range s.numAt {
		s.numAt[i] = -1
	}
	for i := range s.sqOf {
		s.sqOf[i] = -1
	}
	s.rng.Seed(seed, 0x6465_7465_726d_696e) // "determin"
	if err := s.readPhase(obs); err != nil {
		return err
	}
	unscanned, seen, err := s.readBoard(obs)
	if err != nil {
		return err
	}
	deliveries, err := s.sampleQueue(obs, seen)
	if err != nil {
		return err
	}
	s.sampleUnscanned(unscanned, seen)
	if err := s.readSpeed(obs); err != nil {
		return err
	}
	if err := s.sampleCoins(obs); err != nil {
		return err
	}
	s.refuels = int16(obs[OffRefuels])
	s.turns = int16(obs[OffTurns])
	if err := s.settlePhase(deliveries); err != nil {
		return err
	}
	if err := s.validate(); err != nil {
		return derr("%v", err)
	}
	if s.phase == PhaseCoin && !CanStop(int(s.ship), int(s.speed), s.unspent(), s.planets) {
		return derr("coin phase of a game already Lost in Space")
	}
	return nil
}

// checkObsBytes checks obs's length and that every byte before the
// counters is 0 or 1 (eight at a time).
func checkObsBytes(obs []uint8) error {
	if len(obs) != ObsSize {
		return derr("observation has %d bytes, want %d", len(obs), ObsSize)
	}
	le := binary.LittleEndian
	var high uint64
	for i := 0; i+8 <= OffDeliveries; i += 8 {
		high |= le.Uint64(obs[i:])
	}
	high |= uint64(le.Uint32(obs[OffDeliveries-4:]))
	if high&0xFEFE_FEFE_FEFE_FEFE != 0 {
		for i, x := range obs[:OffDeliveries] {
			if x > 1 {
				return derr("byte %d is %d, want 0 or 1", i, x)
			}
		}
	}
	return nil
}

// readPhase reads the phase: exactly one of launch, coin, refuel; none
// once the game is over.
func (s *State) readPhase(obs []uint8) error {
	nPhase := 0
	s.phase = PhaseOver
	for p := 0; p < 3; p++ {
		if obs[OffPhase+p] != 0 {
			s.phase = Phase(p)
			nPhase++
		}
	}
	if nPhase > 1 {
		return derr("%d phases set", nPhase)
	}
	return nil
}

// readBoard reads the Starship and the planets, and returns the unscanned
// planets' squares and the numbers of the scanned ones.
func (s *State) readBoard(obs []uint8) (unscanned uint64, seen uint8, err error) {
	ship, err := onePlane(obs, OffShip, "Starship")
	if err != nil {
		return 0, 0, err
	}
	s.ship = int8(ship)
	unscanned = readPlane(obs, OffUnscanned)
	s.planets = unscanned
	for k := 0; k < numPlanets; k++ {
		sq, err := onePlane(obs, OffPlanet+Squares*k, "a planet number")
		if err != nil {
			return 0, 0, err
		}
		if sq < 0 {
			continue
		}
		if s.planets&(1<<sq) != 0 {
			return 0, 0, derr("two planets on %s", squareName(sq))
		}
		s.planets |= 1 << sq
		s.known |= 1 << sq
		s.numAt[sq] = int8(k)
		s.sqOf[k] = int8(sq)
		seen |= 1 << k
	}
	if n := popcount(s.planets); n != numPlanets {
		return 0, 0, derr("%d planets on the board, want %d", n, numPlanets)
	}
	if ship >= 0 && unscanned&(1<<ship) != 0 {
		return 0, 0, derr("the Starship's planet on %s is not scanned", squareName(ship))
	}
	return unscanned, seen, nil
}

// sampleQueue reads the public part of the delivery queue (the target,
// the delivered crowns, the crown moved to the bottom), checks it against
// the scanned numbers seen, and shuffles the rest; it returns the number
// of deliveries.
func (s *State) sampleQueue(obs []uint8, seen uint8) (int, error) {
	deliveries := int(obs[OffDeliveries])
	if deliveries > MaxDeliveries {
		return 0, derr("%d deliveries", deliveries)
	}
	target, err := oneOf(obs, OffTargetNum, numPlanets, "target number")
	if err != nil {
		return 0, err
	}
	delivered := readSix(obs, OffDelivered)
	bottom, err := oneOf(obs, OffBottom, numPlanets, "bottom crown")
	if err != nil {
		return 0, err
	}
	if bits.OnesCount8(delivered) != deliveries {
		return 0, derr("%d delivered numbers but %d deliveries", bits.OnesCount8(delivered), deliveries)
	}
	if delivered&^seen != 0 {
		return 0, derr("a delivered planet is not scanned")
	}
	if (target < 0) != (deliveries == MaxDeliveries) {
		return 0, derr("target number %d with %d deliveries", target, deliveries)
	}
	if target >= 0 && delivered&(1<<target) != 0 {
		return 0, derr("target %d already delivered", target)
	}
	wantTarget := -1
	if target >= 0 && seen&(1<<target) != 0 {
		wantTarget = int(s.sqOf[target])
	}
	if sq, err := onePlane(obs, OffTarget, "target"); err != nil {
		return 0, err
	} else if sq != wantTarget {
		return 0, derr("target plane does not mark the target's square")
	}
	if bottom >= 0 {
		// The launch planet, scanned at launch; delivered last.
		if seen&(1<<bottom) == 0 {
			return 0, derr("bottom crown %d is not a scanned planet", bottom)
		}
		if delivered&(1<<bottom) != 0 && deliveries < MaxDeliveries {
			return 0, derr("bottom crown %d delivered before the others", bottom)
		}
		if target >= 0 && target != bottom && deliveries == MaxDeliveries-1 {
			return 0, derr("bottom crown %d is not the last target", bottom)
		}
	}
	s.delivered = int8(deliveries)
	n := 0
	for k := int8(0); k < numPlanets; k++ {
		if delivered&(1<<k) != 0 {
			s.queue[n] = k
			n++
		}
	}
	if target >= 0 {
		s.queue[n] = int8(target)
		n++
		rest := s.queue[n:n]
		for k := int8(0); k < numPlanets; k++ {
			if delivered&(1<<k) == 0 && int(k) != target && int(k) != bottom {
				rest = append(rest, k)
			}
		}
		s.shuffle8(rest)
		n += len(rest)
		if bottom >= 0 && bottom != target {
			s.queue[n] = int8(bottom)
			n++
		}
	}
	if n != numPlanets {
		return 0, derr("inconsistent queue") // not reached
	}
	s.bottom = int8(bottom)
	return deliveries, nil
}

// sampleUnscanned deals the numbers not seen to the unscanned planets, in
// random order.
func (s *State) sampleUnscanned(unscanned uint64, seen uint8) {
	var nums [numPlanets]int8
	m := 0
	for k := int8(0); k < numPlanets; k++ {
		if seen&(1<<k) == 0 {
			nums[m] = k
			m++
		}
	}
	s.shuffle8(nums[:m])
	i := 0
	for b := unscanned; b != 0; b &= b - 1 {
		sq := trailing(b)
		s.numAt[sq] = nums[i]
		s.sqOf[nums[i]] = int8(sq)
		i++
	}
}

// readSpeed reads the speed, exactly one of 0..10.
func (s *State) readSpeed(obs []uint8) error {
	speed, err := oneOf(obs, OffSpeed, maxSpeed+1, "speed")
	if err != nil {
		return err
	}
	if speed < 0 {
		return derr("no speed set")
	}
	s.speed = int8(speed)
	return nil
}

// sampleCoins reads the coins, every value face up, spent or face down,
// and shuffles each face-down stack.
func (s *State) sampleCoins(obs []uint8) error {
	for suit := 0; suit < 2; suit++ {
		up := readSix(obs, OffUp+numValues*suit)
		spent := readSix(obs, OffSpent+numValues*suit)
		down := readSix(obs, OffDown+numValues*suit)
		if up&spent != 0 || up&down != 0 || spent&down != 0 || up|spent|down != allValues {
			return derr("%s coins: each value must be exactly one of face up, spent, face down",
				Suit(suit))
		}
		s.up[suit], s.spent[suit] = up, spent
		d := &s.deck[suit]
		k := 0
		for b := down; b != 0; b &= b - 1 {
			d[k] = int8(bits.TrailingZeros8(b))
			k++
		}
		s.deckN[suit] = int8(k)
		s.shuffle8(d[:k])
	}
	return nil
}

// settlePhase sets what the phase implies and the observation does not
// show: the replacement coin owed at a refuel decision, the loss of a game
// over short of its deliveries; and checks a launch phase is before play.
func (s *State) settlePhase(deliveries int) error {
	switch s.phase {
	case PhaseRefuel:
		// The replacement of the coin just played is owed: its suit is the
		// one left with a face-down coin but fewer than two face up.
		for suit := 0; suit < 2; suit++ {
			if s.deckN[suit] > 0 && bits.OnesCount8(s.up[suit]) < faceUpEach {
				if s.pendingRev >= 0 {
					return derr("both suits owe a face-up coin")
				}
				s.pendingRev = int8(suit)
			}
		}
		if s.pendingRev < 0 {
			// Both stacks of the played suit are empty: the reveal is void.
			for suit := 1; suit >= 0; suit-- {
				if bits.OnesCount8(s.up[suit]) < faceUpEach {
					s.pendingRev = int8(suit)
				}
			}
			if s.pendingRev < 0 {
				return derr("refuel decision with two face-up coins of each suit")
			}
		}
	case PhaseOver:
		s.lost = deliveries < MaxDeliveries
	case PhaseStart:
		if s.refuels != 0 || s.speed != 0 || s.bottom >= 0 || s.spent != [2]uint8{} || s.delivered != 0 {
			return derr("launch phase after play")
		}
	}
	return nil
}

// readPlane reads a 48-byte 0/1 plane as a square set, eight bytes at a
// time (the multiplication gathers the low bits of the eight bytes).
func readPlane(obs []uint8, off int) uint64 {
	p := obs[off : off+Squares]
	var b uint64
	for i := 0; i < Squares/8; i++ {
		w := binary.LittleEndian.Uint64(p[8*i:]) & 0x0101_0101_0101_0101
		b |= (w * 0x0102_0408_1020_4080 >> 56) << (8 * i)
	}
	return b
}

// onePlane returns the square of the single 1 in a plane, -1 for none.
func onePlane(obs []uint8, off int, what string) (int, error) {
	b := readPlane(obs, off)
	switch popcount(b) {
	case 0:
		return -1, nil
	case 1:
		return trailing(b), nil
	}
	return -1, derr("%s on %d squares", what, popcount(b))
}

// readSix reads six 0/1 bytes as a set.
func readSix(obs []uint8, off int) uint8 {
	var b uint8
	for v, x := range obs[off : off+numValues] {
		b |= (x & 1) << v
	}
	return b
}

// oneOf returns the index of the single 1 among n bytes, -1 for none.
func oneOf(obs []uint8, off, n int, what string) (int, error) {
	k := -1
	for i, x := range obs[off : off+n] {
		if x > 1 {
			return -1, derr("%s byte %d is %d", what, i, x)
		}
		if x == 1 {
			if k >= 0 {
				return -1, derr("%s: more than one set", what)
			}
			k = i
		}
	}
	return k, nil
}

// Determinize implements [env.Determinizer]: [DeterminizeInto] under the
// scan_wrap parameter of params, for the only player (0). reuse, when it is
// a *State (from an earlier call), is overwritten and returned.
func (Game) Determinize(p env.Params, player int, obs []uint8, seed uint64, reuse env.State) (env.State, error) {
	if player != 0 {
		return nil, derr("player %d, the game has one (0)", player)
	}
	s, _ := reuse.(*State)
	if s == nil {
		s = new(State)
	}
	wrap, _ := p["scan_wrap"].(bool)
	if err := DeterminizeInto(s, obs, wrap, seed); err != nil {
		return nil, err
	}
	return s, nil
}
