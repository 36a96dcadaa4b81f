package pilotsofgallaxia

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/galaxygym/galaxygym/env"
)

// The scene (env.Presenter): the board as the rgb_array picture draws it
// (sektor 1 at the top, clockwise, in every seat's scene), 660 x 672 board
// units, one space per board space with its name ("3.P4") as id. Pieces:
// ship-P-1, ship-P-2 and durriken-P (pilot P's starships and Durriken),
// caravan-<space> (a claimed caravan space, "B" for a BLOKK), ring-P (pilot
// P's scientist lying on the board), yellow-<space>-I (yellow rings).
// Zones: deck, captains-deck (face down), discards, gambit (the cards up),
// hand-P (pilot P's hand: the observer's face up and private, the others'
// face down), raid-card-P (the observer's own hidden raid card, private
// and ObserverOnly: whether a card was chosen at all is hidden),
// raid (the cards a raid revealed). Card ids: hand-P-<card>-I,
// discard-<card>-I, gambit-I, raid-card-P-c, raid-<role>-card, raid-<role>-random,
// <card> in the notation ("3.P4", "f5", "d2", "R", "afterburner").

const (
	psW, psH = pgW, pgTop // the board of render.go, without its text lines
)

// Colours of the spaces and cards (render.go's where it has them).
var (
	psKindColor = map[int]string{KindPlanet: "#3c5096", KindHangar: "#5a6090", KindLair: "#5a6090",
		KindTeleprism: "#aa78ff", KindVortex: "#78dcdc", KindCaravan: "#5a608c"}
	psCardColor = map[string]string{"planet": "#3c5096", "fuel": "#e07b39", "durriken": "#8e44ad",
		"rekkoning": "#c0392b", "captain": "#16a085"}
)

// psSpaceSize is the side of a space's square by kind, in board units.
var psSpaceSize = map[int]int{KindPlanet: 26, KindHangar: 28, KindLair: 22, KindTeleprism: 22, KindVortex: 22, KindCaravan: 12}

// spaceWords names space id as a player says it: "planet 4 of sektor 3".
func spaceWords(id int) string {
	k := SektorOf(id) + 1
	switch theBoard.kind[id] {
	case KindPlanet:
		return fmt.Sprintf("planet %d of sektor %d", theBoard.number[id], k)
	case KindHangar:
		return fmt.Sprintf("the hangar of sektor %d", k)
	case KindLair:
		return fmt.Sprintf("the LAIR of sektor %d", k)
	case KindTeleprism:
		return fmt.Sprintf("the Teleprism of sektor %d", k)
	case KindVortex:
		return fmt.Sprintf("the vortex of sektor %d", k)
	}
	if l := theBoard.local[id]; l == "t1" || l == "t2" {
		return fmt.Sprintf("caravan space %s beside the Teleprism", SpaceName(id))
	}
	r := theBoard.routes[theBoard.routeOf[id]]
	return fmt.Sprintf("caravan space %s (route %s-%s)", SpaceName(id), SpaceName(int(r.a)), SpaceName(int(r.b)))
}

// cardOf is the face-up card of kind k with id.
func cardOf(id string, k int) env.Card {
	c := env.Card{ID: id, Code: CardName(k), Value: Value(k)}
	switch {
	case k < KindFuel:
		sp := planetOfCard(k)
		c.Name, c.Class = fmt.Sprintf("planet %d of sektor %d", theBoard.number[sp], SektorOf(sp)+1), "planet"
	case k < KindDurriken:
		c.Name, c.Class = fmt.Sprintf("fuel %d", Value(k)), "fuel"
	case k < KindRekkoning:
		c.Name, c.Class = fmt.Sprintf("Durriken %d", Value(k)), "durriken"
	case k == KindRekkoning:
		c.Name, c.Class = "the Rekkoning", "rekkoning"
	default:
		c.Name, c.Class = strings.ToUpper(c.Code[:1])+c.Code[1:], "captain"
	}
	c.Color = psCardColor[c.Class]
	return c
}

// view is one observation read in absolute terms.
type view struct {
	obs      []uint8
	n, seat  int
	sk       int // the observer's sektor
	turn     int // the pilot whose turn it is, -1 at the end
	phase    int
	discards bool // someone discards down to 5 (the Rekkoning)
	mover    int  // the moving piece (3*pilot + k), -1 for none
	moverAt  int  // its space, -1 for none
}

func (v *view) pilot(r int) int { return (v.seat + r) % v.n }
func (v *view) space(i int) int { return rotate(i, v.sk) }

// obsIndex is the observation's index of absolute space id (space's
// inverse).
func (v *view) obsIndex(id int) int { return rotate(id, NumSektors-v.sk) }
func (v *view) seatB(p int) []uint8 {
	o := OffSeats + ((p-v.seat+v.n)%v.n)*SeatBytes
	return v.obs[o : o+SeatBytes]
}

// kind returns the absolute card kind of observation card index i.
func (v *view) kind(i int) int {
	if i < KindFuel {
		return ((i/8+v.sk)%NumSektors)*8 + i%8
	}
	return i
}

func pieceID(piece int) string {
	if piece%3 == 2 {
		return "durriken-" + strconv.Itoa(piece/3)
	}
	return fmt.Sprintf("ship-%d-%d", piece/3, piece%3+1)
}

// Present returns seat's scene (env.Presenter) from seat's observation:
// the board with every piece, caravan and ring, the piles, The Gambit,
// the hands (seat's own face up), the pilots' public facts, and one move
// per legal action: click a piece to move it, a space to go to, a hand
// card to play it.
func (g Game) Present(p env.Params, seat int, obs []uint8, legal []int) (*env.Scene, error) {
	n := p.Int(env.PlayersParam)
	if len(obs) != ObsSize || int(obs[OffPlayers]) != n || n < 2 || n > MaxPlayers || seat < 0 || seat >= n {
		return nil, &env.SceneError{EnvID: g.Spec().ID, Reason: fmt.Sprintf("observation of %d bytes for seat %d of %d", len(obs), seat, n)}
	}
	v := &view{obs: obs, n: n, seat: seat, sk: int(seatSektors[n][seat]), turn: -1, phase: -1, mover: -1, moverAt: -1}
	for i := range numPhases {
		if obs[OffPhase+i] == 1 {
			v.phase = i
		}
	}
	if v.phase < 0 {
		return nil, &env.SceneError{EnvID: g.Spec().ID, Reason: "an observation without a phase"}
	}
	v.discards = obs[OffPhase+numPhases] == 1
	for q := range n {
		if v.seatB(q)[SeatTurn] == 1 {
			v.turn = q
		}
	}
	for i := range NumSpaces {
		if obs[OffMover+i] == 1 && v.turn >= 0 && obs[OffMovingPiece] > 0 {
			v.mover, v.moverAt = 3*v.turn+int(obs[OffMovingPiece])-1, v.space(i)
		}
	}
	sc := &env.Scene{Width: psW, Height: psH, Zones: []env.Zone{}, Moves: []env.Move{}}
	v.board(sc)
	v.zones(sc)
	v.seats(sc, p)
	for _, a := range legal {
		sc.Moves = append(sc.Moves, v.move(a))
	}
	return sc, nil
}

// psSpaces returns the board's spaces by the number of players (the
// hangars of the seated pilots are theirs), built once, on the first scene
// (not at every process start, which paid about a millisecond for them):
// the board never changes.
var psSpaces = sync.OnceValue(func() [MaxPlayers + 1][]env.Space {
	var all [MaxPlayers + 1][]env.Space
	for n := 2; n <= MaxPlayers; n++ {
		home := map[int]int{}
		for q := range n {
			home[Hangar(int(seatSektors[n][q]))] = q
		}
		for id := range NumSpaces {
			kind := int(theBoard.kind[id])
			w, c := psSpaceSize[kind], pgPos[id]
			sp := env.Space{ID: SpaceName(id), X: c.X - w/2, Y: c.Y - w/2, W: w, H: w, Shape: "disc", Owner: -1,
				Title: spaceWords(id), Color: psKindColor[kind]}
			switch kind {
			case KindPlanet:
				sp.Label = strconv.Itoa(int(theBoard.number[id]))
			case KindHangar:
				sp.Shape, sp.Label = "rect", "H"+strconv.Itoa(SektorOf(id)+1)
				if q, ok := home[id]; ok {
					sp.Owner, sp.Color = q, "" // the page's colour of the seat
					sp.Title += fmt.Sprintf(": pilot %d's home", q)
				}
			case KindLair:
				sp.Label = "L"
				sp.Title += ": off the board's paths, a Durriken leaves it only by a warp"
			case KindTeleprism:
				sp.Shape, sp.Label = "hex", "T"
				sp.Title += ": a piece entering it is teleported to the Teleprism of the sektor a d6 picks"
			case KindVortex:
				sp.Label = "V"
				sp.Title += ": linked to every other vortex (a Durriken's way)"
			}
			all[n] = append(all[n], sp)
		}
	}
	return all
})

// board adds the spaces and the pieces, in an order that is the same for
// every observer (pilots and spaces in absolute order), so that the public
// part of every seat's scene is one.
func (v *view) board(sc *env.Scene) {
	obs := v.obs
	sc.Spaces = slices.Clone(psSpaces()[v.n])
	// Pieces: starships and Durriken, then caravans, then rings.
	for q := range v.n {
		r := (q - v.seat + v.n) % v.n
		b := v.seatB(q)
		for k := range 3 {
			piece := 3*q + k
			at := -1
			if piece == v.mover {
				at = v.moverAt
			}
			for i := 0; i < NumSpaces && at < 0; i++ {
				if k < 2 && obs[OffShips+r*NumSpaces+i]&(1<<k) != 0 || k == 2 && obs[OffDurriken+r*NumSpaces+i] == 1 {
					at = v.space(i)
				}
			}
			if at < 0 {
				continue
			}
			pc := env.Piece{ID: pieceID(piece), At: SpaceName(at), Owner: q}
			if k < 2 {
				pc.Shape, pc.Label = "disc", strconv.Itoa(k+1)
				pc.Title = fmt.Sprintf("pilot %d's starship %d", q, k+1)
				switch b[SeatCargo+k] {
				case 1:
					pc.Title += ", carrying its scientist home"
					pc.Label += "*"
				case 2:
					pc.Title += ", carrying a yellow ring"
					pc.Label += "*"
				}
			} else {
				pc.Shape, pc.Label = "triangle", "D"
				pc.Title = fmt.Sprintf("pilot %d's Durriken", q)
				if b[SeatHired] == 0 {
					pc.Title += " (not hired)"
				}
			}
			if piece == v.mover {
				pc.Title += fmt.Sprintf(" (moving, %d points left)", obs[OffMovePoints])
			}
			sc.Pieces = append(sc.Pieces, pc)
		}
	}
	for id := range NumSpaces {
		i := v.obsIndex(id)
		for q := range v.n {
			r := (q - v.seat + v.n) % v.n
			if obs[OffCaravans+r*NumSpaces+i] == 0 {
				continue
			}
			pc := env.Piece{ID: "caravan-" + SpaceName(id), At: SpaceName(id), Shape: "square", Owner: q,
				Title: fmt.Sprintf("pilot %d's caravan", q)}
			if obs[OffBlokk+i] == 1 {
				pc.Label, pc.Title = "B", fmt.Sprintf("pilot %d's BLOKK: other pilots may not enter", q)
			}
			sc.Pieces = append(sc.Pieces, pc)
		}
	}
	for id := range NumSpaces {
		i := v.obsIndex(id)
		for q := range v.n {
			if r := (q - v.seat + v.n) % v.n; obs[OffRings+r*NumSpaces+i] == 1 {
				sc.Pieces = append(sc.Pieces, env.Piece{ID: "ring-" + strconv.Itoa(q), At: SpaceName(id), Shape: "diamond", Owner: q,
					Title: fmt.Sprintf("pilot %d's scientist (Peace Hostage ring)", q)})
			}
		}
		for j := range int(obs[OffYellow+i]) {
			sc.Pieces = append(sc.Pieces, env.Piece{ID: fmt.Sprintf("yellow-%s-%d", SpaceName(id), j), At: SpaceName(id),
				Shape: "diamond", Owner: -1, Color: "#ffe628", Title: "a yellow ring (common hideout)"})
		}
	}
}

// zones adds the piles, The Gambit, the hands and the raid's cards.
func (v *view) zones(sc *env.Scene) {
	obs := v.obs
	sc.Zones = append(sc.Zones,
		env.Zone{ID: "deck", Name: "Gallaxia deck", Owner: -1, Cards: []env.Card{}, Count: int(obs[OffDeckSize])},
		env.Zone{ID: "captains-deck", Name: "Captain's deck", Owner: -1, Cards: []env.Card{}, Count: int(obs[OffCaptainSize])})
	disc := env.Zone{ID: "discards", Name: "discard piles", Owner: -1, Cards: []env.Card{}}
	for _, k := range v.obsOrder() {
		for j := range int(obs[OffDiscard+k]) {
			kk := v.kind(k)
			disc.Cards = append(disc.Cards, cardOf(fmt.Sprintf("discard-%s-%d", CardName(kk), j), kk))
		}
	}
	sc.Zones = append(sc.Zones, disc)
	gam := env.Zone{ID: "gambit", Name: "The Gambit", Owner: -1, Cards: []env.Card{}}
	for i := range int(obs[OffGambit+3]) {
		if c := int(obs[OffGambit+i]); c > 0 {
			gam.Cards = append(gam.Cards, cardOf("gambit-"+strconv.Itoa(i), v.kind(c-1)))
		}
	}
	sc.Zones = append(sc.Zones, gam)
	for q := range v.n {
		h := env.Zone{ID: "hand-" + strconv.Itoa(q), Name: fmt.Sprintf("pilot %d's hand", q), Owner: q, Cards: []env.Card{}}
		if q == v.seat {
			h.Private = true
			for _, k := range v.obsOrder() {
				kk := v.kind(k)
				for j := range int(obs[OffHand+k]) {
					h.Cards = append(h.Cards, cardOf(handCardID(q, kk, j), kk))
				}
			}
			// A hidden raid card still counts in the hand for the
			// others (whether one was chosen is hidden): the count
			// everyone sees, the raid card its one card not shown.
			if n := int(v.seatB(q)[SeatHandSize]); n != len(h.Cards) {
				h.Count = n
			}
		} else {
			h.Count = int(v.seatB(q)[SeatHandSize])
		}
		sc.Zones = append(sc.Zones, h)
	}
	if c := int(obs[OffOwnRaidCard]); c > 0 {
		id := "raid-card-" + strconv.Itoa(v.seat)
		// Whether a raider or defender chose a card at all is hidden
		// (fighting without one is a choice): the zone is its alone.
		sc.Zones = append(sc.Zones, env.Zone{ID: id, Name: fmt.Sprintf("pilot %d's hidden raid card", v.seat), Owner: v.seat,
			Private: true, ObserverOnly: true,
			Cards: []env.Card{cardOf(id+"-c", v.kind(c-1))}})
	}
	if v.phase == PhRaidWin {
		raid := env.Zone{ID: "raid", Name: "the raid's cards", Owner: -1, Cards: []env.Card{}}
		for _, f := range []struct {
			off  int
			id   string
			name string
		}{{OffRaiderCard, "raid-raider-card", "raider's card: "}, {OffRaiderRand, "raid-raider-random", "raider's Durriken card: "},
			{OffDefenderCard, "raid-defender-card", "defender's card: "}, {OffDefenderRand, "raid-defender-random", "defender's Durriken card: "}} {
			if c := int(obs[f.off]); c > 0 {
				card := cardOf(f.id, v.kind(c-1))
				card.Name = f.name + card.Name
				raid.Cards = append(raid.Cards, card)
			}
		}
		sc.Zones = append(sc.Zones, raid)
	}
}

// obsOrder lists the observation card indices 0..NumKinds-1 in the order
// of the absolute kinds they name (planets of sektor 1 first).
func (v *view) obsOrder() []int {
	out := make([]int, 0, NumKinds)
	for a := range NumKinds {
		i := a
		if a < KindFuel {
			i = ((a/8-v.sk+NumSektors)%NumSektors)*8 + a%8
		}
		out = append(out, i)
	}
	return out
}

func handCardID(q, kind, j int) string { return fmt.Sprintf("hand-%d-%s-%d", q, CardName(kind), j) }

// seats adds the pilots' facts, the status line and the end.
func (v *view) seats(sc *env.Scene, p env.Params) {
	life := v.obs[OffMode] == ModeANewLife
	for q := range v.n {
		b := v.seatB(q)
		f := env.SeatFacts{Name: "pilot " + strconv.Itoa(q)}
		if life {
			f.Score = fmt.Sprintf("%d points", b[SeatPoints])
		} else {
			f.Score = fmt.Sprintf("%d home", b[SeatHome])
		}
		f.Facts = append(f.Facts, fmt.Sprintf("sektor %d", (int(b[SeatSektor])+v.sk)%NumSektors+1),
			fmt.Sprintf("%d cards", b[SeatHandSize]), fmt.Sprintf("%d caravans (%d BLOKKs) left", b[SeatCaravans], b[SeatBlokks]))
		if b[SeatHired] == 1 {
			f.Facts = append(f.Facts, "Durriken hired")
		}
		f.Facts = append(f.Facts, map[uint8]string{0: "scientist held on the board", 1: "scientist aboard", 2: "scientist home"}[b[SeatOwnRing]])
		switch b[SeatRaidRole] {
		case 1:
			f.Facts = append(f.Facts, "raiding")
		case 2:
			f.Facts = append(f.Facts, "defending")
		}
		sc.Seats = append(sc.Seats, f)
	}
	if v.phase == PhOver {
		sc.Ended = v.ended(p, life)
		return
	}
	turn := fmt.Sprintf("turn %d, pilot %d", int(v.obs[OffTurns])+1, v.turn)
	var what string
	switch v.phase {
	case PhMain:
		what = "moves a piece, hires, buys or ends the moves"
	case PhWay:
		what = "chooses how " + v.moverName() + " moves"
	case PhPath:
		what = fmt.Sprintf("moves %s (%d points left)", v.moverName(), v.obs[OffMovePoints])
	case PhClaim:
		what = "may claim the caravan space"
	case PhDWarp:
		what = fmt.Sprintf("warps the Durriken to a planet numbered %d", v.obs[OffWarpValue])
	case PhSlide:
		what = "slides off the Teleprism"
	case PhLand:
		what = "has landed on a planet: discard its card for a Captain's card, or pass"
	case PhSellFuel:
		what = "pays a second fuel card for a Captain's card"
	case PhRaidA, PhRaidD:
		what = fmt.Sprintf("raids: pilot %d's %s on pilot %d's %s; the %s chooses a hidden card", v.raidPilot(OffRaiderSeat),
			pieceWord(int(v.obs[OffRaiderPiece])), v.raidPilot(OffDefenderSeat), pieceWord(int(v.obs[OffDefenderPiece])),
			map[int]string{PhRaidA: "raider", PhRaidD: "defender"}[v.phase])
	case PhRaidWin:
		winner := "defender"
		if v.obs[OffRaiderWon] == 1 {
			winner = "raider"
		}
		what = fmt.Sprintf("raid: dice %d (raider) and %d (defender); the %s won and takes its spoils", v.obs[OffRaiderDie], v.obs[OffDefenderDie], winner)
	case PhGambit:
		what = "plays The Gambit: take the cards up, or guess higher or lower"
	case PhPush:
		what = "has a push in The Gambit: take the cards, or cash in for a Captain's card"
	}
	sc.Status = turn + " " + what
	if v.discards {
		sc.Status += fmt.Sprintf("; the Rekkoning: pilot %d discards down to %d", v.discarder(), handLimit)
	}
}

// discarder is the pilot discarding to the Rekkoning: the first from the
// pilot whose turn it is, clockwise, with more than five cards.
func (v *view) discarder() int {
	for i := range v.n {
		q := (v.turn + i) % v.n
		if v.seatB(q)[SeatHandSize] > handLimit {
			return q
		}
	}
	return v.turn
}

func (v *view) raidPilot(off int) int { return v.pilot(int(v.obs[off]) - 1) }

func pieceWord(k int) string {
	if k == 2 {
		return "Durriken"
	}
	return "starship " + strconv.Itoa(k+1)
}

func (v *view) moverName() string {
	switch {
	case v.mover < 0:
		return "a piece"
	case v.mover%3 == 2:
		return "the Durriken"
	}
	return pieceWord(v.mover % 3)
}

// ended says who won and how.
func (v *view) ended(p env.Params, life bool) string {
	best, winner := -1, -1
	for q := range v.n {
		b := v.seatB(q)
		s := int(b[SeatHome])
		if life {
			s = int(b[SeatPoints])
		}
		if s > best {
			best, winner = s, q
		}
	}
	switch {
	case life:
		return fmt.Sprintf("pilot %d won: %d countdown points reached (A New Life)", winner, best)
	case best > 1:
		return fmt.Sprintf("pilot %d won: %d rings brought home", winner, best)
	}
	return fmt.Sprintf("pilot %d won: brought their scientist home", winner)
}

// move is legal action a of the observer (who is to act) in words, with
// the pieces, spaces and cards it involves.
func (v *view) move(a int) env.Move {
	m := env.Move{A: a, Name: actionNames[a]}
	moverID := func() []string {
		if v.mover < 0 {
			return nil
		}
		return []string{pieceID(v.mover)}
	}
	switch {
	case a < ActCard:
		sp := actionNode(a, v.sk)
		where := spaceWords(sp)
		if sp == Hangar(v.sk) {
			where = "your hangar"
		}
		m.Select, m.Target = moverID(), []string{SpaceName(sp)}
		switch v.phase {
		case PhDWarp:
			m.Words, m.Help = "warp the Durriken to "+where, "every trade route ending at that planet is destroyed: its caravans go back to their owners"
		case PhSlide:
			m.Words, m.Help = "slide off onto "+where, "the move ends here; a starship may claim the space"
		default:
			verb := "fly to "
			if v.mover%3 == 2 {
				verb = "move the Durriken to "
			}
			m.Words, m.Help = verb+where, "one step of the move (or the whole of a quickroute); you may pass other pieces but must end on a free space"
		}
	case a < ActShip:
		k := actionCard(a, v.sk)
		c := cardOf("", k)
		m.Target = v.handCards(k)
		m.Words, m.Help = v.cardWords(k, c.Name)
		if v.phase == PhWay && !v.discards && k < KindFuel && v.mover >= 0 {
			dest := planetOfCard(k)
			if v.seatB(v.turn)[SeatCargo+v.mover%3] != 0 {
				dest = Planet(k/8, 2)
			}
			m.Target = append(m.Target, SpaceName(dest))
		}
	case a < ActDurriken:
		k := a - ActShip
		m.Words, m.Help = fmt.Sprintf("move starship %d", k+1), "then choose how: a fuel card, a planet-card warp, the base move of 2 or an Afterburner (each ship once a turn)"
		m.Target = []string{pieceID(3*v.seat + k)}
	case a == ActDurriken:
		m.Words, m.Help = "move the Durriken", "warp it with a Durriken card to a planet of that number, or (once deployed) move it up to 3 spaces"
		m.Target = []string{pieceID(3*v.seat + 2)}
	case a == ActHire:
		m.Words, m.Help = "hire the Durriken", "free, once: a hired Durriken can move and raid, and be raided"
		m.Target = []string{pieceID(3*v.seat + 2)}
	case a == ActEndMoves:
		m.Words, m.Help = "end your moves: play The Gambit", "turn up the top card: take it, or guess whether the next is higher or lower"
	case a == ActBase:
		pts := baseShipMove
		if v.mover%3 == 2 {
			pts = baseDurrikenMove
		}
		m.Words, m.Help = fmt.Sprintf("base move: up to %d spaces", pts), "move without a card"
	case a == ActStop:
		m.Words, m.Help = "stop here", "end the move on this space"
		if v.moverAt >= 0 {
			m.Target = []string{SpaceName(v.moverAt)}
		}
	case a == ActClaim, a == ActClaimBlokk:
		m.Words, m.Help = "claim this caravan space with a caravan", "three caravans of yours along a route make a quickroute: one move from planet to planet"
		if a == ActClaimBlokk {
			m.Words, m.Help = "claim this caravan space with a BLOKK", "a BLOKK counts as a caravan, and other pilots may not enter the space"
		}
		if v.moverAt >= 0 {
			m.Target = []string{SpaceName(v.moverAt)}
		}
	case a == ActNoClaim:
		m.Words, m.Help = "leave the caravan space unclaimed", "keep your caravans for later"
	case a < ActNoCard:
		r, k := (a-ActRaid)/3+1, (a-ActRaid)%3
		q := v.pilot(r)
		m.Words = fmt.Sprintf("raid pilot %d's %s", q, pieceWord(k))
		m.Help = "costs 1 point: both choose a hidden card and roll a d6, highest total wins (ties to the defender); the winner takes the loser's card, a beaten starship flees"
		m.Select, m.Target = moverID(), []string{pieceID(3*q + k)}
	case a == ActNoCard:
		m.Words, m.Help = "fight without a card", "only your die (and a Durriken's random card) counts"
	case a == ActTakeCard:
		m.Words, m.Help = "take the loser's card", "the card the loser played comes to your hand"
	case a == ActDrawCard:
		m.Words, m.Help = "draw a card from the deck", "instead of the loser's card"
	case a == ActTake:
		m.Words, m.Help = "take the cards up", "they come to your hand and your turn ends"
		m.Target = []string{"gambit"}
	case a == ActHigher, a == ActLower:
		dir := "higher"
		if a == ActLower {
			dir = "lower"
		}
		m.Words = "guess the next card is " + dir
		m.Help = "right: take the cards or guess again (three at most); equal: a push; wrong: the cards are discarded and you draw one"
	case a == ActCashIn:
		m.Words, m.Help = "cash in the push for a Captain's card", "the cards up are discarded and you draw a Captain's Card"
	case a == ActPass:
		m.Words, m.Help = "pass (keep your cards)", "every landing on a planet asks; passing tells nobody whether you hold its card"
	}
	return m
}

// handCards returns the ids of the observer's hand cards of kind k.
func (v *view) handCards(k int) []string {
	i := obsKind(k, v.sk)
	var ids []string
	for j := range int(v.obs[OffHand+i]) {
		ids = append(ids, handCardID(v.seat, k, j))
	}
	return ids
}

// cardWords says what playing card k (named name) does in this phase.
func (v *view) cardWords(k int, name string) (string, string) {
	switch {
	case v.discards:
		return "discard " + name, "the Rekkoning: discard down to five cards"
	case v.phase == PhMain && k == KindSalvage:
		return "play Salvage: draw 2 cards", "a Captain's Card, played any time in your turn"
	case v.phase == PhMain && k < KindFuel:
		return "pay " + name + " for a Captain's card", "a planet card or two fuel cards buy one Captain's draw, once a turn"
	case v.phase == PhMain || v.phase == PhSellFuel:
		return "pay " + name + " towards a Captain's card", "two fuel cards buy one Captain's draw, once a turn"
	case v.phase == PhWay && k < KindFuel:
		return "warp to " + name, "the ship jumps to that planet (a ship carrying its scientist only to a planet 2); it counts as the ship's move"
	case v.phase == PhWay && k < KindDurriken:
		return fmt.Sprintf("fly up to %d spaces with %s", Value(k), name), "a fuel card moves up to its value"
	case v.phase == PhWay && k < KindRekkoning:
		return fmt.Sprintf("warp the Durriken to a planet numbered %d", Value(k)), "then choose the sektor; the trade routes ending there are destroyed"
	case v.phase == PhWay && k == KindAfterburner:
		return "Afterburner: fly up to 10 spaces", "a Captain's Card: a fuel card of 10"
	case v.phase == PhRaidA || v.phase == PhRaidD:
		return "fight with " + name + " (hidden)", fmt.Sprintf("its value (%d) adds to your d6; the winner takes the loser's card", Value(k))
	case v.phase == PhLand:
		return "discard " + name + " for a Captain's card", "the card of the planet you landed on buys a Captain's draw"
	}
	return "play " + name, ""
}

// HowToPlay returns the rules in plain words (env.Presenter), with the
// assumptions of docs/rules/pilots-of-gallaxia.md a player meets.
func (Game) HowToPlay() string {
	return `Pilots of Gallaxia is a space race for 2-6 pilots. Six sektors ring a sun (Assumption 3: seats take spread-out sektors). Your scientist is held on planet 4 of the opposite sektor: fly a starship there, pick it up and bring it into your own hangar to win (the Rookie Run). Each sektor has a hangar, a LAIR, eight planets, a Teleprism and a vortex, joined by trade routes of three caravan spaces (Assumption 1: the board's picture is lost; this one is ours).

A turn: any number of main actions, then The Gambit. Move each starship once (Assumption 9): burn a fuel card (up to its value in spaces), warp with a planet card onto that planet (a ship carrying a scientist only to a planet 2, Assumption 10), take the base move of 2, or play an Afterburner (10). You may pass other pieces but must stop on a free space (Assumption 13: else on the last free one passed). Entering a Teleprism throws you to the Teleprism of the sektor a die picks; you slide off onto a caravan space beside it (Assumption 17, Assumption 18). In v2 only a Durriken hops between vortices (Assumption 2).

Caravans: a starship entering a free caravan space may claim it with a caravan or a BLOKK (12 caravans, 2 BLOKKs, Assumption 6). Three of yours along a route make a quickroute, crossed in one move. Other pilots may not enter your BLOKKs.

Raids: a moving piece may spend 1 point to raid a neighbouring starship or hired Durriken (once a move, Assumption 19, Assumption 20; v2: not from inside a hangar, Assumption 30). Both sides choose a hidden card and roll a d6; ties go to the defender. The winner takes the loser's card or draws; a beaten starship flees to a planet picked by dice (Assumption 22) and drops any scientist it carried. Your Durriken (hire it for free, Assumption 11) warps with a Durriken card to a planet of that number, destroying the trade routes there (Assumption 23), and then moves 3 a turn.

Cards: planet, fuel (3-8) and Durriken (1-8) cards, and the Rekkoning (Assumption 4); Captain's Cards Afterburner, Deflector (a raid card of 9) and Salvage (draw 2) (Assumption 5), bought once a turn for a planet card or two fuel cards (Assumption 12), or by discarding the card of a planet you land on. Discard piles are public (Assumption 7). The Gambit: turn up the top card; take it, or guess higher or lower, up to three cards; a tie is a push (cash it in for a Captain's card, Assumption 24); a wrong guess loses the cards. When the Rekkoning turns up, everyone discards down to five; a drawn Rekkoning is replaced by another card (Assumption 25).

More of what you meet: the highest d6 starts, ties roll again (Assumption 8). Only starships claim (Assumption 14); a quickroute is crossed in one step with no claims or raids (Assumption 15); you pick up your own scientist by entering its space (Assumption 16). A Durriken's random card in a raid can be the Rekkoning, which ends the turn (Assumption 21). When you land on a planet you are always asked whether to discard its card for a Captain's card, so passing tells nobody what you hold (Assumption 29). With common hideouts, yellow rings appear on ring-free planets (Assumption 26). In A New Life you score countdown points (a completed route between two planets whose cards you hold: 4, Assumption 27; your scientist picked up and brought home; a raid won) and the first to 6 wins (Assumption 28).`
}
