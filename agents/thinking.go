package agents

import "math"

// Thoughts is what an agent weighed at one decision of one player, per
// action: each slice it fills has one entry per action of the spec
// (len(mask)), indexed by action. An agent computes them from the acting
// player's observation and legal mask only, as it does its move.
type Thoughts struct {
	// Visits counts the simulations that began with each action (mcts);
	// nil when the agent does not simulate.
	Visits []int
	// Values is the agent's value of each action, NaN for one it did not
	// weigh (illegal, or left out by its search); nil when it gives none.
	// ValueUnit says what the numbers are; they compare within one decision.
	Values []float64
	// ValueUnit describes Values, e.g. "mean return from the decision on".
	ValueUnit string
	// Probs is a policy's probability of each action (0 for illegal ones);
	// nil when the agent gives none.
	Probs []float64
}

// Reset empties th for a decision of n actions, keeping its buffers.
func (th *Thoughts) Reset() {
	th.Visits, th.Values, th.Probs, th.ValueUnit = th.Visits[:0], th.Values[:0], th.Probs[:0], ""
}

// values returns th.Values sized n and filled with NaN.
func (th *Thoughts) values(n int) []float64 {
	th.Values = grow(th.Values, n)
	for i := range th.Values {
		th.Values[i] = math.NaN()
	}
	return th.Values
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// Explainer is implemented by agents that can show their reasons.
// ActExplained is Act with the reasons: it returns the action Act would
// return for the same call, consuming the agent's generators the same way
// (a game played with ActExplained is the game played with Act), and
// fills th (reset first) with what the agent weighed. Like Act it reads
// only player's observation and mask and keeps neither slice; th's slices
// belong to th and are overwritten by the next call with the same th.
type Explainer interface {
	Agent
	ActExplained(player int, obs, mask []uint8, th *Thoughts) int
}

// ActExplained is [MCTS.Act] with its search statistics: th.Visits counts
// the simulations spent on each action and th.Values is their mean of the
// acting player's own return from the decision on (undiscounted, to the
// end of the episode or max_turns), NaN for an action never simulated.
// With search=halving the prior is simulated on the same determinizations
// as every surviving action and the others drop out round by round, so the
// counts show how far each action got; with search=ismcts they are the
// root's edge statistics. A decision that was not searched (one legal
// action, sims=0, or an observation no position has) leaves Visits all 0.
// A search with weights also gives th.Probs: the policy's probabilities at
// the root, its prior. It does not allocate once th's buffers and the
// agent's have grown to len(mask).
func (m *MCTS) ActExplained(player int, obs, mask []uint8, th *Thoughts) int {
	th.Reset()
	th.ValueUnit = "mean return from the decision on"
	th.Visits = grow(th.Visits, len(mask))
	th.values(len(mask))
	m.xsums = grow(m.xsums, len(mask))
	sums := m.xsums
	m.xvisits = th.Visits
	searched := m.stats.Searched
	a := m.Act(player, obs, mask)
	m.xvisits = nil
	if m.stats.Searched > searched && m.search == SearchISMCTS && len(m.nodes) > 0 {
		root := m.edges[:len(mask)]
		for i := range root {
			th.Visits[i], sums[i] = int(root[i].visits), root[i].sum
		}
	}
	if m.guide != nil && a >= 0 {
		// The guide's prior at the root: the policy on the real observation.
		th.Probs = grow(th.Probs, len(mask))
		copy(th.Probs, m.gprobs)
	}
	for i, n := range th.Visits {
		if n > 0 {
			th.Values[i] = sums[i] / float64(n)
		}
	}
	return a
}

// ActExplained is [Policy.Act] with the probabilities it samples from
// ([Policy.Probs]) in th.Probs.
func (p *Policy) ActExplained(player int, obs, mask []uint8, th *Thoughts) int {
	th.Reset()
	th.Probs = grow(th.Probs, len(mask))
	p.Probs(obs, mask, th.Probs)
	return p.Act(player, obs, mask)
}

// ActionValuer is implemented by game heuristics that score the actions
// they weigh: ActionValues returns the action Act would return for the
// same call (consuming the tie-breaking generator the same way) and fills
// q (len(mask)) with each weighed action's value, NaN for the others.
type ActionValuer interface {
	ActionValues(obs, mask []uint8, q []float32) int
}

// ActRecordingValues is the ActionValues of a heuristic that records the
// values of the actions it weighs into a slice while it acts: it fills
// q[:len(mask)] with NaN, points *vals at q while a plays the decision
// (a.Act(0, obs, mask)), sets *vals back to nil and returns a's action. It
// does not allocate.
func ActRecordingValues(a Agent, vals *[]float32, obs, mask []uint8, q []float32) int {
	nan := float32(math.NaN())
	for i := range q[:len(mask)] {
		q[i] = nan
	}
	*vals = q
	act := a.Act(0, obs, mask)
	*vals = nil
	return act
}

// ExplainValues is ActExplained for an [ActionValuer]: th.Values holds its
// action values (unit describes them) and the action returned is the one
// Act would return. It allocates q of len(mask) float32s.
func ExplainValues(v ActionValuer, unit string, obs, mask []uint8, th *Thoughts) int {
	th.Reset()
	th.ValueUnit = unit
	q := make([]float32, len(mask))
	a := v.ActionValues(obs, mask, q)
	vals := th.values(len(mask))
	for i, x := range q {
		vals[i] = float64(x)
	}
	return a
}
