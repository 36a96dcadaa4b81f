package pilotsofgallaxia

import "sync"

// PlanningDistances returns, for the board of id (ID or IDv1), the number
// of spaces between two spaces when Teleprisms are avoided (their
// destination is random) and hangars are entered only at the end; 255
// where there is no such way. Indices are a pilot's frame, which the
// board's symmetry makes the same table for every pilot. Built on first
// use and shared (read-only): the heuristic's distances, and the action
// features' (ActionFeatures).
func PlanningDistances(id string) *[NumSpaces][NumSpaces]uint8 {
	v1, v2 := planningDists()
	if id == IDv1 {
		return v1
	}
	return v2
}

var planningDists = sync.OnceValues(func() (v1, v2 *[NumSpaces][NumSpaces]uint8) {
	return planningTable(IDv1), planningTable(ID)
})

func planningTable(id string) *[NumSpaces][NumSpaces]uint8 {
	d := new([NumSpaces][NumSpaces]uint8)
	var queue [NumSpaces]int
	for src := range NumSpaces {
		row := &d[src]
		for i := range row {
			row[i] = 255
		}
		row[src] = 0
		queue[0] = src
		head, tail := 0, 1
		for head < tail {
			x := queue[head]
			head++
			if x != src && (KindOf(x) == KindHangar || KindOf(x) == KindTeleprism) {
				continue
			}
			for _, y := range NeighboursOf(id, x) {
				if row[y] == 255 {
					row[y] = row[x] + 1
					queue[tail] = int(y)
					tail++
				}
			}
		}
	}
	return d
}

// The action features Pilots of Gallaxia declares (env.ActionFeaturer):
// the board's distances for the starship on the move, from the
// observation alone.
const (
	FeatureToGo   = iota // spaces the moving starship still has to cover from the action's space (0-50)
	FeatureNearer        // the action's space is nearer its goal than the space it is on
	NumFeatures
)

var featureNames = []string{"togo", "nearer"}

// NoGoal is FeatureToGo's value when a starship has no ring it may carry
// home.
const NoGoal = 50

// ActionFeatureNames returns "togo", "nearer" (the Feature* constants'
// order).
func (Game) ActionFeatureNames() []string { return featureNames }

// ActionFeatures writes two features of every action for the observation
// obs (the observer's frame, as the actions are) into dst (NumActions x
// NumFeatures, row-major), when the observer is moving a starship (the
// next space of a move, a Teleprism's slide-off or a Durriken warp:
// phases PhPath, PhSlide, PhDWarp); everything else is 0:
//   - togo, for each space action and for ActStop (the space it is on):
//     the spaces the starship would still have to cover from there, by
//     PlanningDistances: home (space 0) when it carries a ring, else to
//     the nearest ring it may carry (its own hostage ring on the board, a
//     yellow ring) and home; NoGoal (50) when there is none, and at most
//     NoGoal;
//   - nearer: 1 for a space action whose togo is below the space it is
//     on's.
//
// Space actions the observation does not make legal get values too (the
// mask decides what is played). Everything read is public to the
// observer: its starships' spaces and cargo, the rings on the board. It
// allocates nothing.
func (g Game) ActionFeatures(obs []uint8, dst []uint8) {
	clear(dst[:NumActions*NumFeatures])
	phase := -1
	for i := range numPhases {
		if obs[OffPhase+i] == 1 {
			phase = i
		}
	}
	mover := int(obs[OffMovingPiece]) - 1
	if obs[OffPhase+numPhases] == 1 || mover < 0 || mover > 1 || (phase != PhPath && phase != PhSlide && phase != PhDWarp) {
		return
	}
	id := ID
	if g.v1 {
		id = IDv1
	}
	dist := PlanningDistances(id)
	var rings [20]int16
	n, at := 0, -1
	for i := range NumSpaces {
		k := int(obs[OffYellow+i])
		if obs[OffRings+i] == 1 {
			k++
		}
		for ; k > 0 && n < len(rings); k-- {
			rings[n] = int16(i)
			n++
		}
		if obs[OffMover+i] == 1 {
			at = i
		}
	}
	carrying := obs[OffSeats+SeatCargo+mover] > 0
	now := NoGoal
	if at >= 0 {
		now = planToGo(dist, at, carrying, rings[:n])
		dst[ActStop*NumFeatures+FeatureToGo] = uint8(now)
	}
	for sp := range NumSpaces {
		d := planToGo(dist, sp, carrying, rings[:n])
		dst[(ActNode+sp)*NumFeatures+FeatureToGo] = uint8(d)
		if d < now {
			dst[(ActNode+sp)*NumFeatures+FeatureNearer] = 1
		}
	}
}

// planToGo is the togo feature of a starship at x: home (space 0) when
// carrying, else via the nearest of rings; at most NoGoal.
func planToGo(dist *[NumSpaces][NumSpaces]uint8, x int, carrying bool, rings []int16) int {
	if carrying {
		return min(int(dist[x][0]), NoGoal)
	}
	best := NoGoal
	for _, r := range rings {
		best = min(best, int(dist[x][r])+int(dist[r][0]))
	}
	return best
}
