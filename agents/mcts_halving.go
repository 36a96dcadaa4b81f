package agents

import (
	"cmp"
	"math"
	"slices"
	"time"
)

// search=halving: sequential halving over the root's actions, rollouts
// paired with the prior's on the same determinization (see [MCTS]).

// mctsMinProb floors the policy's probabilities in option trust's
// log-probability ratio (at most ln(1e6), 13.8).
const mctsMinProb = 1e-6

// mctsCand is one root action's paired statistics.
type mctsCand struct {
	a        int
	sum, sq  float64 // paired differences with the prior's return: sum, sum of squares
	n        int
	meanDiff float64
}

// halving runs search=halving; see [MCTS].
func (m *MCTS) halving(player int, obs, mask []uint8, prior, legal int) (int, bool) {
	m.cand = append(m.cand[:0], mctsCand{a: prior})
	for a, x := range mask {
		if x != 0 && a != prior {
			m.cand = append(m.cand, mctsCand{a: a})
		}
	}
	if m.top > 0 && m.guide != nil && len(m.cand)-1 > m.top {
		// Option top: the policy's most probable others (the lowest action on ties).
		others := m.cand[1:]
		slices.SortStableFunc(others, func(x, y mctsCand) int { return cmp.Compare(m.gprobs[y.a], m.gprobs[x.a]) })
		if r := m.rivalMove; r >= 0 && r != prior {
			// Option rival=rollout: the rollout agent's choice first.
			if i := slices.IndexFunc(others, func(c mctsCand) bool { return c.a == r }); i > 0 {
				copy(others[1:i+1], others[:i])
				others[0] = mctsCand{a: r}
			}
		}
		m.cand = m.cand[:1+m.top]
		legal = len(m.cand)
	}
	rounds := 1
	for k := 2; k < legal-1; k *= 2 {
		rounds++
	}
	left := m.sims
	end := m.deadline()
	var start time.Time
	if m.budget > 0 {
		start = time.Now()
	}
rounds:
	for r := 0; r < rounds; r++ {
		per := max(1, left/((rounds-r)*len(m.cand)))
		for i := 0; i < per; i++ {
			seed, rseed := m.rng.Uint64(), m.rng.Uint64()
			base := 0.0
			for j := range m.cand {
				if m.stopped() {
					// Cancelled: the samples so far decide (a candidate
					// ahead of the prior's pairing by one sample is still
					// paired sample by sample).
					break rounds
				}
				st, ok := m.determinize(player, obs, seed)
				if !ok {
					return prior, false
				}
				g := m.rollFrom(st, player, m.cand[j].a, rseed)
				if j == 0 {
					base = g
				}
				c := &m.cand[j]
				c.sum += g - base
				c.sq += (g - base) * (g - base)
				c.n++
			}
			left -= len(m.cand)
			if m.budget > 0 && r == 0 && i == 0 {
				// Calibrate the count to the time budget.
				perSim := time.Since(start) / time.Duration(len(m.cand))
				left = min(left, int(time.Until(end)/max(perSim, 1)))
				per = max(1, left/(rounds*len(m.cand)))
			}
		}
		k := 1
		for j := 1; j < len(m.cand); j++ {
			c := &m.cand[j]
			n := float64(c.n)
			c.meanDiff = c.sum / n
			se := math.Sqrt(max(0, c.sq/n-c.meanDiff*c.meanDiff) / n)
			if m.elim > 0 && c.n >= 3 && c.meanDiff+m.elim*se+m.trustBonus(c.a, prior) <= m.margin {
				continue // cannot plausibly beat the prior
			}
			m.cand[k] = *c
			k++
		}
		m.cand = m.cand[:k]
		if len(m.cand) == 1 {
			break
		}
		if r < rounds-1 && len(m.cand) > 2 {
			others := m.cand[1:]
			slices.SortStableFunc(others, func(x, y mctsCand) int { return cmp.Compare(y.meanDiff, x.meanDiff) })
			m.cand = m.cand[:1+(len(others)+1)/2]
		}
	}
	best, bestV := prior, 0.0
	for _, c := range m.cand[1:] {
		if c.n < mctsMinPaired {
			continue // too few samples to trust the standard error
		}
		n := float64(c.n)
		mean := c.sum / n // c.meanDiff, or newer when a cancel cut a round
		se := math.Sqrt(max(0, c.sq/n-mean*mean) / n)
		if v := mean - m.z*se - m.margin + m.trustBonus(c.a, prior); v > bestV {
			best, bestV = c.a, v
		}
	}
	return best, true
}

// trustBonus is option trust's term for candidate a against the prior:
// trust times the policy's log-probability ratio ln(p(a)/p(prior)), each
// probability floored at mctsMinProb; 0 without trust.
func (m *MCTS) trustBonus(a, prior int) float64 {
	if m.trust == 0 {
		return 0
	}
	return m.trust * math.Log(max(m.gprobs[a], mctsMinProb)/max(m.gprobs[prior], mctsMinProb))
}
