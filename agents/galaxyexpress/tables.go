package galaxyexpress

import (
	"encoding/binary"
	"math"
	"math/bits"
	"runtime"
	"sync"

	ge "github.com/galaxygym/galaxygym/env/galaxyexpress"
)

// ---------------------------------------------------------------------------
// Geometry. Offsets between two squares are reduced by the torus's two
// reflections: class = cx + 5*cy with cx = min(dx, 8-dx) in 0..4 and
// cy = min(dy, 6-dy) in 0..3.

const (
	cols          = ge.Cols
	rows          = ge.Rows
	squares       = ge.Squares
	numOffsets    = 20  // offset classes
	numSpeeds     = 11  // speeds 0..10
	numValues     = 6   // coin values 0..5
	numSuitStates = 247 // coin states of one suit
	numCoinStates = numSuitStates * numSuitStates
	blkSize       = 32 // bytes per (coin state, speed) block: 20 values, reach mask at 20..23
	blkReach      = 20
)

var (
	relOff   [squares][squares]uint8         // relOff[from][to] = offset class of to-from
	offMoves [numOffsets][numSpeeds][4]uint8 // offset class after the ship slides ns squares N, E, S, W
	slideTo  [squares][numSpeeds][4]int8     // square after a slide of ns squares N, E, S, W
	scanSet  [2][squares]uint64              // squares scanned from a square (no wrap / wrap)
	// offOr[ns][chunk][bits] is the set of offset classes from which a
	// slide of ns lands in an offset of the 7-bit chunk bits.
	offOr [numSpeeds][3][128]uint32
	// offWeight is the distribution of the offset class between two planets
	// (on two distinct tiles, each in a random quadrant: seed setup).
	offWeight [numOffsets]float32
)

func canonOff(dx, dy int) uint8 {
	dx = ((dx % cols) + cols) % cols
	dy = ((dy % rows) + rows) % rows
	return uint8(min(dx, cols-dx) + 5*min(dy, rows-dy))
}

func init() {
	for a := 0; a < squares; a++ {
		for b := 0; b < squares; b++ {
			relOff[a][b] = canonOff(b%cols-a%cols, b/cols-a/cols)
		}
		for ns := 0; ns < numSpeeds; ns++ {
			for d := 0; d < 4; d++ {
				slideTo[a][ns][d] = int8(ge.Slide(a, d, ns))
			}
		}
		scanSet[0][a] = ge.ScanSet(a, false)
		scanSet[1][a] = ge.ScanSet(a, true)
	}
	for o := 0; o < numOffsets; o++ {
		cx, cy := o%5, o/5
		for ns := 0; ns < numSpeeds; ns++ {
			// The ship moving east by ns leaves the target at cx-ns, etc.
			offMoves[o][ns] = [4]uint8{canonOff(cx, cy+ns), canonOff(cx-ns, cy), canonOff(cx, cy-ns), canonOff(cx+ns, cy)}
		}
	}
	for ns := 1; ns < numSpeeds; ns++ {
		for o := 0; o < numOffsets; o++ {
			for _, o2 := range offMoves[o][ns] {
				ch, bit := int(o2)/7, int(o2)%7
				for m := 0; m < 128; m++ {
					if m&(1<<bit) != 0 {
						offOr[ns][ch][m] |= 1 << o
					}
				}
			}
		}
	}
	var cnt [numOffsets]int
	tot := 0
	for t1 := 0; t1 < 12; t1++ {
		for t2 := 0; t2 < 12; t2++ {
			if t1 == t2 {
				continue
			}
			for q1 := 0; q1 < 4; q1++ {
				for q2 := 0; q2 < 4; q2++ {
					a := ((t1/4)*2+q1/2)*cols + (t1%4)*2 + q1%2
					b := ((t2/4)*2+q2/2)*cols + (t2%4)*2 + q2%2
					cnt[relOff[a][b]]++
					tot++
				}
			}
		}
	}
	for o := range cnt {
		offWeight[o] = float32(cnt[o]) / float32(tot)
	}
}

func slideMaskOr(ns int, m uint32) uint32 {
	t := &offOr[ns]
	return t[0][m&127] | t[1][m>>7&127] | t[2][m>>14&127]
}

// ---------------------------------------------------------------------------
// Coin states. One suit's coins are (up, down): the face-up and face-down
// value sets (6 bits each), with |up| = min(2, |up|+|down|) (seed: two face
// up of each suit while any remain); there are 247 such states. A coin
// state is thrustState*247 + brakeState.

var (
	suitIdx  [1 << 12]int16 // up | down<<6 -> suit state, -1 if invalid
	suitUp   [numSuitStates]uint8
	suitDown [numSuitStates]uint8
	// suitNext[i][v] lists the suit states after playing face-up value v
	// from state i, one per equally likely reveal (seed, turn step 5).
	suitNext  [numSuitStates][numValues][4]int16
	suitNextN [numSuitStates][numValues]uint8
)

func init() {
	for i := range suitIdx {
		suitIdx[i] = -1
	}
	n := 0
	for key := 0; key < 1<<12; key++ {
		up, down := uint8(key&63), uint8(key>>6)
		if up&down != 0 || bits.OnesCount8(up) != min(2, bits.OnesCount8(up|down)) {
			continue
		}
		suitIdx[key] = int16(n)
		suitUp[n], suitDown[n] = up, down
		n++
	}
	if n != numSuitStates {
		panic("agents: heuristic: suit state count")
	}
	for i := 0; i < numSuitStates; i++ {
		for v := 0; v < numValues; v++ {
			if suitUp[i]&(1<<v) == 0 {
				continue
			}
			up, down := suitUp[i]&^(1<<v), suitDown[i]
			if down == 0 {
				suitNext[i][v][0] = suitIdx[up]
				suitNextN[i][v] = 1
				continue
			}
			k := 0
			for d := down; d != 0; d &= d - 1 {
				r := bits.TrailingZeros8(d)
				suitNext[i][v][k] = suitIdx[int(up|1<<r)|int(down&^(1<<r))<<6]
				k++
			}
			suitNextN[i][v] = uint8(k)
		}
	}
}

func suitCount(i int) int { return bits.OnesCount8(suitUp[i] | suitDown[i]) }

func coinCount(c int) int { return suitCount(c/numSuitStates) + suitCount(c%numSuitStates) }

// coinState returns the coin state of face-up and face-down value sets, or
// -1 when they are not a coin-phase state.
func coinState(upT, downT, upB, downB uint8) int {
	a, b := suitIdx[int(upT)|int(downT)<<6], suitIdx[int(upB)|int(downB)<<6]
	if a < 0 || b < 0 {
		return -1
	}
	return int(a)*numSuitStates + int(b)
}

// newSpeed is the seed's speed adjustment, clamped to 0..10.
func newSpeed(speed int, suit ge.Suit, v int) int {
	if suit == ge.Thrust {
		return min(speed+v, numSpeeds-1)
	}
	return max(speed-v, 0)
}

// ---------------------------------------------------------------------------
// Leg tables.

// legTable holds, per coin state c and speed s, a block of blkSize bytes at
// (c*11+s)*blkSize: the leg value for each target offset class, quantised
// to a byte (value = lo + step*q), and at blkReach a 20-bit mask of the
// offset classes the ship can still stop on for some order of the face-down
// coins (the rules' Lost in Space test, one square at a time).
type legTable struct {
	q        []byte
	lo, step float32
	fail     float32             // value of giving up the target (refuel elsewhere)
	fresh    [numOffsets]float32 // mean value over fresh coin states at speed 0 (after a refuel)
	freshAll float32             // fresh averaged over next-target offsets
}

// legTables are the tables the agent uses by deliveries left: last (1),
// two (2) and more (3 or more, the three-to-go table).
type legTables struct {
	last, two, more *legTable
}

// Leg model constants, in points of the seed's score.
const (
	legDeliver = 20  // seed scoring: per delivery
	legRefuel  = 10  // seed scoring: per refuel
	legDelta   = 0.0 // extra cost of giving up the target to refuel elsewhere (tuned)
	legFresh0  = 12  // value of a fresh load with nothing left to deliver: 12 unspent coins
	// legFail1 is the last leg's fail value, refuelling for a fresh load:
	// its freshAll (28.34) - legRefuel - legDelta, a fixed point of the
	// programme (checked by TestHeuristicTables).
	legFail1 = 18.34
)

var (
	tablesOnce sync.Once
	tables     *legTables
)

// getTables returns the shared tables, building them on first use.
func getTables() *legTables {
	tablesOnce.Do(func() { tables = buildTables() })
	return tables
}

// buildTables runs the programme for one, two and three deliveries left.
// The fail value of a table needs its own fresh value; for two and three it
// is extrapolated from the tables before (a delivery adds about 16 points).
func buildTables() *legTables {
	var byCount [13][]int32
	for c := 0; c < numCoinStates; c++ {
		k := coinCount(c)
		byCount[k] = append(byCount[k], int32(c))
	}
	goal := make([]float32, numCoinStates)
	// One delivery left: the delivery ends the game, scoring the coins.
	for c := range goal {
		goal[c] = legDeliver + float32(coinCount(c))
	}
	a := &legTable{q: make([]byte, numCoinStates*numSpeeds*blkSize)}
	a.run(&byCount, goal, legFail1)
	f1 := a.freshAll
	// Two and three deliveries left: reaching the target leads to the next
	// leg from the coins left, or to a refuel first.
	b := &legTable{q: make([]byte, numCoinStates*numSpeeds*blkSize)}
	a.nextGoal(goal)
	b.run(&byCount, goal, 2*f1-legFresh0-legRefuel-legDelta)
	f2 := b.freshAll
	c := &legTable{q: make([]byte, numCoinStates*numSpeeds*blkSize)}
	b.nextGoal(goal)
	c.run(&byCount, goal, 2*f2-f1-legRefuel-legDelta)
	return &legTables{last: a, two: b, more: c}
}

// nextGoal sets goal[c] to the value of reaching a target with coin state c
// when t is the table of the legs after it.
func (t *legTable) nextGoal(goal []float32) {
	for c := range goal {
		blk := t.q[c*numSpeeds*blkSize:]
		var e float32
		for o := 1; o < numOffsets; o++ {
			e += offWeight[o] * (t.lo + t.step*float32(blk[o]))
		}
		goal[c] = legDeliver + max(e, t.freshAll-legRefuel)
	}
}

type legDPScratch struct {
	sum   [numSpeeds][32]int32 // per new speed: sum over reveals, then max over directions
	rmask [numSpeeds]uint32
	best  [numSpeeds][32]int32
	reach [numSpeeds]uint32
}

// run fills the table by expectimax over coin states in order of the number
// of unspent coins (each turn spends one): at the target at speed 0 the
// value is goal, elsewhere the best over face-up coins and directions of the
// mean over the equally likely reveals, and never below fail.
func (t *legTable) run(byCount *[13][]int32, goal []float32, fail float32) {
	lo, hi := fail, fail
	for _, g := range goal {
		lo, hi = min(lo, g), max(hi, g)
	}
	t.lo, t.step, t.fail = lo, max(hi-lo, 1e-3)/255, fail
	failQ := int32(math.Round(float64((fail - lo) / t.step)))
	workers := max(1, min(8, runtime.GOMAXPROCS(0)))
	scratch := make([]legDPScratch, workers)
	var wg sync.WaitGroup
	for k := 0; k <= 12; k++ {
		states := byCount[k]
		per := (len(states) + workers - 1) / workers
		for w := 0; w < workers; w++ {
			part := states[min(w*per, len(states)):min((w+1)*per, len(states))]
			wg.Add(1)
			go func(sc *legDPScratch) {
				defer wg.Done()
				for _, c := range part {
					t.state(int(c), goal[c], failQ, sc)
				}
			}(&scratch[w])
		}
		wg.Wait()
	}
	// Fresh loads: two of six face up in each suit (seed, Refueling).
	t.fresh = [numOffsets]float32{}
	nf := 0
	for c := 0; c < numCoinStates; c++ {
		if suitCount(c/numSuitStates) != numValues || suitCount(c%numSuitStates) != numValues {
			continue
		}
		blk := t.q[c*numSpeeds*blkSize:]
		for o := 0; o < numOffsets; o++ {
			t.fresh[o] += t.lo + t.step*float32(blk[o])
		}
		nf++
	}
	t.freshAll = 0
	for o := range t.fresh {
		t.fresh[o] /= float32(nf)
		t.freshAll += offWeight[o] * t.fresh[o]
	}
}

// state computes the blocks of coin state c. Values are compared as sums
// over reveals scaled by 12/n (12 = lcm of 1..4), exact integers.
func (t *legTable) state(c int, goal float32, failQ int32, sc *legDPScratch) {
	it, ib := c/numSuitStates, c%numSuitStates
	for s := range sc.best {
		for o := range sc.best[s] {
			sc.best[s][o] = failQ * 12
		}
		sc.reach[s] = 0
	}
	for suit := ge.Thrust; suit <= ge.Brake; suit++ {
		si := it
		if suit == ge.Brake {
			si = ib
		}
		for up := suitUp[si]; up != 0; up &= up - 1 {
			v := bits.TrailingZeros8(up)
			nn := int(suitNextN[si][v])
			mul := int32(12 / nn)
			lo, hi := 0, numSpeeds-1 // the new speeds this coin can give
			if suit == ge.Thrust {
				lo = v
			} else {
				hi = numSpeeds - 1 - v
			}
			for ns := lo; ns <= hi; ns++ {
				sum := &sc.sum[ns]
				*sum = [32]int32{}
				var rm uint32
				for r := 0; r < nn; r++ {
					nx := int(suitNext[si][v][r])
					cn := it*numSuitStates + nx
					if suit == ge.Thrust {
						cn = nx*numSuitStates + ib
					}
					blk := t.q[(cn*numSpeeds+ns)*blkSize:][:blkSize]
					for o := 0; o < numOffsets; o++ {
						sum[o] += int32(blk[o])
					}
					rm |= binary.LittleEndian.Uint32(blk[blkReach:])
				}
				if ns > 0 {
					// Slide first: the best direction from each offset.
					var dm [32]int32
					for o := 0; o < numOffsets; o++ {
						mv := &offMoves[o][ns]
						dm[o] = max(sum[mv[0]&31], sum[mv[1]&31], sum[mv[2]&31], sum[mv[3]&31])
					}
					*sum = dm
					rm = slideMaskOr(ns, rm)
				}
				for o := 0; o < numOffsets; o++ {
					sum[o] *= mul
				}
				sc.rmask[ns] = rm
			}
			for s := 0; s < numSpeeds; s++ {
				ns := newSpeed(s, suit, v)
				sum := &sc.sum[ns]
				best := &sc.best[s]
				for o := 0; o < numOffsets; o++ {
					best[o] = max(best[o], sum[o])
				}
				sc.reach[s] |= sc.rmask[ns]
			}
		}
	}
	// At the target at speed 0 the delivery is made.
	sc.best[0][0] = int32(math.Round(float64((goal-t.lo)/t.step))) * 12
	sc.reach[0] |= 1
	for s := 0; s < numSpeeds; s++ {
		blk := t.q[(c*numSpeeds+s)*blkSize:][:blkSize]
		for o := 0; o < numOffsets; o++ {
			blk[o] = byte((sc.best[s][o] + 6) / 12)
		}
		binary.LittleEndian.PutUint32(blk[blkReach:], sc.reach[s])
	}
}
