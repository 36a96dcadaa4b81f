package galaxyexpress

import (
	"fmt"
	"strconv"

	"github.com/galaxygym/galaxygym/env"
)

// The scene (env.Presenter): the Star Chart as 8 x 6 squares of pcCell
// board units ("sq-a1" .. "sq-h6"), the planets on it ("planet-<square>",
// stable: a planet never moves), the Starship ("ship"), and below the chart
// one row of coin slots per suit ("slot-thrust-3"), holding the face-up and
// spent coins ("thrust-3"); an empty slot is a face-down coin. 340 x 352
// units: taller than wide, for a phone.
const (
	pcCell   = 40
	pcMargin = 10
	pcCoin   = 36
	pcCoinX  = 96  // first coin slot of a row
	pcRowY   = 262 // the Thrust row; the Brake row is pcCoinDY below
	pcCoinDY = 44
	pcW      = 2*pcMargin + Cols*pcCell
	pcH      = pcRowY + 2*pcCoinDY + pcMargin
)

// CSS colours of the picture (render.go's).
const (
	pcSquare    = "#181c46"
	pcPlanet    = "#468cdc"
	pcDelivered = "#2a4f7a"
	pcUnknown   = "#6e6e78"
	pcGold      = "#f5be28"
	pcShip      = "#e63c3c"
	pcSpent     = "#787ca0"
	pcDown      = "#2c3264"
)

var pcCoinColor = [2]string{"#5ac878", "#e68c3c"}

// suitTitles name the suits as the printed rules do.
var suitTitles = [2]string{"Thrust", "Brake"}

// Present returns the pilot's scene (env.Presenter) from the observation
// alone: the chart with the Starship and every planet (its number once
// scanned, the target ringed in gold), each coin as face up, spent or face
// down, the score and gauges, and one move per legal action: a launch is a
// click on its planet, a coin a click on the coin then on the square the
// ship slides to (its own square when the new speed is 0), refuel and
// no-refuel are buttons. It returns a *env.SceneError for a seat other
// than 0 or an observation of the wrong size.
func (Game) Present(p env.Params, seat int, obs []uint8, legal []int) (*env.Scene, error) {
	if len(obs) != ObsSize || seat != 0 {
		return nil, &env.SceneError{EnvID: ID, Reason: fmt.Sprintf("observation of %d bytes for seat %d", len(obs), seat)}
	}
	sc := &env.Scene{Width: pcW, Height: pcH}
	ship := -1
	for sq := 0; sq < Squares; sq++ {
		if obs[OffShip+sq] == 1 {
			ship = sq
		}
	}
	target := oneHot(obs[OffTargetNum : OffTargetNum+numPlanets])
	speed := oneHot(obs[OffSpeed : OffSpeed+maxSpeed+1])
	phase := oneHot(obs[OffPhase : OffPhase+3])
	var planets []int // squares holding a planet, reading order
	for sq := 0; sq < Squares; sq++ {
		sc.Spaces = append(sc.Spaces, env.Space{ID: "sq-" + squareName(sq), X: pcMargin + sq%Cols*pcCell,
			Y: pcMargin + sq/Cols*pcCell, W: pcCell, H: pcCell, Shape: "rect", Color: pcSquare, Owner: -1,
			Title: squareName(sq)})
		num := -1
		for n := 0; n < numPlanets; n++ {
			if obs[OffPlanet+n*Squares+sq] == 1 {
				num = n
			}
		}
		if num < 0 && obs[OffUnscanned+sq] == 0 {
			continue
		}
		planets = append(planets, sq)
		pc := env.Piece{ID: planetID(sq), At: "sq-" + squareName(sq), Shape: "disc", Owner: -1,
			Label: "?", Color: pcUnknown, Title: "a planet not yet scanned: its number is hidden"}
		if num >= 0 {
			pc.Label, pc.Color, pc.Title = strconv.Itoa(num), pcPlanet, fmt.Sprintf("planet %d", num)
			switch {
			case num == target:
				pc.Color, pc.Title = pcGold, pc.Title+": the target, the next delivery"
			case obs[OffDelivered+num] == 1:
				pc.Color, pc.Title = pcDelivered, pc.Title+": delivered"
			}
		}
		sc.Pieces = append(sc.Pieces, pc)
	}
	if ship >= 0 {
		sc.Pieces = append(sc.Pieces, env.Piece{ID: "ship", At: "sq-" + squareName(ship), Shape: "triangle",
			Color: pcShip, Owner: 0, Title: fmt.Sprintf("the Starship at %s, speed %d", squareName(ship), speed)})
	}
	spent := 0
	for suit := Thrust; suit <= Brake; suit++ {
		y := pcRowY + int(suit)*pcCoinDY
		sc.Spaces = append(sc.Spaces, env.Space{ID: "suit-" + suit.String(), X: pcMargin, Y: y, W: pcCoinX - pcMargin - 6,
			H: pcCoin, Shape: "rect", Label: suitTitles[suit], Owner: -1,
			Title: fmt.Sprintf("%s coins: %s", suitTitles[suit], suitHelp[suit])})
		for v := 0; v < numValues; v++ {
			id := suit.String() + "-" + strconv.Itoa(v)
			slot := env.Space{ID: "slot-" + id, X: pcCoinX + v*(pcCoin+4), Y: y, W: pcCoin, H: pcCoin, Shape: "rect",
				Color: pcDown, Owner: -1, Title: fmt.Sprintf("%s %d: face down in the stack (order unknown)", suit, v)}
			sc.Spaces = append(sc.Spaces, slot)
			switch {
			case obs[OffUp+int(suit)*numValues+v] == 1:
				sc.Pieces = append(sc.Pieces, env.Piece{ID: id, At: slot.ID, Shape: "disc", Label: strconv.Itoa(v),
					Color: pcCoinColor[suit], Owner: -1, Title: fmt.Sprintf("%s %d: face up, ready to play", suit, v)})
			case obs[OffSpent+int(suit)*numValues+v] == 1:
				spent++
				sc.Pieces = append(sc.Pieces, env.Piece{ID: id, At: slot.ID, Shape: "disc", Label: strconv.Itoa(v),
					Color: pcSpent, Owner: -1, Title: fmt.Sprintf("%s %d: spent", suit, v)})
			}
		}
	}
	deliveries, refuels, turns := int(obs[OffDeliveries]), int(obs[OffRefuels]), int(obs[OffTurns])
	score := DeliveryReward*deliveries + RefuelPenalty*refuels + 2*numValues - spent
	facts := []string{fmt.Sprintf("speed %d", speed), fmt.Sprintf("deliveries %d of 6", deliveries),
		fmt.Sprintf("refuels %d", refuels), fmt.Sprintf("turn %d", turns)}
	if target >= 0 {
		facts = append(facts, fmt.Sprintf("target: planet %d", target))
	}
	sc.Seats = []env.SeatFacts{{Name: "pilot", Score: fmt.Sprintf("%d points", score), Facts: facts}}
	switch phase {
	case int(PhaseStart):
		sc.Status = "launch: choose the planet to start from"
	case int(PhaseCoin):
		sc.Status = fmt.Sprintf("turn %d: play a coin (speed %d, target planet %d)", turns+1, speed, target)
	case int(PhaseRefuel):
		sc.Status = fmt.Sprintf("in orbit at %s: refuel or not", squareName(ship))
	default:
		if deliveries == MaxDeliveries {
			sc.Ended = fmt.Sprintf("all six deliveries made: %d points, %q", score, Rating(score))
		} else {
			sc.Ended = fmt.Sprintf("Lost in Space: no order of the unspent coins can bring the ship to rest on a planet; %d points, %q",
				score, Rating(score))
		}
	}
	for _, a := range legal {
		sc.Moves = append(sc.Moves, pcMove(a, ship, speed, target, planets, obs))
	}
	return sc, nil
}

var suitHelp = [2]string{"each adds its value to the speed (at most 10)", "each takes its value off the speed (at least 0)"}

// pcMove is legal action a as a move of the scene.
func pcMove(a, ship, speed, target int, planets []int, obs []uint8) env.Move {
	m := env.Move{A: a, Name: spec.ActionNames[a]}
	switch {
	case a < ActionCoin:
		sq := -1
		if k := a - ActionStart; k < len(planets) {
			sq = planets[k]
		}
		if sq < 0 {
			m.Words = "launch from planet " + strconv.Itoa(a-ActionStart+1) + " in reading order"
			break
		}
		m.Words = "launch from the planet at " + squareName(sq)
		m.Help = "place the Starship on this planet and turn it face up; if it is the target, its crown goes to the bottom of the queue"
		m.Target = []string{planetID(sq)}
	case a < ActionRefuel:
		suit, v, d, _ := DecodeCoinAction(a)
		ns := newSpeed(speed, suit, v)
		sign := "+"
		if suit == Brake {
			sign = "-"
		}
		m.Select = []string{suit.String() + "-" + strconv.Itoa(v)}
		change := fmt.Sprintf("speed %d %s %d = %d", speed, sign, v, ns)
		if ns == 0 {
			// The ship is on the chart in the coin phase; a planet under
			// it is scanned (at launch or by the slide that ended there).
			m.Words = fmt.Sprintf("%s %d: stop at %s", suit, v, squareName(ship))
			m.Help = fmt.Sprintf("spend %s coin %d: %s; the ship stays where it is", suitTitles[suit], v, change)
			if n := planetAt(obs, ship); n >= 0 {
				m.Help += fmt.Sprintf(" and orbits planet %d", n)
				if n == target {
					m.Help += ", the target: the delivery is made (+20)"
				}
				m.Help += "; then you may refuel"
			}
			m.Target = []string{"sq-" + squareName(ship)}
			break
		}
		to := Slide(ship, d, ns)
		m.Words = fmt.Sprintf("%s %d %s to %s", suit, v, dirNames[d], squareName(to))
		wrap := ""
		if r, c := ship/Cols, ship%Cols; d == North && r-ns < 0 || d == South && r+ns >= Rows || d == East && c+ns >= Cols || d == West && c-ns < 0 {
			wrap = " (round the edge)"
		}
		m.Help = fmt.Sprintf("spend %s coin %d: %s; the ship slides %d squares %s%s to %s and scans the planets on and next to it",
			suitTitles[suit], v, change, ns, dirNames[d], wrap, squareName(to))
		m.Target = []string{"sq-" + squareName(to)}
	case a == ActionRefuel:
		m.Words = "refuel (-10 points)"
		m.Help = "every coin comes back: both stacks are reshuffled and two of each suit turned face up; costs 10 points"
	default:
		m.Words = "do not refuel"
		m.Help = "keep the coins as they are; a new coin of the suit just played is turned face up"
	}
	return m
}

// planetAt returns the number of the scanned planet on square sq, or -1.
func planetAt(obs []uint8, sq int) int {
	if sq < 0 {
		return -1
	}
	for n := 0; n < numPlanets; n++ {
		if obs[OffPlanet+n*Squares+sq] == 1 {
			return n
		}
	}
	return -1
}

// planetID is the id of the planet on square sq.
func planetID(sq int) string { return "planet-" + squareName(sq) }

// oneHot returns the index of the first 1 in b, or -1.
func oneHot(b []uint8) int {
	for i, x := range b {
		if x == 1 {
			return i
		}
	}
	return -1
}

// HowToPlay returns Galaxy Express's rules in plain words (env.Presenter),
// from docs/rules/galaxy-express.md.
func (Game) HowToPlay() string {
	return `You fly a Starship around the Star Chart, an 8 x 6 grid whose edges wrap around, and deliver to six planets in the order of the Delivery Queue. The planets lie face down, each on a different 2 x 2 tile of the chart (Assumption 1): you see where they are, not their numbers. Only the top of the queue, the target, is known.

First choose the planet to launch from; it is turned face up. If it is the target, that crown goes to the bottom of the queue (Assumption 2: nothing next to it is scanned; Assumption 3: no refuel at launch).

Each turn play one face-up coin (two of each suit normally show; Assumption 14: fewer once a stack runs out). A Thrust coin adds its value (0-5) to the speed, a Brake coin subtracts it; the speed stays within 0 to 10. Above 0 the ship slides exactly that many squares north, east, south or west, wrapping round the edges. Where it stops, every planet on its square or orthogonally next to it is turned face up (Assumption 4: next-to does not wrap round the edges; Assumption 5: scanning is automatic; Assumption 6: no scan without a slide). Moves with the same result are offered once (Assumption 18).

At speed 0 on a planet the ship is in orbit, slid there or not (Assumption 7). If it is the target the delivery is made at once, +20 (Assumption 8). Then you may refuel, -10 (Assumption 9): every coin comes back and both suits are reshuffled, two face up each (Assumption 11). Without a refuel, a new coin of the suit you played is turned face up (Assumption 10).

The sixth delivery wins at once (Assumption 12). You are Lost in Space, and lose, as soon as no order of your unspent coins, face-down ones included, can bring the ship to rest on any planet (Assumption 13). Score: 20 per delivery, -10 per refuel, +1 per unspent coin, face down or up (Assumptions 16, 17). 100 or more is "Employee of the Year!!". The page stops a game after 200 coins (Assumption 15).`
}
