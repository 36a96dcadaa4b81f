package galaxyfighters

import (
	"fmt"
	"image"
	"image/color"

	"github.com/galaxygym/galaxygym/env/draw"
)

// The rgb_array picture (env.Renderer): the cross-shaped board, 11 x 11
// cells of gfCell pixels (85 on the board), under a header line and above
// one line per seat and the command pool. It shows what String shows, the
// public table: ships (a disc in the seat's colour with its number, ringed
// when shielded), Gladius drones (small squares), Shielded Defense System
// tiles (crosses), and each cell's stack of Exovons bottom first, one
// triangle per alien pointing where it moves, coloured by type (Y yellow,
// B blue, M magenta; more than four show as "+n"); the spawn deck and
// shipyard only by their sizes.
const (
	gfCell   = 44
	gfMargin = 12
	gfTop    = 26
	gfW      = 600
	gfBoardX = (gfW - Side*gfCell) / 2
	gfLines  = NumSeats + 2
	gfH      = gfTop + Side*gfCell + 10 + gfLines*16 + gfMargin
)

var (
	gfSpace = draw.RGB(10, 12, 30)
	gfCellC = draw.RGB(28, 32, 64)
	gfGrid  = draw.RGB(50, 56, 104)
	gfText  = draw.RGB(230, 230, 240)
	gfDim   = draw.RGB(130, 134, 170)
	gfSeat  = [NumSeats]color.RGBA{draw.RGB(80, 200, 255), draw.RGB(120, 230, 110), draw.RGB(255, 160, 70), draw.RGB(230, 120, 230)}
	gfAlien = [numTypes]color.RGBA{draw.RGB(250, 220, 60), draw.RGB(90, 150, 255), draw.RGB(240, 70, 180)}
	gfWon   = draw.RGB(120, 240, 120)
	gfLost  = draw.RGB(255, 80, 80)
)

// RenderSize returns the picture's size: 600 x 622 pixels.
func (s *State) RenderSize() (int, int) { return gfW, gfH }

// Render draws the position (see RenderSize); only public information.
func (s *State) Render(dst *image.RGBA) {
	cv := draw.Canvas{Img: dst}
	cv.Fill(gfSpace)
	head := fmt.Sprintf("Galaxy Fighters (%s)  turn %d  %s: seat %d %s", s.cfg.mission, s.turns+1,
		s.phase, s.cur, seatNames[s.cur])
	cv.Text(gfMargin, 6, head, gfText)
	switch s.outcome {
	case won:
		cv.Text(gfW-gfMargin-3*draw.GlyphW, 6, "WON", gfWon)
	case lost:
		cv.Text(gfW-gfMargin-4*draw.GlyphW, 6, "LOST", gfLost)
	}
	for g := 0; g < Cells; g++ {
		if !onBoard[g] {
			continue
		}
		x0, y0 := gfBoardX+g%Side*gfCell, gfTop+g/Side*gfCell
		cell := image.Rect(x0, y0, x0+gfCell, y0+gfCell)
		cv.Rect(cell, gfCellC)
		cv.Frame(cell, 1, gfGrid)
		s.renderStack(cv, g, x0, y0)
	}
	for k := range s.ships {
		sh := &s.ships[k]
		col := gfSeat[k]
		for _, c := range sh.sds {
			if c >= 0 {
				x, y := gfBoardX+int(c)%Side*gfCell, gfTop+int(c)/Side*gfCell
				for d := 4; d < gfCell-4; d++ {
					cv.Rect(image.Rect(x+d, y+d, x+d+2, y+d+2), col)
					cv.Rect(image.Rect(x+gfCell-d-2, y+d, x+gfCell-d, y+d+2), col)
				}
			}
		}
		if sh.drone >= 0 {
			x, y := gfBoardX+int(sh.drone)%Side*gfCell, gfTop+int(sh.drone)/Side*gfCell
			cv.Rect(image.Rect(x+gfCell-16, y+4, x+gfCell-4, y+16), col)
		}
		if sh.cell >= 0 {
			cx, cy := gfBoardX+int(sh.cell)%Side*gfCell+gfCell/2, gfTop+int(sh.cell)/Side*gfCell+gfCell/2
			if sh.shielded {
				cv.Ring(cx, cy, 19, 3, gfText)
			}
			cv.Disc(cx, cy, 14, col)
			cv.TextCentered(cx, cy, fmt.Sprint(k), gfSpace)
		}
	}
	y := gfTop + Side*gfCell + 10
	for k := range s.ships {
		sh := &s.ships[k]
		cv.Rect(image.Rect(gfMargin, y+2, gfMargin+9, y+11), gfSeat[k])
		cv.Text(gfMargin+14, y, fmt.Sprintf("%-10s %-10s %-11s %-10s bonus %-7s invaders %d/%d", seatNames[k], modelNames[sh.model],
			codeOf(weaponNames[:], sh.weapon), codeOf(engineNames[:], sh.engine), codeOf(faceCodes[:], sh.bonus),
			s.invaders[k], s.cfg.invaderCap), gfText)
		y += 16
	}
	cv.Text(gfMargin, y, fmt.Sprintf("commands: fire %d  move %d  special %d  fire-or-special %d  (used %d)",
		s.pool[FaceFire], s.pool[FaceMove], s.pool[FaceSpecial], s.pool[FaceWild], s.used), gfDim)
	cv.Text(gfMargin, y+16, fmt.Sprintf("spawn deck %d  shipyard %d  aliens on the board %d", s.deckN, s.yardN, s.aliens), gfDim)
}

// renderStack draws cell g's aliens, bottom first, in a 2 x 2 grid.
func (s *State) renderStack(cv draw.Canvas, g, x0, y0 int) {
	n := int(s.h[g])
	for i := 0; i < n && i < 4; i++ {
		if i == 3 && n > 4 {
			cv.TextCentered(x0+gfCell*3/4, y0+gfCell*3/4, fmt.Sprintf("+%d", n-3), gfText)
			break
		}
		a := s.st[g][i]
		cx, cy := x0+gfCell/4+i%2*gfCell/2, y0+gfCell/4+i/2*gfCell/2
		cv.Triangle(cx, cy, 8, draw.Dir(alienDir(a)), gfAlien[alienType(a)])
	}
}
