package pilotsofgallaxia

import (
	"image"
	"math/rand/v2"
	"testing"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/env/draw/drawtest"
	"github.com/galaxygym/galaxygym/env/envtest"
)

// TestRenderGolden draws a four-pilot position after 150 random steps of
// each version (testdata/render.png for v1, render-v2.png for v2; go test
// -update rewrites them).
func TestRenderGolden(t *testing.T) {
	renderGolden(t, IDv1, "testdata/render.png")
	renderGolden(t, ID, "testdata/render-v2.png")
}

func renderGolden(t *testing.T, id, path string) {
	e, err := env.Make(id, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.Reset(4)
	rng := rand.New(rand.NewPCG(4, 4))
	for i := 0; i < 150 && !e.Done(); i++ {
		e.Step(envtest.Uniform(e, rng))
	}
	img, err := e.Render(nil)
	if err != nil {
		t.Fatal(err)
	}
	if img.Rect != image.Rect(0, 0, pgW, pgH) {
		t.Fatalf("picture %v", img.Rect)
	}
	drawtest.Golden(t, path, img, envtest.Updating())
}
