package galaxyfighters

import (
	"bytes"
	"image"
	"slices"
	"testing"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/env/draw/drawtest"
	"github.com/galaxygym/galaxygym/env/envtest"
)

var _ env.Renderer = (*State)(nil)

// playTo plays the first legal action k times from seed.
func playTo(t *testing.T, players, seed, k int) *env.Env {
	t.Helper()
	e, err := env.Make(ID, map[string]any{"players": players})
	if err != nil {
		t.Fatal(err)
	}
	e.Reset(uint64(seed))
	mask := make([]uint8, e.Spec().NumActions())
	for i := 0; i < k && !e.Done(); i++ {
		e.LegalMask(mask)
		legal := []int{}
		for a, m := range mask {
			if m == 1 {
				legal = append(legal, a)
			}
		}
		if _, err := e.Step(legal[(i*7+seed)%len(legal)]); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// TestRenderShowsOnlyPublicInformation: the spawn deck's and the
// shipyard's order are hidden; reordering them changes nothing drawn.
func TestRenderShowsOnlyPublicInformation(t *testing.T) {
	for seed := 0; seed < 8; seed++ {
		e := playTo(t, 2+seed%3, seed, 20+seed*5)
		s := e.State().(*State)
		v := s.Clone().(*State)
		slices.Reverse(v.deck[:v.deckN])
		slices.Reverse(v.yard[:v.yardN])
		a := image.NewRGBA(image.Rect(0, 0, gfW, gfH))
		b := image.NewRGBA(a.Rect)
		s.Render(a)
		v.Render(b)
		if !bytes.Equal(a.Pix, b.Pix) {
			t.Fatalf("hidden information shows in the render of\n%s", s.String())
		}
	}
}

// TestRenderGolden draws a position mid-game (the README's frame).
func TestRenderGolden(t *testing.T) {
	e := playTo(t, 4, 1, 0)
	first, err := e.Render(nil)
	if err != nil {
		t.Fatal(err)
	}
	e = playTo(t, 4, 1, 40)
	img, err := e.Render(nil)
	if err != nil {
		t.Fatal(err)
	}
	if img.Rect != first.Rect || bytes.Equal(img.Pix, first.Pix) {
		t.Error("the picture did not change with the position, or changed size")
	}
	drawtest.Golden(t, "testdata/render.png", img, envtest.Updating())
}
