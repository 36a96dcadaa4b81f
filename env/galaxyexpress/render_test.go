package galaxyexpress

import (
	"bytes"
	"image"
	"testing"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/env/draw/drawtest"
	"github.com/galaxygym/galaxygym/env/envtest"
)

var _ env.Renderer = (*State)(nil)

// TestRenderShowsOnlyPublicInformation: two states that differ only in
// hidden information (a determinization of one's observation) draw the
// same picture.
func TestRenderShowsOnlyPublicInformation(t *testing.T) {
	obs := make([]uint8, ObsSize)
	a := image.NewRGBA(image.Rect(0, 0, renderW, renderH))
	b := image.NewRGBA(a.Rect)
	n := 0
	determinizePositions(t, 6, func(s *State, wrap bool) {
		s.Observe(0, obs)
		v, err := Determinize(obs, wrap, uint64(n)+7)
		if err != nil {
			t.Fatal(err)
		}
		s.Render(a)
		v.Render(b)
		if !bytes.Equal(a.Pix, b.Pix) {
			t.Fatalf("hidden information shows in the render of\n%s", s.String())
		}
		n++
	})
}

// TestRenderGolden draws a position mid-game (the README's frame) and
// checks that positions differ in their pictures and frames keep one size.
func TestRenderGolden(t *testing.T) {
	e, err := env.Make(ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.Reset(3)
	first := mustRender(t, e) // Render(nil) allocates: later frames do not overwrite it
	mask := make([]uint8, e.Spec().NumActions())
	for k := 0; k < 6 && !e.Done(); k++ {
		e.LegalMask(mask)
		a := bytes.IndexByte(mask, 1)
		if _, err := e.Step(a); err != nil {
			t.Fatal(err)
		}
	}
	img := mustRender(t, e)
	if img.Rect != first.Rect || bytes.Equal(img.Pix, first.Pix) {
		t.Error("the picture did not change with the position, or changed size")
	}
	drawtest.Golden(t, "testdata/render.png", img, envtest.Updating())
}

func mustRender(t *testing.T, e *env.Env) *image.RGBA {
	t.Helper()
	img, err := e.Render(nil)
	if err != nil {
		t.Fatal(err)
	}
	return img
}
