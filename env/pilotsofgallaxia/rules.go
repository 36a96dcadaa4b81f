package pilotsofgallaxia

import "github.com/galaxygym/galaxygym/env"

// The action layout (doc.go): one Discrete space for every phase. Spaces
// and planet cards are numbered in the acting pilot's frame: its own
// sektor is sektor 0 (see rotate).
const (
	ActNode       = 0                      // 282: a space (a step of a move, a Durriken's planet, a slide-off)
	ActCard       = ActNode + NumSpaces    // 65: a card by kind (the Rekkoning excluded)
	ActShip       = ActCard + NumKinds - 1 // ship-1, ship-2: move that starship
	ActDurriken   = ActShip + 2            // move the Durriken
	ActHire       = ActDurriken + 1        // hire the Durriken
	ActEndMoves   = ActHire + 1            // end the moves: The Gambit
	ActBase       = ActEndMoves + 1        // the base move
	ActStop       = ActBase + 1            // end the move here
	ActClaim      = ActStop + 1            // claim the space with a caravan
	ActClaimBlokk = ActClaim + 1           // claim it with a BLOKK
	ActNoClaim    = ActClaimBlokk + 1      // leave it unclaimed
	ActRaid       = ActNoClaim + 1         // 15: raid the piece k (ship-1, ship-2, durriken) of the pilot r seats clockwise (r 1-5)
	ActNoCard     = ActRaid + 15           // raid with no card
	ActTakeCard   = ActNoCard + 1          // raid won: take the loser's card
	ActDrawCard   = ActTakeCard + 1        // raid won: draw from the deck
	ActTake       = ActDrawCard + 1        // The Gambit: take the cards up
	ActHigher     = ActTake + 1
	ActLower      = ActHigher + 1
	ActCashIn     = ActLower + 1 // a push cashed in for a Captain's draw
	ActPass       = ActCashIn + 1
	NumActions    = ActPass + 1
)

// cardAction returns the action of card kind k in the frame of sektor sk.
func cardAction(k, sk int) int {
	switch {
	case k < KindFuel:
		return ActCard + ((k/8-sk+NumSektors)%NumSektors)*8 + k%8
	case k < KindRekkoning:
		return ActCard + k
	}
	return ActCard + k - 1
}

// actionCard returns the card kind of card action a in the frame of sektor sk.
func actionCard(a, sk int) int {
	k := a - ActCard
	switch {
	case k < KindFuel:
		return ((k/8+sk)%NumSektors)*8 + k%8
	case k < KindRekkoning:
		return k
	}
	return k + 1
}

// nodeAction returns the action naming space sp in the frame of sektor sk.
func nodeAction(sp, sk int) int { return ActNode + rotate(sp, NumSektors-sk) }

// actionNode returns the space of node action a in the frame of sektor sk.
func actionNode(a, sk int) int { return rotate(a-ActNode, sk) }

// CurrentPlayer returns the pilot to act: the one discarding to the
// Rekkoning, the defender choosing its raid card, the raid's winner
// choosing its spoils, otherwise the pilot whose turn it is.
func (s *State) CurrentPlayer() int {
	switch {
	case s.over:
		return env.Terminal
	case s.discarder >= 0:
		return int(s.discarder)
	case s.phase == PhRaidD:
		return owner(int(s.defender))
	case s.phase == PhRaidWin:
		if s.rwin {
			return owner(int(s.raider))
		}
		return owner(int(s.defender))
	}
	return int(s.cur)
}

// Terminal reports whether a pilot has won.
func (s *State) Terminal() bool { return s.over }

// Turn returns the number of pilot turns completed.
func (s *State) Turn() int { return int(s.turn) }

// EarnedReturns implements env.ReturnsEarner: without shaping an episode
// dealt at turn 0 has paid, in Rookie Run, +1 to the winner and -1 to
// every other pilot once the game is over (nothing before), and in A New
// Life each pilot's countdown points as scored; with shaping the returns
// depend on the path, so it returns false.
func (s *State) EarnedReturns(truncated bool, dst []float64) bool {
	if s.cfg.shaping != 0 {
		return false
	}
	for p := range dst {
		switch {
		case s.cfg.mode == ModeANewLife:
			dst[p] = float64(s.points[p])
		case !s.over:
			dst[p] = 0
		case p == int(s.winner):
			dst[p] = 1
		default:
			dst[p] = -1
		}
	}
	return true
}

// Truncate pays nothing: the rewards of an unfinished game are those
// already paid (A New Life's points as scored).
func (s *State) Truncate(rewards []float64) { s.truncated = true }

// canEnter reports whether piece may step onto space y (L95-L98, L165).
func (s *State) canEnter(piece, y int) bool {
	p := owner(piece)
	switch theBoard.kind[y] {
	case KindLair:
		return false
	case KindHangar:
		return piece%3 < 2 && y == Hangar(int(s.sek[p]))
	}
	return !s.blokk[y] || int(s.car[y]) == p+1
}

// shipHop reports whether a step from x to y is a starship's hop between
// two vortices, which v2 forbids: the vortex is a Durriken's way (L219, A2).
func (s *State) shipHop(piece, x, y int) bool {
	return s.cfg.v2 && piece%3 < 2 && theBoard.kind[x] == KindVortex && theBoard.kind[y] == KindVortex
}

// quickroute returns the cost for pilot p to cross route r from one end
// to the other, 0 when it is not a quickroute p may take (L76, A15).
func (s *State) quickroute(p, r int) int {
	rt := &theBoard.routes[r]
	o := s.car[rt.spaces[0]]
	if o == 0 || s.car[rt.spaces[1]] != o || s.car[rt.spaces[2]] != o {
		return 0
	}
	if int(o) == p+1 {
		return 1
	}
	for _, c := range rt.spaces {
		if s.blokk[c] {
			return 0
		}
	}
	return 2
}

func farEnd(r, from int) int {
	rt := &theBoard.routes[r]
	if int(rt.a) == from {
		return int(rt.b)
	}
	return int(rt.a)
}

// durrikenTarget reports whether a free planet numbered v exists.
func (s *State) durrikenTarget(v int) bool {
	for k := 0; k < NumSektors; k++ {
		if s.occ[Planet(k, v)] == 0 {
			return true
		}
	}
	return false
}

// warpDest returns the planet a starship carrying or not carrying a
// scientist warps to with planet card k (L56, L105, A10): with a
// scientist, P2 of the card's sektor (with scientist_warp=p2_cards only a
// #2 card is allowed, which names that planet anyway).
func (s *State) warpDest(piece, k int) int {
	if s.cargo[piece] > 0 {
		return Planet(k/8, 2)
	}
	return planetOfCard(k)
}

func (s *State) fuelCards(p int) int {
	n := 0
	for k := KindFuel; k < KindDurriken; k++ {
		n += int(s.hand[p][k])
	}
	return n
}

// LegalMask writes the exact mask of the acting pilot's decision.
func (s *State) LegalMask(dst []uint8) int {
	clear(dst[:NumActions])
	if s.over {
		return 0
	}
	p := s.CurrentPlayer()
	sk := int(s.sek[p])
	h := &s.hand[p]
	m := maskSetter{dst: dst}
	if s.discarder >= 0 {
		for k := 0; k < NumKinds; k++ {
			if h[k] > 0 {
				m.set(cardAction(k, sk))
			}
		}
		return m.n
	}
	piece := 3*p + int(s.mover)
	switch s.phase {
	case PhMain:
		s.mainMask(&m, p, sk)
	case PhWay:
		s.wayMask(&m, p, sk, piece)
	case PhPath:
		s.pathMask(&m, p, sk, piece)
	case PhClaim:
		m.set(ActClaim)
		m.set(ActNoClaim)
		if s.blkLeft[p] > 0 {
			m.set(ActClaimBlokk)
		}
	case PhDWarp:
		for k := 0; k < NumSektors; k++ {
			if pl := Planet(k, int(s.warpVal)); s.occ[pl] == 0 {
				m.set(nodeAction(pl, sk))
			}
		}
	case PhSlide:
		t := Teleprism(SektorOf(int(s.at)))
		for _, y := range theBoard.adj[t][:theBoard.deg[t]] {
			if s.slideFree(piece, int(y)) {
				m.set(nodeAction(int(y), sk))
			}
		}
	case PhLand:
		m.set(ActPass)
		if k := planetCard(int(s.pos[piece])); h[k] > 0 {
			m.set(cardAction(k, sk))
		}
	case PhSellFuel:
		for k := KindFuel; k < KindDurriken; k++ {
			if h[k] > 0 {
				m.set(cardAction(k, sk))
			}
		}
	case PhRaidA, PhRaidD:
		m.set(ActNoCard)
		for k := 0; k < KindRekkoning; k++ {
			if h[k] > 0 {
				m.set(cardAction(k, sk))
			}
		}
		if h[KindDeflector] > 0 {
			m.set(cardAction(KindDeflector, sk))
		}
	case PhRaidWin:
		m.set(ActTakeCard)
		m.set(ActDrawCard)
	case PhGambit:
		m.set(ActTake)
		if s.nexp < 3 {
			m.set(ActHigher)
			m.set(ActLower)
		}
	case PhPush:
		m.set(ActTake)
		m.set(ActCashIn)
	}
	return m.n
}

// maskSetter writes a legal-action mask and counts the legal actions.
type maskSetter struct {
	dst []uint8
	n   int
}

// set marks action a legal (once).
func (m *maskSetter) set(a int) {
	if m.dst[a] == 0 {
		m.dst[a] = 1
		m.n++
	}
}

// mainMask sets the legal actions of pilot p's main phase (sk its sektor):
// moves, hiring, the end of moves, purchases and salvage.
func (s *State) mainMask(m *maskSetter, p, sk int) {
	h := &s.hand[p]
	for k := 0; k < 2; k++ {
		if s.moved&(1<<k) == 0 {
			m.set(ActShip + k)
		}
	}
	if s.hired[p] && s.moved&4 == 0 {
		ok := s.deployed[p]
		for v := 1; v <= 8 && !ok; v++ {
			ok = h[KindDurriken+v-1] > 0 && s.durrikenTarget(v)
		}
		if ok {
			m.set(ActDurriken)
		}
	}
	if !s.hired[p] {
		m.set(ActHire)
	}
	m.set(ActEndMoves)
	if !s.bought {
		for k := 0; k < KindFuel; k++ {
			if h[k] > 0 {
				m.set(cardAction(k, sk))
			}
		}
		if s.fuelCards(p) >= 2 {
			for k := KindFuel; k < KindDurriken; k++ {
				if h[k] > 0 {
					m.set(cardAction(k, sk))
				}
			}
		}
	}
	if h[KindSalvage] > 0 {
		m.set(cardAction(KindSalvage, sk))
	}
}

// wayMask sets the legal actions of the way a piece moves: base, warps,
// fuel and afterburner for a starship, the Durriken's cards.
func (s *State) wayMask(m *maskSetter, p, sk, piece int) {
	h := &s.hand[p]
	if s.mover < 2 {
		m.set(ActBase)
		for k := 0; k < KindFuel; k++ {
			if h[k] > 0 && s.occ[s.warpDest(piece, k)] == 0 && (!s.cfg.p2Cards || s.cargo[piece] == 0 || k%8 == 1) {
				m.set(cardAction(k, sk))
			}
		}
		for k := KindFuel; k < KindDurriken; k++ {
			if h[k] > 0 {
				m.set(cardAction(k, sk))
			}
		}
		if h[KindAfterburner] > 0 {
			m.set(cardAction(KindAfterburner, sk))
		}
	} else {
		if s.deployed[p] {
			m.set(ActBase)
		}
		for v := 1; v <= 8; v++ {
			if h[KindDurriken+v-1] > 0 && s.durrikenTarget(v) {
				m.set(cardAction(KindDurriken+v-1, sk))
			}
		}
	}
}

// pathMask sets the legal steps of a piece's path: stop, adjacent spaces,
// raids and quickroutes.
func (s *State) pathMask(m *maskSetter, p, sk, piece int) {
	m.set(ActStop)
	at := int(s.at)
	if s.budget >= 1 {
		for _, y := range theBoard.adj[at][:theBoard.deg[at]] {
			if s.canEnter(piece, int(y)) && !s.shipHop(piece, at, int(y)) {
				m.set(nodeAction(int(y), sk))
			}
			if !s.raided && (!s.cfg.v2 || theBoard.kind[at] != KindHangar) {
				if q := int(s.occ[y]) - 1; q >= 0 && owner(q) != p {
					r := (owner(q) - p + s.cfg.players) % s.cfg.players
					m.set(ActRaid + 3*(r-1) + q%3)
				}
			}
		}
		if theBoard.kind[at] == KindPlanet {
			for _, r := range theBoard.routesAt[at] {
				if r < 0 {
					break
				}
				if c := s.quickroute(p, int(r)); c > 0 && int(s.budget) >= c {
					m.set(nodeAction(farEnd(int(r), at), sk))
				}
			}
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Apply plays a legal action.
func (s *State) Apply(a int, rewards []float64) {
	s.rw = rewards
	s.apply(a)
	s.settle()
	s.rw = nil
}

func (s *State) apply(a int) {
	p := s.CurrentPlayer()
	sk := int(s.sek[p])
	if s.discarder >= 0 {
		s.discard(p, actionCard(a, sk))
		return
	}
	switch s.phase {
	case PhMain:
		switch {
		case a == ActShip || a == ActShip+1 || a == ActDurriken:
			s.startMove(a - ActShip)
		case a == ActHire:
			s.hired[p] = true
		case a == ActEndMoves:
			s.phase, s.nexp = PhGambit, 0
			s.flip()
		default:
			k := actionCard(a, sk)
			switch {
			case k == KindSalvage:
				s.removeCard(p, k)
				s.disc[k]++
				s.draw(p, 2)
			case k < KindFuel:
				s.discard(p, k)
				s.bought = true
				s.captainDraw(p)
			default:
				s.removeCard(p, k)
				s.sellFuel = int8(k)
				s.phase = PhSellFuel
			}
		}
	case PhSellFuel:
		s.discard(p, actionCard(a, sk))
		s.disc[s.sellFuel]++
		s.sellFuel = -1
		s.bought = true
		s.captainDraw(p)
		s.phase = PhMain
	case PhWay:
		s.chooseWay(p, a)
	case PhPath:
		s.pathAction(p, a)
	case PhClaim:
		if a != ActNoClaim {
			s.claim(p, int(s.at), a == ActClaimBlokk)
		}
		if s.over {
			return
		}
		if s.endAfter || s.budget == 0 {
			s.endMove()
		} else {
			s.phase = PhPath
		}
	case PhDWarp:
		s.durrikenWarp(p, actionNode(a, sk))
	case PhSlide:
		s.slideTo(actionNode(a, sk))
	case PhLand:
		if a != ActPass {
			s.discard(p, actionCard(a, sk))
			s.captainDraw(p)
		}
		s.phase = PhMain
	case PhRaidA:
		if a != ActNoCard {
			k := actionCard(a, sk)
			s.hand[p][k]--
			s.rcard = int8(k + 1)
		}
		s.phase = PhRaidD
	case PhRaidD:
		if a != ActNoCard {
			k := actionCard(a, sk)
			s.hand[p][k]--
			s.dcard = int8(k + 1)
		}
		s.resolveRaid()
	case PhRaidWin:
		lc := s.dcard
		if !s.rwin {
			lc = s.rcard
		}
		if a == ActTakeCard {
			s.addCard(p, int(lc)-1)
		} else {
			s.disc[lc-1]++
			s.draw(p, 1)
		}
		s.afterRaid()
	case PhGambit:
		if a == ActTake {
			s.gambitTake()
			return
		}
		s.guess(a == ActHigher)
	case PhPush:
		if a == ActTake {
			s.gambitTake()
			return
		}
		for i := 0; i < int(s.nexp); i++ {
			s.disc[s.exp[i]]++
		}
		s.nexp = 0
		s.captainDraw(p)
		s.endTurn()
	}
}

// startMove lifts piece k of the pilot whose turn it is.
func (s *State) startMove(k int) {
	piece := 3*int(s.cur) + k
	s.mover = int8(k)
	s.at = s.pos[piece]
	if s.occ[s.at] == int8(piece+1) {
		s.occ[s.at] = 0
	}
	s.lastFree = s.at
	s.budget, s.raided, s.endAfter = 0, false, false
	s.phase = PhWay
}

func (s *State) chooseWay(p, a int) {
	piece := 3*p + int(s.mover)
	if a == ActBase {
		s.budget = baseShipMove
		if s.mover == 2 {
			s.budget = baseDurrikenMove
		}
		s.phase = PhPath
		return
	}
	k := actionCard(a, int(s.sek[p]))
	switch {
	case k < KindFuel: // planet card: WARP (L56, L169-L179)
		s.discard(p, k)
		s.at = int16(s.warpDest(piece, k))
		s.lastFree = s.at
		s.enter(piece, int(s.at))
		if !s.over {
			s.endMove()
		}
	case k < KindDurriken:
		s.discard(p, k)
		s.budget = int8(Value(k))
		s.phase = PhPath
	case k < KindRekkoning: // Durriken card (L207)
		s.discard(p, k)
		s.warpVal = int8(Value(k))
		s.phase = PhDWarp
	default: // Afterburner (A5)
		s.discard(p, k)
		s.budget = afterburnerPoints
		s.phase = PhPath
	}
}

func (s *State) pathAction(p, a int) {
	piece := 3*p + int(s.mover)
	switch {
	case a == ActStop:
		s.endMove()
	case a >= ActRaid && a < ActRaid+15:
		r, k := (a-ActRaid)/3+1, (a-ActRaid)%3
		s.raider = int8(piece)
		s.defender = int8(3*((p+r)%s.cfg.players) + k)
		s.raided = true
		s.budget--
		s.rcard, s.dcard, s.rrand, s.drand = 0, 0, 0, 0
		s.raids++
		s.phase = PhRaidA
	default:
		y := actionNode(a, int(s.sek[p]))
		cost := 1
		quick := true
		for _, z := range theBoard.adj[s.at][:theBoard.deg[s.at]] {
			if int(z) == y {
				quick = false
			}
		}
		if quick {
			for _, r := range theBoard.routesAt[s.at] {
				if r >= 0 && farEnd(int(r), int(s.at)) == y {
					cost = s.quickroute(p, int(r))
				}
			}
		}
		s.budget -= int8(cost)
		s.at = int16(y)
		if s.free(y) && theBoard.kind[y] != KindTeleprism {
			s.lastFree = s.at
		}
		s.enter(piece, y)
		if s.over || s.phase != PhPath {
			return
		}
		if theBoard.kind[y] == KindTeleprism {
			s.teleport(piece)
			return
		}
		if piece%3 < 2 && theBoard.kind[y] == KindCaravan && s.car[y] == 0 && s.carLeft[p] > 0 {
			s.phase = PhClaim
			return
		}
		if s.budget == 0 {
			s.endMove()
		}
	}
}

// enter applies what entering space y does to a starship: delivering its
// scientist at home (L34), picking up a ring (A16).
func (s *State) enter(piece, y int) {
	if piece%3 == 2 {
		return
	}
	p := owner(piece)
	if y == Hangar(int(s.sek[p])) && s.cargo[piece] > 0 {
		s.deliver(piece)
		return
	}
	if s.cargo[piece] == 0 && s.ringsOn[y] > 0 {
		for r := 0; r < int(s.nRings); r++ {
			if s.ringState[r] == ringOnBoard && int(s.ringAt[r]) == y && (s.ringOwner[r] == int8(p) || s.ringOwner[r] < 0) {
				s.ringState[r] = ringAboard
				s.ringsOn[y]--
				s.cargo[piece] = int8(r + 1)
				s.reward(p, s.cfg.shaping)
				if s.ringOwner[r] == int8(p) && s.flags[p]&flagPickedOwn == 0 {
					s.flags[p] |= flagPickedOwn
					s.score(p, 1)
				}
				return
			}
		}
	}
}

func (s *State) deliver(piece int) {
	p := owner(piece)
	r := int(s.cargo[piece]) - 1
	s.cargo[piece] = 0
	s.ringState[r] = ringDelivered
	s.delivered[p]++
	s.reward(p, s.cfg.shaping)
	own := s.ringOwner[r] == int8(p)
	if own {
		if s.cfg.hideouts {
			// Two yellow rings on d6+d8 planets free of rings (L245, A26).
			for i := 0; i < 2; i++ {
				for {
					pl := Planet(s.d6()-1, s.d8())
					if s.ringsOn[pl] == 0 {
						s.placeRing(-1, pl)
						break
					}
				}
			}
		}
		if s.flags[p]&flagHomeOwn == 0 {
			s.flags[p] |= flagHomeOwn
			s.score(p, 1)
		}
	}
	if s.cfg.mode == ModeRookieRun {
		need := 1
		if s.cfg.hideouts {
			need = s.cfg.ringsToWin
		}
		if int(s.delivered[p]) >= need {
			s.winner = int8(p)
			s.pos[piece] = int16(Hangar(int(s.sek[p])))
			s.finish()
		}
	}
}

// teleport: the d6 picks the destination sektor (L111); the same sektor
// pays the PRISM BONUS (L115); the piece slides off (L119, A17, A18).
func (s *State) teleport(piece int) {
	p := owner(piece)
	s.teleports++
	from := SektorOf(int(s.at))
	to := s.d6() - 1
	if to == from {
		s.draw(p, prismBonus)
	}
	t := Teleprism(to)
	var opts [2]int16
	n := 0
	for _, y := range theBoard.adj[t][:theBoard.deg[t]] {
		if s.slideFree(piece, int(y)) {
			opts[n] = y
			n++
		}
	}
	switch n {
	case 0:
		s.at = s.lastFree
		s.endMove()
	case 1:
		s.slideTo(int(opts[0]))
	default:
		s.at = int16(t)
		s.phase = PhSlide
	}
}

// slideFree reports whether piece may slide off a Teleprism onto y: the
// space is free and, in v2, not another pilot's BLOKK (L165, A17).
func (s *State) slideFree(piece, y int) bool {
	return s.occ[y] == 0 && (!s.cfg.v2 || s.canEnter(piece, y))
}

func (s *State) slideTo(y int) {
	piece := 3*int(s.cur) + int(s.mover)
	p := int(s.cur)
	s.at, s.lastFree = int16(y), int16(y)
	s.enter(piece, y)
	if s.over {
		return
	}
	if piece%3 < 2 && s.car[y] == 0 && s.carLeft[p] > 0 {
		s.endAfter = true
		s.phase = PhClaim
		return
	}
	s.endMove()
}

// claim places a caravan or a BLOKK on space y (L72, L159) and, in A New
// Life, scores a completed trade route between planets in hand (L281).
func (s *State) claim(p, y int, blokk bool) {
	s.setCar(y, int8(p+1))
	s.carLeft[p]--
	if blokk {
		s.blokk[y] = true
		s.blkLeft[p]--
	}
	r := int(theBoard.routeOf[y])
	if r < 0 || s.cfg.mode != ModeANewLife || s.routeScored[r] != 0 {
		return
	}
	rt := &theBoard.routes[r]
	for _, c := range rt.spaces {
		if int(s.car[c]) != p+1 {
			return
		}
	}
	if s.hand[p][planetCard(int(rt.a))] > 0 && s.hand[p][planetCard(int(rt.b))] > 0 {
		s.routeScored[r] = int8(p + 1)
		s.score(p, s.cfg.routePoints)
	}
}

// endMove puts the moving piece down where it stopped, or on the last free
// space it passed (A13), and offers the landing discard (L329).
func (s *State) endMove() {
	p := int(s.cur)
	piece := 3*p + int(s.mover)
	at := int(s.at)
	if !s.free(at) {
		at = int(s.lastFree)
	}
	s.place(piece, at)
	s.moved |= 1 << s.mover
	s.phase = PhMain
	// v1 offers the landing discard only to a pilot holding the planet's
	// card, which tells the others so; v2 asks on every landing on a
	// planet, passing always legal (A29).
	if piece%3 < 2 && theBoard.kind[at] == KindPlanet && (s.cfg.v2 || s.hand[p][planetCard(at)] > 0) {
		s.phase = PhLand
	}
}

func (s *State) place(piece, at int) {
	s.pos[piece] = int16(at)
	if k := theBoard.kind[at]; k != KindHangar && k != KindLair {
		s.occ[at] = int8(piece + 1)
	}
}

// durrikenWarp lands the Durriken on planet y and destroys the trade
// routes ending there, BLOKKs included (L207-L211, A23).
func (s *State) durrikenWarp(p, y int) {
	piece := 3*p + 2
	s.place(piece, y)
	s.deployed[p] = true
	s.moved |= 4
	for _, r := range theBoard.routesAt[y] {
		if r < 0 {
			break
		}
		for _, c := range theBoard.routes[r].spaces {
			if o := int(s.car[c]) - 1; o >= 0 {
				s.carLeft[o]++
				if s.blokk[c] {
					s.blkLeft[o]++
				}
				s.setCar(int(c), 0)
				s.blokk[c] = false
			}
		}
	}
	s.phase = PhMain
}

// resolveRaid reveals the cards, rolls the dice and settles the battle
// (L187-L201, L227-L237).
func (s *State) resolveRaid() {
	ra, de := int(s.raider), int(s.defender)
	rp, dp := owner(ra), owner(de)
	if s.rcard > 0 {
		s.handN[rp]--
	}
	if s.dcard > 0 {
		s.handN[dp]--
	}
	s.rdie, s.ddie = int8(s.d6()), int8(s.d6())
	rt, dt := int(s.rdie)+cardValue(s.rcard), int(s.ddie)+cardValue(s.dcard)
	for i, piece := range [2]int{ra, de} {
		if piece%3 != 2 {
			continue
		}
		k, ok := s.popDeck()
		if !ok {
			continue
		}
		if k == KindRekkoning {
			s.rekkoning()
			s.rekkEnd = true
			continue
		}
		s.disc[k]++
		if i == 0 {
			s.rrand, rt = int8(k+1), rt+Value(k)
		} else {
			s.drand, dt = int8(k+1), dt+Value(k)
		}
	}
	switch {
	case s.rekkEnd || rt > dt:
		s.rwin = true
	case rt < dt:
		s.rwin = false
	case ra%3 == 2 && de%3 == 2: // staring contest (L233)
		s.rwin = s.intN(2) == 0
	default: // ties favour the defender (L191)
		s.rwin = false
	}
	win, lose, lc, wc := ra, de, s.dcard, s.rcard
	loseAt := int(s.pos[de])
	if !s.rwin {
		win, lose, lc, wc = de, ra, s.rcard, s.dcard
		loseAt = int(s.at)
	}
	wp, lp := owner(win), owner(lose)
	if wc > 0 {
		s.disc[wc-1]++
	}
	s.reward(wp, s.cfg.shaping)
	if win%3 == 2 {
		if s.flags[wp]&flagRaidDurriken == 0 {
			s.flags[wp] |= flagRaidDurriken
			s.score(wp, 1)
		}
	} else if s.flags[wp]&flagRaidShip == 0 {
		s.flags[wp] |= flagRaidShip
		s.score(wp, 1)
	}
	if s.over {
		return
	}
	// The defeated draws and flees (L195-L201) or goes back to its LAIR (L237).
	s.draw(lp, 1)
	if lose == de {
		if s.occ[loseAt] == int8(lose+1) {
			s.occ[loseAt] = 0
		}
	} else {
		s.moved |= 1 << s.mover
	}
	if lose%3 == 2 {
		s.pos[lose] = int16(Lair(int(s.sek[lp])))
		s.deployed[lp] = false
	} else {
		if r := int(s.cargo[lose]) - 1; r >= 0 {
			s.cargo[lose] = 0
			s.ringState[r], s.ringAt[r] = ringOnBoard, int16(loseAt)
			s.ringsOn[loseAt]++
		}
		for {
			pl := Planet(s.d6()-1, s.d8())
			if s.occ[pl] == 0 && (!s.cfg.v2 || lose == ra || !s.heldByMover(pl)) {
				s.place(lose, pl)
				break
			}
		}
	}
	if lc > 0 {
		s.phase = PhRaidWin
		return
	}
	s.draw(wp, 1)
	s.afterRaid()
}

// heldByMover reports whether space sp is the moving piece's space or the
// last free space it passed, where its move may still end (A13): in v2 a
// fleeing piece rolls again rather than land there (A22), so that no two
// pieces ever share a space (L99).
func (s *State) heldByMover(sp int) bool {
	return s.movingPhase() && (sp == int(s.at) || sp == int(s.lastFree))
}

func cardValue(c int8) int {
	if c == 0 {
		return 0
	}
	return Value(int(c) - 1)
}

// afterRaid: a winning raider goes on with its points left (L183); a losing
// raider's move is over; the Rekkoning in a battle ends the turn (L151).
func (s *State) afterRaid() {
	switch {
	case s.rekkEnd:
		s.rekkEnd = false
		if s.rwin {
			s.phase = PhPath
			s.endMove()
		}
		s.endTurn()
	case !s.rwin:
		s.phase = PhMain
	case s.budget == 0:
		s.endMove()
	default:
		s.phase = PhPath
	}
}

// flip turns up the next card of The Gambit (L131); the Rekkoning ends it
// (L150).
func (s *State) flip() bool {
	k, ok := s.popDeck()
	if !ok {
		s.gambitTake()
		return false
	}
	if k == KindRekkoning {
		s.rekkoning()
		for i := 0; i < int(s.nexp); i++ {
			s.disc[s.exp[i]]++
		}
		s.nexp = 0
		s.draw(int(s.cur), 1)
		s.endTurn()
		return false
	}
	s.exp[s.nexp] = uint8(k)
	s.nexp++
	return true
}

// guess plays higher or lower (L131-L143).
func (s *State) guess(higher bool) {
	old := Value(int(s.exp[s.nexp-1]))
	if !s.flip() {
		return
	}
	v := Value(int(s.exp[s.nexp-1]))
	switch {
	case v == old:
		s.phase = PhPush
	case (v > old) == higher:
		if s.nexp == 3 {
			s.gambitTake()
		}
	default:
		for i := 0; i < int(s.nexp); i++ {
			s.disc[s.exp[i]]++
		}
		s.nexp = 0
		s.draw(int(s.cur), 1)
		s.endTurn()
	}
}

func (s *State) gambitTake() {
	for i := 0; i < int(s.nexp); i++ {
		s.addCard(int(s.cur), int(s.exp[i]))
	}
	s.nexp = 0
	s.endTurn()
}

// endTurn passes the turn clockwise (L40).
func (s *State) endTurn() {
	if s.over {
		return
	}
	s.turn++
	s.cur = int8((int(s.cur) + 1) % s.cfg.players)
	s.phase = PhMain
	s.moved, s.bought = 0, false
	s.nexp = 0
	s.raider, s.defender = -1, -1
}

// Info fills the episode statistics and, once the game is over or
// truncated, every pilot's score, outcome and rank (RankByScore: Rookie
// Run 100 * rings home - spaces to go, A New Life countdown points).
func (s *State) Info(dst *env.Info) {
	if s.over || s.truncated {
		var buf [MaxPlayers]float64
		dst.RankByScore(s.Scores(buf[:0]))
	}
	delivered := 0
	for p := 0; p < s.cfg.players; p++ {
		delivered += int(s.delivered[p])
	}
	dst.Stats = append(dst.Stats,
		env.Stat{Name: "turns", Value: float64(s.turn)},
		env.Stat{Name: "winner", Value: float64(s.winner)},
		env.Stat{Name: "rings_home", Value: float64(delivered)},
		env.Stat{Name: "raids", Value: float64(s.raids)},
		env.Stat{Name: "teleports", Value: float64(s.teleports)},
		env.Stat{Name: "rekkonings", Value: float64(s.rekkonings)},
	)
	dst.Labels = append(dst.Labels, env.Label{Name: "mode", Value: modeNames[s.cfg.mode]})
}
