// Package drawtest checks env.Renderer pictures against golden PNG files.
package drawtest

import (
	"bytes"
	"image"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// Golden compares img with the PNG at path (pixel for pixel), or writes it
// there when update is set (go test -update, envtest.Updating()). The
// golden pictures double as the README's frames of each game.
func Golden(t testing.TB, path string, img *image.RGBA, update bool) {
	t.Helper()
	if update {
		var b bytes.Buffer
		if err := png.Encode(&b, img); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	defer f.Close()
	want, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	w := image.NewRGBA(want.Bounds())
	draw.Draw(w, w.Rect, want, want.Bounds().Min, draw.Src)
	if w.Rect != img.Rect || !bytes.Equal(w.Pix, img.Pix) {
		t.Errorf("render differs from %s (go test -update rewrites it after a deliberate change)", path)
	}
}
