package galaxyexpress

import (
	"math/bits"
	"sync"
)

// Action layout (NumActions = 56), one Discrete space for every phase:
//
//	0..5    launch from planet k, the k-th planet in reading order (top row
//	        first, left to right)                          (PhaseStart)
//	6..53   play a coin and slide: 6 + (suit*6 + value)*4 + direction,
//	        suit 0 Thrust / 1 Brake, value 0..5, direction N, E, S, W
//	                                                       (PhaseCoin)
//	54      refuel                                         (PhaseRefuel)
//	55      do not refuel                                  (PhaseRefuel)
//
// Moves with the same outcome are one move: when the new speed is 0 only the
// coin's North action is legal (nothing slides), and when two directions land
// on the same square (a slide of 4 or 8 across, 3 or 6 down) only the first
// of them in N, E, S, W order is legal.
const (
	ActionStart     = 0
	ActionCoin      = 6
	ActionRefuel    = 54
	ActionNoRefuel  = 55
	NumActions      = 56
	DeliveryReward  = 20
	RefuelPenalty   = -10
	MaxDeliveries   = numPlanets
	coinActionCount = 2 * numValues * NumDirs
)

// CoinAction returns the action that plays the coin of suit and value and
// slides in direction dir.
func CoinAction(suit, value, dir int) int {
	return ActionCoin + (suit*numValues+value)*NumDirs + dir
}

// DecodeCoinAction is the inverse of CoinAction; ok is false for an action
// that plays no coin.
func DecodeCoinAction(a int) (suit, value, dir int, ok bool) {
	if a < ActionCoin || a >= ActionCoin+coinActionCount {
		return 0, 0, 0, false
	}
	a -= ActionCoin
	return a / (numValues * NumDirs), a / NumDirs % numValues, a % NumDirs, true
}

// newSpeed applies a coin to speed with the seed's clamp to [0, 10].
func newSpeed(speed, suit, value int) int {
	if suit == Thrust {
		return min(speed+value, maxSpeed)
	}
	return max(speed-value, 0)
}

// LegalMask writes the legal actions of the current phase; see the action
// layout above.
func (s *State) LegalMask(dst []uint8) int {
	clear(dst)
	switch s.phase {
	case PhaseStart:
		for k := 0; k < numPlanets; k++ {
			dst[ActionStart+k] = 1
		}
		return numPlanets
	case PhaseCoin:
		n := 0
		for suit := 0; suit < 2; suit++ {
			for up := s.up[suit]; up != 0; up &= up - 1 {
				v := bits.TrailingZeros8(up)
				base := CoinAction(suit, v, 0)
				ns := newSpeed(int(s.speed), suit, v)
				if ns == 0 {
					dst[base] = 1
					n++
					continue
				}
				for d := 0; d < NumDirs; d++ {
					if !duplicateDir(d, ns) {
						dst[base+d] = 1
						n++
					}
				}
			}
		}
		return n
	case PhaseRefuel:
		dst[ActionRefuel], dst[ActionNoRefuel] = 1, 1
		return 2
	}
	return 0
}

// Apply plays a legal action and adds the reward into rewards[0]: +20 per
// delivery, -10 per refuel, and the unspent coins when the game ends.
func (s *State) Apply(action int, rewards []float64) {
	switch s.phase {
	case PhaseStart:
		s.launch(action - ActionStart)
		s.afterTurn(rewards)
	case PhaseCoin:
		suit, v, d, _ := DecodeCoinAction(action)
		s.playCoin(suit, v, d, rewards)
	case PhaseRefuel:
		if action == ActionRefuel {
			// seed, Refueling: +1 on the Refueling Dice, every spent coin
			// back, both stacks reshuffled, two face up each; the pending
			// replacement reveal is moot.
			s.refuels++
			rewards[0] += RefuelPenalty
			s.shuffleCoins()
		} else if s.pendingRev >= 0 {
			s.reveal(int(s.pendingRev)) // seed, turn step 5
		}
		s.pendingRev = -1
		s.afterTurn(rewards)
	}
}

// launch places the Starship on the k-th planet in reading order and flips
// it; if its number is the queue top, that crown goes to the bottom (seed,
// Setup: Starship).
func (s *State) launch(k int) {
	p := s.planets
	for ; k > 0; k-- {
		p &= p - 1
	}
	sq := bits.TrailingZeros64(p)
	s.ship = int8(sq)
	s.known |= 1 << sq
	if s.numAt[sq] == s.queue[0] {
		top := s.queue[0]
		copy(s.queue[:], s.queue[1:])
		s.queue[numPlanets-1] = top
		s.bottom = top
	}
	s.phase = PhaseCoin
}

// playCoin is one turn, seed steps 1-5: spend the coin, adjust the speed,
// slide, scan, orbit (delivery, then the refuel decision), reveal.
func (s *State) playCoin(suit, v, d int, rewards []float64) {
	bit := uint8(1) << v
	s.up[suit] &^= bit
	s.spent[suit] |= bit
	s.turns++
	ns := newSpeed(int(s.speed), suit, v)
	s.speed = int8(ns)
	if ns > 0 {
		s.ship = int8(slideSquare(int(s.ship), d, ns))
		s.known |= s.planets & s.cfg.scan[s.ship]
	}
	if ns == 0 && s.planets&(1<<s.ship) != 0 {
		// Orbiting: a delivery is automatic when this is the queue top.
		if s.numAt[s.ship] == s.queue[s.delivered] {
			s.delivered++
			rewards[0] += DeliveryReward
			if s.delivered == MaxDeliveries {
				s.end(rewards)
				return
			}
		}
		s.pendingRev = int8(suit)
		s.phase = PhaseRefuel
		return
	}
	s.reveal(suit)
	s.afterTurn(rewards)
}

// afterTurn enters the coin phase, ending the game Lost in Space when no
// order of the unspent coins can stop the ship on a planet.
func (s *State) afterTurn(rewards []float64) {
	s.phase = PhaseCoin
	if !CanStop(int(s.ship), int(s.speed), s.unspent(), s.planets) {
		s.lost = true
		s.end(rewards)
	}
}

// end finishes the game and pays the unspent coins.
func (s *State) end(rewards []float64) {
	s.phase = PhaseOver
	rewards[0] += float64(s.UnspentCoins())
}

// Truncate pays the unspent coins when the episode is cut, so that the
// return equals the score.
func (s *State) Truncate(rewards []float64) {
	rewards[0] += float64(s.UnspentCoins())
}

// CanStop reports whether some non-empty sequence of the coins in the 12-bit
// set coins (bits 0-5 Thrust values, 6-11 Brake values), played in some
// order with some slide directions, brings a ship at square ship and speed
// speed to speed 0 on a square of planets. This is the Lost in Space test
// (seed: "If the remaining combination of Thrust and Brake Coins will not
// allow the Starship to stop at a Planet ... loss"), face-down coins counted
// as if playable in any order. It is exact, and uses only public
// information.
func CanStop(ship, speed int, coins uint16, planets uint64) bool {
	brakes := coins >> numValues
	// Exact rejects: without Brake coins the speed never falls, so only a
	// null Thrust at speed 0 on a planet stops; and the brakes must be able to
	// cancel the current speed at all.
	if brakes == 0 {
		return speed == 0 && coins&1 != 0 && planets&(1<<ship) != 0
	}
	sumBrakes := 0
	for b := brakes; b != 0; b &= b - 1 {
		sumBrakes += bits.TrailingZeros16(b)
	}
	if sumBrakes < speed {
		return false
	}
	pos := uint64(1) << ship
	// Exact accept: on a planet with a brake at least the speed.
	if pos&planets != 0 && bits.Len16(brakes)-1 >= speed {
		return true
	}
	// Exact accept: one slide then a stop with a different brake.
	for c := coins; c != 0; c &= c - 1 {
		i := bits.TrailingZeros16(c)
		ns := coinSpeed(speed, i)
		if ns == 0 {
			continue
		}
		rest := (coins &^ (1 << i)) >> numValues
		if rest != 0 && bits.Len16(rest)-1 >= ns && slideSet(pos, ns)&planets != 0 {
			return true
		}
	}
	sr := searchPool.Get().(*stopSearch)
	sr.planets = planets
	sr.stamp++
	if sr.stamp == 0 {
		clear(sr.memo)
		sr.stamp = 1
	}
	ok := sr.dfs(pos, speed, coins)
	searchPool.Put(sr)
	return ok
}

// coinSpeed is newSpeed for coin index i of a 12-bit coin set.
func coinSpeed(speed, i int) int {
	if i < numValues {
		return min(speed+i, maxSpeed)
	}
	return max(speed-(i-numValues), 0)
}

// stopSearch is a depth-first search over (remaining coins, speed) with the
// squares reachable so far as one 48-bit set; memo records, per such key,
// the squares already explored, so each (coins, speed, square) is expanded
// at most once. Keys are 12 coin bits and 4 speed bits.
type stopSearch struct {
	planets uint64
	stamp   uint32
	memo    []memoEntry
}

type memoEntry struct {
	stamp uint32
	seen  uint64
}

var searchPool = sync.Pool{New: func() any { return &stopSearch{memo: make([]memoEntry, 1<<16)} }}

func (sr *stopSearch) dfs(pos uint64, speed int, coins uint16) bool {
	// Brakes first, largest first: stops are found sooner.
	for c := coins; c != 0; {
		i := bits.Len16(c) - 1
		c &^= 1 << i
		ns := coinSpeed(speed, i)
		next := pos
		if ns == 0 {
			if pos&sr.planets != 0 {
				return true
			}
		} else {
			next = slideSet(pos, ns)
		}
		rest := coins &^ (1 << i)
		if rest == 0 {
			continue
		}
		m := &sr.memo[uint32(rest)<<4|uint32(ns)]
		if m.stamp != sr.stamp {
			m.stamp, m.seen = sr.stamp, 0
		}
		next &^= m.seen
		if next == 0 {
			continue
		}
		m.seen |= next
		if sr.dfs(next, ns, rest) {
			return true
		}
	}
	return false
}
