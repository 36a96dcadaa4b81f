package galaxyfighters

import (
	"testing"

	gf "github.com/galaxygym/galaxygym/env/galaxyfighters"
)

// TestKindSlot checks that kindSlot, which indexes h.weight by an alien
// code's low bits, is gf.AlienKind + 4 for every code of an alien, with
// the kind's facing in its last two bits.
func TestKindSlot(t *testing.T) {
	n := 0
	for code := 0; code < 256; code++ {
		k := gf.AlienKind(uint8(code))
		if k < 0 || k >= 12 {
			continue
		}
		n++
		if s := kindSlot(uint8(code)); s != k+4 || s&3 != k&3 {
			t.Fatalf("code %#x: kindSlot %d, AlienKind %d", code, s, k)
		}
	}
	if n == 0 {
		t.Fatal("no alien code")
	}
}
