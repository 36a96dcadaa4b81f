package pilotsofgallaxia

import (
	"testing"

	"github.com/galaxygym/galaxygym/env/envtest"
)

// TestLayoutCodes: the observation's codes (env.ObsField.Classes), the
// fields a network should read one-hot: card kinds + 1 (0 none), pieces
// and relative seats. Every other field is a count, a flag, a space set or
// a one-hot already, and declares none.
func TestLayoutCodes(t *testing.T) {
	want := map[string]envtest.Code{
		"gambit":               {Size: 3, Classes: NumKinds + 1}, // the cards up, kind + 1
		"scored":               {Size: NumRoutes, Classes: MaxPlayers + 1},
		"moving_piece":         {Size: 1, Classes: 4}, // k + 1
		"sell_fuel":            {Size: 1, Classes: NumKinds + 1},
		"own_raid_card":        {Size: 1, Classes: NumKinds + 1},
		"raider_random_card":   {Size: 1, Classes: NumKinds + 1},
		"defender_random_card": {Size: 1, Classes: NumKinds + 1},
		"raider_card":          {Size: 1, Classes: NumKinds + 1},
		"defender_card":        {Size: 1, Classes: NumKinds + 1},
		"raider_seat":          {Size: 1, Classes: MaxPlayers + 1}, // relative seat + 1
		"raider_piece":         {Size: 1, Classes: 3},
		"defender_seat":        {Size: 1, Classes: MaxPlayers + 1},
		"defender_piece":       {Size: 1, Classes: 3},
	}
	envtest.Codes(t, []string{IDv1, ID}, want)
}
