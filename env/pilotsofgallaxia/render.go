package pilotsofgallaxia

import (
	"fmt"
	"image"
	"image/color"
	"math"

	"github.com/galaxygym/galaxygym/env/draw"
)

// The rgb_array picture (env.Renderer): the six sektors around the sun,
// sektor 1 at the top and clockwise (the absolute frame of String), one
// mark per space: planets as numbered discs, the hangar as a square, the
// LAIR as a ring in the corner, the Teleprism as a triangle, the vortex as
// a double ring, caravan spaces as dots in the colour of their owner (a
// BLOKK framed in white). Starships are discs in the pilot's colour with
// their number (1, 2), the Durriken a triangle, a ring aboard or on the
// board a yellow (yellow rings) or pilot-coloured ring. Below the board:
// one line per pilot (cards, caravans, rings home, points) and the piles,
// The Gambit and the phase. Only public information is drawn.
const (
	pgW      = 660
	pgBoard  = 640
	pgCX     = pgW / 2
	pgCY     = 16 + pgBoard/2
	pgTop    = 16 + pgBoard
	pgLineH  = 16
	pgH      = pgTop + (MaxPlayers+2)*pgLineH + 8
	pgRadius = 300.0
)

var (
	pgSpace = draw.RGB(8, 10, 26)
	pgSun   = draw.RGB(250, 190, 60)
	pgText  = draw.RGB(230, 230, 240)
	pgDim   = draw.RGB(90, 96, 140)
	pgPlan  = draw.RGB(60, 80, 150)
	pgYel   = draw.RGB(255, 230, 40)
	pgPilot = [MaxPlayers]color.RGBA{draw.RGB(80, 200, 255), draw.RGB(120, 230, 110), draw.RGB(255, 150, 70),
		draw.RGB(230, 110, 230), draw.RGB(240, 240, 120), draw.RGB(255, 90, 90)}
)

// pgPos is the pixel centre of every space.
var pgPos = func() [NumSpaces]image.Point {
	var pos [NumSpaces]image.Point
	polar := map[string][2]float64{ // radius (fraction), angle offset (degrees) in the sektor
		"H": {1.0, 0}, "L": {1.0, -24}, "P1": {0.93, -15}, "P2": {0.93, 15},
		"P3": {0.70, -19}, "P4": {0.70, 0}, "P5": {0.70, 19},
		"P6": {0.47, -20}, "P7": {0.47, 0}, "P8": {0.47, 20},
		"V": {0.35, 0}, "T": {0.25, 0}, "t1": {0.30, -14}, "t2": {0.30, 14},
	}
	for id := 0; id < NumSpaces; id++ {
		p, ok := polar[theBoard.local[id]]
		if !ok {
			continue
		}
		a := (-90 + 60*float64(SektorOf(id)) + p[1]) * math.Pi / 180
		pos[id] = image.Point{pgCX + int(math.Round(pgRadius*p[0]*math.Cos(a))), pgCY + int(math.Round(pgRadius*p[0]*math.Sin(a)))}
	}
	for _, r := range theBoard.routes {
		a, b := pos[r.a], pos[r.b]
		for i, c := range r.spaces {
			f := float64(i+1) / 4
			pos[c] = image.Point{a.X + int(math.Round(f*float64(b.X-a.X))), a.Y + int(math.Round(f*float64(b.Y-a.Y)))}
		}
	}
	return pos
}()

// RenderSize returns the picture's size: 660 x 792 pixels.
func (s *State) RenderSize() (int, int) { return pgW, pgH }

// Render draws the position (see RenderSize); only public information.
func (s *State) Render(dst *image.RGBA) {
	cv := draw.Canvas{Img: dst}
	cv.Fill(pgSpace)
	cv.Text(8, 2, fmt.Sprintf("Pilots of Gallaxia (%s)  turn %d  pilot %d  %s", modeNames[s.cfg.mode], s.turn+1, s.cur,
		phaseNames[s.phase]), pgText)
	cv.Disc(pgCX, pgCY, 22, pgSun)
	for id := 0; id < NumSpaces; id++ {
		p := pgPos[id]
		switch theBoard.kind[id] {
		case KindPlanet:
			cv.Disc(p.X, p.Y, 9, pgPlan)
			cv.TextCentered(p.X, p.Y, fmt.Sprint(theBoard.number[id]), pgText)
		case KindHangar:
			c := pgDim
			for q := 0; q < s.cfg.players; q++ {
				if int(s.sek[q]) == SektorOf(id) {
					c = pgPilot[q]
				}
			}
			cv.Frame(image.Rect(p.X-10, p.Y-10, p.X+11, p.Y+11), 2, c)
			cv.Text(p.X-30, p.Y-6, fmt.Sprint(SektorOf(id)+1), pgText)
		case KindLair:
			cv.Ring(p.X, p.Y, 8, 2, pgDim)
		case KindTeleprism:
			cv.Triangle(p.X, p.Y, 7, 0, draw.RGB(170, 120, 255))
		case KindVortex:
			cv.Ring(p.X, p.Y, 7, 2, draw.RGB(120, 220, 220))
			cv.Ring(p.X, p.Y, 3, 1, draw.RGB(120, 220, 220))
		default:
			c := pgDim
			if o := s.car[id]; o > 0 {
				c = pgPilot[o-1]
			}
			cv.Disc(p.X, p.Y, 3, c)
			if s.blokk[id] {
				cv.Frame(image.Rect(p.X-5, p.Y-5, p.X+6, p.Y+6), 1, pgText)
			}
		}
	}
	for r := 0; r < int(s.nRings); r++ {
		if s.ringState[r] != ringOnBoard {
			continue
		}
		c := pgYel
		if o := s.ringOwner[r]; o >= 0 {
			c = pgPilot[o]
		}
		p := pgPos[s.ringAt[r]]
		cv.Ring(p.X, p.Y, 13, 2, c)
	}
	for piece := 0; piece < 3*s.cfg.players; piece++ {
		at := int(s.pos[piece])
		if s.moving(piece) {
			at = int(s.at)
		}
		p, q := pgPos[at], owner(piece)
		if piece%3 == 2 {
			cv.Triangle(p.X+6, p.Y-6, 6, 2, pgPilot[q])
			continue
		}
		dx := 0
		if theBoard.kind[at] == KindHangar {
			dx = 6*(piece%3) - 3
		}
		cv.Disc(p.X+dx, p.Y, 6, pgPilot[q])
		cv.TextCentered(p.X+dx, p.Y, fmt.Sprint(piece%3+1), pgSpace)
		if c := s.cargo[piece]; c > 0 {
			rc := pgYel
			if o := s.ringOwner[c-1]; o >= 0 {
				rc = pgPilot[o]
			}
			cv.Ring(p.X+dx, p.Y, 9, 2, rc)
		}
	}
	y := pgTop
	for q := 0; q < s.cfg.players; q++ {
		line := fmt.Sprintf("pilot %d sektor %d: %d cards, caravans %d (BLOKKs %d), home %d", q, s.sek[q]+1,
			s.handN[q], s.carLeft[q], s.blkLeft[q], s.delivered[q])
		if s.cfg.mode == ModeANewLife {
			line += fmt.Sprintf(", points %d", s.points[q])
		}
		cv.Text(8, y, line, pgPilot[q])
		y += pgLineH
	}
	line := fmt.Sprintf("deck %d  Captain's deck %d  discards %d", s.deckN, s.cdckN, sumCounts(&s.disc))
	if s.nexp > 0 {
		line += "  Gambit " + cardList(s.exp[:s.nexp])
	}
	cv.Text(8, y, line, pgText)
	if s.over {
		cv.Text(8, y+pgLineH, fmt.Sprintf("pilot %d won", s.winner), pgYel)
	}
}

func sumCounts(c *[NumKinds]uint8) int {
	n := 0
	for _, v := range c {
		n += int(v)
	}
	return n
}
