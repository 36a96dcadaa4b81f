package galaxyexpress

import "math/bits"

// The action features Galaxy Express declares (env.ActionFeaturer): what
// the rules make of each action one step ahead, from the observation alone.
const (
	FeatureLost    = iota // the action ends the game Lost in Space at once (A13)
	FeatureOrbit          // the coin brings the ship to rest on a planet (a refuel decision or the win follows)
	FeatureDeliver        // the coin brings the ship to rest on the scanned target: a delivery
	FeatureTrap           // the share (in 60ths) of the next reveals after which every face-up coin is lost
	NumFeatures
)

// TrapScale is FeatureTrap's unit: the feature is the share of the
// possible reveals that strand the ship, times TrapScale (exact: a stack
// holds at most 6 coins, and 60 is a multiple of 1..6).
const TrapScale = 60

var featureNames = []string{"lost", "orbit", "deliver", "trap"}

// ActionFeatureNames returns "lost", "orbit", "deliver", "trap" (the
// Feature* constants' order). Readers select features by name, so a
// feature added at the end leaves what older readers read unchanged.
func (Game) ActionFeatureNames() []string { return featureNames }

// ActionFeatures writes, for every action legal in the observation obs
// (ObsSize bytes), its four features into dst (NumActions x NumFeatures,
// row-major; 0 for the other actions):
//   - lost: the game is lost at once after it: the rules' Lost in Space
//     test (CanStop, exact, over every unspent coin) fails after the launch,
//     the coin's slide, or the refuel decision (a coin that puts the ship in
//     orbit is never lost: the refuel decision comes first);
//   - orbit: the coin leaves the ship at speed 0 on a planet square;
//   - deliver: that planet is the scanned target (the delivery is made);
//   - trap (0..TrapScale, a launch or a coin that is neither lost nor
//     puts the ship in orbit; 0 otherwise): the game is not lost at once,
//     but the coin revealed after the move (a face-down coin of the played
//     coin's suit, each equally likely; none when that stack is empty) can
//     leave every face-up coin's move lost, so that the next move loses
//     whatever it is. The feature is the share of the face-down coins
//     whose reveal does so, times TrapScale (after a launch nothing is
//     revealed: TrapScale when every face-up coin is already lost). At a
//     refuel decision: declining reveals the coin the orbiting turn owes
//     (of the one suit with coins face down and fewer than two face up),
//     and is a trap as a coin is; refuelling never is (two Brake coins
//     come face up, and a Brake keeps the ship at rest on its planet).
//     This is the one-move-deeper danger the heuristic's lostPen weighs.
//
// Everything it reads is public: the ship, its speed, the planet squares,
// the target's square when scanned, the spent coins. It allocates nothing.
func (Game) ActionFeatures(obs []uint8, dst []uint8) {
	clear(dst[:NumActions*NumFeatures])
	phase := PhaseOver
	for p := range 3 {
		if obs[OffPhase+p] != 0 {
			phase = Phase(p)
		}
	}
	var planets uint64
	ship, target := -1, -1
	for sq := range Squares {
		if obs[OffUnscanned+sq] != 0 {
			planets |= 1 << sq
		}
		for n := range numPlanets {
			if obs[OffPlanet+n*Squares+sq] != 0 {
				planets |= 1 << sq
			}
		}
		if obs[OffShip+sq] != 0 && ship < 0 {
			ship = sq
		}
		if obs[OffTarget+sq] != 0 && target < 0 {
			target = sq
		}
	}
	speed := 0
	for v := range maxSpeed + 1 {
		if obs[OffSpeed+v] != 0 {
			speed = v
		}
	}
	var unspent, up, down uint16 // 12-bit coin sets: bits 0-5 Thrust, 6-11 Brake
	for i := range 2 * numValues {
		if obs[OffSpent+i] == 0 {
			unspent |= 1 << i
		}
		if obs[OffUp+i] != 0 {
			up |= 1 << i
		}
		if obs[OffDown+i] != 0 {
			down |= 1 << i
		}
	}
	set := func(a, f int) { dst[a*NumFeatures+f] = 1 }
	switch phase {
	case PhaseStart:
		p := planets
		for k := 0; k < numPlanets && p != 0; k++ {
			sq := bits.TrailingZeros64(p)
			p &= p - 1
			if !CanStop(sq, 0, unspent, planets) {
				set(ActionStart+k, FeatureLost)
			} else if stranded(sq, 0, up, unspent, planets) {
				dst[(ActionStart+k)*NumFeatures+FeatureTrap] = TrapScale
			}
		}
	case PhaseCoin:
		if ship < 0 {
			return
		}
		for b := up; b != 0; b &= b - 1 {
			i := bits.TrailingZeros16(b)
			suit, v := Suit(i/numValues), i%numValues
			ns := newSpeed(speed, suit, v)
			for d := range NumDirs {
				if slideDirs[ns]&(1<<d) == 0 {
					continue
				}
				a := CoinAction(suit, v, d)
				land := ship
				if ns > 0 {
					land = slideSquare(ship, d, ns)
				}
				switch {
				case ns == 0 && planets&(1<<land) != 0:
					set(a, FeatureOrbit)
					if land == target {
						set(a, FeatureDeliver)
					}
				case !CanStop(land, ns, unspent&^(1<<i), planets):
					set(a, FeatureLost)
				default:
					dst[a*NumFeatures+FeatureTrap] = trap(land, ns, i, up, down, unspent, planets)
				}
			}
		}
	case PhaseRefuel:
		if ship < 0 {
			return
		}
		if !CanStop(ship, 0, 1<<(2*numValues)-1, planets) {
			set(ActionRefuel, FeatureLost)
		}
		if !CanStop(ship, 0, unspent, planets) {
			set(ActionNoRefuel, FeatureLost)
			return
		}
		// Declining reveals the coin the orbiting move's turn still owes:
		// of the suit played, the one suit with coins face down and fewer
		// than faceUpEach face up (every other such suit was refilled).
		// Refuelling turns two coins of each suit face up at speed 0 on a
		// planet: a Brake coin keeps the ship there, so it is never a trap.
		for suit := range 2 {
			m := suitMask(suit * numValues)
			if down&m != 0 && bits.OnesCount16(up&m) < faceUpEach {
				dst[ActionNoRefuel*NumFeatures+FeatureTrap] = trap(ship, 0, -1, up, down&m, unspent, planets)
				return
			}
		}
		if stranded(ship, 0, up, unspent, planets) {
			dst[ActionNoRefuel*NumFeatures+FeatureTrap] = TrapScale
		}
	}
}

// suitMask is the 12-bit set of the six coins of coin i's suit.
func suitMask(i int) uint16 { return uint16(allValues) << (i / numValues * numValues) }

// trap is FeatureTrap of playing coin i to (land, ns), neither lost nor in
// orbit: the share of the face-down coins of i's suit whose reveal leaves
// every face-up coin's move lost, times TrapScale (with none face down,
// TrapScale or 0 for the face-up coins left). i < 0: no coin is played
// (declining to refuel) and down holds the coins the reveal draws from.
func trap(land, ns, i int, up, down, unspent uint16, planets uint64) uint8 {
	reveals := down
	if i >= 0 {
		up &^= 1 << i
		unspent &^= 1 << i
		reveals = down & suitMask(i)
	}
	if reveals == 0 {
		if stranded(land, ns, up, unspent, planets) {
			return TrapScale
		}
		return 0
	}
	k := 0
	for b := reveals; b != 0; b &= b - 1 {
		if stranded(land, ns, up|1<<bits.TrailingZeros16(b), unspent, planets) {
			k++
		}
	}
	return uint8(TrapScale * k / bits.OnesCount16(reveals))
}

// stranded reports whether every move of a face-up coin (the 12-bit set up)
// from ship at speed is lost: no sequence of the unspent coins that begins
// with it stops the ship on a planet (bringing it to rest on a planet is
// never lost). Each coin costs a lookup in the stop table: the squares a
// sequence of the other coins can stop on from the coin's new speed, slid
// in every direction by that speed (or, at speed 0, the square itself too).
func stranded(ship, speed int, up, unspent uint16, planets uint64) bool {
	t := stopTable()
	for b := up; b != 0; b &= b - 1 {
		c := bits.TrailingZeros16(b)
		ns := coinSpeed(speed, c)
		r := t[int(unspent&^(1<<c))*speeds+ns]
		if ns == 0 {
			r |= 1
		} else {
			r = slideSet(r, ns)
		}
		if translate(r, ship)&planets != 0 {
			return false
		}
	}
	return true
}
