// Package draw holds the few drawing primitives the games' rgb_array
// renderers (env.Renderer) use over image/draw: filled rectangles, discs,
// rings, convex polygons, arrows and text in the 7x13 bitmap face of
// golang.org/x/image/font/basicfont. Coordinates are pixels, origin top
// left; every function clips to the image. Drawing is deterministic (no
// anti-aliasing), so a position always gives the same bytes.
package draw

import (
	"image"
	"image/color"
	stddraw "image/draw"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// Glyph size of the text face in pixels: each character advances GlyphW,
// a line is GlyphH tall.
const (
	GlyphW = 7
	GlyphH = 13
)

// Canvas draws on an RGBA image.
type Canvas struct{ Img *image.RGBA }

// Fill paints the whole image with c.
func (cv Canvas) Fill(c color.RGBA) { cv.Rect(cv.Img.Rect, c) }

// Rect fills r with c.
func (cv Canvas) Rect(r image.Rectangle, c color.RGBA) {
	stddraw.Draw(cv.Img, r.Intersect(cv.Img.Rect), image.NewUniform(c), image.Point{}, stddraw.Src)
}

// Frame draws the outline of r, width pixels thick, inside r.
func (cv Canvas) Frame(r image.Rectangle, width int, c color.RGBA) {
	cv.Rect(image.Rect(r.Min.X, r.Min.Y, r.Max.X, r.Min.Y+width), c)
	cv.Rect(image.Rect(r.Min.X, r.Max.Y-width, r.Max.X, r.Max.Y), c)
	cv.Rect(image.Rect(r.Min.X, r.Min.Y, r.Min.X+width, r.Max.Y), c)
	cv.Rect(image.Rect(r.Max.X-width, r.Min.Y, r.Max.X, r.Max.Y), c)
}

func (cv Canvas) set(x, y int, c color.RGBA) {
	if (image.Point{x, y}).In(cv.Img.Rect) {
		cv.Img.SetRGBA(x, y, c)
	}
}

// Disc fills the disc of radius r around (cx, cy).
func (cv Canvas) Disc(cx, cy, r int, c color.RGBA) {
	for y := -r; y <= r; y++ {
		for x := -r; x <= r; x++ {
			if x*x+y*y <= r*r {
				cv.set(cx+x, cy+y, c)
			}
		}
	}
}

// Ring draws a circle of radius r around (cx, cy), width pixels thick
// (inward).
func (cv Canvas) Ring(cx, cy, r, width int, c color.RGBA) {
	in := r - width
	for y := -r; y <= r; y++ {
		for x := -r; x <= r; x++ {
			d := x*x + y*y
			if d <= r*r && d > in*in {
				cv.set(cx+x, cy+y, c)
			}
		}
	}
}

// Polygon fills the convex polygon with vertices pts (in order, either
// orientation).
func (cv Canvas) Polygon(pts []image.Point, c color.RGBA) {
	if len(pts) < 3 {
		return
	}
	b := image.Rectangle{pts[0], pts[0].Add(image.Pt(1, 1))}
	for _, p := range pts[1:] {
		b = b.Union(image.Rectangle{p, p.Add(image.Pt(1, 1))})
	}
	b = b.Intersect(cv.Img.Rect)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if inside(pts, x, y) {
				cv.Img.SetRGBA(x, y, c)
			}
		}
	}
}

// inside reports whether (x, y) is inside (or on) the convex polygon.
func inside(pts []image.Point, x, y int) bool {
	var pos, neg bool
	for i, a := range pts {
		b := pts[(i+1)%len(pts)]
		cross := (b.X-a.X)*(y-a.Y) - (b.Y-a.Y)*(x-a.X)
		if cross > 0 {
			pos = true
		} else if cross < 0 {
			neg = true
		}
		if pos && neg {
			return false
		}
	}
	return true
}

// Dir is a compass direction for Arrow and Triangle: 0 north (up), 1 east,
// 2 south, 3 west.
type Dir int

// Triangle fills an isosceles triangle centred on (cx, cy), of half-size
// r, pointing in direction d.
func (cv Canvas) Triangle(cx, cy, r int, d Dir, c color.RGBA) {
	var pts []image.Point
	switch d {
	case 0:
		pts = []image.Point{{cx, cy - r}, {cx + r, cy + r}, {cx - r, cy + r}}
	case 1:
		pts = []image.Point{{cx + r, cy}, {cx - r, cy + r}, {cx - r, cy - r}}
	case 2:
		pts = []image.Point{{cx, cy + r}, {cx - r, cy - r}, {cx + r, cy - r}}
	default:
		pts = []image.Point{{cx - r, cy}, {cx + r, cy - r}, {cx + r, cy + r}}
	}
	cv.Polygon(pts, c)
}

// Text draws s with its top-left corner at (x, y) in the 7x13 face.
func (cv Canvas) Text(x, y int, s string, c color.RGBA) {
	d := font.Drawer{Dst: cv.Img, Src: image.NewUniform(c), Face: basicfont.Face7x13,
		Dot: fixed.P(x, y+basicfont.Face7x13.Ascent)}
	d.DrawString(s)
}

// TextCentered draws s centred on (cx, cy).
func (cv Canvas) TextCentered(cx, cy int, s string, c color.RGBA) {
	cv.Text(cx-len(s)*GlyphW/2, cy-GlyphH/2, s, c)
}

// RGB is a shorthand for an opaque color.
func RGB(r, g, b uint8) color.RGBA { return color.RGBA{r, g, b, 255} }
