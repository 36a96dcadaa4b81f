package galaxyfighters

import (
	"fmt"

	"github.com/galaxygym/galaxygym/env"
)

// PublicWords returns the words every seat may read about seat mover's
// move action (env.PublicMover). Galaxy Fighters is co-operative and every
// command is played in the open (docs/rules/galaxy-fighters.md: only the
// shipyard's and the deck's order are hidden, and no move chooses from
// them), so the words name the move as its presenter does, with the seat
// named ("player 1") and nothing that needs the position (a fire's target
// zone, a spill's district) beyond what the action itself says.
func (Game) PublicWords(p env.Params, mover, action int) string {
	who := fmt.Sprintf("player %d", mover)
	a := action
	switch {
	case a < ActionBonus:
		return who + " chooses the " + weaponTitles[a-ActionWeapon]
	case a < ActionEngine:
		return who + " takes the " + faceTitles[a-ActionBonus] + " bonus tile"
	case a < ActionFire:
		return who + " fits the " + engineTitles[a-ActionEngine]
	case a == ActionFire:
		return who + " fires straight ahead"
	case a < ActionUseWeapon:
		return who + " moves the ship " + moveWords[a-ActionMove]
	case a == ActionUseWeapon:
		return who + " fires the ship's weapon system"
	case a < ActionSDS:
		return fmt.Sprintf("%s uses Missile Command on zone %d", who, a-ActionMissile+4)
	case a == ActionSDS:
		return who + " places a Shielded Defense tile ahead"
	case a == ActionDeflector:
		return who + " raises the Deflector shield"
	case a < ActionEndTurn:
		return fmt.Sprintf("%s warps to zone %d, column %d", who, (a-ActionWarp)/5+1, (a-ActionWarp)%5+1)
	case a == ActionEndTurn:
		return who + " ends the command phase"
	case a < NumActions:
		return who + " spills the alien over to the " + [2]string{"left", "right"}[a-ActionSpill]
	}
	return fmt.Sprintf("%s plays action %d", who, action)
}
