package agents

import (
	"encoding/binary"
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"sync"

	"github.com/galaxygym/galaxygym/env"
	ge "github.com/galaxygym/galaxygym/env/galaxyexpress"
)

func init() {
	Register("heuristic", "the game's own planner, from public information only: on "+ge.ID+
		" leg value tables over the known coins, scouting and refuels; on galaxy-fighters-v1/v2 "+
		"fighters-heuristic (two-command lookahead through the exact approach phase)",
		func(spec *env.Spec, opts Options) (Agent, error) {
			if fightersEnv(spec) {
				return newFightersAgent(spec, opts)
			}
			h, err := NewHeuristic(spec, opts)
			if err != nil {
				return nil, err // a nil Agent, not a typed nil pointer
			}
			return h, nil
		})
}

// How the heuristic plays (from the observation and the mask only):
//
// A leg is the trip to the target planet: from the ship's square and speed,
// with the face-up coins known and the face-down coins known as a set that
// turns up in random order, stop on the target at speed 0. Movement wraps
// around the 8x6 Star Chart, so a leg depends only on the target's offset
// from the ship, and the chart's two mirror symmetries leave 20 offset
// classes. Over every coin state (face-up and face-down values per suit)
// and speed, an expectimax programme gives the leg's value under the best
// policy against random reveals, in points of the seed's score: reaching
// the target scores 20 and leads to the next leg (the next target at the
// offset between two random planets, or a refuel first, -10), the last
// delivery scores the unspent coins, and giving up on the target to refuel
// elsewhere is worth a refuelled start. There is one table for the last
// delivery, one for two to go, and one for three (used whenever three or
// more remain), built once per process in about a second on two cores.
//
// Each decision looks one step ahead over the legal actions and the coin
// that turns up next: a coin and direction score the table value of the
// resulting position: towards the target, or, while the target is not
// scanned, the mean over the unscanned planets that may be it (those the
// slide scans count as found) less a small penalty per planet still
// unknown; a delivery is valued with the planets actually left to deliver
// to. A large penalty applies when a reveal can leave no planet to stop on
// (Lost in Space). A refuel decision compares going on with a fresh load
// less 10; the launch planet is the one with the best scouting value.

// ---------------------------------------------------------------------------
// Geometry. Offsets between two squares are reduced by the torus's two
// reflections: class = cx + 5*cy with cx = min(dx, 8-dx) in 0..4 and
// cy = min(dy, 6-dy) in 0..3.

const (
	hCols    = ge.Cols
	hRows    = ge.Rows
	hSquares = ge.Squares
	nOff     = 20  // offset classes
	nSpd     = 11  // speeds 0..10
	nVal     = 6   // coin values 0..5
	nSuitSt  = 247 // coin states of one suit
	nCoinSt  = nSuitSt * nSuitSt
	blkSize  = 32 // bytes per (coin state, speed) block: 20 values, reach mask at 20..23
	blkReach = 20
)

var (
	relOff   [hSquares][hSquares]uint8 // relOff[from][to] = offset class of to-from
	offMoves [nOff][nSpd][4]uint8      // offset class after the ship slides ns squares N, E, S, W
	slideTo  [hSquares][nSpd][4]int8   // square after a slide of ns squares N, E, S, W
	scanSet  [2][hSquares]uint64       // squares scanned from a square (no wrap / wrap)
	// offOr[ns][chunk][bits] is the set of offset classes from which a
	// slide of ns lands in an offset of the 7-bit chunk bits.
	offOr [nSpd][3][128]uint32
	// offWeight is the distribution of the offset class between two planets
	// (on two distinct tiles, each in a random quadrant: seed setup).
	offWeight [nOff]float32
)

func canonOff(dx, dy int) uint8 {
	dx = ((dx % hCols) + hCols) % hCols
	dy = ((dy % hRows) + hRows) % hRows
	return uint8(min(dx, hCols-dx) + 5*min(dy, hRows-dy))
}

func init() {
	for a := 0; a < hSquares; a++ {
		for b := 0; b < hSquares; b++ {
			relOff[a][b] = canonOff(b%hCols-a%hCols, b/hCols-a/hCols)
		}
		for ns := 0; ns < nSpd; ns++ {
			for d := 0; d < 4; d++ {
				slideTo[a][ns][d] = int8(ge.Slide(a, d, ns))
			}
		}
		scanSet[0][a] = ge.ScanSet(a, false)
		scanSet[1][a] = ge.ScanSet(a, true)
	}
	for o := 0; o < nOff; o++ {
		cx, cy := o%5, o/5
		for ns := 0; ns < nSpd; ns++ {
			// The ship moving east by ns leaves the target at cx-ns, etc.
			offMoves[o][ns] = [4]uint8{canonOff(cx, cy+ns), canonOff(cx-ns, cy), canonOff(cx, cy-ns), canonOff(cx+ns, cy)}
		}
	}
	for ns := 1; ns < nSpd; ns++ {
		for o := 0; o < nOff; o++ {
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
	var cnt [nOff]int
	tot := 0
	for t1 := 0; t1 < 12; t1++ {
		for t2 := 0; t2 < 12; t2++ {
			if t1 == t2 {
				continue
			}
			for q1 := 0; q1 < 4; q1++ {
				for q2 := 0; q2 < 4; q2++ {
					a := ((t1/4)*2+q1/2)*hCols + (t1%4)*2 + q1%2
					b := ((t2/4)*2+q2/2)*hCols + (t2%4)*2 + q2%2
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
	suitUp   [nSuitSt]uint8
	suitDown [nSuitSt]uint8
	// suitNext[i][v] lists the suit states after playing face-up value v
	// from state i, one per equally likely reveal (seed, turn step 5).
	suitNext  [nSuitSt][nVal][4]int16
	suitNextN [nSuitSt][nVal]uint8
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
	if n != nSuitSt {
		panic("agents: heuristic: suit state count")
	}
	for i := 0; i < nSuitSt; i++ {
		for v := 0; v < nVal; v++ {
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

func coinCount(c int) int { return suitCount(c/nSuitSt) + suitCount(c%nSuitSt) }

// coinState returns the coin state of face-up and face-down value sets, or
// -1 when they are not a coin-phase state.
func coinState(upT, downT, upB, downB uint8) int {
	a, b := suitIdx[int(upT)|int(downT)<<6], suitIdx[int(upB)|int(downB)<<6]
	if a < 0 || b < 0 {
		return -1
	}
	return int(a)*nSuitSt + int(b)
}

// hNewSpeed is the seed's speed adjustment, clamped to 0..10.
func hNewSpeed(speed, suit, v int) int {
	if suit == ge.Thrust {
		return min(speed+v, nSpd-1)
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
	fail     float32       // value of giving up the target (refuel elsewhere)
	fresh    [nOff]float32 // mean value over fresh coin states at speed 0 (after a refuel)
	freshAll float32       // fresh averaged over next-target offsets
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
	for c := 0; c < nCoinSt; c++ {
		k := coinCount(c)
		byCount[k] = append(byCount[k], int32(c))
	}
	goal := make([]float32, nCoinSt)
	// One delivery left: the delivery ends the game, scoring the coins.
	for c := range goal {
		goal[c] = legDeliver + float32(coinCount(c))
	}
	a := &legTable{q: make([]byte, nCoinSt*nSpd*blkSize)}
	a.run(&byCount, goal, legFail1)
	f1 := a.freshAll
	// Two and three deliveries left: reaching the target leads to the next
	// leg from the coins left, or to a refuel first.
	b := &legTable{q: make([]byte, nCoinSt*nSpd*blkSize)}
	a.nextGoal(goal)
	b.run(&byCount, goal, 2*f1-legFresh0-legRefuel-legDelta)
	f2 := b.freshAll
	c := &legTable{q: make([]byte, nCoinSt*nSpd*blkSize)}
	b.nextGoal(goal)
	c.run(&byCount, goal, 2*f2-f1-legRefuel-legDelta)
	return &legTables{last: a, two: b, more: c}
}

// nextGoal sets goal[c] to the value of reaching a target with coin state c
// when t is the table of the legs after it.
func (t *legTable) nextGoal(goal []float32) {
	for c := range goal {
		blk := t.q[c*nSpd*blkSize:]
		var e float32
		for o := 1; o < nOff; o++ {
			e += offWeight[o] * (t.lo + t.step*float32(blk[o]))
		}
		goal[c] = legDeliver + max(e, t.freshAll-legRefuel)
	}
}

type legDPScratch struct {
	sum   [nSpd][32]int32 // per new speed: sum over reveals, then max over directions
	rmask [nSpd]uint32
	best  [nSpd][32]int32
	reach [nSpd]uint32
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
	t.fresh = [nOff]float32{}
	nf := 0
	for c := 0; c < nCoinSt; c++ {
		if suitCount(c/nSuitSt) != nVal || suitCount(c%nSuitSt) != nVal {
			continue
		}
		blk := t.q[c*nSpd*blkSize:]
		for o := 0; o < nOff; o++ {
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
	it, ib := c/nSuitSt, c%nSuitSt
	for s := range sc.best {
		for o := range sc.best[s] {
			sc.best[s][o] = failQ * 12
		}
		sc.reach[s] = 0
	}
	for suit := 0; suit < 2; suit++ {
		si := it
		if suit == ge.Brake {
			si = ib
		}
		for up := suitUp[si]; up != 0; up &= up - 1 {
			v := bits.TrailingZeros8(up)
			nn := int(suitNextN[si][v])
			mul := int32(12 / nn)
			lo, hi := 0, nSpd-1 // the new speeds this coin can give
			if suit == ge.Thrust {
				lo = v
			} else {
				hi = nSpd - 1 - v
			}
			for ns := lo; ns <= hi; ns++ {
				sum := &sc.sum[ns]
				*sum = [32]int32{}
				var rm uint32
				for r := 0; r < nn; r++ {
					nx := int(suitNext[si][v][r])
					cn := it*nSuitSt + nx
					if suit == ge.Thrust {
						cn = nx*nSuitSt + ib
					}
					blk := t.q[(cn*nSpd+ns)*blkSize:][:blkSize]
					for o := 0; o < nOff; o++ {
						sum[o] += int32(blk[o])
					}
					rm |= binary.LittleEndian.Uint32(blk[blkReach:])
				}
				if ns > 0 {
					// Slide first: the best direction from each offset.
					var dm [32]int32
					for o := 0; o < nOff; o++ {
						mv := &offMoves[o][ns]
						dm[o] = max(sum[mv[0]&31], sum[mv[1]&31], sum[mv[2]&31], sum[mv[3]&31])
					}
					*sum = dm
					rm = slideMaskOr(ns, rm)
				}
				for o := 0; o < nOff; o++ {
					sum[o] *= mul
				}
				sc.rmask[ns] = rm
			}
			for s := 0; s < nSpd; s++ {
				ns := hNewSpeed(s, suit, v)
				sum := &sc.sum[ns]
				best := &sc.best[s]
				for o := 0; o < nOff; o++ {
					best[o] = max(best[o], sum[o])
				}
				sc.reach[s] |= sc.rmask[ns]
			}
		}
	}
	// At the target at speed 0 the delivery is made.
	sc.best[0][0] = int32(math.Round(float64((goal-t.lo)/t.step))) * 12
	sc.reach[0] |= 1
	for s := 0; s < nSpd; s++ {
		blk := t.q[(c*nSpd+s)*blkSize:][:blkSize]
		for o := 0; o < nOff; o++ {
			blk[o] = byte((sc.best[s][o] + 6) / 12)
		}
		binary.LittleEndian.PutUint32(blk[blkReach:], sc.reach[s])
	}
}

// ---------------------------------------------------------------------------
// The agent.

// Heuristic plays Galaxy Express (galaxy-express-v1) from the observation
// and the legal-action mask only: it never sees the game state, so hidden
// information (unscanned planet numbers, the delivery queue below its top,
// the order of the face-down coins) cannot influence it. Its only
// randomness breaks exact ties, from a PCG seeded by Reset. Act does not
// allocate. Use one Heuristic per goroutine; the value tables are shared,
// built once per process (64 MB, about a second on two cores).
type Heuristic struct {
	t        *legTables
	scanWrap int
	rng      rand.PCG

	// The decoded observation.
	phase     int
	ship      int    // square, -1 before launch
	speed     int    // 0..10
	planets   uint64 // squares holding a planet
	unscanned uint64 // planets not scanned yet
	target    int    // target planet number, -1 after the last delivery
	targetSq  int    // the target's square, -1 while unknown
	up, down  [2]uint8
	tab       *legTable
	touch     byte // sink for the early loads of actCoin
	pmFor     uint64
	pm        [hSquares]uint32
	pending   uint64 // scanned planets still to deliver to
	bottomSq  int    // the crown moved to the bottom at launch: its square, -1 none or unscanned
	left      int    // deliveries left

	// Tuning.
	unknownPen float32 // per planet the target may still be, beyond the first
	lostPen    float32 // when a reveal can leave no planet reachable
	refuelPen  float32 // cost of a refuel at a refuel decision
}

// NewHeuristic returns the heuristic agent for spec, which must be
// galaxy-express-v1 (otherwise an *UnsupportedEnvError). Options:
// scan_wrap=true|false must match the environment's scan_wrap parameter
// (default false); anything else is an *OptionError.
func NewHeuristic(spec *env.Spec, opts Options) (*Heuristic, error) {
	if spec == nil || spec.ID != ge.ID {
		id := "<nil>"
		if spec != nil {
			id = spec.ID
		}
		return nil, &UnsupportedEnvError{Agent: "heuristic", Env: id, Supported: []string{ge.ID}}
	}
	h := &Heuristic{t: getTables(), unknownPen: 0.7, lostPen: 30, refuelPen: legRefuel}
	for k, v := range opts {
		switch k {
		case "scan_wrap":
			switch v {
			case "false", "0":
				h.scanWrap = 0
			case "true", "1":
				h.scanWrap = 1
			default:
				return nil, &OptionError{Agent: "heuristic", Key: k, Reason: "want true or false"}
			}
		default:
			return nil, &OptionError{Agent: "heuristic", Key: k, Reason: "unknown option (known: scan_wrap)"}
		}
	}
	return h, nil
}

// Name returns "heuristic".
func (*Heuristic) Name() string { return "heuristic" }

// Reset begins an episode: seed drives the tie-breaking generator (a PCG),
// the agent's only randomness, so an episode replays exactly.
func (h *Heuristic) Reset(seed uint64) { h.rng.Seed(seed, 0x6865757269737463) }

// pack8 gathers the low bits of the eight bytes of w (each 0 or 1).
func pack8(w uint64) uint64 { return (w * 0x0102040810204080) >> 56 }

// plane reads a 48-byte 0/1 board plane as a square set.
func plane(obs []uint8, off int) uint64 {
	p := obs[off : off+hSquares]
	var b uint64
	for i := 0; i < 6; i++ {
		b |= pack8(binary.LittleEndian.Uint64(p[8*i:])) << (8 * i)
	}
	return b
}

// six reads six 0/1 bytes as a 6-bit set.
func six(obs []uint8, off int) uint8 {
	p := obs[off : off+6]
	return uint8(pack8(uint64(binary.LittleEndian.Uint32(p)) | uint64(binary.LittleEndian.Uint16(p[4:]))<<32))
}

// oneSquare returns the square of the (single) 1 in a 48-byte plane, or -1.
func oneSquare(obs []uint8, off int) int {
	p := obs[off : off+hSquares]
	for i := 0; i < 6; i++ {
		if w := binary.LittleEndian.Uint64(p[8*i:]); w != 0 {
			return 8*i + bits.TrailingZeros64(w)/8
		}
	}
	return -1
}

// decode reads the observation (layout: galaxyexpress.Off*).
func (h *Heuristic) decode(obs []uint8) {
	obs = obs[:ge.ObsSize]
	h.phase = -1
	for p := 2; p >= 0; p-- {
		if obs[ge.OffPhase+p] != 0 {
			h.phase = p
		}
	}
	h.ship = oneSquare(obs, ge.OffShip)
	sp := pack8(binary.LittleEndian.Uint64(obs[ge.OffSpeed:])) |
		pack8(uint64(binary.LittleEndian.Uint32(obs[ge.OffSpeed+8:]))&0xFFFFFF)<<8
	h.speed = bits.TrailingZeros64(sp | 1<<(nSpd-1)) // speed 10 if none set
	h.unscanned = plane(obs, ge.OffUnscanned)
	// Scanned planets: all of them, and those still to deliver to.
	delivered := six(obs, ge.OffDelivered)
	bottom := six(obs, ge.OffBottom)
	var all, pend uint64
	h.bottomSq = -1
	for i := 0; i < 6; i++ {
		var wa, wp uint64
		for k := 0; k < 6; k++ {
			w := binary.LittleEndian.Uint64(obs[ge.OffPlanet+hSquares*k+8*i:])
			wa |= w
			if delivered&(1<<k) == 0 {
				wp |= w
			}
			if bottom&(1<<k) != 0 && w != 0 {
				h.bottomSq = 8*i + bits.TrailingZeros64(w)/8
			}
		}
		all |= pack8(wa) << (8 * i)
		pend |= pack8(wp) << (8 * i)
	}
	h.planets = h.unscanned | all
	h.pending = pend
	h.left = ge.MaxDeliveries - int(obs[ge.OffDeliveries])
	h.target = -1
	if tn := six(obs, ge.OffTargetNum); tn != 0 {
		h.target = bits.TrailingZeros8(tn)
	}
	h.targetSq = oneSquare(obs, ge.OffTarget)
	if h.targetSq < 0 && h.target >= 0 && bits.OnesCount64(h.unscanned) == 1 {
		// The target is unscanned, and only one planet is.
		h.targetSq = bits.TrailingZeros64(h.unscanned)
	}
	switch {
	case h.left <= 1:
		h.tab = h.t.last
	case h.left == 2:
		h.tab = h.t.two
	default:
		h.tab = h.t.more
	}
	for s := 0; s < 2; s++ {
		h.up[s] = six(obs, ge.OffUp+6*s)
		h.down[s] = six(obs, ge.OffDown+6*s)
	}
}

// Act returns a legal action for the position in obs: the observation of
// galaxy-express-v1 (galaxyexpress.ObsSize = 503 bytes, layout in
// galaxyexpress's Off* constants) and mask, its legal-action mask (56
// bytes). It reads nothing else about the game, keeps neither slice, and
// returns -1 only when mask has no legal action. player is ignored (the game
// has one seat).
func (h *Heuristic) Act(_ int, obs, mask []uint8) int {
	h.decode(obs)
	a := -1
	switch h.phase {
	case ge.PhaseStart:
		a = h.actStart(mask)
	case ge.PhaseRefuel:
		a = h.actRefuel(mask)
	case ge.PhaseCoin:
		a = h.actCoin(mask)
	}
	if a >= 0 && a < len(mask) && mask[a] != 0 {
		return a
	}
	for a, m := range mask {
		if m != 0 {
			return a
		}
	}
	return -1
}

// view is what the value of a position needs about the ship's square:
// the offset classes of the target or of the planets that may be it.
type view struct {
	known      bool
	tOff       uint8
	nN, nR     int      // unscanned planets scanned by the slide / still unscanned
	offs       [6]uint8 // their offset classes, the scanned ones first
	inv, pen   float32  // 1/unscanned planets, penalty in table units
	planetMask uint32   // offset classes of the planets a stop may use
}

// see fills v for the ship at sq after a slide scanning scanned; exclude
// is a planet square not to count as a stop (the one orbited at a refuel
// decision), or -1.
func (h *Heuristic) see(v *view, sq int, scanned uint64, exclude int) {
	rel := &relOff[sq]
	v.known = h.targetSq >= 0
	v.nN, v.nR = 0, 0
	if v.known {
		v.tOff = rel[h.targetSq]
	} else if h.target >= 0 {
		u := h.unscanned
		for b := u & scanned; b != 0; b &= b - 1 {
			v.offs[v.nN] = rel[bits.TrailingZeros64(b)]
			v.nN++
		}
		for b := u &^ scanned; b != 0; b &= b - 1 {
			v.offs[v.nN+v.nR] = rel[bits.TrailingZeros64(b)]
			v.nR++
		}
		k := float32(v.nN + v.nR)
		v.inv = 1 / k
		v.pen = h.unknownPen * float32(v.nR*(v.nR-1)) / k / h.tab.step
	}
	if exclude < 0 {
		v.planetMask = h.planetMasks()[sq]
		return
	}
	var pm uint32
	for b := h.planets &^ (1 << uint(exclude&63)); b != 0; b &= b - 1 {
		pm |= 1 << rel[bits.TrailingZeros64(b)]
	}
	v.planetMask = pm
}

// planetMasks returns, per square, the offset classes of the planets from
// there; planets never move, so this is computed once a game.
func (h *Heuristic) planetMasks() *[hSquares]uint32 {
	if h.pmFor != h.planets {
		h.pmFor = h.planets
		for sq := range h.pm {
			var pm uint32
			for b := h.planets; b != 0; b &= b - 1 {
				pm |= 1 << relOff[sq][bits.TrailingZeros64(b)]
			}
			h.pm[sq] = pm
		}
	}
	return &h.pm
}

// value is the worth of the position v with the coin state and speed of
// block blk: the leg value towards the target, or the mean over the
// unscanned planets that may be it less a penalty for those still unknown,
// minus lostPen when no planet can be stopped on whatever the reveals.
func (h *Heuristic) value(blk []byte, v *view) float32 {
	var x float32
	if v.known {
		x = float32(blk[v.tOff%nOff])
	} else if n := v.nN + v.nR; n > 0 {
		var sum uint32
		for _, o := range v.offs[:n] {
			sum += uint32(blk[o%nOff])
		}
		x = float32(sum)*v.inv - v.pen
	}
	x = h.tab.lo + h.tab.step*x
	if binary.LittleEndian.Uint32(blk[blkReach:])&v.planetMask == 0 {
		x -= h.lostPen
	}
	return x
}

// block returns the current table's block of coin state c at speed ns.
func (h *Heuristic) block(c, ns int) []byte {
	return h.tab.q[(c*nSpd+ns)*blkSize:][:blkSize]
}

// pick keeps the best action, breaking exact ties uniformly at random.
type pick struct {
	a    int
	v    float32
	ties uint32
}

// offer considers action a of value v for p.
func (h *Heuristic) offer(p *pick, a int, v float32) {
	switch {
	case p.a < 0 || v > p.v:
		*p = pick{a, v, 1}
	case v == p.v:
		p.ties++
		if uint32((h.rng.Uint64()>>32)*uint64(p.ties)>>32) == 0 {
			p.a = a
		}
	}
}

// actStart picks the launch planet.
func (h *Heuristic) actStart(mask []uint8) int {
	c := coinState(h.up[0], h.down[0], h.up[1], h.down[1])
	if c < 0 {
		return -1
	}
	p := pick{a: -1}
	k := 0
	all := h.unscanned
	for b := h.planets; b != 0 && k < ge.ActionCoin; b &= b - 1 {
		sq := bits.TrailingZeros64(b)
		if mask[ge.ActionStart+k] != 0 {
			// Launching scans the start planet only; the target is then
			// one of the others (seed, Setup: Starship).
			h.unscanned = all &^ (1 << sq)
			var v view
			h.see(&v, sq, 0, -1)
			h.offer(&p, ge.ActionStart+k, h.value(h.block(c, 0), &v))
		}
		k++
	}
	h.unscanned = all
	return p.a
}

// actRefuel refuels when a fresh load, less 10, beats going on.
func (h *Heuristic) actRefuel(mask []uint8) int {
	if mask[ge.ActionRefuel] == 0 || mask[ge.ActionNoRefuel] == 0 {
		return -1
	}
	// Going on: the replacement coin of the suit just played turns up
	// after the decision (seed, turn step 5), one of its face-down coins.
	var cont float32
	n := 0
	var v view
	h.see(&v, h.ship, 0, h.ship)
	for suit := 0; suit < 2; suit++ {
		if bits.OnesCount8(h.up[suit]) >= 2 || h.down[suit] == 0 {
			continue
		}
		for d := h.down[suit]; d != 0; d &= d - 1 {
			r := uint8(1) << bits.TrailingZeros8(d)
			up, down := h.up, h.down
			up[suit] |= r
			down[suit] &^= r
			if c := coinState(up[0], down[0], up[1], down[1]); c >= 0 {
				cont += h.value(h.block(c, 0), &v)
				n++
			}
		}
	}
	if n == 0 {
		c := coinState(h.up[0], h.down[0], h.up[1], h.down[1])
		if c < 0 {
			return ge.ActionRefuel
		}
		cont, n = h.value(h.block(c, 0), &v), 1
	}
	cont /= float32(n)
	if h.freshValue(h.ship)-h.refuelPen > cont {
		return ge.ActionRefuel
	}
	return ge.ActionNoRefuel
}

// freshValue is the leg value from sq at speed 0 with a fresh load.
func (h *Heuristic) freshValue(sq int) float32 {
	f := &h.tab.fresh
	if h.targetSq >= 0 {
		return f[relOff[sq][h.targetSq]%nOff]
	}
	u := h.unscanned
	k := bits.OnesCount64(u)
	if k == 0 {
		return 0
	}
	var s float32
	for b := u; b != 0; b &= b - 1 {
		s += f[relOff[sq][bits.TrailingZeros64(b)]%nOff]
	}
	return s/float32(k) - h.unknownPen*float32(k-1)
}

// deliverValue is the worth of delivering to the target with coin state c
// left (after the reveal): the last delivery scores the coins; otherwise
// the next leg starts from the target towards one of the planets still to
// deliver to (the crown moved to the bottom at launch comes last), or a
// refuel first.
func (h *Heuristic) deliverValue(c int) float32 {
	if h.left <= 1 {
		return legDeliver + float32(coinCount(c))
	}
	nt := h.t.two
	if h.tab == h.t.two {
		nt = h.t.last
	}
	cand := (h.pending | h.unscanned) &^ (1 << h.targetSq)
	if h.left > 2 && h.bottomSq >= 0 { // the bottom crown comes last
		cand &^= 1 << h.bottomSq
	}
	blk := nt.q[c*nSpd*blkSize:][:blkSize]
	rel := &relOff[h.targetSq]
	var sum, fsum float32
	n := 0
	for b := cand; b != 0; b &= b - 1 {
		o := rel[bits.TrailingZeros64(b)] % nOff
		sum += float32(blk[o])
		fsum += nt.fresh[o]
		n++
	}
	if n == 0 {
		return legDeliver + float32(coinCount(c))
	}
	inv := 1 / float32(n)
	return legDeliver + max(nt.lo+nt.step*sum*inv, fsum*inv-legRefuel)
}

// actCoin picks a coin and a slide direction.
func (h *Heuristic) actCoin(mask []uint8) int {
	if h.ship < 0 {
		return -1
	}
	it := int(suitIdx[int(h.up[0])|int(h.down[0])<<6])
	ib := int(suitIdx[int(h.up[1])|int(h.down[1])<<6])
	if it < 0 || ib < 0 {
		return -1
	}
	// The blocks of every face-up coin's outcomes, gathered first so that
	// their memory loads overlap.
	var coins [4]struct {
		a0, ns, n int
		blk       [4][]byte
		cs        [4]int
	}
	nc := 0
	var touch byte
	for suit := 0; suit < 2; suit++ {
		si := it
		if suit == ge.Brake {
			si = ib
		}
		for up := h.up[suit]; up != 0 && nc < 4; up &= up - 1 {
			v := bits.TrailingZeros8(up)
			cc := &coins[nc]
			nc++
			cc.a0 = ge.CoinAction(suit, v, 0)
			cc.ns = hNewSpeed(h.speed, suit, v)
			cc.n = int(suitNextN[si][v])
			for r := 0; r < cc.n; r++ {
				nx := int(suitNext[si][v][r])
				cn := it*nSuitSt + nx
				if suit == ge.Thrust {
					cn = nx*nSuitSt + ib
				}
				cc.blk[r] = h.block(cn, cc.ns)
				cc.cs[r] = cn
				touch += cc.blk[r][0]
			}
		}
	}
	h.touch = touch
	p := pick{a: -1}
	scan := &scanSet[h.scanWrap]
	var v view
	for i := 0; i < nc; i++ {
		cc := &coins[i]
		for d := 0; d < 4; d++ {
			if mask[cc.a0+d] == 0 {
				continue
			}
			sq := int(slideTo[h.ship][cc.ns][d])
			var scanned uint64
			if cc.ns > 0 {
				scanned = scan[sq]
			}
			var val float32
			if cc.ns == 0 && sq == h.targetSq {
				for r := 0; r < cc.n; r++ {
					val += h.deliverValue(cc.cs[r])
				}
			} else {
				h.see(&v, sq, scanned, -1)
				for r := 0; r < cc.n; r++ {
					val += h.value(cc.blk[r], &v)
				}
			}
			h.offer(&p, cc.a0+d, val/float32(cc.n))
		}
	}
	return p.a
}
