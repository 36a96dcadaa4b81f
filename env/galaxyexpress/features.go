package galaxyexpress

import "math/bits"

// The action features Galaxy Express declares (env.ActionFeaturer): what
// the rules make of each action one step ahead, from the observation alone.
const (
	FeatureLost    = iota // the action ends the game Lost in Space at once (A13)
	FeatureOrbit          // the coin brings the ship to rest on a planet (a refuel decision or the win follows)
	FeatureDeliver        // the coin brings the ship to rest on the scanned target: a delivery
	NumFeatures
)

var featureNames = []string{"lost", "orbit", "deliver"}

// ActionFeatureNames returns "lost", "orbit", "deliver" (the Feature*
// constants' order).
func (Game) ActionFeatureNames() []string { return featureNames }

// ActionFeatures writes, for every action legal in the observation obs
// (ObsSize bytes), its three features (0 or 1) into dst (NumActions x
// NumFeatures, row-major; 0 for the other actions):
//   - lost: the game is lost at once after it: the rules' Lost in Space
//     test (CanStop, exact, over every unspent coin) fails after the launch,
//     the coin's slide, or the refuel decision (a coin that puts the ship in
//     orbit is never lost: the refuel decision comes first);
//   - orbit: the coin leaves the ship at speed 0 on a planet square;
//   - deliver: that planet is the scanned target (the delivery is made).
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
	var unspent, up uint16 // 12-bit coin sets: bits 0-5 Thrust, 6-11 Brake
	for i := range 2 * numValues {
		if obs[OffSpent+i] == 0 {
			unspent |= 1 << i
		}
		if obs[OffUp+i] != 0 {
			up |= 1 << i
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
		}
	}
}
