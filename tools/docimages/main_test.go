package main

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// TestDraw: every README picture is drawn, as a PNG of the renderer's size,
// and drawing twice gives the same bytes (the pictures are deterministic,
// so running the tool again changes docs/img only when a game or a
// renderer changed).
func TestDraw(t *testing.T) {
	dir := t.TempDir()
	for _, p := range pictures {
		a, b := filepath.Join(dir, p.id+"-a.png"), filepath.Join(dir, p.id+"-b.png")
		if err := draw(p, a); err != nil {
			t.Fatalf("%s: %v", p.id, err)
		}
		if err := draw(p, b); err != nil {
			t.Fatalf("%s: %v", p.id, err)
		}
		da, err := os.ReadFile(a)
		if err != nil {
			t.Fatal(err)
		}
		db, _ := os.ReadFile(b)
		if !bytes.Equal(da, db) {
			t.Errorf("%s: two drawings differ", p.id)
		}
		img, err := png.Decode(bytes.NewReader(da))
		if err != nil {
			t.Fatalf("%s: %v", p.id, err)
		}
		if r := img.Bounds(); r.Dx() < 100 || r.Dy() < 100 {
			t.Errorf("%s: picture %v", p.id, r)
		}
	}
}
