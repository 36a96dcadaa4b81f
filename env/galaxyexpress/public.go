package galaxyexpress

import (
	"fmt"

	"github.com/galaxygym/galaxygym/env"
)

// PublicWords returns the words about the player's move action
// (env.PublicMover). Galaxy Express is a solitaire: nobody else sits at
// the table, so nothing is hidden from another seat, and a spectator reads
// the move as the action names it (the squares it reaches need the
// position, which the presenter's words give the player).
func (Game) PublicWords(p env.Params, mover, action int) string {
	a := action
	switch {
	case a < ActionCoin:
		return fmt.Sprintf("the pilot launches from planet %d in reading order", a-ActionStart+1)
	case a < ActionRefuel:
		suit, v, d, _ := DecodeCoinAction(a)
		return fmt.Sprintf("the pilot spends %s coin %d, heading %s", suitTitles[suit], v, dirNames[d])
	case a == ActionRefuel:
		return "the pilot refuels (-10 points)"
	case a == ActionNoRefuel:
		return "the pilot does not refuel"
	}
	return fmt.Sprintf("the pilot plays action %d", action)
}
