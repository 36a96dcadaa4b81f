package express

import (
	"encoding/binary"
	"math/bits"

	"github.com/galaxygym/galaxygym/env"
)

// Action layout: one Discrete space for every phase (see doc.go). Player
// offsets r are seat-relative to the acting player (0 = self, 1 = the next
// seat clockwise, ...); train indices are slots 0-5 of the owner.
const (
	ActDraw      = 0                               // draw two cards from the draw pile
	ActTake      = 1                               // take the top discard
	ActStart     = 2                               // + kind: put that card face down as a new train's locomotive
	ActAdd       = ActStart + NumKinds             // + t*addKinds + c: add car c (kinds 0-10, 11 = Caboose) to own train t
	ActWild      = ActAdd + MaxTrains*addKinds     // + t*wildRoles + w: add a Wild to train t as type w (0-4 freight, 5 passenger) or 6 undeclared
	ActSwap      = ActWild + MaxTrains*wildRoles   // + t*NumKinds + k: swap train t's locomotive with a card of kind k from hand
	ActWay       = ActSwap + MaxTrains*NumKinds    // + w: play Way Car kind LightCrane+w
	ActHit       = ActWay + numWayKinds            // + h*36 + r*6 + t: Broken Car (h 0), Steal Car (1), Wreck (2) on player r's train t
	ActDerail    = ActHit + 3*MaxPlayers*MaxTrains // + r: Derailment on player r
	ActSwitch    = ActDerail + MaxPlayers          // + r*36 + t*6 + u: Switch Engines between player r's train t and own train u
	ActTurntable = ActSwitch + MaxPlayers*MaxTrains*MaxTrains
	ActEndMeld   = ActTurntable + 1 // end the turn with an empty hand
	ActDiscard   = ActEndMeld + 1   // + kind: discard a card, ending the turn
	ActBlock     = ActDiscard + NumKinds
	ActLet       = ActBlock + 1
	ActStuck     = ActLet + 1
	NumActions   = ActStuck + 1
)

const (
	addKinds  = 12 // kinds 0-10 and the Caboose
	wildRoles = 7  // six section types and undeclared
	wildOpen  = 6  // the undeclared role
)

// hit disasters in ActHit order.
var hitKinds = [3]int{BrokenCar, StealCar, Wreck}

// addKind maps an ActAdd car index to its kind.
func addKind(c int) int {
	if c == 11 {
		return Caboose
	}
	return c
}

// seat returns the absolute seat r places after p.
func (s *State) seat(p, r int) int { return (p + r) % s.n }

// firstRound reports whether some player has not completed a turn this
// hand: no Disasters and no going out.
func (s *State) firstRound() bool {
	for i := 0; i < s.n; i++ {
		if !s.pl[i].played {
			return true
		}
	}
	return false
}

// hasType reports whether hand h holds a plain car of section type t.
func hasType(h *[NumKinds]uint8, t int) bool {
	if t < typePassenger {
		return h[t] > 0
	}
	for k := MailBaggage; k <= Diesel; k++ {
		if h[k] > 0 {
			return true
		}
	}
	return false
}

// hasPlain reports whether hand h holds a freight or passenger car.
func hasPlain(h *[NumKinds]uint8) bool {
	for k := 0; k <= Diesel; k++ {
		if h[k] > 0 {
			return true
		}
	}
	return false
}

// wildFollows reports whether, after a Wild is played first as type t,
// hand h (the Wild already removed) can give the second car.
func wildFollows(h *[NumKinds]uint8, t int) bool {
	return h[Wild] > 0 || h[Caboose] > 0 || hasType(h, t)
}

// canStart reports whether hand h (the locomotive already removed) can
// give a new train its first car (and a Wild first its second).
func canStart(h *[NumKinds]uint8) bool {
	if hasPlain(h) {
		return true
	}
	return h[Wild] >= 2 || (h[Wild] == 1 && h[Caboose] > 0)
}

// secType returns the section type at the end of a train with cars.
func secType(tr *train) int {
	for i := int(tr.n) - 1; i >= 0; i-- {
		c := int(tr.cars[i])
		switch {
		case c >= carWildAs && c < carWildOpen:
			return c - carWildAs
		case c >= 1 && c <= Diesel+1:
			return typeOf(c - 1)
		}
	}
	return -1
}

// LegalMask writes the legal actions into dst (len NumActions) and returns
// their number.
func (s *State) LegalMask(dst []uint8) int {
	clear(dst)
	switch s.phase {
	case PhaseDraw:
		dst[ActDraw] = 1
		if s.discN > 0 {
			dst[ActTake] = 1
			return 2
		}
		return 1
	case PhaseBlock:
		dst[ActLet] = 1
		if s.cfg.v2 && s.pl[s.pend.on].hand[LightCrane+int(s.pend.kind)] == 0 {
			return 1 // v2 asks without the Way Car in hand (A29)
		}
		dst[ActBlock] = 1
		return 2
	case PhaseMeld:
		return s.meldMask(dst)
	}
	return 0
}

// heldKinds returns the set of kinds in hand h: bit k set when h[k] > 0.
// The hand is read as three words; each byte's top bit is set when the
// byte is not zero (its low seven bits plus 0x7f carry into it, or it is
// already set) and the eight top bits are gathered into a byte by a
// multiplication whose partial products do not overlap.
func heldKinds(h *[NumKinds]uint8) uint32 {
	const low7, top, gather = 0x7f7f7f7f7f7f7f7f, 0x8080808080808080, 0x0102040810204080
	nonzero := func(w uint64) uint32 {
		w = ((w&low7 + low7) | w) & top
		return uint32((w >> 7) * gather >> 56)
	}
	return nonzero(binary.LittleEndian.Uint64(h[0:8])) |
		nonzero(binary.LittleEndian.Uint64(h[8:16]))<<8 |
		nonzero(binary.LittleEndian.Uint64(h[16:24]))<<16
}

// Kind sets: plainKinds the freight and passenger cars (0..Diesel),
// typeKinds[t] the plain cars of section type t.
const plainKinds = 1<<(Diesel+1) - 1

var typeKinds = [numTypes]uint32{1 << BoxCar, 1 << TankCar, 1 << ContainerCar, 1 << RefrigeratorCar, 1 << AutoCarrier,
	plainKinds &^ (1<<MailBaggage - 1)}

// markKinds sets dst[base+k] for every kind k of the set m and returns
// their number.
func markKinds(m uint32, dst []uint8, base int) int {
	n := 0
	for ; m != 0; m &= m - 1 {
		dst[base+bits.TrailingZeros32(m)] = 1
		n++
	}
	return n
}

// writeKinds writes the kind set m (kinds below 24) into the 24 bytes at
// dst[base:]: 1 for a kind of the set, 0 for another, a byte of m at a time
// (spreadBits); it returns the set's size.
func writeKinds(m uint32, dst []uint8, base int) int {
	d := (*[NumKinds]uint8)(dst[base:])
	binary.LittleEndian.PutUint64(d[0:], spreadBits[uint8(m)])
	binary.LittleEndian.PutUint64(d[8:], spreadBits[uint8(m>>8)])
	binary.LittleEndian.PutUint64(d[16:], spreadBits[uint8(m>>16)])
	return bits.OnesCount32(m)
}

// writeCars writes the plain-car set m (bits 0..Diesel) into the addKinds
// bytes of train t's ActAdd actions: 1 for a car of the set, 0 for another
// and for the Caboose; it returns the set's size.
func writeCars(m uint32, dst []uint8, t int) int {
	d := (*[addKinds]uint8)(dst[ActAdd+t*addKinds:])
	binary.LittleEndian.PutUint64(d[0:], spreadBits[uint8(m)])
	binary.LittleEndian.PutUint32(d[8:], uint32(spreadBits[uint8(m>>8)&(plainKinds>>8)]))
	return bits.OnesCount32(m)
}

// firstCarMask marks the legal first cars of own train t (no cars yet);
// held is heldKinds(h).
func firstCarMask(h *[NumKinds]uint8, held uint32, t int, dst []uint8) int {
	n := writeCars(held&plainKinds, dst, t)
	if h[Wild] > 0 {
		// wildFollows with the Wild removed: another Wild, a Caboose or
		// a car of the type.
		follows := h[Wild] > 1 || h[Caboose] > 0
		for ty := 0; ty < numTypes; ty++ {
			if follows || held&typeKinds[ty] != 0 {
				dst[ActWild+t*wildRoles+ty] = 1
				n++
			}
		}
	}
	return n
}

// extendMask marks the legal cars for own train t that has cars; held is
// heldKinds(h).
func extendMask(h *[NumKinds]uint8, held uint32, tr *train, t int, dst []uint8) int {
	if tr.n >= MaxCars || tr.cars[tr.n-1] == Caboose+1 {
		return 0
	}
	open := tr.cars[tr.n-1] == carWildOpen
	sec := secType(tr)
	cars := held & plainKinds
	if !open {
		if sec < 0 {
			cars = 0
		} else {
			cars &= typeKinds[sec]
		}
	}
	n := writeCars(cars, dst, t)
	if h[Caboose] > 0 {
		dst[ActAdd+t*addKinds+11] = 1
		n++
	}
	if h[Wild] > 0 {
		if tr.n == 1 {
			dst[ActWild+t*wildRoles+sec] = 1
		} else {
			dst[ActWild+t*wildRoles+wildOpen] = 1
		}
		n++
	}
	return n
}

// meldMask marks the legal actions of the meld phase. The hand's kinds
// are gathered once (heldKinds) and every per-kind test reads the set
// (TestLegalMaskMatchesReference checks it against the former loops).
func (s *State) meldMask(dst []uint8) int {
	p := &s.pl[s.cur]
	h := &p.hand
	held := heldKinds(h)
	if s.pendT >= 0 {
		t := int(s.pendT)
		tr := &p.trains[t]
		if tr.n == 0 {
			return firstCarMask(h, held, t, dst)
		}
		return extendMask(h, held, tr, t, dst) // a Wild first: its second car
	}
	reduce, n := 0, 0
	free := false
	for t := 0; t < MaxTrains; t++ {
		tr := &p.trains[t]
		if tr.loco < 0 {
			free = true
			continue
		}
		if tr.n == 0 {
			reduce += firstCarMask(h, held, t, dst)
		} else {
			reduce += extendMask(h, held, tr, t, dst)
		}
		if !s.swapped {
			n += writeKinds(held&^(1<<uint(tr.loco)), dst, ActSwap+t*NumKinds)
		}
	}
	if free {
		// canStart of the hand less one card of kind k: a plain car, two
		// Wilds, or a Wild and a Caboose left.
		for m := held; m != 0; m &= m - 1 {
			k := bits.TrailingZeros32(m)
			left := held
			if h[k] == 1 {
				left &^= 1 << k
			}
			wilds := h[Wild]
			if k == Wild {
				wilds--
			}
			if left&plainKinds != 0 || wilds >= 2 || (wilds == 1 && left&(1<<Caboose) != 0) {
				dst[ActStart+k] = 1
				reduce++
			}
		}
	}
	reduce += markKinds(held>>LightCrane&(1<<numWayKinds-1), dst, ActWay)
	n += reduce
	switch hn := p.handN; {
	case hn == 0:
		dst[ActEndMeld] = 1
		n++
	case hn <= 6:
		n += writeKinds(held, dst, ActDiscard)
		if h[Turntable] > 0 {
			dst[ActTurntable] = 1
			n++
		}
		if !s.firstRound() {
			n += s.disasterMask(dst)
		}
	default:
		if reduce == 0 {
			dst[ActStuck] = 1
			n++
		}
	}
	return n
}

// targetOK reports whether disaster d (0-4) may be played by player a on
// player q: not against an immune player, not on oneself with the Way Car
// in play.
func (s *State) targetOK(a, q, d int) (ok, protected bool) {
	tp := &s.pl[q]
	if tp.perm&(1<<d) != 0 {
		return false, false
	}
	protected = tp.way[d] > 0
	if q == a && protected {
		return false, false
	}
	return true, protected
}

// hitOK reports whether the end car of tr may be broken or stolen.
func hitOK(tr *train) bool { return tr.n > 0 && tr.cars[tr.n-1] != Caboose+1 }

func (s *State) disasterMask(dst []uint8) int {
	a := int(s.cur)
	p := &s.pl[a]
	n := 0
	for h, kind := range hitKinds {
		if p.hand[kind] == 0 || (kind == StealCar && p.handN > 5) {
			continue
		}
		d := kind - BrokenCar
		for r := 0; r < s.n; r++ {
			q := s.seat(a, r)
			ok, prot := s.targetOK(a, q, d)
			if !ok {
				continue
			}
			for t := 0; t < MaxTrains; t++ {
				tr := &s.pl[q].trains[t]
				if tr.loco < 0 || !(prot || kind == Wreck || hitOK(tr)) {
					continue
				}
				dst[ActHit+h*36+r*6+t] = 1
				n++
			}
		}
	}
	if p.hand[Derailment] > 0 {
		for r := 0; r < s.n; r++ {
			if ok, _ := s.targetOK(a, s.seat(a, r), Derailment-BrokenCar); ok {
				dst[ActDerail+r] = 1
				n++
			}
		}
	}
	if p.hand[SwitchEngines] > 0 {
		for r := 0; r < s.n; r++ {
			q := s.seat(a, r)
			if ok, _ := s.targetOK(a, q, SwitchEngines-BrokenCar); !ok {
				continue
			}
			for t := 0; t < MaxTrains; t++ {
				if s.pl[q].trains[t].loco < 0 {
					continue
				}
				for u := 0; u < MaxTrains; u++ {
					if p.trains[u].loco < 0 || (r == 0 && u == t) {
						continue
					}
					dst[ActSwitch+r*36+t*6+u] = 1
					n++
				}
			}
		}
	}
	return n
}

// Apply plays a legal action for the current player; rewards receive each
// player's score change when a hand is scored.
func (s *State) Apply(a int, rewards []float64) {
	p := &s.pl[s.cur]
	switch {
	case a == ActDraw:
		s.phase = PhaseMeld
		for i := 0; i < 2; i++ {
			if !s.drawTo(p) {
				s.endHand(-1, rewards)
				return
			}
		}
	case a == ActTake:
		s.discN--
		k := s.disc[s.discN]
		p.hand[k]++
		p.handN++
		p.known[k]++
		s.phase = PhaseMeld
	case a < ActAdd:
		k := a - ActStart
		s.faceDown(p, k)
		for t := range p.trains {
			if p.trains[t].loco < 0 {
				p.trains[t] = train{loco: int8(k), flags: flagNew}
				s.pendT = int8(t)
				break
			}
		}
	case a < ActWild:
		t, c := (a-ActAdd)/addKinds, addKind((a-ActAdd)%addKinds)
		s.faceUp(p, c)
		tr := &p.trains[t]
		if tr.n > 0 && tr.cars[tr.n-1] == carWildOpen {
			sec := secType(tr)
			if c == Caboose || typeOf(c) == sec {
				tr.cars[tr.n-1] = uint8(carWildAs + sec)
			} else {
				tr.cars[tr.n-1] = carWildLink
				if tr.flags&flagWildNew != 0 {
					s.trans = true
				}
			}
			tr.flags &^= flagWildNew
		}
		tr.cars[tr.n] = uint8(c + 1)
		tr.n++
		s.pendT = -1
	case a < ActSwap:
		t, w := (a-ActWild)/wildRoles, (a-ActWild)%wildRoles
		s.faceUp(p, Wild)
		tr := &p.trains[t]
		s.pendT = -1
		if w == wildOpen {
			if tr.cars[tr.n-1] == carWildOpen {
				tr.cars[tr.n-1] = uint8(carWildAs + secType(tr))
			}
			tr.cars[tr.n] = carWildOpen
			tr.flags |= flagWildNew
		} else {
			tr.cars[tr.n] = uint8(carWildAs + w)
			if tr.n == 0 {
				s.pendT = int8(t)
			}
		}
		tr.n++
	case a < ActWay:
		t, k := (a-ActSwap)/NumKinds, (a-ActSwap)%NumKinds
		s.faceDown(p, k)
		tr := &p.trains[t]
		p.hand[tr.loco]++
		p.handN++
		tr.loco = int8(k)
		s.swapped = true
	case a < ActHit:
		w := a - ActWay
		s.faceUp(p, LightCrane+w)
		p.way[w]++
	case a < ActDerail:
		h, r, t := (a-ActHit)/36, (a-ActHit)%36/6, (a-ActHit)%6
		s.disaster(hitKinds[h]-BrokenCar, r, t, -1, rewards)
	case a < ActSwitch:
		s.disaster(Derailment-BrokenCar, a-ActDerail, -1, -1, rewards)
	case a < ActTurntable:
		x := a - ActSwitch
		s.disaster(SwitchEngines-BrokenCar, x/36, x%36/6, x%6, rewards)
	case a == ActTurntable:
		s.faceUp(p, Turntable)
		s.slot[Turntable]++
		s.top = Turntable
		s.tt++
		s.endTurn(true, rewards)
	case a == ActEndMeld:
		s.endTurn(false, rewards)
	case a < ActBlock:
		k := a - ActDiscard
		s.faceUp(p, k)
		s.disc[s.discN] = uint8(k)
		s.discN++
		s.endTurn(false, rewards)
	case a == ActBlock:
		q := &s.pl[s.pend.on]
		d := int(s.pend.kind)
		s.faceUp(q, LightCrane+d)
		q.way[d]++
		q.perm |= 1 << d
		s.pend.kind = -1
		s.phase = PhaseMeld
		s.endTurn(false, rewards)
	case a == ActLet:
		s.effect(int(s.pend.kind), int(s.pend.on), int(s.pend.train), int(s.pend.own))
		s.pend.kind = -1
		s.phase = PhaseMeld
		s.endTurn(false, rewards)
	case a == ActStuck:
		m := int(p.handN)
		for k := range p.hand {
			s.aside[k] += p.hand[k]
			p.hand[k], p.known[k] = 0, 0
		}
		s.asN += m
		p.handN = 0
		for i := 0; i < m; i++ {
			if !s.drawTo(p) {
				s.endHand(-1, rewards)
				return
			}
		}
	}
}

// faceUp removes a card of kind k from p's hand, seen by everyone.
func (s *State) faceUp(p *player, k int) {
	p.hand[k]--
	p.handN--
	if p.known[k] > 0 {
		p.known[k]--
	}
}

// faceDown removes a card of kind k from p's hand face down: any known
// card might have been it (A26).
func (s *State) faceDown(p *player, k int) {
	p.hand[k]--
	p.handN--
	for i := range p.known {
		if p.known[i] > 0 {
			p.known[i]--
		}
	}
}

// disaster plays disaster d (0-4) from the current player's hand on the
// player r seats on, train t (and own train u for Switch Engines).
func (s *State) disaster(d, r, t, u int, rewards []float64) {
	a := int(s.cur)
	s.faceUp(&s.pl[a], BrokenCar+d)
	s.slot[BrokenCar+d]++
	s.top = int8(BrokenCar + d)
	q := s.seat(a, r)
	tp := &s.pl[q]
	switch {
	case tp.way[d] > 0:
		tp.way[d]--
		s.disc[s.discN] = uint8(LightCrane + d)
		s.discN++
	case q != a && s.asks(q, d):
		s.pend = pending{kind: int8(d), by: int8(a), on: int8(q), train: int8(t), own: int8(u)}
		s.phase = PhaseBlock
		return
	default:
		s.effect(d, q, t, u)
	}
	s.endTurn(false, rewards)
}

// asks reports whether player q, attacked by disaster d (0-4) of another
// player and without its Way Car in play, is asked to block or let it
// happen. express-v1 asks exactly when q holds the Way Car (which shows
// every player who holds it). express-v2 decides on the public table only
// (A29): it asks whenever q might hold one, see mightHold.
func (s *State) asks(q, d int) bool {
	if s.cfg.v2 {
		return s.mightHold(q, d)
	}
	return s.pl[q].hand[LightCrane+d] > 0
}

// mightHold reports whether the public table leaves it possible that
// player q holds a Way Car of kind LightCrane+w: q's hand is not empty and
// not every copy of it is seen elsewhere (in play before anyone, in the
// discard pile, set aside, or known to be in another player's hand). It
// reads nothing hidden, so every player would answer the same.
func (s *State) mightHold(q, w int) bool {
	if s.pl[q].handN == 0 {
		return false
	}
	k := LightCrane + w
	seen := int(s.aside[k])
	for i := 0; i < s.n; i++ {
		seen += int(s.pl[i].way[w])
		if i != q {
			seen += int(s.pl[i].known[k])
		}
	}
	for _, c := range s.disc[:s.discN] {
		if int(c) == k {
			seen++
		}
	}
	return seen < deckCount(k, s.n)
}

// cardOf returns the kind of a car code.
func cardOf(c uint8) int {
	if c >= carWildAs {
		return Wild
	}
	return int(c) - 1
}

// popCar removes the end car of tr and returns its kind; a transition Wild
// left at the end becomes undeclared again.
func popCar(tr *train) int {
	tr.n--
	k := cardOf(tr.cars[tr.n])
	tr.cars[tr.n] = 0
	if tr.n > 0 && tr.cars[tr.n-1] == carWildLink {
		tr.cars[tr.n-1] = carWildOpen
	}
	tr.flags &^= flagWildNew
	return k
}

// effect applies disaster d of the current player on player q.
func (s *State) effect(d, q, t, u int) {
	tp := &s.pl[q]
	switch BrokenCar + d {
	case BrokenCar:
		s.disc[s.discN] = uint8(popCar(&tp.trains[t]))
		s.discN++
	case StealCar:
		k := popCar(&tp.trains[t])
		a := &s.pl[s.cur]
		a.hand[k]++
		a.handN++
		a.known[k]++
	case Wreck:
		tr := &tp.trains[t]
		for i := 0; i < int(tr.n); i++ {
			s.disc[s.discN] = uint8(cardOf(tr.cars[i]))
			s.discN++
		}
		s.disc[s.discN] = uint8(tr.loco)
		s.discN++
		*tr = train{loco: -1}
	case SwitchEngines:
		x, y := &tp.trains[t], &s.pl[s.cur].trains[u]
		x.loco, y.loco = y.loco, x.loco
	case Derailment:
		tp.derail++
	}
}

// drawTo draws one card into p's hand, rebuilding the draw pile from the
// discard pile when it is empty; false when no card can be drawn (the hand
// then ends, A19).
func (s *State) drawTo(p *player) bool {
	if s.deckN == 0 && !s.rebuild() {
		return false
	}
	s.deckN--
	p.hand[s.deck[s.deckN]]++
	p.handN++
	return true
}

// rebuild turns the discard pile but its newest 1 + (unplayed Turntables)
// cards into a shuffled draw pile (seed).
func (s *State) rebuild() bool {
	keep := 1 + deckCount(Turntable, s.n) - s.tt
	m := s.discN - keep
	if s.resh >= s.cfg.reshuffles || m <= 0 {
		return false
	}
	copy(s.deck[s.deckN:], s.disc[:m])
	s.deckN += m
	copy(s.disc[:], s.disc[m:s.discN])
	s.discN = keep
	s.shuffle(s.deck[:s.deckN])
	s.resh++
	return true
}

// returnAside shuffles the set-aside cards back into the draw pile.
func (s *State) returnAside() {
	if s.asN == 0 {
		return
	}
	for k := range s.aside {
		for ; s.aside[k] > 0; s.aside[k]-- {
			s.deck[s.deckN] = uint8(k)
			s.deckN++
		}
	}
	s.asN = 0
	s.shuffle(s.deck[:s.deckN])
}

// canGoOut reports whether p's trains have the going-out shape: one of 5+
// cars, another of 4+, every other of 3+.
func canGoOut(p *player) bool {
	m1, m2, cnt := 0, 0, 0
	for t := range p.trains {
		tr := &p.trains[t]
		if tr.loco < 0 {
			continue
		}
		n := int(tr.n)
		if n < 3 {
			return false
		}
		cnt++
		if n > m1 {
			m1, m2 = n, m1
		} else if n > m2 {
			m2 = n
		}
	}
	return cnt >= 2 && m1 >= 5 && m2 >= 4
}

// endTurn ends the current player's turn: going out, the round's end, the
// Turntable's extra turn, skipped turns, the next player.
func (s *State) endTurn(turntable bool, rewards []float64) {
	c := int(s.cur)
	p := &s.pl[c]
	wasFirst := s.firstRound()
	if p.handN == 0 && !wasFirst && !s.trans && canGoOut(p) {
		s.turns++
		s.endHand(c, rewards)
		return
	}
	p.played = true
	for t := range p.trains {
		p.trains[t].flags = 0
	}
	s.swapped, s.trans, s.pendT = false, false, -1
	s.phase = PhaseDraw
	s.passTurn(wasFirst)
	if turntable {
		s.dir = -s.dir
		s.returnAside()
		return
	}
	next := c
	for {
		next = (next + int(s.dir) + s.n) % s.n
		q := &s.pl[next]
		if q.derail == 0 {
			break
		}
		q.derail--
		q.played = true
		s.passTurn(false)
	}
	s.cur = int8(next)
}

// passTurn counts a completed (or skipped) turn; set-aside cards go back
// at the end of the first round and of every round.
func (s *State) passTurn(wasFirst bool) {
	s.hturns++
	s.turns++
	if (wasFirst && !s.firstRound()) || s.hturns%s.n == 0 {
		s.returnAside()
	}
}

// handDelta returns player i's score for the hand as it stands (no bonus).
func (s *State) handDelta(i int) int {
	p := &s.pl[i]
	d := 0
	for t := range p.trains {
		if p.trains[t].loco >= 0 {
			d += trainScore(&p.trains[t], s.cfg.progressive, s.cfg.wildAny)
		}
	}
	for w := range p.way {
		d += 2 * int(p.way[w])
	}
	for k := range p.hand {
		d -= kinds[k].Value * int(p.hand[k])
	}
	return d
}

// GoOutBonus is the going-out score: 10, 5 in a 4-player game (notes).
func GoOutBonus(players int) int {
	if players == 4 {
		return 5
	}
	return 10
}

// scoreHand adds every player's hand score to the totals and rewards; out
// is the player who went out (-1 none).
func (s *State) scoreHand(out int, rewards []float64) {
	var d [MaxPlayers]float64
	sum := 0.0
	for i := 0; i < s.n; i++ {
		v := s.handDelta(i)
		if i == out {
			v += GoOutBonus(s.n)
		}
		s.pl[i].score += int32(v)
		d[i] = float64(v)
		sum += d[i]
	}
	for i := 0; i < s.n; i++ {
		if s.cfg.zeroSum {
			rewards[i] += d[i] - (sum-d[i])/float64(s.n-1)
		} else {
			rewards[i] += d[i]
		}
	}
}

// endHand scores the hand and deals the next one, or ends the game.
func (s *State) endHand(out int, rewards []float64) {
	s.scoreHand(out, rewards)
	if out >= 0 {
		s.wentOut++
	}
	s.hand++
	over := s.cfg.handOnly || s.hand >= s.cfg.maxHands
	for i := 0; i < s.n; i++ {
		if int(s.pl[i].score) >= s.cfg.target {
			over = true
		}
	}
	if over {
		s.phase = PhaseOver
		return
	}
	s.deal()
}

// Truncate scores the hand in progress as it stands, with no going-out
// bonus (the seed's conductor ending a hand), so returns equal scores.
func (s *State) Truncate(rewards []float64) {
	if s.phase != PhaseOver && !s.truncated {
		s.scoreHand(-1, rewards)
	}
	s.truncated = true
}

// EarnedReturns implements env.ReturnsEarner: an episode dealt at turn 0
// has paid each player its total score (every hand's score as it was
// added, Truncate's included, which the state records), or with zero_sum
// its total minus the mean of the others' totals. truncated is not needed:
// a truncated state has scored its last hand into the totals.
func (s *State) EarnedReturns(truncated bool, dst []float64) bool {
	sum := 0.0
	for i := 0; i < s.n; i++ {
		sum += float64(s.pl[i].score)
	}
	for i := 0; i < s.n; i++ {
		v := float64(s.pl[i].score)
		if s.cfg.zeroSum {
			v -= (sum - v) / float64(s.n-1)
		}
		dst[i] = v
	}
	return true
}

// trainScore scores a train: freight sections by value per car (or the
// progressive reading), passenger sections 1 per car with the doublings
// (wildAny: a Wild as the passenger car that scores best, A30).
func trainScore(tr *train, progressive, wildAny bool) int {
	total := 0
	i := 0
	for i < int(tr.n) {
		// one section: cars i..j-1, ended by a transition Wild or the end
		j := i
		ty := -1
		for j < int(tr.n) && tr.cars[j] != carWildLink {
			c := int(tr.cars[j])
			switch {
			case c >= carWildAs && c < carWildOpen:
				if ty < 0 {
					ty = c - carWildAs
				}
			case c >= 1 && c <= Diesel+1:
				if ty < 0 {
					ty = typeOf(c - 1)
				}
			}
			j++
		}
		m := j - i
		if ty == typePassenger {
			total += passengerScore(tr.cars[i:j], wildAny)
		} else if ty >= 0 {
			v := kinds[ty].Value
			if progressive {
				for x := 1; x <= m; x++ {
					total += v * max(1, x-2)
				}
			} else {
				total += v * m
			}
		}
		i = j + 1 // skip the transition, which scores nothing (A21)
	}
	return total
}

// passengerScore scores a passenger section. express-v1 (and wildAny
// false) scores its Wilds as passenger cars of no kind (passengerPlain);
// with wildAny each Wild stands for the Mail/Baggage, Coach, Dome,
// Sleeper, Observation or Diesel car that gives the section its best
// score (A30; the deck holds two Wilds, so at most 36 readings are tried).
func passengerScore(cars []uint8, wildAny bool) int {
	if !wildAny {
		return passengerPlain(cars)
	}
	var at [2]int
	nw := 0
	for i, c := range cars {
		if c >= carWildAs && c != carWildLink && nw < len(at) {
			at[nw] = i
			nw++
		}
	}
	if nw == 0 {
		return passengerPlain(cars)
	}
	var buf [MaxCars]uint8
	b := buf[:len(cars)]
	copy(b, cars)
	best := 0
	last := Diesel
	if nw < 2 {
		last = MailBaggage // the second loop runs once
	}
	for k0 := MailBaggage; k0 <= Diesel; k0++ {
		b[at[0]] = uint8(k0 + 1)
		for k1 := MailBaggage; k1 <= last; k1++ {
			if nw == 2 {
				b[at[1]] = uint8(k1 + 1)
			}
			best = max(best, passengerPlain(b))
		}
	}
	return best
}

// passengerPlain scores a passenger section: 1 per car, doubled for the
// order Mail/Baggage, Coach, Dome, Sleeper, Observation (at least two of
// them), one of each of those, a Diesel, all six Coaches. Wilds count as
// cars of no kind.
func passengerPlain(cars []uint8) int {
	var cnt [NumKinds]int
	inOrder, specific, last := true, 0, -1
	for _, c := range cars {
		k := int(c) - 1
		if k < MailBaggage || k > Diesel {
			continue
		}
		cnt[k]++
		if k == Diesel {
			continue
		}
		specific++
		if k < last {
			inOrder = false
		}
		last = k
	}
	v := len(cars)
	if inOrder && specific >= 2 {
		v *= 2
	}
	if cnt[MailBaggage] > 0 && cnt[Coach] > 0 && cnt[Dome] > 0 && cnt[Sleeper] > 0 && cnt[Observation] > 0 {
		v *= 2
	}
	if cnt[Diesel] > 0 {
		v *= 2
	}
	if cnt[Coach] == kinds[Coach].Count {
		v *= 2
	}
	return v
}

// Info fills the episode statistics; once the game is over (or truncated)
// every player's total score, outcome and rank (env.Info.RankByScore: the
// highest total wins, equal highest totals draw).
func (s *State) Info(dst *env.Info) {
	if s.phase == PhaseOver || s.truncated {
		var sc [MaxPlayers]float64
		for i := 0; i < s.n; i++ {
			sc[i] = float64(s.pl[i].score)
		}
		dst.RankByScore(sc[:s.n])
	}
	dst.Stats = append(dst.Stats,
		env.Stat{Name: "hands", Value: float64(s.hand)},
		env.Stat{Name: "turns", Value: float64(s.turns)},
		env.Stat{Name: "went_out", Value: float64(s.wentOut)},
	)
}

// CurrentPlayer returns the player to act, or env.Terminal.
func (s *State) CurrentPlayer() int {
	if s.phase == PhaseOver {
		return -1
	}
	if s.phase == PhaseBlock {
		return int(s.pend.on)
	}
	return int(s.cur)
}

// Terminal reports whether the game has ended by its rules.
func (s *State) Terminal() bool { return s.phase == PhaseOver }

// Turn returns the number of turns completed in the episode (skipped turns
// and Turntable extra turns included): the max_turns clock.
func (s *State) Turn() int { return s.turns }
