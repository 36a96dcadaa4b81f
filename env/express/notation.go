package express

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Position notation: a complete text form of a position, one record a line,
// each a head word and key=value fields; card lists are comma-separated
// two-letter kind codes (kinds[k].Code). State.Position writes the lines in
// this order; ParsePosition reads them in any order, ignores blank lines
// and text after '#', and fills what is left out with the defaults noted.
//
//	express hand=0 turns=5 hturns=5 cur=1 dir=cw phase=meld tt=0 resh=0 swapped=0 trans=0 pendt=- wentout=0 truncated=0
//	pending kind=-                            (or kind=BR by=0 on=2 train=1 own=-)
//	deck cards=BX,AU,...                      (bottom first: the next card drawn is the last; "..." first
//	                                           puts every card not listed elsewhere at the bottom, in kind
//	                                           order; the discard pile may have it instead)
//	discard cards=...                         (oldest first: the top discard is the last)
//	slot top=TT cards=BR,TT                   (the disaster slot; top - for none)
//	aside cards=                              (set-aside stuck hands)
//	rng state=<hex>                           (the PCG's MarshalBinary; default the generator of seed 0)
//	p0 score=0 derail=0 played=1 way=LC perm= known=BX hand=BX,BX,WD
//	p0.t2 loco=AU flags=0 cars=BX,BX,WD?     (train slot 2 of player 0)
//
// Car tokens: a kind code (a freight or passenger car, CB for a Caboose);
// WD=<type> a declared or matching Wild (BX TK CN RF AU, PS for passenger),
// WD? an undeclared Wild at the end of a train, WD> a transition Wild.
// Player lines left out are players with nothing; every player line gives
// its hand (the hand size follows).

// kindCode returns the kind of a two-letter code, or -1.
func kindCode(c string) int {
	for k := range kinds {
		if kinds[k].Code == c {
			return k
		}
	}
	return -1
}

func countsText(c *[NumKinds]uint8) string {
	var parts []string
	for k := range c {
		for i := 0; i < int(c[k]); i++ {
			parts = append(parts, kinds[k].Code)
		}
	}
	return strings.Join(parts, ",")
}

func listText(a []uint8) string {
	parts := make([]string, len(a))
	for i, k := range a {
		parts[i] = kinds[k].Code
	}
	return strings.Join(parts, ",")
}

func carText(c uint8) string {
	switch {
	case c == carWildOpen:
		return "WD?"
	case c == carWildLink:
		return "WD>"
	case c >= carWildAs:
		return "WD=" + typeCodes[c-carWildAs]
	}
	return kinds[c-1].Code
}

func carsText(tr *train) string {
	parts := make([]string, tr.n)
	for i := range parts {
		parts[i] = carText(tr.cars[i])
	}
	return strings.Join(parts, ",")
}

func bit(b bool) int {
	if b {
		return 1
	}
	return 0
}

func optInt(v int) string {
	if v < 0 {
		return "-"
	}
	return strconv.Itoa(v)
}

// Position returns the complete text form of the position (see the
// notation above), hidden information and the generator included.
func (s *State) Position() string {
	var b strings.Builder
	dir := "cw"
	if s.dir < 0 {
		dir = "ccw"
	}
	fmt.Fprintf(&b, "express hand=%d turns=%d hturns=%d cur=%d dir=%s phase=%s tt=%d resh=%d swapped=%d trans=%d pendt=%s wentout=%d truncated=%d\n",
		s.hand, s.turns, s.hturns, s.cur, dir, phaseNames[s.phase], s.tt, s.resh, bit(s.swapped), bit(s.trans),
		optInt(int(s.pendT)), s.wentOut, bit(s.truncated))
	if s.pend.kind < 0 {
		b.WriteString("pending kind=-\n")
	} else {
		fmt.Fprintf(&b, "pending kind=%s by=%d on=%d train=%s own=%s\n", kinds[BrokenCar+int(s.pend.kind)].Code,
			s.pend.by, s.pend.on, optInt(int(s.pend.train)), optInt(int(s.pend.own)))
	}
	fmt.Fprintf(&b, "deck cards=%s\n", listText(s.deck[:s.deckN]))
	fmt.Fprintf(&b, "discard cards=%s\n", listText(s.disc[:s.discN]))
	top := "-"
	if s.top >= 0 {
		top = kinds[s.top].Code
	}
	fmt.Fprintf(&b, "slot top=%s cards=%s\n", top, countsText(&s.slot))
	fmt.Fprintf(&b, "aside cards=%s\n", countsText(&s.aside))
	rb, _ := s.rng.MarshalBinary()
	fmt.Fprintf(&b, "rng state=%s\n", hex.EncodeToString(rb))
	for i := 0; i < s.n; i++ {
		p := &s.pl[i]
		var way, perm []string
		for w := 0; w < numWayKinds; w++ {
			for c := 0; c < int(p.way[w]); c++ {
				way = append(way, kinds[LightCrane+w].Code)
			}
			if p.perm&(1<<w) != 0 {
				perm = append(perm, kinds[LightCrane+w].Code)
			}
		}
		fmt.Fprintf(&b, "p%d score=%d derail=%d played=%d way=%s perm=%s known=%s hand=%s\n", i, p.score, p.derail,
			bit(p.played), strings.Join(way, ","), strings.Join(perm, ","), countsText(&p.known), countsText(&p.hand))
		for t := range p.trains {
			tr := &p.trains[t]
			if tr.loco >= 0 {
				fmt.Fprintf(&b, "p%d.t%d loco=%s flags=%d cars=%s\n", i, t, kinds[tr.loco].Code, tr.flags, carsText(tr))
			}
		}
	}
	return b.String()
}

// PositionError reports a malformed or impossible position.
type PositionError struct {
	Line   int // 1-based, 0 for the position as a whole
	Reason string
}

func (e *PositionError) Error() string {
	if e.Line == 0 {
		return "express: position: " + e.Reason
	}
	return fmt.Sprintf("express: position line %d: %s", e.Line, e.Reason)
}

type fields map[string]string

// atoi reads an integer in its one canonical spelling, as Position writes
// it: an optional '-' and decimal digits without leading zeros ("0", "12",
// "-3"; never "+1", "00", "012", "-0"), at most 9 digits. Aliased
// spellings would let two records name the same player or train.
func atoi(v string) (int, bool) {
	d := strings.TrimPrefix(v, "-")
	if d == "" || len(d) > 9 || (d[0] == '0' && (len(d) > 1 || len(d) < len(v))) {
		return 0, false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(v)
	return n, err == nil
}

func parseInt(f fields, key string, def, lo, hi int) (int, error) {
	v, ok := f[key]
	if !ok || v == "-" && lo < 0 {
		if ok {
			return -1, nil
		}
		return def, nil
	}
	n, ok := atoi(v)
	if !ok || n < lo || n > hi {
		return 0, fmt.Errorf("%s=%q: want an integer in [%d, %d]", key, v, lo, hi)
	}
	return n, nil
}

func parseCards(v string) ([]uint8, bool, error) {
	if v == "" {
		return nil, false, nil
	}
	var out []uint8
	rest := false
	for i, c := range strings.Split(v, ",") {
		if c == "..." && i == 0 {
			rest = true
			continue
		}
		k := kindCode(c)
		if k < 0 {
			return nil, false, fmt.Errorf("unknown card %q", c)
		}
		out = append(out, uint8(k))
	}
	return out, rest, nil
}

func parseCar(c string) (uint8, error) {
	switch c {
	case "WD?":
		return carWildOpen, nil
	case "WD>":
		return carWildLink, nil
	case "WD":
		return 0, fmt.Errorf("a Wild in a train is WD=<type>, WD? or WD>")
	}
	if strings.HasPrefix(c, "WD=") {
		for t, tc := range typeCodes {
			if tc == c[3:] {
				return uint8(carWildAs + t), nil
			}
		}
		return 0, fmt.Errorf("unknown Wild type %q", c[3:])
	}
	k := kindCode(c)
	if k < 0 || !(isPlainCar(k) || k == Caboose) {
		return 0, fmt.Errorf("%q is not a car", c)
	}
	return uint8(k + 1), nil
}

// ParsePosition reads the notation written by State.Position under cfg
// (the number of players and the rules' parameters). It returns a
// *PositionError for malformed text or an impossible position: cards
// beyond the deck's counts or missing, a bad train, an index out of range.
func ParsePosition(text string, cfg *Config) (*State, error) {
	c := cfg.c
	s := &State{cfg: c, n: c.players, top: -1, pendT: -1, dir: 1}
	s.pend = pending{kind: -1, train: -1, own: -1}
	for i := range s.pl {
		s.pl[i].reset()
	}
	r := &positionReader{s: s}
	seen := map[string]bool{}
	for ln, line := range strings.Split(text, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		parts := strings.Fields(line)
		if len(parts) == 0 {
			continue
		}
		if err := r.record(parts, seen); err != nil {
			return nil, &PositionError{ln + 1, err.Error()}
		}
	}
	if !r.haveRNG {
		s.rng = *newRNG(0)
	}
	if err := r.placePiles(); err != nil {
		return nil, err
	}
	if err := s.validate(); err != nil {
		return nil, err
	}
	return s, nil
}

// positionReader is what ParsePosition gathers while it reads the records:
// the state, the cards counted so far by kind, where "..." stood, the deck
// and discard pile as written and whether the generator was given.
type positionReader struct {
	s                    *State
	counts               [NumKinds]int
	restIn               string
	deckCards, discCards []uint8
	haveRNG              bool
}

// add counts m cards of kind k.
func (r *positionReader) add(k uint8, m int) { r.counts[k] += m }

// record reads one record (its head, then key=value fields) through
// recordReaders, or as a player's or a train's record (p<i>, p<i>.t<j>).
func (r *positionReader) record(parts []string, seen map[string]bool) error {
	head := parts[0]
	if seen[head] {
		return fmt.Errorf("%q given twice", head)
	}
	seen[head] = true
	f := fields{}
	for _, kv := range parts[1:] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("field %q is not key=value", kv)
		}
		if _, dup := f[k]; dup {
			return fmt.Errorf("field %q given twice", k)
		}
		f[k] = v
	}
	if read, ok := recordReaders[head]; ok {
		return read(r, head, f)
	}
	if head[0] == 'p' {
		return r.readPlayer(head, f)
	}
	return fmt.Errorf("unknown record %q", head)
}

// recordReaders reads each record of the notation but the players' and
// trains', record by record.
var recordReaders = map[string]func(r *positionReader, head string, f fields) error{
	"express": (*positionReader).readExpress,
	"pending": (*positionReader).readPending,
	"deck":    (*positionReader).readPile,
	"discard": (*positionReader).readPile,
	"aside":   (*positionReader).readPile,
	"slot":    (*positionReader).readPile,
	"rng":     (*positionReader).readRNG,
}

// intFields reads integer fields with a sticky error: after the first
// error every get returns 0.
type intFields struct {
	f   fields
	err error
}

// get returns field key in [lo, hi] (def when absent).
func (g *intFields) get(key string, def, lo, hi int) int {
	if g.err != nil {
		return 0
	}
	var v int
	v, g.err = parseInt(g.f, key, def, lo, hi)
	return v
}

func (r *positionReader) readExpress(_ string, f fields) error {
	s := r.s
	g := intFields{f: f}
	s.hand = g.get("hand", 0, 0, 1000)
	s.turns = g.get("turns", 0, 0, 1<<30)
	s.hturns = g.get("hturns", 0, 0, 1<<30)
	s.cur = int8(g.get("cur", 0, 0, s.n-1))
	s.tt = g.get("tt", 0, 0, deckCount(Turntable, s.n))
	s.resh = g.get("resh", 0, 0, maxReshuffles)
	s.swapped = g.get("swapped", 0, 0, 1) == 1
	s.trans = g.get("trans", 0, 0, 1) == 1
	s.pendT = int8(g.get("pendt", -1, -1, MaxTrains-1))
	s.wentOut = g.get("wentout", 0, 0, 1000)
	s.truncated = g.get("truncated", 0, 0, 1) == 1
	if g.err != nil {
		return g.err
	}
	switch f["dir"] {
	case "", "cw":
	case "ccw":
		s.dir = -1
	default:
		return fmt.Errorf("dir=%q: want cw or ccw", f["dir"])
	}
	ph := f["phase"]
	if ph == "" {
		ph = "draw"
	}
	found := false
	for i, n := range phaseNames {
		if n == ph {
			s.phase, found = int8(i), true
		}
	}
	if !found {
		return fmt.Errorf("phase=%q: want one of %v", ph, phaseNames)
	}
	return nil
}

func (r *positionReader) readPending(_ string, f fields) error {
	s := r.s
	if f["kind"] == "-" || f["kind"] == "" {
		return nil
	}
	k := kindCode(f["kind"])
	if k < BrokenCar || k > Wreck {
		return fmt.Errorf("pending kind=%q is not a Disaster", f["kind"])
	}
	g := intFields{f: f}
	s.pend.kind = int8(k - BrokenCar)
	s.pend.by = int8(g.get("by", 0, 0, s.n-1))
	s.pend.on = int8(g.get("on", 0, 0, s.n-1))
	s.pend.train = int8(g.get("train", -1, -1, MaxTrains-1))
	s.pend.own = int8(g.get("own", -1, -1, MaxTrains-1))
	return g.err
}

// readPile reads the deck, the discard pile, the cards set aside or the
// disaster slot.
func (r *positionReader) readPile(head string, f fields) error {
	s := r.s
	cards, rest, err := parseCards(f["cards"])
	if err != nil {
		return err
	}
	if rest && head != "deck" && head != "discard" {
		return fmt.Errorf("\"...\" only in the deck or the discard pile")
	}
	if rest && r.restIn != "" {
		return fmt.Errorf("\"...\" twice")
	}
	if rest {
		r.restIn = head
	}
	for _, k := range cards {
		r.add(k, 1)
	}
	switch head {
	case "deck":
		r.deckCards = cards
	case "discard":
		r.discCards = cards
	case "aside":
		for _, k := range cards {
			s.aside[k]++
		}
		s.asN = len(cards)
	case "slot":
		for _, k := range cards {
			if k < BrokenCar || (k > Wreck && k != Turntable) {
				return fmt.Errorf("%s in the disaster slot", kinds[k].Code)
			}
			s.slot[k]++
		}
		if t := f["top"]; t != "" && t != "-" {
			k := kindCode(t)
			if k < 0 || s.slot[k] == 0 {
				return fmt.Errorf("slot top=%q is not in the slot", t)
			}
			s.top = int8(k)
		} else if len(cards) > 0 {
			return fmt.Errorf("slot top missing")
		}
	}
	return nil
}

func (r *positionReader) readRNG(_ string, f fields) error {
	b, err := hex.DecodeString(f["state"])
	if err == nil {
		err = r.s.rng.UnmarshalBinary(b)
	}
	if err != nil {
		return fmt.Errorf("rng state: %v", err)
	}
	r.haveRNG = true
	return nil
}

// readPlayer reads a player's record (p<i>) or one of its trains'
// (p<i>.t<j>).
func (r *positionReader) readPlayer(head string, f fields) error {
	s := r.s
	ps, ts, isTrain := strings.Cut(head[1:], ".t")
	pi, ok := atoi(ps)
	if !ok || pi < 0 || pi >= s.n {
		return fmt.Errorf("unknown record %q (players are p0-p%d)", head, s.n-1)
	}
	p := &s.pl[pi]
	if isTrain {
		ti, ok := atoi(ts)
		if !ok || ti < 0 || ti >= MaxTrains {
			return fmt.Errorf("train %q: slots are t0-t%d", head, MaxTrains-1)
		}
		return r.readTrain(&p.trains[ti], f)
	}
	g := intFields{f: f}
	sc := g.get("score", 0, -30000, 30000)
	p.score = int32(sc)
	p.derail = uint8(g.get("derail", 0, 0, kinds[Derailment].Count))
	p.played = g.get("played", 0, 0, 1) == 1
	if g.err != nil {
		return g.err
	}
	for _, key := range []string{"hand", "known", "way", "perm"} {
		if err := r.readPlayerCards(p, key, f[key]); err != nil {
			return err
		}
	}
	for k := range p.known {
		if p.known[k] > p.hand[k] {
			return fmt.Errorf("known %s beyond the hand", kinds[k].Code)
		}
	}
	return nil
}

// readPlayerCards reads a player's field key (hand, known, way or perm).
func (r *positionReader) readPlayerCards(p *player, key, v string) error {
	cards, rest, err := parseCards(v)
	if err == nil && rest {
		err = fmt.Errorf("\"...\" only in the deck")
	}
	if err != nil {
		return fmt.Errorf("%s: %v", key, err)
	}
	for _, k := range cards {
		switch key {
		case "hand":
			p.hand[k]++
			p.handN++
			r.add(k, 1)
		case "known":
			p.known[k]++
		case "way", "perm":
			if k < LightCrane || k > HeavyCrane {
				return fmt.Errorf("%s: %s is not a Way Car", key, kinds[k].Code)
			}
			if key == "way" {
				p.way[k-LightCrane]++
				r.add(k, 1)
			} else {
				p.perm |= 1 << (k - LightCrane)
			}
		}
	}
	return nil
}

// readTrain reads a train's record: its locomotive, flags and cars.
func (r *positionReader) readTrain(tr *train, f fields) error {
	lk := kindCode(f["loco"])
	if lk < 0 {
		return fmt.Errorf("loco=%q is not a card", f["loco"])
	}
	tr.loco = int8(lk)
	r.add(uint8(lk), 1)
	g := intFields{f: f}
	tr.flags = uint8(g.get("flags", 0, 0, flagNew|flagWildNew))
	if g.err != nil {
		return g.err
	}
	if v := f["cars"]; v != "" {
		cars := strings.Split(v, ",")
		if len(cars) > MaxCars {
			return fmt.Errorf("%d cars: at most %d", len(cars), MaxCars)
		}
		for i, ct := range cars {
			code, err := parseCar(ct)
			if err != nil {
				return err
			}
			tr.cars[i] = code
			r.add(uint8(cardOf(code)), 1)
		}
		tr.n = uint8(len(cars))
	}
	if err := checkTrain(tr); err != "" {
		return errors.New(err)
	}
	return nil
}

// placePiles puts the cards not listed elsewhere ("...") at the bottom of
// the deck or of the discard pile, in kind order, fills both and checks
// that every card of the deck is counted once.
func (r *positionReader) placePiles() error {
	s := r.s
	var rest []uint8
	if r.restIn != "" {
		for k := 0; k < NumKinds; k++ {
			for c := r.counts[k]; c < deckCount(k, s.n); c++ {
				rest = append(rest, uint8(k))
			}
			r.counts[k] = max(r.counts[k], deckCount(k, s.n))
		}
	}
	if r.restIn == "deck" {
		r.deckCards = append(rest, r.deckCards...)
	} else {
		r.discCards = append(rest, r.discCards...)
	}
	s.deckN = copy(s.deck[:], r.deckCards)
	s.discN = copy(s.disc[:], r.discCards)
	for k := range r.counts {
		if r.counts[k] != deckCount(k, s.n) {
			return &PositionError{0, fmt.Sprintf("%d cards of %s, the deck has %d", r.counts[k], kinds[k].Code, deckCount(k, s.n))}
		}
	}
	return nil
}

// cardCounts counts every card of the position by kind, wherever it lies:
// hands, locomotives and cars, Way Cars in play, the draw and discard
// piles, the disaster slot and the set-aside cards.
func (s *State) cardCounts() [NumKinds]int {
	var c [NumKinds]int
	for i := 0; i < s.n; i++ {
		p := &s.pl[i]
		for k := range p.hand {
			c[k] += int(p.hand[k])
		}
		for w := range p.way {
			c[LightCrane+w] += int(p.way[w])
		}
		for t := range p.trains {
			tr := &p.trains[t]
			if tr.loco < 0 {
				continue
			}
			c[tr.loco]++
			for _, car := range tr.cars[:tr.n] {
				c[cardOf(car)]++
			}
		}
	}
	for _, k := range s.deck[:s.deckN] {
		c[k]++
	}
	for _, k := range s.disc[:s.discN] {
		c[k]++
	}
	for k := range c {
		c[k] += int(s.slot[k]) + int(s.aside[k])
	}
	return c
}

// checkTrain returns why a train's cars break the rules, or "".
func checkTrain(tr *train) string {
	sec := -1
	for i := 0; i < int(tr.n); i++ {
		c := tr.cars[i]
		last := i == int(tr.n)-1
		switch {
		case c == Caboose+1:
			if !last || i == 0 {
				return "a Caboose is the last car and never the first"
			}
		case c == carWildOpen:
			if !last || i < 2 {
				return "an undeclared Wild is the end car of a train of 3+ cars"
			}
		case c == carWildLink:
			if last || i < 2 {
				return "a transition Wild follows at least two cars and is followed by a car"
			}
			sec = -1
			continue
		case c >= carWildAs:
			t := int(c) - carWildAs
			if sec >= 0 && t != sec {
				return "a declared Wild must match its section"
			}
			sec = t
		default:
			t := typeOf(int(c) - 1)
			if sec >= 0 && t != sec {
				return fmt.Sprintf("%s does not match its section", kinds[c-1].Code)
			}
			sec = t
		}
	}
	return ""
}

// validate checks the cross-record invariants of a parsed position.
func (s *State) validate() error {
	bad := func(format string, a ...any) error {
		return &PositionError{0, fmt.Sprintf(format, a...)}
	}
	if s.pendT >= 0 {
		tr := &s.pl[s.cur].trains[s.pendT]
		if s.phase != PhaseMeld || tr.loco < 0 || !(tr.n == 0 || (tr.n == 1 && tr.cars[0] >= carWildAs)) {
			return bad("pendt=%d is not a train waiting for its next car", s.pendT)
		}
	}
	if (s.phase == PhaseBlock) != (s.pend.kind >= 0) {
		return bad("a pending Disaster and the block phase go together")
	}
	if s.pend.kind >= 0 {
		d := int(s.pend.kind)
		q := &s.pl[s.pend.on]
		if s.pend.by != s.cur || s.pend.on == s.pend.by || !s.asks(int(s.pend.on), d) || q.way[d] > 0 || q.perm&(1<<d) != 0 {
			return bad("the pending Disaster is not one the attacked player can block")
		}
		hasTrain := s.pend.train >= 0 && q.trains[s.pend.train].loco >= 0
		if BrokenCar+d == Derailment {
			hasTrain = s.pend.train < 0
		}
		if !hasTrain || (BrokenCar+d == SwitchEngines) != (s.pend.own >= 0) ||
			(s.pend.own >= 0 && s.pl[s.cur].trains[s.pend.own].loco < 0) {
			return bad("the pending Disaster's trains do not exist")
		}
	}
	// conservation, on the position as built: a record that overwrote
	// another would lose its cards here
	c := s.cardCounts()
	for k := range c {
		if c[k] != deckCount(k, s.n) {
			return bad("%d cards of %s in the position, the deck has %d", c[k], kinds[k].Code, deckCount(k, s.n))
		}
	}
	if int(s.slot[Turntable]) != s.tt {
		return bad("tt=%d but %d Turntables in the slot", s.tt, s.slot[Turntable])
	}
	if s.phase == PhaseOver && s.pendT >= 0 {
		return bad("a finished game has no train waiting")
	}
	return nil
}

func newRNG(seed uint64) *rand.PCG { return rand.NewPCG(seed, rngStream) }
