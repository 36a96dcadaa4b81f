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

// TestSuitString checks the suit names, which the notation and the action
// names use.
func TestSuitString(t *testing.T) {
	for s, want := range map[Suit]string{Thrust: "thrust", Brake: "brake", Suit(2): "suit(2)"} {
		if got := s.String(); got != want {
			t.Errorf("Suit(%d).String() = %q, want %q", s, got, want)
		}
	}
	if got := (Game{}).Spec().ActionNames[CoinAction(Brake, 3, East)]; got != "brake-3-east" {
		t.Errorf("action name of brake 3 east: %q", got)
	}
}
