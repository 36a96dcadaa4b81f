package pilotsofgallaxia

import (
	"fmt"

	"github.com/galaxygym/galaxygym/env"
)

// PublicWords returns the words every seat may read about pilot mover's
// move action (env.PublicMover) in a game with params, naming pilots
// absolutely ("pilot 2"). The spaces a piece moves to, the raids, the
// claims, the Gambit and the spoils are played in the open and named
// (a Gambit guess by its outcome only: the observations keep no guess). A
// card is not named and neither is playing none: a raid card (and the
// choice of none) is chosen face down, and a pilot asked on landing
// whether to discard the planet's card answers unseen by the others as
// far as the words go, so every card move reads "plays or chooses a card".
func (Game) PublicWords(p env.Params, mover, action int) string {
	n := p.Int(env.PlayersParam)
	who := fmt.Sprintf("pilot %d", mover)
	a := action
	switch {
	case a < ActCard:
		sk := 0
		if n >= 0 && n < len(seatSektors) && mover >= 0 && mover < len(seatSektors[n]) {
			sk = int(seatSektors[n][mover])
		}
		if sp := actionNode(a, sk); sp != Hangar(sk) {
			return who + ": a piece goes to " + spaceWords(sp)
		}
		return ownHangar(who)
	case a < ActShip, a == ActNoCard:
		return who + " plays or chooses a card (or none), unseen"
	case a < ActDurriken:
		return fmt.Sprintf("%s moves starship %d", who, a-ActShip+1)
	case a == ActDurriken:
		return who + " moves the Durriken"
	case a == ActHire:
		return who + " hires the Durriken"
	case a == ActEndMoves:
		return who + " ends the moves and plays The Gambit"
	case a == ActBase:
		return who + " makes the base move"
	case a == ActStop:
		return ownHangar(who)
	case a == ActClaim:
		return who + " claims the caravan space with a caravan"
	case a == ActClaimBlokk:
		return who + " claims the caravan space with a BLOKK"
	case a == ActNoClaim:
		return who + " leaves the caravan space unclaimed"
	case a < ActNoCard:
		r, k := (a-ActRaid)/3+1, (a-ActRaid)%3
		return fmt.Sprintf("%s raids pilot %d's %s", who, (mover+r)%max(n, 1), pieceWord(k))
	case a == ActTakeCard:
		return who + " takes the loser's card"
	case a == ActDrawCard:
		return who + " draws a card from the deck instead of the loser's"
	case a == ActTake:
		return who + " takes the cards up"
	case a == ActHigher, a == ActLower:
		// The observations keep the outcome, not the guess: a push (an
		// equal card) looks the same after either.
		return who + " guesses whether the next card is higher or lower"
	case a == ActCashIn:
		return who + " cashes in the push for a Captain's card"
	case a == ActPass:
		return who + " passes (keeps the cards)"
	}
	return fmt.Sprintf("%s plays action %d", who, action)
}

// ownHangar words a move to one's own hangar and a stop alike: a piece
// standing in its hangar that stops looks the same to the others as one
// that steps into it.
func ownHangar(who string) string { return who + " stops the move (or goes home to the hangar)" }
