package pilotsofgallaxia

import (
	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/env/envtest"
)

// reveals is Pilots of Gallaxia's answer to the information-set test of
// envtest (envtest.Revealer, passed with envtest.RevealsBy): whether
// action, in position st, may show player something hidden from player
// before it. It reads only what player sees (the phase, whose decision it
// is, the board, the parameters). The steps that reveal:
//
//   - every draw from the Gallaxia deck, to everyone: a Rekkoning drawn is
//     shown and makes every pilot discard (Salvage, a raid's draws, The
//     Gambit's flips: end-moves, higher, lower);
//   - a Captain's draw, to the pilot who draws (a card bought with a
//     planet card or two fuel cards, the landing discard, a push cashed
//     in);
//   - the raid's resolution (the defender's card): both cards are shown,
//     the dice rolled, the loser flees to a d6+d8 planet;
//   - a step onto a Teleprism (the d6), and, with hideouts, any step or
//     slide that may deliver a ring home (the d6+d8 yellow rings);
//   - a claim in A New Life: a completed trade route scores only for the
//     holder of both planet cards, which the scoring shows.
func reveals(st env.State, player, action int) bool {
	s := st.(*State)
	p := s.CurrentPlayer()
	if p < 0 || s.discarder >= 0 {
		return false // discarding to the Rekkoning: the card is shown by its action
	}
	sk := int(s.sek[p])
	switch s.phase {
	case PhMain:
		switch action {
		case ActShip, ActShip + 1, ActDurriken, ActHire:
			return false
		case ActEndMoves:
			return true
		}
		switch k := actionCard(action, sk); {
		case k == KindSalvage:
			return true
		case k < KindFuel:
			return player == p
		}
		return false // the first fuel card of a purchase
	case PhSellFuel, PhLand:
		return player == p && action != ActPass
	case PhPath:
		if action == ActStop || (action >= ActRaid && action < ActRaid+15) {
			return false
		}
		y := actionNode(action, sk)
		return theBoard.kind[y] == KindTeleprism || (s.cfg.hideouts && theBoard.kind[y] == KindHangar)
	case PhSlide:
		return s.cfg.hideouts
	case PhClaim:
		return s.cfg.mode == ModeANewLife && action != ActNoClaim
	case PhRaidD, PhRaidWin:
		return true
	case PhGambit, PhPush:
		return action != ActTake
	}
	return false // PhWay, PhDWarp, PhRaidA
}

// infoSetFor returns the options of envtest's information-set test for
// environment id (pilots-of-gallaxia-v1 or a later version): reveals, and
// for pilots-of-gallaxia-v1 its landing leak, kept byte for
// byte (the landing discard is offered only when the pilot holds the card
// of the planet landed on, so the others learn it from the phase).
func infoSetFor(id string) envtest.Option {
	if id == "pilots-of-gallaxia-v1" {
		return envtest.Options(envtest.RevealsBy(reveals), envtest.KnownLeak("v1 landing leak: the landing "+
			"discard is offered only when the pilot holds the planet's card"))
	}
	return envtest.RevealsBy(reveals)
}
