package galaxyexpress

import (
	"encoding/binary"
	"math/bits"

	"github.com/galaxygym/galaxygym/env"
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
// on the same square (a slide of 4 or 8 across, 3, 6 or 9 down) only the first
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
func CoinAction(suit Suit, value, dir int) int {
	return ActionCoin + (int(suit)*numValues+value)*NumDirs + dir
}

// DecodeCoinAction is the inverse of CoinAction; ok is false for an action
// that plays no coin.
func DecodeCoinAction(a int) (suit Suit, value, dir int, ok bool) {
	if a < ActionCoin || a >= ActionCoin+coinActionCount {
		return 0, 0, 0, false
	}
	a -= ActionCoin
	return Suit(a / (numValues * NumDirs)), a / NumDirs % numValues, a % NumDirs, true
}

// newSpeed applies a coin to speed with the seed's clamp to [0, 10].
func newSpeed(speed int, suit Suit, value int) int {
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
		for suit := Thrust; suit <= Brake; suit++ {
			for up := s.up[suit]; up != 0; up &= up - 1 {
				v := bits.TrailingZeros8(up)
				dirs := slideDirs[newSpeed(int(s.speed), suit, v)]
				// One 4-byte store: the coin's N, E, S, W mask bytes.
				binary.LittleEndian.PutUint32(dst[CoinAction(suit, v, 0):], dirBytes[dirs])
				n += bits.OnesCount8(dirs)
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
			s.reveal(Suit(s.pendingRev)) // seed, turn step 5
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
func (s *State) playCoin(suit Suit, v, d int, rewards []float64) {
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

// EarnedReturns implements env.ReturnsEarner: an episode dealt at turn 0
// has paid +20 per delivery and -10 per refuel, and the unspent coins once
// it is over or truncated, so that its return is then Score().
func (s *State) EarnedReturns(truncated bool, dst []float64) bool {
	r := DeliveryReward*int(s.delivered) + RefuelPenalty*int(s.refuels)
	if s.phase == PhaseOver || truncated {
		r += s.UnspentCoins()
	}
	dst[0] = float64(r)
	return true
}

// Info reports outcome, score, deliveries, refuels, unspent coins, turns and
// the rating of the current score.
func (s *State) Info(dst *env.Info) {
	score := s.Score()
	switch {
	case s.phase != PhaseOver:
		dst.Outcome, dst.Score = env.OutcomeOngoing, float64(score)
	case s.lost:
		dst.SetTeamResult(1, env.OutcomeLoss, float64(score))
	default:
		dst.SetTeamResult(1, env.OutcomeWin, float64(score))
	}
	dst.Stats = append(dst.Stats,
		env.Stat{Name: "deliveries", Value: float64(s.delivered)},
		env.Stat{Name: "refuels", Value: float64(s.refuels)},
		env.Stat{Name: "unspent_coins", Value: float64(s.UnspentCoins())},
		env.Stat{Name: "turns", Value: float64(s.turns)},
	)
	dst.Labels = append(dst.Labels, env.Label{Name: "rating", Value: Rating(score)})
}

// CurrentPlayer is 0 while the game runs (one player), env.Terminal after.
func (s *State) CurrentPlayer() int {
	if s.phase == PhaseOver {
		return env.Terminal
	}
	return 0
}

// Terminal reports whether the game has ended (all six deliveries made, or
// Lost in Space).
func (s *State) Terminal() bool { return s.phase == PhaseOver }

// Turn returns the number of coins played so far, the truncation clock.
func (s *State) Turn() int { return int(s.turns) }
