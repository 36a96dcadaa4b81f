package pilotsofgallaxia

import (
	"bytes"
	"image"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

var _ env.Renderer = (*State)(nil)

// TestHiddenInformation: two positions that differ only in what pilot 0
// cannot see (another pilot's hand of the same size, the deck order, the
// Captain's deck order, the raider's face-down card while pilot 0 defends)
// give pilot 0 the same observation and the same renders (text and
// rgb_array).
func TestHiddenInformation(t *testing.T) {
	pairs := [][2]string{
		{"cur=1 p0.hand=f5 p1.hand=f3,2.P4,d5 deck=f4,f8,3.P1", "cur=1 p0.hand=f5 p1.hand=f8,3.P1,d6 deck=f3,2.P4,f4"},
		{"cur=0 p0.hand=f5 p2.hand=d1,d2 cdeck=salvage,deflector", "cur=0 p0.hand=f5 p2.hand=d1,d2 cdeck=deflector,salvage"},
		{"cur=1 phase=raidD p1.ships=1.P1,2.H p0.ships=1.r0a,1.H mover=0 at=1.P1 lastfree=1.P1 budget=1 raided=1 " +
			"raider=1.0 defender=0.0 rcard=f8 p1.hand=d3 p0.hand=f5",
			"cur=1 phase=raidD p1.ships=1.P1,2.H p0.ships=1.r0a,1.H mover=0 at=1.P1 lastfree=1.P1 budget=1 raided=1 " +
				"raider=1.0 defender=0.0 rcard=- p1.hand=f8,d3 p0.hand=f5"},
	}
	o1, o2 := make([]uint8, ObsSize), make([]uint8, ObsSize)
	for i, p := range pairs {
		a, b := pos(t, p[0]), pos(t, p[1])
		if a.Position() == b.Position() {
			t.Fatalf("pair %d: the positions do not differ", i)
		}
		a.Observe(0, o1)
		b.Observe(0, o2)
		if !bytes.Equal(o1, o2) {
			t.Errorf("pair %d: pilot 0's observations differ", i)
		}
		if a.String() != b.String() {
			t.Errorf("pair %d: renders differ:\n%s\n%s", i, a, b)
		}
		w, h := a.RenderSize()
		ia, ib := image.NewRGBA(image.Rect(0, 0, w, h)), image.NewRGBA(image.Rect(0, 0, w, h))
		a.Render(ia)
		b.Render(ib)
		if !bytes.Equal(ia.Pix, ib.Pix) {
			t.Errorf("pair %d: rgb_array renders differ", i)
		}
		// The pilot who holds the hidden cards sees them.
		a.Observe(1, o1)
		b.Observe(1, o2)
		if i != 1 && bytes.Equal(o1, o2) {
			t.Errorf("pair %d: pilot 1's observations do not show its own cards", i)
		}
	}
}
