package express

import (
	"testing"

	"github.com/galaxygym/galaxygym/env/envtest"
)

// TestLayoutCodes: the observation's codes (env.ObsField.Classes), the
// fields a network should read one-hot: the phase, seats relative to the
// observer, card kinds + 1 (0 none) and trains + 1. The counts, flags and
// per-kind tables declare none.
func TestLayoutCodes(t *testing.T) {
	want := map[string]envtest.Code{
		"phase":              {Size: 1, Classes: 4},
		"actor":              {Size: 1, Classes: MaxPlayers},
		"top_discard":        {Size: 1, Classes: NumKinds + 1},
		"top_slot":           {Size: 1, Classes: NumKinds + 1},
		"pending_kind":       {Size: 1, Classes: NumKinds + 1},
		"pending_by":         {Size: 1, Classes: MaxPlayers},
		"pending_train":      {Size: 1, Classes: MaxTrains + 1},
		"pending_own":        {Size: 1, Classes: MaxTrains + 1},
		"pending_train_next": {Size: 1, Classes: MaxTrains + 1},
		"recent_discards":    {Size: RecentDiscards, Classes: NumKinds + 1},
	}
	envtest.Codes(t, []string{ID, IDv2}, want)
}
