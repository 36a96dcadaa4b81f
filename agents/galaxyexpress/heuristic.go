package galaxyexpress

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
	ge "github.com/galaxygym/galaxygym/env/galaxyexpress"
)

func init() {
	agents.RegisterFor(ge.ID, agents.Heuristic, "the game's own planner, from public information only: "+
		"leg value tables over the known coins, scouting and refuels (options: scan_wrap)",
		func(spec *env.Spec, opts agents.Options) (agents.Agent, error) {
			h, err := NewHeuristic(spec, opts)
			if err != nil {
				return nil, err // a nil Agent, not a typed nil pointer
			}
			return h, nil
		})
}

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
	phase     ge.Phase // PhaseOver when the observation shows none
	ship      int      // square, -1 before launch
	speed     int      // 0..10
	planets   uint64   // squares holding a planet
	unscanned uint64   // planets not scanned yet
	target    int      // target planet number, -1 after the last delivery
	targetSq  int      // the target's square, -1 while unknown
	up, down  [2]uint8
	tab       *legTable
	touch     byte // sink for the early loads of actCoin
	pmFor     uint64
	pm        [squares]uint32
	pending   uint64 // scanned planets still to deliver to
	bottomSq  int    // the crown moved to the bottom at launch: its square, -1 none or unscanned
	left      int    // deliveries left

	// vals, when not nil, receives every offered action's value
	// (ActionValues).
	vals []float32

	// Tuning.
	unknownPen float32 // per planet the target may still be, beyond the first
	lostPen    float32 // when a reveal can leave no planet reachable
	refuelPen  float32 // cost of a refuel at a refuel decision
}

// NewHeuristic returns the heuristic agent for spec, which must be
// galaxy-express-v1 (otherwise an *UnsupportedEnvError). Options:
// scan_wrap=true|false must match the environment's scan_wrap parameter
// (default false); anything else is an *OptionError.
func NewHeuristic(spec *env.Spec, opts agents.Options) (*Heuristic, error) {
	if spec == nil || spec.ID != ge.ID {
		id := "<nil>"
		if spec != nil {
			id = spec.ID
		}
		return nil, &agents.UnsupportedEnvError{Agent: "heuristic", Env: id, Supported: []string{ge.ID}}
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
				return nil, &agents.OptionError{Agent: "heuristic", Key: k, Reason: "want true or false"}
			}
		default:
			return nil, &agents.OptionError{Agent: "heuristic", Key: k, Reason: "unknown option (known: scan_wrap)"}
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
	p := obs[off : off+squares]
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
	p := obs[off : off+squares]
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
	h.phase = ge.PhaseOver
	for p := 2; p >= 0; p-- {
		if obs[ge.OffPhase+p] != 0 {
			h.phase = ge.Phase(p)
		}
	}
	h.ship = oneSquare(obs, ge.OffShip)
	sp := pack8(binary.LittleEndian.Uint64(obs[ge.OffSpeed:])) |
		pack8(uint64(binary.LittleEndian.Uint32(obs[ge.OffSpeed+8:]))&0xFFFFFF)<<8
	h.speed = bits.TrailingZeros64(sp | 1<<(numSpeeds-1)) // speed 10 if none set
	h.unscanned = plane(obs, ge.OffUnscanned)
	// Scanned planets: all of them, and those still to deliver to.
	delivered := six(obs, ge.OffDelivered)
	bottom := six(obs, ge.OffBottom)
	var all, pend uint64
	h.bottomSq = -1
	for i := 0; i < 6; i++ {
		var wa, wp uint64
		for k := 0; k < 6; k++ {
			w := binary.LittleEndian.Uint64(obs[ge.OffPlanet+squares*k+8*i:])
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

// ActionValues is Act with the heuristic's reasons: it returns the action
// Act would return for the same call (consuming the tie-breaking generator
// the same way) and fills q (length at least len(mask), float32) with the
// value the heuristic gave each legal action it weighed: the estimated
// points still to come in this leg, in score units (20 a delivery, -10 a
// refuel, -lostPen 30 when a move can strand the ship), comparable within
// one decision only. Actions not weighed (illegal, or the fallback when the
// observation cannot be decoded) get NaN. At a refuel decision in a coin
// state with no continuation, no-refuel gets refuel's value less 30. Used
// to label decisions with soft targets (tools/dagger -values). It does not
// allocate.
func (h *Heuristic) ActionValues(obs, mask []uint8, q []float32) int {
	return agents.ActRecordingValues(h, &h.vals, obs, mask, q)
}

// ActExplained is Act with the action values of [Heuristic.ActionValues]
// in th.Values ([agents.Explainer]).
func (h *Heuristic) ActExplained(_ int, obs, mask []uint8, th *agents.Thoughts) int {
	return agents.ExplainValues(h, "points still to come in this leg (estimate)", obs, mask, th)
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
func (h *Heuristic) planetMasks() *[squares]uint32 {
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
		x = float32(blk[v.tOff%numOffsets])
	} else if n := v.nN + v.nR; n > 0 {
		var sum uint32
		for _, o := range v.offs[:n] {
			sum += uint32(blk[o%numOffsets])
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
	return h.tab.q[(c*numSpeeds+ns)*blkSize:][:blkSize]
}

// pick keeps the best action, breaking exact ties uniformly at random.
type pick struct {
	a    int
	v    float32
	ties uint32
}

// offer considers action a of value v for p.
func (h *Heuristic) offer(p *pick, a int, v float32) {
	if h.vals != nil {
		h.vals[a] = v
	}
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
	for suit := ge.Thrust; suit <= ge.Brake; suit++ {
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
			if h.vals != nil {
				h.vals[ge.ActionRefuel] = h.freshValue(h.ship) - h.refuelPen
				h.vals[ge.ActionNoRefuel] = h.vals[ge.ActionRefuel] - h.lostPen
			}
			return ge.ActionRefuel
		}
		cont, n = h.value(h.block(c, 0), &v), 1
	}
	cont /= float32(n)
	fresh := h.freshValue(h.ship) - h.refuelPen
	if h.vals != nil {
		h.vals[ge.ActionRefuel], h.vals[ge.ActionNoRefuel] = fresh, cont
	}
	if fresh > cont {
		return ge.ActionRefuel
	}
	return ge.ActionNoRefuel
}

// freshValue is the leg value from sq at speed 0 with a fresh load.
func (h *Heuristic) freshValue(sq int) float32 {
	f := &h.tab.fresh
	if h.targetSq >= 0 {
		return f[relOff[sq][h.targetSq]%numOffsets]
	}
	u := h.unscanned
	k := bits.OnesCount64(u)
	if k == 0 {
		return 0
	}
	var s float32
	for b := u; b != 0; b &= b - 1 {
		s += f[relOff[sq][bits.TrailingZeros64(b)]%numOffsets]
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
	blk := nt.q[c*numSpeeds*blkSize:][:blkSize]
	rel := &relOff[h.targetSq]
	var sum, fsum float32
	n := 0
	for b := cand; b != 0; b &= b - 1 {
		o := rel[bits.TrailingZeros64(b)] % numOffsets
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
	for suit := ge.Thrust; suit <= ge.Brake; suit++ {
		si := it
		if suit == ge.Brake {
			si = ib
		}
		for up := h.up[suit]; up != 0 && nc < 4; up &= up - 1 {
			v := bits.TrailingZeros8(up)
			cc := &coins[nc]
			nc++
			cc.a0 = ge.CoinAction(suit, v, 0)
			cc.ns = newSpeed(h.speed, suit, v)
			cc.n = int(suitNextN[si][v])
			for r := 0; r < cc.n; r++ {
				nx := int(suitNext[si][v][r])
				cn := it*numSuitStates + nx
				if suit == ge.Thrust {
					cn = nx*numSuitStates + ib
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
