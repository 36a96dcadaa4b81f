package pilotsofgallaxia

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// Position notation: a complete position as space-separated key=value
// tokens, e.g.
//
//	players=4 mode=rookie_run turn=3 cur=0 phase=path
//	p0.ships=1.P3,1.H p0.dur=1.L p0.hand=f5,4.P4,d3,salvage
//	rings=0@4.P4,1@5.P4,2@ship:2.0,3@home car=1.r0a:0,1.r0b:0!
//	deck=f5,R,2.P2 mover=0 at=1.P3 budget=3 rng=...
//
// Spaces are named as on the board ("3.P4", sektor 1-6). Cards: a planet
// card by its planet's name ("4.P4"), fuel "f3".."f8", Durriken
// "d1".."d8", the Rekkoning "R", Captain's Cards "afterburner",
// "deflector", "salvage". Lists of cards are comma-separated, repeated
// cards written again; deck and cdeck list the top card first. Pieces are
// "p.k" (pilot, k: 0 and 1 the starships, 2 the Durriken). Rings are
// owner@where, the owner a pilot or "y" (yellow), where a space,
// "ship:p.k" aboard, or "home". Caravans are space:owner, "!" marking a
// BLOKK. Only a v1 position may carry occ=space:p.k (or space:-), for a
// space two pieces share whose holder is not the one the pieces alone give
// (holdOcc, occExceptions); v2 refuses two pieces on one space.
//
// ParsePosition accepts any subset of the tokens: what is missing is the
// table at setup (pieces at home, full caravan supplies, the hostage rings
// on their planets, empty hands), with the Gallaxia deck made of every
// card not placed elsewhere, top first in kind order (the Rekkoning at the
// bottom),
// the Captain's deck likewise, and the generator seeded with 0; a deck
// written with fewer cards than remain is its top, the rest below. So a rules
// test writes only what matters. Position writes every token.

// CardName returns the notation of card kind k.
func CardName(k int) string {
	switch {
	case k < KindFuel:
		return SpaceName(planetOfCard(k))
	case k < KindDurriken:
		return "f" + strconv.Itoa(Value(k))
	case k < KindRekkoning:
		return "d" + strconv.Itoa(Value(k))
	case k == KindRekkoning:
		return "R"
	case k == KindAfterburner:
		return "afterburner"
	case k == KindDeflector:
		return "deflector"
	}
	return "salvage"
}

// ParseCard returns the kind of the card named s.
func ParseCard(s string) (int, bool) {
	k, ok := cardIDs[s]
	return k, ok
}

var cardIDs = func() map[string]int {
	m := make(map[string]int, NumKinds)
	for k := 0; k < NumKinds; k++ {
		m[CardName(k)] = k
	}
	return m
}()

func cardList(kinds []uint8) string {
	if len(kinds) == 0 {
		return "-"
	}
	var b strings.Builder
	for i, k := range kinds {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(CardName(int(k)))
	}
	return b.String()
}

func countList(c *[NumKinds]uint8) string {
	var ks []uint8
	for k := 0; k < NumKinds; k++ {
		for i := 0; i < int(c[k]); i++ {
			ks = append(ks, uint8(k))
		}
	}
	return cardList(ks)
}

func pieceName(piece int) string { return fmt.Sprintf("%d.%d", piece/3, piece%3) }

func optCard(c int8) string {
	if c == 0 {
		return "-"
	}
	return CardName(int(c) - 1)
}

// Position writes the complete position (hidden information and the
// generator included).
func (s *State) Position() string {
	var t []string
	add := func(k string, v any) { t = append(t, fmt.Sprintf("%s=%v", k, v)) }
	add("players", s.cfg.players)
	add("mode", modeNames[s.cfg.mode])
	add("turn", s.turn)
	add("cur", s.cur)
	add("phase", phaseNames[s.phase])
	for p := 0; p < s.cfg.players; p++ {
		pre := "p" + strconv.Itoa(p) + "."
		add(pre+"ships", SpaceName(int(s.pos[3*p]))+","+SpaceName(int(s.pos[3*p+1])))
		add(pre+"dur", SpaceName(int(s.pos[3*p+2])))
		add(pre+"hired", b2i(s.hired[p]))
		add(pre+"deployed", b2i(s.deployed[p]))
		add(pre+"caravans", fmt.Sprintf("%d,%d", s.carLeft[p], s.blkLeft[p]))
		add(pre+"home", s.delivered[p])
		add(pre+"points", s.points[p])
		add(pre+"flags", s.flags[p])
		add(pre+"handsize", s.handN[p])
		add(pre+"hand", countList(&s.hand[p]))
	}
	var rings []string
	for r := 0; r < int(s.nRings); r++ {
		o := "y"
		if s.ringOwner[r] >= 0 {
			o = strconv.Itoa(int(s.ringOwner[r]))
		}
		switch s.ringState[r] {
		case ringOnBoard:
			rings = append(rings, o+"@"+SpaceName(int(s.ringAt[r])))
		case ringDelivered:
			rings = append(rings, o+"@home")
		default:
			for piece := range s.cargo {
				if int(s.cargo[piece]) == r+1 {
					rings = append(rings, o+"@ship:"+pieceName(piece))
				}
			}
		}
	}
	add("rings", strings.Join(rings, ","))
	var cars []string
	for sp := 0; sp < NumSpaces; sp++ {
		if s.car[sp] > 0 {
			c := SpaceName(sp) + ":" + strconv.Itoa(int(s.car[sp])-1)
			if s.blokk[sp] {
				c += "!"
			}
			cars = append(cars, c)
		}
	}
	if len(cars) == 0 {
		cars = []string{"-"}
	}
	add("car", strings.Join(cars, ","))
	deck := make([]uint8, s.deckN)
	for i := range deck {
		deck[i] = s.deck[int(s.deckN)-1-i]
	}
	add("deck", cardList(deck))
	add("disc", countList(&s.disc))
	cdeck := make([]uint8, s.cdckN)
	for i := range cdeck {
		cdeck[i] = s.cdeck[int(s.cdckN)-1-i]
	}
	add("cdeck", cardList(cdeck))
	add("moved", s.moved)
	add("bought", b2i(s.bought))
	add("mover", s.mover)
	add("at", SpaceName(int(s.at)))
	add("budget", s.budget)
	add("lastfree", SpaceName(int(s.lastFree)))
	add("raided", b2i(s.raided))
	add("endafter", b2i(s.endAfter))
	add("sellfuel", optCard(s.sellFuel+1))
	add("warpval", s.warpVal)
	raider, defender := "-", "-"
	if s.raider >= 0 {
		raider = pieceName(int(s.raider))
	}
	if s.defender >= 0 {
		defender = pieceName(int(s.defender))
	}
	add("raider", raider)
	add("defender", defender)
	add("rcard", optCard(s.rcard))
	add("dcard", optCard(s.dcard))
	add("rrand", optCard(s.rrand))
	add("drand", optCard(s.drand))
	add("dice", fmt.Sprintf("%d,%d", s.rdie, s.ddie))
	add("rwin", b2i(s.rwin))
	add("rekkend", b2i(s.rekkEnd))
	add("exp", cardList(s.exp[:s.nexp]))
	add("rekk", b2i(s.rekk))
	var scored []string
	for r, o := range s.routeScored {
		if o > 0 {
			scored = append(scored, fmt.Sprintf("%d:%d", r, o-1))
		}
	}
	if len(scored) == 0 {
		scored = []string{"-"}
	}
	add("scored", strings.Join(scored, ","))
	add("winner", s.winner)
	add("over", b2i(s.over))
	add("truncated", b2i(s.truncated))
	add("stats", fmt.Sprintf("%d,%d,%d", s.raids, s.teleports, s.rekkonings))
	if occ := s.occExceptions(); len(occ) > 0 {
		add("occ", strings.Join(occ, ","))
	}
	rb, _ := s.rng.MarshalBinary()
	add("rng", hex.EncodeToString(rb))
	return strings.Join(t, " ")
}

// PositionError reports a position that cannot be read.
type PositionError struct{ Reason string }

func (e *PositionError) Error() string { return "pilotsofgallaxia: position: " + e.Reason }

func perr(format string, a ...any) error { return &PositionError{fmt.Sprintf(format, a...)} }

// maxQuoted bounds how much of a position's text an error quotes.
const maxQuoted = 40

// quote returns text as a Go string literal of printable ASCII (control
// bytes, invalid UTF-8 and non-ASCII escaped), cut to its first maxQuoted
// bytes with "..." appended when longer: errors never echo raw or
// unbounded input.
func quote(text string) string {
	if len(text) > maxQuoted {
		return strconv.QuoteToASCII(text[:maxQuoted]) + "..."
	}
	return strconv.QuoteToASCII(text)
}

func parseSpace(v string) (int, error) {
	sp, ok := Space(v)
	if !ok {
		return 0, perr("unknown space %s", quote(v))
	}
	return sp, nil
}

func parseCards(v string) ([]uint8, error) {
	if v == "-" || v == "" {
		return nil, nil
	}
	var out []uint8
	for _, c := range strings.Split(v, ",") {
		k, ok := ParseCard(c)
		if !ok {
			return nil, perr("unknown card %s", quote(c))
		}
		out = append(out, uint8(k))
	}
	return out, nil
}

func parseOptCard(v string) (int8, error) {
	if v == "-" {
		return 0, nil
	}
	k, ok := ParseCard(v)
	if !ok {
		return 0, perr("unknown card %s", quote(v))
	}
	return int8(k + 1), nil
}

func parseInt(v string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, perr("%s is not an integer in [%d, %d]", quote(v), lo, hi)
	}
	return n, nil
}

// ParsePosition reads a position written by Position (or a subset of its
// tokens, see the notation above) under the configuration of c (nil: the
// defaults for the players token, 4 when absent). It returns a
// *PositionError for anything malformed or inconsistent: unknown keys,
// spaces or cards, card counts that do not add up to the game's, two
// pieces on one space.
func ParsePosition(text string, c *Config) (*State, error) {
	kv, order, err := splitTokens(text)
	if err != nil {
		return nil, err
	}
	cfg, err := positionConfig(kv, c)
	if err != nil {
		return nil, err
	}
	s := &State{cfg: cfg}
	s.rng.Seed(0, rngStream)
	s.reset()
	for p := 0; p < cfg.players; p++ {
		s.placeRing(p, Planet((int(s.sek[p])+3)%NumSektors, 4))
	}
	r := &positionReader{n: cfg.players}
	for _, key := range order {
		if err := r.read(s, key, kv[key]); err != nil {
			return nil, err
		}
	}
	if err := s.checkHandSizes(&r.haveHandN); err != nil {
		return nil, err
	}
	if err := s.placeDecks(r); err != nil {
		return nil, err
	}
	if err := s.validate(); err != nil {
		return nil, err
	}
	if err := s.applyOcc(r); err != nil {
		return nil, err
	}
	s.settle()
	return s, nil
}

// splitTokens splits a position's text into its key=value tokens: the
// values by key and the keys in the order written. A token without '=' or
// a key given twice is a *PositionError.
func splitTokens(text string) (kv map[string]string, order []string, err error) {
	kv = map[string]string{}
	for _, tok := range strings.Fields(text) {
		k, v, ok := strings.Cut(tok, "=")
		if !ok {
			return nil, nil, perr("token %s is not key=value", quote(tok))
		}
		if _, dup := kv[k]; dup {
			return nil, nil, perr("key %s given twice", quote(k))
		}
		kv[k] = v
		order = append(order, k)
	}
	return kv, order, nil
}

// positionConfig returns the configuration a position is read under: c's,
// or (c nil) the defaults for its players token (4 when absent). The
// players and mode tokens, when given, must agree with it.
func positionConfig(kv map[string]string, c *Config) (*config, error) {
	var cfg *config
	if c != nil {
		cfg = c.c
	} else {
		players := 4
		if v, ok := kv["players"]; ok {
			n, err := parseInt(v, 2, MaxPlayers)
			if err != nil {
				return nil, err
			}
			players = n
		}
		cfg = DefaultConfig(players).c
	}
	if v, ok := kv["players"]; ok && v != strconv.Itoa(cfg.players) {
		return nil, perr("players=%s, the parameters say %d", quote(v), cfg.players)
	}
	if v, ok := kv["mode"]; ok && v != modeNames[cfg.mode] {
		return nil, perr("mode=%s, the parameters say %s", quote(v), modeNames[cfg.mode])
	}
	return cfg, nil
}

// positionReader is what ParsePosition gathers while it reads the keys:
// the number of players, the decks as written and which hand sizes were
// given.
type positionReader struct {
	n                   int
	deck, cdeck         []uint8
	haveDeck, haveCdeck bool
	haveHandN           [MaxPlayers]bool
	occ                 [][2]int // the occ token: space, piece (-1: none)
}

// read applies one key=value token to s: a pilot's field (p<i>.<field>)
// or a key of positionKeys.
func (r *positionReader) read(s *State, key, v string) error {
	if pre, field, ok := strings.Cut(key, "."); ok && strings.HasPrefix(pre, "p") {
		p, e := parseInt(pre[1:], 0, r.n-1)
		if e != nil {
			return perr("key %s: no such pilot", quote(key))
		}
		return s.parsePilot(p, field, v, &r.haveHandN)
	}
	f, ok := positionKeys[key]
	if !ok {
		return perr("unknown key %s", quote(key))
	}
	return f(s, r, v)
}

// intKey reads an integer in [lo, hi] (hi < 0: r.n-1) and stores it with
// set.
func intKey(lo, hi int, set func(s *State, x int)) func(*State, *positionReader, string) error {
	return func(s *State, r *positionReader, v string) error {
		h := hi
		if h < 0 {
			h = r.n - 1
		}
		x, err := parseInt(v, lo, h)
		set(s, x)
		return err
	}
}

// flagKey reads a flag ("1" true, anything else false) into the field
// get returns.
func flagKey(get func(s *State) *bool) func(*State, *positionReader, string) error {
	return func(s *State, _ *positionReader, v string) error {
		*get(s) = v == "1"
		return nil
	}
}

// spaceKey reads a space into the field get returns.
func spaceKey(get func(s *State) *int16) func(*State, *positionReader, string) error {
	return func(s *State, _ *positionReader, v string) error {
		sp, err := parseSpace(v)
		*get(s) = int16(sp)
		return err
	}
}

// optCardKey reads a card or "-" (stored as kind+1, 0 for none) into the
// field get returns.
func optCardKey(get func(s *State) *int8) func(*State, *positionReader, string) error {
	return func(s *State, _ *positionReader, v string) error {
		c, err := parseOptCard(v)
		*get(s) = c
		return err
	}
}

// pieceKey reads a piece or "-" (-1) into the field get returns.
func pieceKey(get func(s *State) *int8) func(*State, *positionReader, string) error {
	return func(s *State, r *positionReader, v string) error {
		piece, err := -1, error(nil)
		if v != "-" {
			piece, err = parsePiece(v, r.n)
		}
		*get(s) = int8(piece)
		return err
	}
}

// positionKeys reads each key of the notation but the pilots' fields, key
// by key; players and mode are checked by positionConfig.
var positionKeys = map[string]func(s *State, r *positionReader, v string) error{
	"players": func(*State, *positionReader, string) error { return nil },
	"mode":    func(*State, *positionReader, string) error { return nil },
	"turn":    intKey(0, 1<<30, func(s *State, x int) { s.turn = int32(x) }),
	"cur":     intKey(0, -1, func(s *State, x int) { s.cur = int8(x) }),
	"phase":   readPhase,
	"rings":   func(s *State, _ *positionReader, v string) error { return s.parseRings(v) },
	"car":     func(s *State, _ *positionReader, v string) error { return s.parseCaravans(v) },
	"deck": func(_ *State, r *positionReader, v string) (err error) {
		r.haveDeck = true
		r.deck, err = parseCards(v)
		return err
	},
	"cdeck": func(_ *State, r *positionReader, v string) (err error) {
		r.haveCdeck = true
		r.cdeck, err = parseCards(v)
		return err
	},
	"disc":     readDiscards,
	"moved":    intKey(0, 7, func(s *State, x int) { s.moved = uint8(x) }),
	"bought":   flagKey(func(s *State) *bool { return &s.bought }),
	"mover":    intKey(0, 2, func(s *State, x int) { s.mover = int8(x) }),
	"at":       spaceKey(func(s *State) *int16 { return &s.at }),
	"budget":   intKey(0, afterburnerPoints, func(s *State, x int) { s.budget = int8(x) }),
	"lastfree": spaceKey(func(s *State) *int16 { return &s.lastFree }),
	"raided":   flagKey(func(s *State) *bool { return &s.raided }),
	"endafter": flagKey(func(s *State) *bool { return &s.endAfter }),
	"sellfuel": func(s *State, _ *positionReader, v string) error {
		c, err := parseOptCard(v)
		s.sellFuel = c - 1
		return err
	},
	"warpval":   intKey(0, 8, func(s *State, x int) { s.warpVal = int8(x) }),
	"raider":    pieceKey(func(s *State) *int8 { return &s.raider }),
	"defender":  pieceKey(func(s *State) *int8 { return &s.defender }),
	"rcard":     optCardKey(func(s *State) *int8 { return &s.rcard }),
	"dcard":     optCardKey(func(s *State) *int8 { return &s.dcard }),
	"rrand":     optCardKey(func(s *State) *int8 { return &s.rrand }),
	"drand":     optCardKey(func(s *State) *int8 { return &s.drand }),
	"dice":      readDice,
	"rwin":      flagKey(func(s *State) *bool { return &s.rwin }),
	"rekkend":   flagKey(func(s *State) *bool { return &s.rekkEnd }),
	"exp":       readGambits,
	"rekk":      flagKey(func(s *State) *bool { return &s.rekk }),
	"scored":    readScored,
	"winner":    intKey(-1, -1, func(s *State, x int) { s.winner = int8(x) }),
	"over":      flagKey(func(s *State) *bool { return &s.over }),
	"truncated": flagKey(func(s *State) *bool { return &s.truncated }),
	"stats":     readStats,
	"rng":       readGenerator,
	"occ":       readOcc,
}

func readPhase(s *State, _ *positionReader, v string) error {
	ph := -1
	for i, name := range phaseNames {
		if name == v {
			ph = i
		}
	}
	if ph < 0 {
		return perr("unknown phase %s", quote(v))
	}
	s.phase = int8(ph)
	return nil
}

func readDiscards(s *State, _ *positionReader, v string) error {
	ks, err := parseCards(v)
	for _, k := range ks {
		s.disc[k]++
	}
	return err
}

func readDice(s *State, _ *positionReader, v string) error {
	a, b, _ := strings.Cut(v, ",")
	var x, y int
	x, err := parseInt(a, 0, 6)
	if err == nil {
		y, err = parseInt(b, 0, 6)
	}
	s.rdie, s.ddie = int8(x), int8(y)
	return err
}

func readGambits(s *State, _ *positionReader, v string) error {
	ks, err := parseCards(v)
	if len(ks) > 3 {
		return perr("more than three Gambit cards")
	}
	s.nexp = int8(copy(s.exp[:], ks))
	return err
}

func readScored(s *State, r *positionReader, v string) error {
	if v == "-" {
		return nil
	}
	for _, e := range strings.Split(v, ",") {
		a, b, _ := strings.Cut(e, ":")
		rt, e1 := parseInt(a, 0, NumRoutes-1)
		o, e2 := parseInt(b, 0, r.n-1)
		if e1 != nil || e2 != nil {
			return perr("bad scored route %s", quote(e))
		}
		s.routeScored[rt] = int8(o + 1)
	}
	return nil
}

func readStats(s *State, _ *positionReader, v string) error {
	f := strings.Split(v, ",")
	if len(f) != 3 {
		return perr("stats=%s", quote(v))
	}
	var x [3]int
	for i := range x {
		var err error
		if x[i], err = parseInt(f[i], 0, 1<<30); err != nil {
			return err
		}
	}
	s.raids, s.teleports, s.rekkonings = int32(x[0]), int32(x[1]), int32(x[2])
	return nil
}

func readGenerator(s *State, _ *positionReader, v string) error {
	b, e := hex.DecodeString(v)
	if e != nil || s.rng.UnmarshalBinary(b) != nil {
		return perr("bad generator state %s", quote(v))
	}
	return nil
}

// checkHandSizes sets each pilot's hand size from its cards (counting a
// hidden raid card until the reveal); a hand size written that differs is
// a *PositionError.
func (s *State) checkHandSizes(haveHandN *[MaxPlayers]bool) error {
	for p := 0; p < s.cfg.players; p++ {
		sum := 0
		for _, c := range s.hand[p] {
			sum += int(c)
		}
		if s.phase == PhRaidA || s.phase == PhRaidD {
			if s.raider >= 0 && owner(int(s.raider)) == p && s.rcard > 0 {
				sum++
			}
			if s.defender >= 0 && owner(int(s.defender)) == p && s.dcard > 0 {
				sum++
			}
		}
		if haveHandN[p] && int(s.handN[p]) != sum {
			return perr("pilot %d: hand size %d, but %d cards", p, s.handN[p], sum)
		}
		s.handN[p] = uint8(sum)
	}
	return nil
}

// placeDecks checks card conservation (every card in exactly one place)
// and fills the two decks: the decks as written are the top; the cards not
// placed anywhere lie below them in kind order (the Rekkoning last).
func (s *State) placeDecks(r *positionReader) error {
	var count [NumKinds]int
	for p := 0; p < s.cfg.players; p++ {
		for k, c := range s.hand[p] {
			count[k] += int(c)
		}
	}
	for k, c := range s.disc {
		count[k] += int(c)
	}
	s.countInPlay(&count)
	deck, cdeck := r.deck, r.cdeck
	for _, k := range deck {
		count[k]++
	}
	for _, k := range cdeck {
		count[k]++
	}
	if !r.haveDeck || len(deck) < deckSize {
		for k := 0; k < numGallaxiaKinds; k++ {
			if k == KindRekkoning {
				continue
			}
			for i := count[k]; i < Copies(k); i++ {
				deck = append(deck, uint8(k))
				count[k]++
			}
		}
		if count[KindRekkoning] == 0 {
			deck = append(deck, KindRekkoning)
			count[KindRekkoning]++
		}
	}
	if !r.haveCdeck || len(cdeck) < captainSize {
		for k := KindAfterburner; k <= KindSalvage; k++ {
			for i := count[k]; i < Copies(k); i++ {
				cdeck = append(cdeck, uint8(k))
				count[k]++
			}
		}
	}
	if len(deck) > deckSize || len(cdeck) > captainSize {
		return perr("deck of %d or Captain's deck of %d cards", len(deck), len(cdeck))
	}
	for i, k := range deck {
		if k >= numGallaxiaKinds {
			return perr("Captain's Card %s in the Gallaxia deck", CardName(int(k)))
		}
		s.deck[len(deck)-1-i] = k
	}
	s.deckN = uint8(len(deck))
	for i, k := range cdeck {
		if k < KindAfterburner {
			return perr("Gallaxia card %s in the Captain's deck", CardName(int(k)))
		}
		s.cdeck[len(cdeck)-1-i] = k
	}
	s.cdckN = uint8(len(cdeck))
	for k := 0; k < NumKinds; k++ {
		if count[k] != Copies(k) {
			return perr("%d cards %s in play, the game has %d", count[k], CardName(k), Copies(k))
		}
	}
	return nil
}

func parsePiece(v string, n int) (int, error) {
	a, b, ok := strings.Cut(v, ".")
	if !ok {
		return 0, perr("bad piece %s", quote(v))
	}
	p, e1 := parseInt(a, 0, n-1)
	k, e2 := parseInt(b, 0, 2)
	if e1 != nil || e2 != nil {
		return 0, perr("bad piece %s", quote(v))
	}
	return 3*p + k, nil
}

func (s *State) parsePilot(p int, field, v string, haveHandN *[MaxPlayers]bool) error {
	var err error
	switch field {
	case "ships":
		a, b, ok := strings.Cut(v, ",")
		if !ok {
			return perr("p%d.ships=%s: want two spaces", p, quote(v))
		}
		for k, name := range []string{a, b} {
			sp, err := parseSpace(name)
			if err != nil {
				return err
			}
			s.pos[3*p+k] = int16(sp)
		}
	case "dur":
		var sp int
		sp, err = parseSpace(v)
		s.pos[3*p+2] = int16(sp)
	case "hired":
		s.hired[p] = v == "1"
	case "deployed":
		s.deployed[p] = v == "1"
	case "caravans":
		a, b, _ := strings.Cut(v, ",")
		var x, y int
		if x, err = parseInt(a, 0, maxCaravans); err == nil {
			y, err = parseInt(b, 0, maxCaravans)
		}
		s.carLeft[p], s.blkLeft[p] = int8(x), int8(y)
	case "home":
		var t int
		t, err = parseInt(v, 0, maxRings)
		s.delivered[p] = int8(t)
	case "points":
		var t int
		t, err = parseInt(v, 0, 10000)
		s.points[p] = int16(t)
	case "flags":
		var t int
		t, err = parseInt(v, 0, 15)
		s.flags[p] = uint8(t)
	case "handsize":
		var t int
		t, err = parseInt(v, 0, maxHand)
		s.handN[p] = uint8(t)
		haveHandN[p] = true
	case "hand":
		var ks []uint8
		ks, err = parseCards(v)
		for _, k := range ks {
			if k == KindRekkoning {
				return perr("the Rekkoning is never held")
			}
			s.hand[p][k]++
		}
	default:
		return perr("unknown key p%d.%s", p, quote(field))
	}
	return err
}

func (s *State) parseRings(v string) error {
	s.nRings = 0
	clear(s.ringsOn[:])
	if v == "-" || v == "" {
		return nil
	}
	for _, e := range strings.Split(v, ",") {
		o, where, ok := strings.Cut(e, "@")
		if !ok || int(s.nRings) == maxRings {
			return perr("bad ring %s", quote(e))
		}
		own := -1
		if o != "y" {
			var err error
			if own, err = parseInt(o, 0, s.cfg.players-1); err != nil {
				return err
			}
			if own != int(s.nRings) {
				return perr("hostage rings come first, in pilot order: %s", quote(e))
			}
		} else if int(s.nRings) < s.cfg.players {
			return perr("yellow ring %s before the hostage rings", quote(e))
		}
		r := s.nRings
		s.nRings++
		s.ringOwner[r] = int8(own)
		switch {
		case where == "home":
			s.ringState[r] = ringDelivered
		case strings.HasPrefix(where, "ship:"):
			piece, err := parsePiece(where[5:], s.cfg.players)
			if err != nil || piece%3 == 2 || s.cargo[piece] != 0 {
				return perr("bad ring carrier %s", quote(e))
			}
			s.ringState[r] = ringAboard
			s.cargo[piece] = int8(r + 1)
		default:
			sp, err := parseSpace(where)
			if err != nil {
				return err
			}
			s.ringState[r], s.ringAt[r] = ringOnBoard, int16(sp)
			s.ringsOn[sp]++
		}
	}
	if int(s.nRings) < s.cfg.players {
		return perr("%d rings, want a hostage ring per pilot", s.nRings)
	}
	return nil
}

// holdOcc records piece, found on space sp (neither a hangar nor a LAIR),
// in occ. v2 never puts two pieces on one space (L99), so a second piece
// there is an error. v1 does (docs/rules/pilots-of-gallaxia.md, v1
// notes: a loser's flee onto the raider's square or onto the last free
// space it passed), and only one of them holds the space in occ, the one
// a raid there would fight. Rebuilt from the pieces alone (an
// observation, or a position without the occ token), the space goes to
// the piece of the pilot whose turn it is, the last to arrive in both
// ways v1 reaches a shared space, else to the first piece in piece order;
// the occ token writes down where the game's own record differs.
func (s *State) holdOcc(sp, piece int) error {
	o := int(s.occ[sp]) - 1
	switch {
	case o < 0:
	case s.cfg.v2:
		return perr("pieces %s and %s share %s", pieceName(o), pieceName(piece), SpaceName(sp))
	case owner(piece) != int(s.cur) || owner(o) == int(s.cur):
		return nil
	}
	s.occ[sp] = int8(piece + 1)
	return nil
}

// occExceptions lists, for a v1 position, the spaces whose occ differs
// from what validate rebuilds from the pieces alone (holdOcc): "space:p.k"
// for the piece that holds it, "space:-" for a space a piece stands on
// that holds none (its holder left). Nil for every position v2 reaches
// and for every v1 position without a shared space in its history.
func (s *State) occExceptions() []string {
	if s.cfg.v2 {
		return nil
	}
	t := *s
	if t.validate() != nil {
		return nil
	}
	var out []string
	for sp := 0; sp < NumSpaces; sp++ {
		switch o := int(s.occ[sp]) - 1; {
		case s.occ[sp] == t.occ[sp]:
		case o < 0:
			out = append(out, SpaceName(sp)+":-")
		default:
			out = append(out, SpaceName(sp)+":"+pieceName(o))
		}
	}
	return out
}

// readOcc reads the occ token (see occExceptions) into r; ParsePosition
// applies it with applyOcc once the pieces are placed.
func readOcc(_ *State, r *positionReader, v string) error {
	r.occ = r.occ[:0]
	for _, e := range strings.Split(v, ",") {
		name, pc, ok := strings.Cut(e, ":")
		if !ok {
			return perr("bad occ entry %s", quote(e))
		}
		sp, err := parseSpace(name)
		if err != nil {
			return err
		}
		piece := -1
		if pc != "-" {
			if piece, err = parsePiece(pc, r.n); err != nil {
				return err
			}
		}
		r.occ = append(r.occ, [2]int{sp, piece})
	}
	return nil
}

// applyOcc sets the holders the occ token gives. Only v1 positions have
// one; each entry names a space off the hangars and LAIRs that a piece
// stands on (other than the moving piece), and the piece named stands
// there.
func (s *State) applyOcc(r *positionReader) error {
	if len(r.occ) > 0 && s.cfg.v2 {
		return perr("occ: only v1 positions hold a space two pieces share")
	}
	for _, e := range r.occ {
		sp, piece := e[0], e[1]
		if s.occ[sp] == 0 {
			return perr("occ: no piece stands on %s", SpaceName(sp))
		}
		if piece >= 0 && (piece >= 3*s.cfg.players || int(s.pos[piece]) != sp || s.moving(piece)) {
			return perr("occ: piece %s is not on %s", pieceName(piece), SpaceName(sp))
		}
		s.occ[sp] = int8(piece + 1)
	}
	return nil
}

func (s *State) parseCaravans(v string) error {
	if v == "-" {
		return nil
	}
	for _, e := range strings.Split(v, ",") {
		blk := strings.HasSuffix(e, "!")
		e = strings.TrimSuffix(e, "!")
		name, o, ok := strings.Cut(e, ":")
		if !ok {
			return perr("bad caravan %s", quote(e))
		}
		sp, err := parseSpace(name)
		if err != nil {
			return err
		}
		own, err := parseInt(o, 0, s.cfg.players-1)
		if err != nil {
			return err
		}
		if theBoard.kind[sp] != KindCaravan || s.car[sp] != 0 {
			return perr("caravan on %s: not a free caravan space", quote(name))
		}
		s.setCar(sp, int8(own+1))
		s.blokk[sp] = blk
	}
	return nil
}

// validate checks the invariants of a position and rebuilds occ (see
// holdOcc for a space two pieces share, which only v1 reaches).
func (s *State) validate() error {
	clear(s.occ[:])
	n := s.cfg.players
	for piece := 0; piece < 3*n; piece++ {
		p, sp := owner(piece), int(s.pos[piece])
		moving := s.movingPhase() && piece == 3*int(s.cur)+int(s.mover) && !s.over
		if moving {
			continue
		}
		switch theBoard.kind[sp] {
		case KindHangar:
			if piece%3 == 2 || sp != Hangar(int(s.sek[p])) {
				return perr("piece %s in a hangar not its own", pieceName(piece))
			}
		case KindLair:
			if piece%3 != 2 || sp != Lair(int(s.sek[p])) {
				return perr("piece %s in a LAIR not its own", pieceName(piece))
			}
		case KindTeleprism:
			return perr("piece %s on a Teleprism", pieceName(piece))
		default:
			if err := s.holdOcc(sp, piece); err != nil {
				return err
			}
		}
		if piece%3 == 2 && s.deployed[p] != (theBoard.kind[sp] != KindLair) {
			return perr("Durriken %d: deployed=%v on %s", p, s.deployed[p], SpaceName(sp))
		}
	}
	var used [MaxPlayers]int
	var blk [MaxPlayers]int
	for sp := 0; sp < NumSpaces; sp++ {
		if o := int(s.car[sp]) - 1; o >= 0 {
			used[o]++
			if s.blokk[sp] {
				blk[o]++
			}
		}
	}
	for p := 0; p < n; p++ {
		if used[p]+int(s.carLeft[p]) != s.cfg.caravans || blk[p]+int(s.blkLeft[p]) != s.cfg.blokks {
			if s.carLeft[p] == int8(s.cfg.caravans) && s.blkLeft[p] == int8(s.cfg.blokks) {
				// Supplies not written: take the caravans on the board from them.
				s.carLeft[p] -= int8(used[p])
				s.blkLeft[p] -= int8(blk[p])
				if s.carLeft[p] >= 0 && s.blkLeft[p] >= 0 {
					continue
				}
			}
			return perr("pilot %d: %d caravans (%d BLOKKs) on the board, %d (%d) left, the supply is %d (%d)",
				p, used[p], blk[p], s.carLeft[p], s.blkLeft[p], s.cfg.caravans, s.cfg.blokks)
		}
	}
	if s.over != (s.phase == PhOver) {
		return perr("over=%v in phase %s", s.over, phaseNames[s.phase])
	}
	if s.phase == PhSellFuel && s.sellFuel < KindFuel {
		return perr("phase sellfuel without a first fuel card")
	}
	if (s.phase == PhGambit || s.phase == PhPush) && s.nexp == 0 {
		return perr("phase %s without a card up", phaseNames[s.phase])
	}
	if s.inRaid() && (s.raider < 0 || s.defender < 0) {
		return perr("phase %s without raider and defender", phaseNames[s.phase])
	}
	return nil
}

// countInPlay adds to count, by kind, the cards that are neither in a hand,
// the discard pile nor a deck: the Gambit's exposed cards, the raid cards
// on the table and a fuel card waiting for its pair in a purchase.
func (s *State) countInPlay(count *[NumKinds]int) {
	for _, k := range s.exp[:s.nexp] {
		count[k]++
	}
	switch s.phase {
	case PhRaidA, PhRaidD:
		for _, c := range []int8{s.rcard, s.dcard} {
			if c > 0 {
				count[c-1]++
			}
		}
	case PhRaidWin:
		// The winner's card went to the discard pile at the reveal; the
		// loser's waits for the winner's choice.
		lc := s.dcard
		if !s.rwin {
			lc = s.rcard
		}
		if lc > 0 {
			count[lc-1]++
		}
	}
	if s.sellFuel >= 0 {
		count[s.sellFuel]++
	}
}
