package express

import (
	"fmt"

	"github.com/galaxygym/galaxygym/env"
)

// PublicWords returns the words every seat may read about player mover's
// move action (env.PublicMover) in a game with params: the move as its
// presenter words it, seats named absolutely ("player 2"), with what the
// others do not see worded generically. Hidden are the card put face down
// as a locomotive (start a train; swap a locomotive, where even the train
// is unseen and the old locomotive goes back to the hand) and the two cards drawn. Everything else is
// played face up (cars, Way Cars, Disasters, discards, the top discard
// taken, a stuck hand shown) and is named, but for the train a Disaster
// is played on (against a player whose Way Car in play cancels it the
// choice changes nothing seen) and Switch Engines' trains and target.
func (g Game) PublicWords(p env.Params, mover, action int) string {
	n := p.Int(env.PlayersParam)
	abs := func(r int) int { return (mover + r) % max(n, 1) }
	who := fmt.Sprintf("player %d", mover)
	name := func(k int) string { return kinds[k].Name }
	a := action
	switch {
	case a == ActDraw:
		return who + " draws two cards"
	case a == ActTake:
		return who + " takes the top discard"
	case a < ActAdd:
		return who + " starts a new train (locomotive face down)"
	case a < ActWild:
		t, k := (a-ActAdd)/addKinds, addKind((a-ActAdd)%addKinds)
		return fmt.Sprintf("%s adds %s to train t%d", who, name(k), t)
	case a < ActSwap:
		t, w := (a-ActWild)/wildRoles, (a-ActWild)%wildRoles
		switch {
		case w == wildOpen:
			return fmt.Sprintf("%s adds the Wild Car to train t%d undeclared", who, t)
		case w == typePassenger:
			return fmt.Sprintf("%s adds the Wild Car to train t%d as a passenger car", who, t)
		default:
			return fmt.Sprintf("%s adds the Wild Car to train t%d as a %s", who, t, kinds[w].Name)
		}
	case a < ActWay:
		// The others see neither the card nor which train's locomotive
		// changed (both lie face down).
		return who + " swaps a locomotive for a card from hand (face down)"
	case a < ActHit:
		return fmt.Sprintf("%s plays %s as a Way Car", who, name(LightCrane+a-ActWay))
	case a < ActDerail:
		// Not the train: against a player whose Way Car cancels it, the
		// train chosen changes nothing anyone sees.
		h, r := (a-ActHit)/36, (a-ActHit)%36/6
		return fmt.Sprintf("%s plays %s on player %d", who, name(hitKinds[h]), abs(r))
	case a < ActSwitch:
		return fmt.Sprintf("%s plays Derailment on player %d", who, abs(a-ActDerail))
	case a < ActTurntable:
		// The locomotives that change places lie face down, and whom it
		// hits shows only when someone is asked to block it.
		return who + " plays Switch Engines"
	case a == ActTurntable:
		return who + " plays Turntable: the direction reverses and " + who + " takes another turn"
	case a == ActEndMeld:
		return who + " ends the turn with an empty hand"
	case a < ActBlock:
		return who + " discards " + name(a-ActDiscard)
	case a == ActBlock:
		return who + " blocks the Disaster with a Way Car"
	case a == ActLet:
		return who + " lets the Disaster happen"
	case a == ActStuck:
		return who + " sets a stuck hand aside face up and draws as many new cards"
	}
	return fmt.Sprintf("%s plays action %d", who, action)
}
