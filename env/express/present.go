package express

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/galaxygym/galaxygym/env"
)

// The scene (env.Presenter): Express is a card game, so the scene has no
// board (Width and Height 0) and everything is a zone of cards. Zone ids,
// the same in every seat's scene:
//
//	draw-pile            the draw pile, face down (Count)
//	discard-pile         the newest discards face up (top last), Count the pile's size
//	disaster-slot        the newest card of the disaster slot, Count the slot's size
//	set-aside            set-aside stuck hands, face up
//	hand-S               player S's hand: the observer's face up and Private, another's
//	                     face down (Count; the cards known to be in it are a seat fact)
//	way-S                player S's Way Cars in play
//	train-S-T            player S's train slot T: the locomotive (face up and Private to
//	                     its owner, env.FaceDown to the others), then the cars; the
//	                     observer's first free slot is shown empty (ObserverOnly:
//	                     no public part) while a train may be started
//
// Card ids: hand-S-KK-i (the i-th card of kind KK in the hand), train-S-T-loco,
// train-S-T-cI (car I), discard-I (I-th card of the pile from the bottom),
// slot-top, aside-KK-i, way-S-KK-i. Seats are "player S", as the renders
// and action names call them.

// Colours of the card families, as render.go draws them.
var (
	freightColors = [5]string{"#96643c", "#82828c", "#3c6ebe", "#c8d2dc", "#c83c3c"}
	classColor    = map[string]string{"passenger": "#3ca05a", "wild": "#f0c828", "caboose": "#aa1e1e",
		"disaster": "#7a3b69", "way": "#2a6f97", "turntable": "#5b5b66"}
)

// kindClass returns the family of card kind k (freight, passenger, wild,
// caboose, disaster, way or turntable).
func kindClass(k int) string {
	switch {
	case k <= AutoCarrier:
		return "freight"
	case k <= Diesel:
		return "passenger"
	case k == Wild:
		return "wild"
	case k == Caboose:
		return "caboose"
	case k <= Wreck:
		return "disaster"
	case k <= HeavyCrane:
		return "way"
	}
	return "turntable"
}

// kindCard is a face-up card of kind k with id.
func kindCard(id string, k int) env.Card {
	c := env.Card{ID: id, Code: kinds[k].Code, Name: kinds[k].Name, Class: kindClass(k), Value: kinds[k].Value}
	if k <= AutoCarrier {
		c.Color = freightColors[k]
	} else {
		c.Color = classColor[c.Class]
	}
	return c
}

// carCard is the card of car code c (as it lies in a train) with id.
func carCard(id string, c uint8) env.Card {
	if c < carWildAs {
		return kindCard(id, int(c)-1)
	}
	card := kindCard(id, Wild)
	card.Code = carText(c)
	switch {
	case c == carWildOpen:
		card.Name = "Wild Car (undeclared: the next car decides it)"
	case c == carWildLink:
		card.Name, card.Value = "Wild Car (transition: scores nothing)", 0
	case int(c)-carWildAs == typePassenger:
		card.Name, card.Value = "Wild Car as a passenger car", 1
	default:
		ty := int(c) - carWildAs
		card.Name, card.Value, card.Color = "Wild Car as "+kinds[ty].Name, kinds[ty].Value, freightColors[ty]
	}
	return card
}

// countCards appends the cards of counts (per kind, in kind order) with ids
// prefix-KK-i.
func countCards(dst []env.Card, prefix string, counts []uint8) []env.Card {
	for k, n := range counts {
		for i := range int(n) {
			dst = append(dst, kindCard(fmt.Sprintf("%s-%s-%d", prefix, kinds[k].Code, i), k))
		}
	}
	return dst
}

func trainID(s, t int) string { return fmt.Sprintf("train-%d-%d", s, t) }

func handID(s int) string { return "hand-" + strconv.Itoa(s) }

// Present returns seat's scene (env.Presenter) from seat's observation: the
// piles, every player's hand (seat's own face up), Way Cars and trains, the
// players' scores and one move per legal action, which names the hand card
// played (Select) and the train, player or pile it goes to (Target).
func (g Game) Present(p env.Params, seat int, obs []uint8, legal []int) (*env.Scene, error) {
	n := p.Int(env.PlayersParam)
	if len(obs) != ObsSize || int(obs[OffPlayers]) != n || seat < 0 || seat >= n {
		return nil, &env.SceneError{EnvID: g.ID(), Reason: fmt.Sprintf("observation of %d bytes for seat %d of %d", len(obs), seat, n)}
	}
	abs := func(r int) int { return (seat + r) % n }
	block := func(q int) []uint8 {
		j := (q - seat + n) % n
		return obs[OffPlayer+j*PlayerBytes : OffPlayer+(j+1)*PlayerBytes]
	}
	sc := &env.Scene{Zones: []env.Zone{}, Spaces: []env.Space{}, Pieces: []env.Piece{}, Moves: []env.Move{}}

	sc.Zones = append(sc.Zones, pileZones(obs)...)

	// The players' zones.
	startable := false
	for _, a := range legal {
		if a >= ActStart && a < ActAdd {
			startable = true
		}
	}
	for q := range n {
		b := block(q)
		hand := env.Zone{ID: handID(q), Name: fmt.Sprintf("player %d's hand", q), Owner: q, Cards: []env.Card{}}
		if q == seat {
			hand.Private = true
			hand.Cards = countCards(hand.Cards, hand.ID, obs[OffHand:OffHand+NumKinds])
		} else {
			hand.Count = int(b[PHandSize])
		}
		sc.Zones = append(sc.Zones, hand)
		way := env.Zone{ID: fmt.Sprintf("way-%d", q), Name: fmt.Sprintf("player %d's Way Cars", q), Owner: q, Cards: []env.Card{}}
		for w := range numWayKinds {
			for i := range int(b[PWay+w]) {
				c := kindCard(fmt.Sprintf("way-%d-%s-%d", q, kinds[LightCrane+w].Code, i), LightCrane+w)
				if b[PPerm+w] != 0 {
					c.Name += " (blocked: cannot be taken away)"
				}
				way.Cards = append(way.Cards, c)
			}
		}
		sc.Zones = append(sc.Zones, way)
		free := true
		for t := range MaxTrains {
			o := b[PTrain+t*TrainBytes : PTrain+(t+1)*TrainBytes]
			id := trainID(q, t)
			if o[TLoco] == 0 {
				if q == seat && startable && free {
					// A place for the observer's moves only: not public.
					sc.Zones = append(sc.Zones, env.Zone{ID: id, Name: fmt.Sprintf("player %d's new train", q), Owner: q,
						Cards: []env.Card{}, ObserverOnly: true})
				}
				free = false
				continue
			}
			tr := env.Zone{ID: id, Name: fmt.Sprintf("player %d's train t%d", q, t), Owner: q, Cards: []env.Card{}}
			if o[TLoco] >= 2 {
				// The observer's own locomotive: face up to it alone.
				loco := kindCard(id+"-loco", int(o[TLoco])-2)
				loco.Name, loco.Private = "locomotive: "+loco.Name, true
				tr.Cards = append(tr.Cards, loco)
			} else {
				tr.Cards = append(tr.Cards, env.FaceDown(id+"-loco"))
			}
			for i := range int(o[TLen]) {
				tr.Cards = append(tr.Cards, carCard(fmt.Sprintf("%s-c%d", id, i), o[TCars+i]))
			}
			sc.Zones = append(sc.Zones, tr)
		}
	}

	// Seats.
	for q := range n {
		sc.Seats = append(sc.Seats, seatFacts(q, block(q)))
	}

	// Status or the end.
	phase := int(obs[OffPhase])
	if phase == PhaseOver {
		sc.Ended = expressEnded(p, obs, n, block)
	} else {
		dir := "clockwise"
		if obs[OffDir] == 1 {
			dir = "counterclockwise"
		}
		actor := abs(int(obs[OffActor]))
		what := map[int]string{PhaseDraw: "draws", PhaseMeld: "melds", PhaseBlock: "decides whether to block"}[phase]
		sc.Status = fmt.Sprintf("hand %d, round %d, play goes %s: player %d %s", obs[OffHandNo], obs[OffRound], dir, actor, what)
		if k := int(obs[OffPendKind]); k > 0 {
			by := abs(int(obs[OffPendBy]))
			target := fmt.Sprintf("player %d", actor)
			if t := int(obs[OffPendTrain]); t > 0 {
				target = fmt.Sprintf("player %d's train t%d", actor, t-1)
			}
			sc.Status += fmt.Sprintf(" (player %d played %s on %s)", by, kinds[k-1].Name, target)
		}
		if obs[OffFirst] == 1 {
			sc.Status += "; first round: no Disasters, nobody goes out"
		}
	}

	// Moves.
	hand := obs[OffHand : OffHand+NumKinds]
	inHand := func(k int) []string {
		ids := make([]string, 0, hand[k])
		for i := range int(hand[k]) {
			ids = append(ids, fmt.Sprintf("%s-%s-%d", handID(seat), kinds[k].Code, i))
		}
		return ids
	}
	for _, a := range legal {
		sc.Moves = append(sc.Moves, g.move(a, seat, n, obs, inHand))
	}
	return sc, nil
}

// expressEnded says how the game ended: after how many hands, why, and who
// won with what total.
func expressEnded(p env.Params, obs []uint8, n int, block func(q int) []uint8) string {
	hands := int(obs[OffHandNo]) - 1
	best, winners := 0, []string{}
	reached := false
	for q := range n {
		b := block(q)
		s := int(uint16(b[PScore])|uint16(b[PScore+1])<<8) - 32768
		if s >= p.Int("target") {
			reached = true
		}
		switch {
		case len(winners) == 0 || s > best:
			best, winners = s, []string{strconv.Itoa(q)}
		case s == best:
			winners = append(winners, strconv.Itoa(q))
		}
	}
	why := fmt.Sprintf("the game is over after %d hands", hands)
	switch {
	case hands == 1:
		why = "the game is over after 1 hand"
	}
	switch {
	case reached:
		why += fmt.Sprintf(" (a total reached the target, %d)", p.Int("target"))
	case p.Bool("hand_only"):
		why += " (one hand a game)"
	case hands >= p.Int("max_hands"):
		why += " (the last hand)"
	default:
		why += " (the turn limit)"
	}
	if len(winners) == 1 {
		return fmt.Sprintf("%s: player %s wins with %d points", why, winners[0], best)
	}
	return fmt.Sprintf("%s: players %s share first place with %d points", why, strings.Join(winners, " and "), best)
}

// move is legal action a of seat in scene words; inHand gives the ids of
// seat's hand cards of a kind.
func (g Game) move(a, seat, n int, obs []uint8, inHand func(k int) []string) env.Move {
	m := env.Move{A: a, Name: actionNames[a]}
	abs := func(r int) int { return (seat + r) % n }
	cardName := func(k int) string { return kinds[k].Name }
	switch {
	case a == ActDraw:
		m.Words, m.Help = "draw two cards", "take the top two cards of the draw pile into your hand"
	case a == ActTake:
		k := int(obs[OffTopDisc]) - 1
		m.Words = "take the top discard (" + cardName(k) + ")"
		m.Help = "take the top card of the discard pile into your hand instead of drawing two; everyone sees what you took"
		m.Select, m.Target = []string{"discard-" + strconv.Itoa(int(obs[OffDiscN])-1)}, []string{handID(seat)}
	case a < ActAdd:
		k := a - ActStart
		m.Words = "start a new train with " + cardName(k) + " as its locomotive"
		m.Help = "the card goes face down as a locomotive (a bank that never counts against you); the new train must get its first car at once"
		t := firstFree(obs)
		m.Select, m.Target = inHand(k), []string{trainID(seat, t)}
	case a < ActWild:
		t, k := (a-ActAdd)/addKinds, addKind((a-ActAdd)%addKinds)
		m.Words = fmt.Sprintf("add %s to train t%d", cardName(k), t)
		m.Help = "cars score at the end of the hand: freight its value per car, passenger cars 1 each, doubled for sets"
		if k == Caboose {
			m.Help = "a Caboose ends the train: nothing more can be added, and Broken Car and Steal Car cannot touch it"
		}
		m.Select, m.Target = inHand(k), []string{trainID(seat, t)}
	case a < ActSwap:
		t, w := (a-ActWild)/wildRoles, (a-ActWild)%wildRoles
		switch {
		case w == wildOpen:
			m.Words = fmt.Sprintf("add the Wild Car to train t%d undeclared", t)
			m.Help = "the next car decides it: a car of the same type makes it a match, another type makes it a transition (which scores nothing)"
		case w == typePassenger:
			m.Words = fmt.Sprintf("add the Wild Car to train t%d as a passenger car", t)
			m.Help = "a Wild in the first two places must be declared; it scores as the car it stands for"
		default:
			m.Words = fmt.Sprintf("add the Wild Car to train t%d as a %s", t, kinds[w].Name)
			m.Help = "a Wild in the first two places must be declared; it scores as the car it stands for"
		}
		m.Select, m.Target = inHand(Wild), []string{trainID(seat, t)}
	case a < ActWay:
		t, k := (a-ActSwap)/NumKinds, (a-ActSwap)%NumKinds
		m.Words = fmt.Sprintf("swap train t%d's locomotive for %s", t, cardName(k))
		m.Help = "the old locomotive comes back to your hand and the card goes face down in its place (once a turn)"
		m.Select, m.Target = inHand(k), []string{trainID(seat, t) + "-loco"}
	case a < ActHit:
		k := LightCrane + a - ActWay
		m.Words = "play " + cardName(k) + " as a Way Car"
		m.Help = fmt.Sprintf("it protects all your trains against %s and scores 2 at the end of the hand", kinds[k-LightCrane+BrokenCar].Name)
		m.Select, m.Target = inHand(k), []string{fmt.Sprintf("way-%d", seat)}
	case a < ActDerail:
		h, r, t := (a-ActHit)/36, (a-ActHit)%36/6, (a-ActHit)%6
		k, q := hitKinds[h], abs(r)
		m.Words = fmt.Sprintf("play %s on player %d's train t%d", cardName(k), q, t)
		if q == seat {
			m.Words = fmt.Sprintf("play %s on your own train t%d", cardName(k), t)
		}
		m.Help = map[int]string{
			BrokenCar: "the train's end car goes to the discard pile; ends your turn (stopped by a Light Crane)",
			StealCar:  "the train's end car comes to your hand; ends your turn (stopped by an Office)",
			Wreck:     "the whole train, locomotive included, goes to the discard pile; ends your turn (stopped by a Heavy Crane)",
		}[k]
		m.Select, m.Target = inHand(k), []string{trainID(q, t)}
	case a < ActSwitch:
		q := abs(a - ActDerail)
		m.Words = fmt.Sprintf("play Derailment on player %d", q)
		if q == seat {
			m.Words = "play Derailment on yourself"
		}
		m.Help = "that player loses the next turn; ends your turn (stopped by a Boom)"
		m.Select, m.Target = inHand(Derailment), []string{handID(q)}
	case a < ActTurntable:
		x := a - ActSwitch
		q, t, u := abs(x/36), x%36/6, x%6
		m.Words = fmt.Sprintf("play Switch Engines: player %d's train t%d takes your train t%d's locomotive and you take its", q, t, u)
		m.Help = "the two trains' locomotives change places; ends your turn (stopped by a Transfer)"
		m.Select, m.Target = []string{trainID(seat, u) + "-loco"}, []string{trainID(q, t) + "-loco"}
	case a == ActTurntable:
		m.Words = "play Turntable: reverse the direction and take another turn"
		m.Help = "play goes the other way round and you play a whole turn again at once"
		m.Select, m.Target = inHand(Turntable), []string{"disaster-slot"}
	case a == ActEndMeld:
		m.Words, m.Help = "end your turn (your hand is empty)", "with an empty hand the turn ends without a discard; you go out if your trains are long enough"
	case a < ActBlock:
		k := a - ActDiscard
		m.Words = "discard " + cardName(k)
		m.Help = "put the card on the discard pile, ending your turn; the next player may take it"
		if kindClass(k) == "disaster" || k == Turntable {
			m.Help += " (a discarded " + cardName(k) + " has no effect)"
		}
		m.Select, m.Target = inHand(k), []string{"discard-pile"}
	case a == ActBlock || a == ActLet:
		d := int(obs[OffPendKind]) - 1
		by := abs(int(obs[OffPendBy]))
		if d < BrokenCar {
			d = BrokenCar // not reached: a block decision always has its Disaster
		}
		way := LightCrane + d - BrokenCar
		if a == ActBlock {
			m.Words = fmt.Sprintf("block player %d's %s with your %s", by, cardName(d), cardName(way))
			m.Help = "the Disaster has no effect; your Way Car goes into play and can no longer be taken away, and you are immune to it for the rest of the hand"
			m.Select, m.Target = inHand(way), []string{fmt.Sprintf("way-%d", seat)}
		} else {
			m.Words = fmt.Sprintf("let player %d's %s happen", by, cardName(d))
			m.Help = "do not block (everyone is asked whether they hold the Way Car, so saying no tells nothing)"
		}
	case a == ActStuck:
		m.Words = "set your stuck hand aside and draw as many new cards"
		m.Help = "your hand cannot get down to five cards: it is shown, set aside face up, and you draw a new one"
	}
	return m
}

// firstFree returns the observer's first free train slot (where start-K
// puts the new train), or 0 when none is free (start is then not legal).
func firstFree(obs []uint8) int {
	for t := range MaxTrains {
		if obs[OffPlayer+PTrain+t*TrainBytes+TLoco] == 0 {
			return t
		}
	}
	return 0
}

// HowToPlay returns Express's rules in plain words (env.Presenter), with
// the assumptions of docs/rules/express.md a player meets.
func (Game) HowToPlay() string {
	return `Express is a railroad card game for 2-6 players. You build trains of cars behind face-down locomotives, attack other players' trains with Disasters, protect yours with Way Cars, and go out with long trains. After a hand the game ends when a total reaches the target (120; Assumption 23) or after 12 hands (Assumption 24); the highest total wins.

A turn: first draw two cards from the draw pile or take the top discard. Then meld as much as you like: start a train by putting any card face down as its locomotive (it must get its first car at once; at most six trains, Assumption 10), add cars to the end of your trains, swap one locomotive with a card from your hand once a turn (Assumption 11), play Way Cars. End the turn by discarding a card, or by playing a Disaster or a Turntable, with at most five cards left in hand. A discarded Disaster or Turntable has no effect (Assumption 12).

Trains: a freight train has cars of one freight type (Box 1 point, Tank 2, Container 3, Refrigerator 4, Auto Carrier 5 per car; the names of the middle three are Assumption 1). A passenger train mixes Mail/Baggage, Coach, Dome, Sleeper, Observation and Diesel cars, 1 point each (Assumption 2), doubled for the cars in that order, one of each of the five, a Diesel (a passenger car, Assumption 3), and all six Coaches. A Wild in the first two places is declared as a type; later it is played undeclared and the next car decides whether it matches or is a transition to a new section, which scores nothing (Assumption 21). A Caboose ends a train and protects it from Broken Car and Steal Car (Assumption 5).

Disasters (none in the first round): Broken Car (the end car is discarded), Steal Car (you take the end car), Wreck (the whole train is discarded), Switch Engines (two locomotives change places), Derailment (the player loses a turn). Each is stopped by its Way Car: Light Crane, Office, Heavy Crane, Transfer, Boom. A Way Car in play protects all your trains and scores 2 (Assumption 6); an attacked player holding the Way Car may block. A Disaster against a player who is immune does nothing, so it is not offered (Assumption 16); destroyed cards go to the discard pile (Assumption 17). A Turntable reverses play and gives you another turn at once (Assumption 13: it may be played in the first round).

Going out: end a turn with an empty hand and trains of at least 5, 4 and 3 cars (every other train 3 or more); it is automatic (Assumption 18) and scores 10 (5 with 4 players). Then every train scores, Way Cars score 2, and every card left in hand costs its value (Assumption 7; a Wild costs 5, Assumption 4). Locomotives never count (Assumption 22). A hand also ends, scored as it is, when the draw pile runs out after one rebuild (Assumption 19). If your hand is stuck above five cards with no play that reduces it, you set it aside face up and draw a new one (Assumption 14).

More you meet: each hand deals 12 cards (8 with 5-6 players, Assumption 8), player 0 starts the first hand and the start moves clockwise (Assumption 9); a round is as many turns as players (Assumption 15). A card taken from the discard pile or stolen is shown as known in its taker's hand (Assumption 26). When a Disaster hits you, you are asked whether to block whenever you might hold the Way Car, so the question tells nobody what you hold (Assumption 29). A Wild in a passenger train counts as the passenger car that scores best (Assumption 30).`
}

// pileZones are the table's piles seen in obs: the draw pile, the discard
// pile (its newest cards face up), the disaster slot and set-aside hands.
func pileZones(obs []uint8) []env.Zone {
	var zones []env.Zone
	zones = append(zones, env.Zone{ID: "draw-pile", Name: "draw pile", Owner: -1, Cards: []env.Card{}, Count: int(obs[OffDeck])})
	discN := int(obs[OffDiscN])
	disc := env.Zone{ID: "discard-pile", Name: "discard pile", Owner: -1, Cards: []env.Card{}}
	shown := 0
	for shown < RecentDiscards && obs[OffRecent+shown] != 0 {
		shown++
	}
	for i := shown - 1; i >= 0; i-- {
		disc.Cards = append(disc.Cards, kindCard("discard-"+strconv.Itoa(discN-1-i), int(obs[OffRecent+i])-1))
	}
	if shown < discN {
		disc.Count = discN
	}
	zones = append(zones, disc)
	slotN := 0
	for _, c := range obs[OffSlot : OffSlot+NumKinds] {
		slotN += int(c)
	}
	slot := env.Zone{ID: "disaster-slot", Name: "disaster slot", Owner: -1, Cards: []env.Card{}}
	if top := int(obs[OffTopSlot]); top > 0 {
		slot.Cards = append(slot.Cards, kindCard("slot-top", top-1))
	}
	if slotN > len(slot.Cards) {
		slot.Count = slotN
	}
	zones = append(zones, slot)
	aside := countCards([]env.Card{}, "aside", obs[OffAside:OffAside+NumKinds])
	if len(aside) > 0 {
		zones = append(zones, env.Zone{ID: "set-aside", Name: "set-aside hands", Owner: -1, Cards: aside})
	}
	return zones
}

// seatFacts are player q's public facts from its block b of the observation.
func seatFacts(q int, b []uint8) env.SeatFacts {
	f := env.SeatFacts{Name: "player " + strconv.Itoa(q),
		Score: fmt.Sprintf("%d points", int(uint16(b[PScore])|uint16(b[PScore+1])<<8)-32768)}
	f.Facts = append(f.Facts, fmt.Sprintf("%d cards in hand", b[PHandSize]), fmt.Sprintf("%d trains", b[PTrains]))
	var known []string
	for k, c := range b[PKnown : PKnown+NumKinds] {
		for range int(c) {
			known = append(known, kinds[k].Name)
		}
	}
	if len(known) > 0 {
		f.Facts = append(f.Facts, "known in hand: "+strings.Join(known, ", "))
	}
	if b[PDerail] > 0 {
		f.Facts = append(f.Facts, fmt.Sprintf("skips %d turns", b[PDerail]))
	}
	return f
}
