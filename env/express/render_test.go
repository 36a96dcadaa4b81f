package express

import (
	"bytes"
	"image"
	"math/rand/v2"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

var _ env.Renderer = (*State)(nil)

// TestRenderShowsOnlyPublicInformation: states that differ only in hidden
// information (other hands, locomotives, the draw pile, the generator)
// draw the same picture, at every position of random 2-, 4- and 6-player
// games; the picture changes as the game goes on, and its size is the
// same all game long.
func TestRenderShowsOnlyPublicInformation(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for _, players := range []int{2, 4, 6} {
		var first []byte
		changed := false
		i := 0
		visitRandom(t, players, 1, func(s *State) {
			i++
			if i%7 != 0 {
				return
			}
			w, h := s.RenderSize()
			a := image.NewRGBA(image.Rect(0, 0, w, h))
			b := image.NewRGBA(a.Rect)
			s.Render(a)
			for p := 0; p < 2; p++ { // hidden from player 0, then from player 1 (player 0's hand)
				perturb(s, p, rng).Render(b)
				if !bytes.Equal(a.Pix, b.Pix) {
					t.Fatalf("players %d: hidden information changed the picture\n%s", players, s.Position())
				}
			}
			if first == nil {
				first = a.Pix
			} else if !bytes.Equal(first, a.Pix) {
				changed = true
			}
			if len(a.Pix) != len(first) {
				t.Fatal("the picture changed size")
			}
		})
		if !changed {
			t.Fatalf("players %d: every picture is the same", players)
		}
	}
}
