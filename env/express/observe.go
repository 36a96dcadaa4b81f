package express

import (
	"encoding/binary"

	"github.com/galaxygym/galaxygym/env"
)

// Observation layout: a flat uint8 vector of ObsSize bytes, seat-relative
// (block j of the per-player part is the player j seats after the observer,
// clockwise; blocks past the number of players are zero). Nothing of other
// hands, of the draw pile's order or of another player's locomotives shows.
const (
	OffPhase     = 0                      // PhaseDraw .. PhaseOver
	OffActor     = 1                      // the player to act, seat-relative
	OffDir       = 2                      // 0 clockwise, 1 counterclockwise
	OffRound     = 3                      // round of the hand, 1-based (capped 255)
	OffHandNo    = 4                      // hand of the game, 1-based (capped 255)
	OffFirst     = 5                      // 1 while some player has not completed a turn this hand
	OffDeck      = 6                      // cards in the draw pile
	OffDiscN     = 7                      // cards in the discard pile
	OffTopDisc   = 8                      // kind+1 of the top discard, 0 none
	OffTopSlot   = 9                      // kind+1 of the newest card of the disaster slot, 0 none
	OffTT        = 10                     // Turntables played this hand
	OffResh      = 11                     // draw pile rebuilds this hand
	OffTrans     = 12                     // 1: a Wild played this turn became a transition (no going out)
	OffSwapped   = 13                     // 1: the acting player has swapped a locomotive this turn
	OffPendKind  = 14                     // kind+1 of the Disaster awaiting a block decision, 0 none
	OffPendBy    = 15                     // its attacker, seat-relative
	OffPendTrain = 16                     // its target train + 1 (0: Derailment)
	OffPendOwn   = 17                     // the attacker's train + 1 for Switch Engines
	OffPlayers   = 18                     // number of players
	OffHTurns    = 19                     // turns completed this hand, little-endian uint16
	OffTurns     = 21                     // turns completed this episode, little-endian uint16 (capped)
	OffPendT     = 23                     // the acting player's train that must get its next car now + 1, 0 none
	OffHand      = 24                     // own hand: count per kind (24)
	OffDiscards  = OffHand + NumKinds     // discard pile: count per kind (24)
	OffRecent    = OffDiscards + NumKinds // newest discards, newest first: kind+1 (RecentDiscards)
	OffSlot      = OffRecent + RecentDiscards
	OffAside     = OffSlot + NumKinds  // set-aside stuck hands: count per kind
	OffPlayer    = OffAside + NumKinds // per-player blocks of PlayerBytes
	ObsSize      = OffPlayer + MaxPlayers*PlayerBytes

	RecentDiscards = 8
)

// Offsets inside a player block.
const (
	PPresent    = 0  // 1 for a seat in play
	PHandSize   = 1  // cards in hand
	PScore      = 2  // total score + 32768, little-endian uint16
	PDerail     = 4  // turns to skip
	PTrains     = 5  // trains on the table
	PPlayed     = 6  // completed a turn this hand
	PWay        = 7  // Way Cars in play per kind (5)
	PPerm       = 12 // 1: that Way Car is permanent (blocked) (5)
	PKnown      = 17 // cards known to be in hand, per kind (24; A26)
	PTrain      = PKnown + NumKinds
	PlayerBytes = PTrain + MaxTrains*TrainBytes
)

// Offsets inside a train block.
const (
	TLoco      = 0 // 0 no train, 1 a face-down locomotive, 2+kind the observer's own locomotive
	TLen       = 1 // cars
	TFlags     = 2 // bit 0 started this turn, bit 1 its end Wild was played this turn
	TCars      = 3 // car codes in order (see the car codes of state.go)
	TrainBytes = TCars + MaxCars
)

// layout names every byte of the observation, from the offsets above;
// Spec().ObservationLayout holds a copy (the same for express-v1 and
// express-v2).
var layout = env.ObsLayout{
	env.CodeField("phase", OffPhase, []int{1}, 4, "phase: 0 draw, 1 meld, 2 block, 3 over"),
	env.CodeField("actor", OffActor, []int{1}, MaxPlayers, "the player to act, seat-relative (0 the observer)"),
	env.Field("direction", OffDir, []int{1}, "0 clockwise, 1 counterclockwise"),
	env.Field("round", OffRound, []int{1}, "round of the hand, 1-based (capped 255)"),
	env.Field("hand_number", OffHandNo, []int{1}, "hand of the game, 1-based (capped 255)"),
	env.Field("first_round", OffFirst, []int{1}, "1 while some player has not completed a turn this hand"),
	env.Field("deck", OffDeck, []int{1}, "cards in the draw pile"),
	env.Field("discards_count", OffDiscN, []int{1}, "cards in the discard pile"),
	env.CodeField("top_discard", OffTopDisc, []int{1}, NumKinds+1, "kind+1 of the top discard, 0 none"),
	env.CodeField("top_slot", OffTopSlot, []int{1}, NumKinds+1, "kind+1 of the newest card of the disaster slot, 0 none"),
	env.Field("turntables", OffTT, []int{1}, "Turntables played this hand"),
	env.Field("reshuffles", OffResh, []int{1}, "draw pile rebuilds this hand"),
	env.Field("transition", OffTrans, []int{1}, "1: a Wild played this turn became a transition (no going out)"),
	env.Field("swapped", OffSwapped, []int{1}, "1: the acting player has swapped a locomotive this turn"),
	env.CodeField("pending_kind", OffPendKind, []int{1}, NumKinds+1, "kind+1 of the Disaster awaiting a block decision, 0 none"),
	env.CodeField("pending_by", OffPendBy, []int{1}, MaxPlayers, "the pending Disaster's attacker, seat-relative"),
	env.CodeField("pending_train", OffPendTrain, []int{1}, MaxTrains+1, "the pending Disaster's target train + 1 (0: Derailment)"),
	env.CodeField("pending_own", OffPendOwn, []int{1}, MaxTrains+1, "the attacker's own train + 1 for Switch Engines, 0 otherwise"),
	env.Field("players", OffPlayers, []int{1}, "number of players"),
	env.Field("hand_turns", OffHTurns, []int{2}, "turns completed this hand, little-endian uint16"),
	env.Field("turns", OffTurns, []int{2}, "turns completed this episode, little-endian uint16 (capped)"),
	env.CodeField("pending_train_next", OffPendT, []int{1}, MaxTrains+1, "the acting player's train that must get its next car now + 1, 0 none"),
	env.Field("hand", OffHand, []int{NumKinds}, "own hand: count per card kind"),
	env.Field("discards", OffDiscards, []int{NumKinds}, "discard pile: count per card kind"),
	env.CodeField("recent_discards", OffRecent, []int{RecentDiscards}, NumKinds+1, "newest discards, newest first: kind+1, 0 none"),
	env.Field("slot", OffSlot, []int{NumKinds}, "the disaster slot: count per card kind"),
	env.Field("aside", OffAside, []int{NumKinds}, "set-aside stuck hands: count per card kind"),
	env.Field("player_blocks", OffPlayer, []int{MaxPlayers, PlayerBytes},
		"per seat-relative player (zero past the number of players): 0 present, 1 cards in hand, 2-3 total score + 32768 "+
			"(little-endian uint16), 4 turns to skip, 5 trains on the table, 6 completed a turn this hand, 7-11 Way Cars in play per kind, "+
			"12-16 that Way Car is permanent, 17-40 cards known to be in hand per kind, then from byte 41 six trains of 19 bytes "+
			"(0 locomotive: 0 none, 1 face down, 2+kind the observer's own; 1 cars; 2 flags: bit 0 started this turn, bit 1 end Wild "+
			"played this turn; 3-18 car codes: 1+kind, 30+type a Wild as that section type, 36 an undeclared end Wild, 37 a transition)"),
}

// spreadBits[m] has byte w set to bit w of m: the permanent Way Car bytes
// of a player's block, eight kinds of a legal-action mask (writeKinds).
var spreadBits = func() (t [256]uint64) {
	for m := range t {
		for w := 0; w < 8; w++ {
			t[m] |= uint64(m>>w&1) << (8 * w)
		}
	}
	return t
}()

// Observe writes player's observation into dst (len ObsSize). It allocates
// nothing. Every byte is written once, the blocks past the number of
// players cleared, so that nothing is cleared first (TestObserveMatchesReference
// checks it against the former implementation over zeroed and dirty
// buffers).
func (s *State) Observe(player int, dst []uint8) {
	dst = dst[:ObsSize]
	s.observeTable(player, dst)
	n := s.n
	for j, q := 0, player; j < n; j++ {
		s.observePlayer(q, q == player, (*[PlayerBytes]uint8)(dst[OffPlayer+j*PlayerBytes:]))
		if q++; q == n {
			q = 0
		}
	}
	clear(dst[OffPlayer+n*PlayerBytes:])
}

// flagByte returns 1 for true, 0 for false.
func flagByte(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// observeTable writes the observation's bytes before the player blocks.
func (s *State) observeTable(player int, dst []uint8) {
	h := (*[OffPlayer]uint8)(dst)
	n := s.n
	rel := func(q int) uint8 {
		if q -= player; q < 0 {
			q += n
		}
		return uint8(q)
	}
	h[OffPhase] = uint8(s.phase)
	h[OffActor] = 0
	if s.phase != PhaseOver {
		h[OffActor] = rel(s.CurrentPlayer())
	}
	h[OffDir] = flagByte(s.dir < 0)
	h[OffRound] = uint8(min(s.hturns/n+1, 255))
	h[OffHandNo] = uint8(min(s.hand+1, 255))
	h[OffFirst] = flagByte(s.firstRound())
	h[OffDeck] = uint8(s.deckN)
	h[OffDiscN] = uint8(s.discN)
	h[OffTopDisc] = 0
	if s.discN > 0 {
		h[OffTopDisc] = s.disc[s.discN-1] + 1
	}
	h[OffTopSlot] = uint8(s.top + 1)
	h[OffTT] = uint8(s.tt)
	h[OffResh] = uint8(s.resh)
	h[OffTrans] = flagByte(s.trans)
	h[OffSwapped] = flagByte(s.swapped)
	h[OffPendKind], h[OffPendBy], h[OffPendTrain], h[OffPendOwn] = 0, 0, 0, 0
	if s.pend.kind >= 0 {
		h[OffPendKind] = uint8(BrokenCar + int(s.pend.kind) + 1)
		h[OffPendBy] = rel(int(s.pend.by))
		h[OffPendTrain] = uint8(s.pend.train + 1)
		h[OffPendOwn] = uint8(s.pend.own + 1)
	}
	h[OffPlayers] = uint8(n)
	ht := min(s.hturns, 65535)
	h[OffHTurns], h[OffHTurns+1] = uint8(ht), uint8(ht>>8)
	tu := min(s.turns, 65535)
	h[OffTurns], h[OffTurns+1] = uint8(tu), uint8(tu>>8)
	h[OffPendT] = 0
	if s.phase == PhaseMeld {
		h[OffPendT] = uint8(s.pendT + 1)
	}
	*(*[NumKinds]uint8)(h[OffHand:]) = s.pl[player].hand
	// The counts are made in place and the newest discards in a word: a
	// local array of bytes read back as words waits for its byte stores.
	counts := (*[NumKinds]uint8)(h[OffDiscards:])
	*counts = [NumKinds]uint8{}
	disc := s.disc[:s.discN]
	for _, k := range disc {
		counts[k]++
	}
	recent := uint64(0)
	for i := 0; i < RecentDiscards && i < len(disc); i++ {
		recent |= uint64(disc[len(disc)-1-i]+1) << (8 * i)
	}
	binary.LittleEndian.PutUint64(h[OffRecent:], recent)
	*(*[NumKinds]uint8)(h[OffSlot:]) = s.slot
	*(*[NumKinds]uint8)(h[OffAside:]) = s.aside
}

// observePlayer writes player q's block; own: q is the observer.
func (s *State) observePlayer(q int, own bool, b *[PlayerBytes]uint8) {
	p := &s.pl[q]
	b[PPresent] = 1
	b[PHandSize] = p.handN
	sc := uint16(int32(p.score) + 32768)
	b[PScore], b[PScore+1] = uint8(sc), uint8(sc>>8)
	b[PDerail] = p.derail
	b[PPlayed] = flagByte(p.played)
	*(*[numWayKinds]uint8)(b[PWay:]) = p.way
	pw := spreadBits[p.perm&(1<<numWayKinds-1)] // one byte per kind
	binary.LittleEndian.PutUint32(b[PPerm:], uint32(pw))
	b[PPerm+4] = uint8(pw >> 32)
	*(*[NumKinds]uint8)(b[PKnown:]) = p.known
	trains := uint8(0)
	for t := range p.trains {
		tr := &p.trains[t]
		o := (*[TrainBytes]uint8)(b[PTrain+t*TrainBytes:])
		if tr.loco < 0 {
			*o = [TrainBytes]uint8{}
			continue
		}
		trains++
		o[TLoco] = 1
		if own {
			o[TLoco] = uint8(2 + tr.loco)
		}
		o[TLen] = tr.n
		o[TFlags] = tr.flags
		// The cars as two words, the bytes past the train's length
		// masked off to zero (a shift of 64 or more gives 0 in Go).
		k := uint(tr.n)
		lo := binary.LittleEndian.Uint64(tr.cars[0:8]) & (1<<(8*k) - 1)
		hi := binary.LittleEndian.Uint64(tr.cars[8:16]) & (^uint64(0) >> (128 - 8*k))
		binary.LittleEndian.PutUint64(o[TCars:], lo)
		binary.LittleEndian.PutUint64(o[TCars+8:], hi)
	}
	b[PTrains] = trains
}

// obsHigh returns the inclusive upper bound of every observation byte.
func obsHigh() []uint8 {
	h := make([]uint8, ObsSize)
	h[OffPhase] = PhaseOver
	h[OffActor] = MaxPlayers - 1
	h[OffDir] = 1
	h[OffRound], h[OffHandNo] = 255, 255
	h[OffFirst] = 1
	h[OffDeck], h[OffDiscN] = DeckSize, DeckSize
	h[OffTopDisc], h[OffTopSlot] = NumKinds, NumKinds
	h[OffTT] = 3
	h[OffResh] = maxReshuffles
	h[OffTrans], h[OffSwapped] = 1, 1
	h[OffPendKind] = Wreck + 1
	h[OffPendBy] = MaxPlayers - 1
	h[OffPendTrain], h[OffPendOwn] = MaxTrains, MaxTrains
	h[OffPlayers] = MaxPlayers
	for i := OffHTurns; i < OffHTurns+4; i++ {
		h[i] = 255
	}
	h[OffPendT] = MaxTrains
	for k := 0; k < NumKinds; k++ {
		c := uint8(kinds[k].Count)
		h[OffHand+k], h[OffDiscards+k], h[OffSlot+k], h[OffAside+k] = c, c, c, c
	}
	for i := 0; i < RecentDiscards; i++ {
		h[OffRecent+i] = NumKinds
	}
	for j := 0; j < MaxPlayers; j++ {
		b := h[OffPlayer+j*PlayerBytes : OffPlayer+(j+1)*PlayerBytes]
		b[PPresent] = 1
		b[PHandSize] = DeckSize
		b[PScore], b[PScore+1] = 255, 255
		b[PDerail] = uint8(kinds[Derailment].Count)
		b[PTrains] = MaxTrains
		b[PPlayed] = 1
		for w := 0; w < numWayKinds; w++ {
			b[PWay+w] = uint8(kinds[LightCrane+w].Count)
			b[PPerm+w] = 1
		}
		for k := 0; k < NumKinds; k++ {
			b[PKnown+k] = uint8(kinds[k].Count)
		}
		for t := 0; t < MaxTrains; t++ {
			o := b[PTrain+t*TrainBytes : PTrain+(t+1)*TrainBytes]
			o[TLoco] = NumKinds + 1
			o[TLen] = MaxCars
			o[TFlags] = flagNew | flagWildNew
			for c := 0; c < MaxCars; c++ {
				o[TCars+c] = carMax
			}
		}
	}
	return h
}

// String renders the public table (what every player sees: no hand, no
// locomotive identity, no draw pile order).
func (s *State) String() string { return s.render(-1) }
