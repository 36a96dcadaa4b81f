package galaxyexpress

import "testing"

// TestPhaseString checks the phase names, which are the notation's
// (phase=start|coin|refuel|over).
func TestPhaseString(t *testing.T) {
	for p, want := range map[Phase]string{PhaseStart: "start", PhaseCoin: "coin", PhaseRefuel: "refuel",
		PhaseOver: "over", Phase(9): "phase(9)"} {
		if got := p.String(); got != want {
			t.Errorf("Phase(%d).String() = %q, want %q", p, got, want)
		}
	}
}
