package galaxyexpress

import (
	"fmt"
	"image"
	"image/color"

	"github.com/galaxygym/galaxygym/env/draw"
)

// The rgb_array picture (env.Renderer): the star chart, 8 x 6 squares of
// renderCell pixels, under a two-line header and above the coin rows. It
// shows what String shows, the public table: scanned planets with their
// numbers, unscanned ones as "?", the target planet ringed in gold, the
// Starship, and per suit the face-up and spent coins and the size of the
// face-down stack.
const (
	renderCell   = 56
	renderMargin = 12
	renderTop    = 40
	renderW      = 2*renderMargin + Cols*renderCell
	renderH      = renderTop + Rows*renderCell + 16 + 2*26 + renderMargin
)

var (
	geSpace   = draw.RGB(12, 14, 40)
	geSquare  = draw.RGB(24, 28, 70)
	geGrid    = draw.RGB(44, 50, 110)
	geText    = draw.RGB(230, 230, 240)
	geDim     = draw.RGB(120, 124, 160)
	geUnknown = draw.RGB(110, 110, 120)
	gePlanet  = draw.RGB(70, 140, 220)
	geGold    = draw.RGB(245, 190, 40)
	geShip    = draw.RGB(230, 60, 60)
	geLost    = draw.RGB(255, 80, 80)
	geCoin    = [2]color.RGBA{draw.RGB(90, 200, 120), draw.RGB(230, 140, 60)}
)

// RenderSize returns the picture's size: 472 x 456 pixels.
func (s *State) RenderSize() (int, int) { return renderW, renderH }

// Render draws the position (see RenderSize); only public information.
func (s *State) Render(dst *image.RGBA) {
	cv := draw.Canvas{Img: dst}
	cv.Fill(geSpace)
	cv.Text(renderMargin, 6, fmt.Sprintf("Galaxy Express  %s  turn %d  speed %d", phaseLabels[s.phase], s.turns, s.speed), geText)
	status := fmt.Sprintf("deliveries %d  refuels %d  score %d", s.delivered, s.refuels, s.Score())
	if t := s.Target(); t >= 0 {
		status += fmt.Sprintf("  target: planet %d", t)
	} else {
		status += "  all delivered"
	}
	cv.Text(renderMargin, 21, status, geText)
	if s.lost {
		cv.Text(renderW-renderMargin-13*draw.GlyphW, 21, "LOST IN SPACE", geLost)
	}
	target := s.Target()
	for r := 0; r < Rows; r++ {
		for c := 0; c < Cols; c++ {
			sq := r*Cols + c
			x0, y0 := renderMargin+c*renderCell, renderTop+r*renderCell
			cell := image.Rect(x0, y0, x0+renderCell, y0+renderCell)
			cv.Rect(cell, geSquare)
			cv.Frame(cell, 1, geGrid)
			cx, cy := x0+renderCell/2, y0+renderCell/2
			if s.planets&(1<<sq) != 0 {
				if s.known&(1<<sq) != 0 {
					n := int(s.numAt[sq])
					if n == target {
						cv.Disc(cx, cy, 21, geGold)
					}
					cv.Disc(cx, cy, 17, gePlanet)
					cv.TextCentered(cx, cy, fmt.Sprint(n), geText)
				} else {
					cv.Disc(cx, cy, 17, geUnknown)
					cv.TextCentered(cx, cy, "?", geText)
				}
			}
			if int(s.ship) == sq {
				sx, sy := cx+renderCell/2-12, cy-renderCell/2+12
				if s.planets&(1<<sq) == 0 {
					sx, sy = cx, cy
				}
				cv.Triangle(sx, sy, 9, 0, geShip)
			}
		}
	}
	y := renderTop + Rows*renderCell + 16
	for suit, name := range [2]string{"thrust", "brake"} {
		cv.Text(renderMargin, y+6, name, geText)
		for v := 0; v < numValues; v++ {
			x := renderMargin + 56 + v*30
			box := image.Rect(x, y, x+24, y+22)
			switch {
			case s.up[suit]&(1<<v) != 0:
				cv.Rect(box, geCoin[suit])
				cv.TextCentered(x+12, y+11, fmt.Sprint(v), geSpace)
			case s.spent[suit]&(1<<v) != 0:
				cv.Frame(box, 1, geDim)
				cv.TextCentered(x+12, y+11, fmt.Sprint(v), geDim)
			default:
				cv.Frame(box, 1, geGrid)
			}
		}
		cv.Text(renderMargin+56+numValues*30+8, y+6, fmt.Sprintf("face down %d", s.deckN[suit]), geDim)
		y += 26
	}
}
