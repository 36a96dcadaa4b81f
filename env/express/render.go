package express

import (
	"fmt"
	"image"
	"image/color"
	"strings"

	"github.com/galaxygym/galaxygym/env/draw"
)

// The rgb_array picture (env.Renderer): a header (hand, round, phase, the
// player to act, direction; the piles' sizes, the top discard, the
// disaster slot, set-aside cards, a Disaster awaiting its block decision),
// then one block per player: a line with the score, the hand size, the
// cards known to be in the hand, Way Cars in play (a "!" when blocked and
// permanent) and skipped turns, and one row per train: a face-down
// locomotive, then the cars, coloured by section type, with their codes
// (W= a declared Wild, W? undeclared, W> a transition). It shows what
// String shows, the public table: never a hand or a locomotive's kind.
const (
	rnMargin = 10
	rnLine   = 16
	rnCarW   = 38
	rnCarH   = 14
	rnW      = rnMargin*2 + 7*draw.GlyphW + (MaxCars+1)*(rnCarW+2)
	rnTop    = 2*rnLine + 8
	rnBlock  = rnLine + MaxTrains*(rnCarH+2) + 8
)

var (
	rnBack   = draw.RGB(18, 24, 20)
	rnText   = draw.RGB(232, 232, 220)
	rnDim    = draw.RGB(140, 150, 140)
	rnActive = draw.RGB(250, 210, 90)
	rnLoco   = draw.RGB(60, 60, 70)
	rnType   = [numTypes]color.RGBA{draw.RGB(150, 100, 60), draw.RGB(130, 130, 140), draw.RGB(60, 110, 190),
		draw.RGB(200, 210, 220), draw.RGB(200, 60, 60), draw.RGB(60, 160, 90)}
	rnWild    = draw.RGB(240, 200, 40)
	rnCaboose = draw.RGB(170, 30, 30)
)

// RenderSize returns the picture's size: 759 pixels wide, 40 + 120 per
// player high.
func (s *State) RenderSize() (int, int) { return rnW, rnTop + s.n*rnBlock }

// Render draws the public table (see RenderSize).
func (s *State) Render(dst *image.RGBA) {
	cv := draw.Canvas{Img: dst}
	cv.Fill(rnBack)
	dir := "clockwise"
	if s.dir < 0 {
		dir = "counterclockwise"
	}
	head := fmt.Sprintf("Express  hand %d  round %d  %s  %s", s.hand+1, s.hturns/s.n+1, phaseNames[s.phase], dir)
	if s.phase != PhaseOver {
		head += fmt.Sprintf("  player %d to act", s.CurrentPlayer())
	}
	cv.Text(rnMargin, 4, head, rnText)
	piles := fmt.Sprintf("draw pile %d  discard pile %d", s.deckN, s.discN)
	if s.discN > 0 {
		piles += " top " + kinds[s.disc[s.discN-1]].Code
	}
	if s.top >= 0 {
		piles += "  disaster slot " + kinds[s.top].Code
	}
	if s.asN > 0 {
		piles += "  set aside " + countsText(&s.aside)
	}
	if s.pend.kind >= 0 {
		piles += fmt.Sprintf("  %s on player %d%s: block?", kinds[BrokenCar+int(s.pend.kind)].Code, s.pend.on, s.pendTarget())
	}
	cv.Text(rnMargin, 4+rnLine, piles, rnDim)
	for i := 0; i < s.n; i++ {
		p := &s.pl[i]
		y := rnTop + i*rnBlock
		c := rnText
		if i == s.CurrentPlayer() {
			c = rnActive
		}
		var line strings.Builder
		fmt.Fprintf(&line, "player %d  score %d  %d cards", i, p.score, p.handN)
		if k := countsText(&p.known); k != "" {
			line.WriteString("  known " + k)
		}
		for w := 0; w < numWayKinds; w++ {
			for n := 0; n < int(p.way[w]); n++ {
				line.WriteString(" " + kinds[LightCrane+w].Code)
				if p.perm&(1<<w) != 0 {
					line.WriteByte('!')
				}
			}
		}
		if p.derail > 0 {
			fmt.Fprintf(&line, "  skips %d", p.derail)
		}
		cv.Text(rnMargin, y, line.String(), c)
		for t := range p.trains {
			tr := &p.trains[t]
			ty := y + rnLine + t*(rnCarH+2)
			cv.Text(rnMargin, ty, fmt.Sprintf("t%d", t), rnDim)
			if tr.loco < 0 {
				continue
			}
			x := rnMargin + 4*draw.GlyphW
			cv.Rect(image.Rect(x, ty, x+rnCarW, ty+rnCarH), rnLoco)
			cv.TextCentered(x+rnCarW/2, ty+rnCarH/2, "loco", rnDim)
			sec := -1
			for k := 0; k < int(tr.n); k++ {
				code := tr.cars[k]
				x += rnCarW + 2
				fill, label := rnWild, ""
				switch {
				case code == carWildOpen:
					label = "W?"
				case code == carWildLink:
					label, sec = "W>", -1
				case code >= carWildAs:
					sec = int(code) - carWildAs
					label = "W=" + typeCodes[sec][:1]
				case code == Caboose+1:
					fill, label = rnCaboose, "CB"
				default:
					sec = typeOf(int(code) - 1)
					fill, label = rnType[sec], kinds[code-1].Code
				}
				if code >= carWildAs && sec >= 0 && code != carWildLink {
					fill = blend(rnWild, rnType[sec])
				}
				cv.Rect(image.Rect(x, ty, x+rnCarW, ty+rnCarH), fill)
				cv.TextCentered(x+rnCarW/2, ty+rnCarH/2, label, draw.RGB(10, 10, 10))
			}
		}
	}
}

// blend mixes two colours half and half.
func blend(a, b color.RGBA) color.RGBA {
	return draw.RGB(uint8((int(a.R)+int(b.R))/2), uint8((int(a.G)+int(b.G))/2), uint8((int(a.B)+int(b.B))/2))
}
