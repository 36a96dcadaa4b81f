package galaxyexpress

import (
	"math/bits"
	"sync"
)

// Movement wraps around every edge, so the Star Chart is a torus and the
// squares where a ship can come to rest depend on its square only by a
// translation. stopOffsets[coins*speeds+speed] is, for a ship on square a1
// (row 0, col 0) at speed speed holding the 12-bit coin set coins (bits 0-5
// Thrust values, 6-11 Brake values), the set of squares on which some
// non-empty sequence of those coins, played in some order with some slide
// directions, leaves it at speed 0. Built on first use (stopTable) by
// dynamic programming over coin subsets (4096 x 11 sets, 352 KiB, a few
// milliseconds that every process paid at start-up before, whatever game it
// played), it makes the exact Lost in Space test a table lookup and a board
// rotation.
var (
	stopOffsets []uint64
	stopOnce    sync.Once
)

// stopTable returns stopOffsets, built on the first call (safe for
// concurrent use).
func stopTable() []uint64 {
	stopOnce.Do(func() { stopOffsets = buildStopOffsets() })
	return stopOffsets
}

const speeds = maxSpeed + 1

func buildStopOffsets() []uint64 {
	t := make([]uint64, (1<<(2*numValues))*speeds)
	// A subset's proper subsets are numerically smaller, so ascending order
	// visits every rest set before the sets that contain it.
	for coins := 1; coins < 1<<(2*numValues); coins++ {
		for sp := 0; sp < speeds; sp++ {
			var r uint64
			for c := coins; c != 0; c &= c - 1 {
				i := bits.TrailingZeros(uint(c))
				ns := coinSpeed(sp, i)
				rest := t[(coins&^(1<<i))*speeds+ns]
				if ns == 0 {
					r |= 1 | rest // at rest here, or play on from speed 0
				} else {
					r |= slideSet(rest, ns)
				}
			}
			t[coins*speeds+sp] = r
		}
	}
	return t
}

// translate moves every square of b by row rows South and col columns East,
// wrapping around the edges.
func translate(b uint64, sq int) uint64 {
	return eastBy(southBy(b, sq/Cols), sq%Cols)
}

// StopSquares returns, as a 48-bit board set (bit row*8+col), every square
// on which a ship at square ship (0..47) and speed speed (0..10) can come to
// rest at speed 0 by playing a non-empty sequence of the coins in the 12-bit
// set coins (bits 0-5 Thrust values null..5, bits 6-11 Brake values), in
// some order with some slide directions. Speed changes follow the seed's
// clamp to [0, 10]; slides wrap around the edges. Planets are ignored: to
// ask whether the ship can stop on a planet, intersect with the planet set
// (this is [CanStop]).
func StopSquares(ship, speed int, coins uint16) uint64 {
	return translate(stopTable()[int(coins&0xFFF)*speeds+speed], ship)
}

// CanStop reports whether some non-empty sequence of the coins in the 12-bit
// set coins (bits 0-5 Thrust values, 6-11 Brake values), played in some
// order with some slide directions, brings a ship at square ship and speed
// speed to speed 0 on a square of planets. This is the Lost in Space test
// (seed: "If the remaining combination of Thrust and Brake Coins will not
// allow the Starship to stop at a Planet ... loss"), face-down coins counted
// as if playable in any order. It is exact, uses only public information,
// and costs a table lookup.
func CanStop(ship, speed int, coins uint16, planets uint64) bool {
	return StopSquares(ship, speed, coins)&planets != 0
}

// coinSpeed is newSpeed for coin index i of a 12-bit coin set.
func coinSpeed(speed, i int) int {
	if i < numValues {
		return min(speed+i, maxSpeed)
	}
	return max(speed-(i-numValues), 0)
}
