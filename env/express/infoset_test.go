package express

import (
	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/env/envtest"
)

// reveals is Express's answer to the information-set test of envtest
// (envtest.Revealer, passed with envtest.RevealsBy): whether action, in
// position st, may show player something hidden from player before it.
// It reads only what player sees (pile sizes, hand sizes, the pending
// Disaster, whose turn it is). The steps that reveal:
//
//   - a draw by player (the cards drawn), and any draw or stuck when the
//     draw pile may run out (a rebuild, or the hand ends: every hand and
//     locomotive is scored);
//   - taking the top discard when the pile holds more cards than the
//     observation's RecentDiscards: the next card comes into view;
//   - stuck: the hand set aside face up;
//   - a Wreck (the locomotive goes to the discard pile face up), and
//     Switch Engines for the two players whose locomotives change hands;
//   - block: the Way Car is shown;
//   - any action that may end the turn with an empty hand (going out ends
//     the hand, which is scored).
func reveals(st env.State, player, action int) bool {
	s := st.(*State)
	actor := s.CurrentPlayer()
	if actor < 0 {
		return false
	}
	switchParty := func(r int) bool { return player == actor || player == s.seat(actor, r) }
	// An ending action with at most one card left may go out.
	lastCard := s.pl[s.cur].handN <= 1
	switch {
	case action == ActDraw:
		return player == actor || s.deckN < 2
	case action == ActTake:
		return s.discN > RecentDiscards
	case action == ActStuck:
		return true
	case action >= ActHit && action < ActDerail:
		return hitKinds[(action-ActHit)/36] == Wreck || lastCard
	case action >= ActDerail && action < ActSwitch:
		return lastCard
	case action >= ActSwitch && action < ActTurntable:
		return switchParty((action-ActSwitch)/36) || lastCard
	case action == ActTurntable, action == ActEndMeld, action >= ActDiscard && action < ActBlock:
		return lastCard
	case action == ActBlock:
		return true
	case action == ActLet:
		d := BrokenCar + int(s.pend.kind)
		return d == Wreck || (d == SwitchEngines && (player == int(s.pend.by) || player == int(s.pend.on))) ||
			s.pl[s.pend.by].handN == 0
	}
	return false
}

// infoSetFor returns the options of envtest's information-set test for
// environment id (express-v1 or a later version): reveals, and for
// express-v1 its block-decision leak, kept byte for byte (the
// block decision exists only when the attacked player holds the Way Car,
// so every other player learns it from the phase and the player to act).
func infoSetFor(id string) envtest.Option {
	if id == "express-v1" {
		return envtest.Options(envtest.RevealsBy(reveals), envtest.KnownLeak("v1 block-decision leak: the block decision "+
			"is offered only when the attacked player holds the Way Car"))
	}
	return envtest.RevealsBy(reveals)
}
