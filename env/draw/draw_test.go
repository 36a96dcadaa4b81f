package draw

import (
	_ "github.com/galaxygym/galaxygym/env/envtest" // accepts go test ./... -update
	"image"
	"testing"
)

func TestPrimitivesPaintWhereAsked(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 60, 40))
	cv := Canvas{img}
	bg, red, blue := RGB(0, 0, 0), RGB(255, 0, 0), RGB(0, 0, 255)
	cv.Fill(bg)
	cv.Disc(10, 10, 5, red)
	if img.RGBAAt(10, 10) != red || img.RGBAAt(10, 16) != bg || img.RGBAAt(16, 10) != bg {
		t.Error("disc")
	}
	cv.Triangle(40, 20, 8, 0, blue) // pointing up: wide at the bottom
	if img.RGBAAt(40, 27) != blue || img.RGBAAt(33, 13) != bg || img.RGBAAt(40, 13) != blue {
		t.Error("triangle")
	}
	cv.Rect(image.Rect(-5, -5, 3, 3), blue) // clipped, no panic
	if img.RGBAAt(0, 0) != blue {
		t.Error("clipped rect")
	}
	before := append([]uint8(nil), img.Pix...)
	cv.Text(20, 0, "A", red)
	changed := 0
	for i := range img.Pix {
		if img.Pix[i] != before[i] {
			changed++
		}
	}
	if changed == 0 {
		t.Error("text drew nothing")
	}
	cv.Disc(100, 100, 3, red) // off the image: no panic
}
