package agents

import (
	"hash/maphash"
	"math"
	"slices"
	"time"

	"github.com/galaxygym/galaxygym/env"
)

// search=ismcts: single-observer information-set MCTS, a tree of the
// player's observations descended by UCB1 (see [MCTS]).

// mctsNode is an information set of the player: the observation reached
// by a sequence of its actions (and of what it observed in between).
type mctsNode struct {
	visits int32
	edges  int32 // offset of its NumActions edges in MCTS.edges
}

// mctsEdge holds one action's statistics at a node.
type mctsEdge struct {
	visits, avail int32
	sum           float64 // returns from the node on, backed up through this action
}

// mctsKey finds a node's child: the action played and the hash of the
// observation then reached.
type mctsKey struct {
	node, action int32
	obs          uint64
}

type mctsStep struct {
	node, action int32
	before       float64 // the player's return before the action
}

// ismcts runs search=ismcts; see [MCTS].
func (m *MCTS) ismcts(player int, obs []uint8, prior int) (int, bool) {
	m.nodes = m.nodes[:0]
	m.edges = m.edges[:0]
	clear(m.tree)
	m.newNode()
	if m.guide != nil {
		copy(m.priors, m.gprobs) // the root's prior: the policy on the real observation
	}
	end := m.deadline()
	for i := 0; i < m.sims; i++ {
		if m.budget > 0 && i > 0 && time.Now().After(end) || m.stopped() {
			break
		}
		st, ok := m.determinize(player, obs, m.rng.Uint64())
		if !ok {
			return prior, false
		}
		m.simulate(st, player, prior)
	}
	// The most visited root action; ties go to the prior, then to the
	// higher mean.
	root := m.edges[:len(m.mask)]
	best, bestN, bestQ := prior, root[prior].visits, 0.0
	if bestN > 0 {
		bestQ = root[prior].sum / float64(bestN)
	}
	for a := range root {
		e := &root[a]
		if e.visits == 0 || a == prior {
			continue
		}
		q := e.sum / float64(e.visits)
		if e.visits > bestN || e.visits == bestN && q > bestQ {
			best, bestN, bestQ = a, e.visits, q
		}
	}
	return best, true
}

// newNode adds an information-set node with its (empty) edges.
func (m *MCTS) newNode() int32 {
	na := len(m.mask)
	m.nodes = append(m.nodes, mctsNode{edges: int32(len(m.edges))})
	if n := len(m.edges); cap(m.edges) >= n+na {
		m.edges = m.edges[:n+na]
		clear(m.edges[n:])
	} else {
		m.edges = append(m.edges, make([]mctsEdge, na)...)
	}
	if m.guide != nil {
		m.priors = slices.Grow(m.priors[:len(m.edges)-na], na)[:len(m.edges)]
	}
	return int32(len(m.nodes) - 1)
}

// simulate runs one IS-MCTS simulation on the determinization st.
func (m *MCTS) simulate(st env.State, player, prior int) {
	m.rollout.Reset(m.rng.Uint64())
	m.stats.Simulations++
	m.path = m.path[:0]
	node := int32(0)
	inTree := true
	descend := false // the player moved in the tree: find the next node
	ret := 0.0
	for !st.Terminal() {
		p := st.CurrentPlayer()
		st.LegalMask(m.mask)
		var a int
		if p == player && inTree && descend {
			// The information set reached: the observation after the
			// last action in the tree (and other players' moves).
			st.Observe(player, m.obs)
			last := m.path[len(m.path)-1]
			key := mctsKey{last.node, last.action, maphash.Bytes(m.hseed, m.obs)}
			child, ok := m.tree[key]
			switch {
			case ok:
				node = child
			case m.maxDepth > 0 && len(m.path) >= m.maxDepth:
				inTree = false
				if m.leafValue {
					m.guide.Evaluate(m.obs, nil, nil, m.gvalue)
					ret += m.gvalue[0]
					goto backup
				}
			case m.guide != nil:
				// Expand: the policy's prior at the new information set,
				// and its value head's estimate of the rest (the leaf).
				node = m.newNode()
				m.tree[key] = node
				off := m.nodes[node].edges
				m.guide.Evaluate(m.obs, m.mask, m.priors[off:int(off)+len(m.mask)], m.valueWanted())
				if m.leafValue {
					ret += m.gvalue[0]
					goto backup
				}
				inTree = false
				a = m.selectPUCT(node)
				m.path = append(m.path, mctsStep{node, int32(a), ret})
				goto apply
			default:
				node = m.newNode()
				m.tree[key] = node
				inTree = false // expand one node per simulation, then roll out
				a = m.selectAction(node, st, player, -1)
				m.path = append(m.path, mctsStep{node, int32(a), ret})
				goto apply
			}
		}
		if p == player && inTree && m.guide != nil {
			a = m.selectPUCT(node)
			m.path = append(m.path, mctsStep{node, int32(a), ret})
			descend = true
		} else if p == player && inTree {
			a = m.selectAction(node, st, player, prior)
			m.path = append(m.path, mctsStep{node, int32(a), ret})
			prior = -1 // below the root the rollout agent is asked
			descend = true
		} else {
			a = m.rolloutAct(st, p)
		}
	apply:
		m.stats.Steps++
		clear(m.rewards)
		st.Apply(a, m.rewards)
		ret += m.rewards[player]
		if m.maxTurns > 0 && !st.Terminal() && st.Turn() >= m.maxTurns {
			clear(m.rewards)
			st.Truncate(m.rewards)
			ret += m.rewards[player]
			break
		}
	}
	ret += m.scoreBonus(st, player) // the rollout ended (option score)
backup:
	for _, s := range m.path {
		nd := &m.nodes[s.node]
		nd.visits++
		e := &m.edges[nd.edges+s.action]
		e.visits++
		e.sum += ret - s.before
	}
}

// selectAction picks the action at tree node node of the determinization
// st (m.mask holds its legal mask): an untried legal action if the node
// may widen (the root always, other nodes up to 1 + pw*sqrt(visits) tried
// actions): prior first when given, else the rollout agent's choice, else
// a random untried one; otherwise the best tried action by UCB1 with
// availability counts.
func (m *MCTS) selectAction(node int32, st env.State, player, prior int) int {
	nd := &m.nodes[node]
	edges := m.edges[nd.edges : int(nd.edges)+len(m.mask)]
	untried, tried := 0, 0
	for a, x := range m.mask {
		if x == 0 {
			continue
		}
		if edges[a].visits == 0 {
			untried++
		} else {
			edges[a].avail++
			tried++
		}
	}
	widen := untried > 0
	if widen && node != 0 && tried > 0 && m.pw > 0 {
		widen = tried < 1+int(m.pw*math.Sqrt(float64(nd.visits)))
	}
	if widen {
		a := prior
		if a < 0 {
			a = m.rolloutAct(st, player)
		}
		if a < 0 || m.mask[a] == 0 || edges[a].visits != 0 {
			k := int((m.rng.Uint64() >> 32) * uint64(untried) >> 32)
			for b, x := range m.mask {
				if x != 0 && edges[b].visits == 0 {
					if k == 0 {
						a = b
						break
					}
					k--
				}
			}
		}
		edges[a].avail++
		return a
	}
	best, bestV := -1, math.Inf(-1)
	for a, x := range m.mask {
		if x == 0 || edges[a].visits == 0 {
			continue
		}
		e := &edges[a]
		n := float64(e.visits)
		v := e.sum/n*m.invW + m.c*math.Sqrt(math.Log(float64(e.avail))/n)
		if a == prior {
			v += m.bias / (n + 1)
		}
		if v > bestV {
			best, bestV = a, v
		}
	}
	return best
}

// valueWanted returns the buffer an expansion writes the value head's
// outputs to: m.gvalue when the leaves are scored by the value head, else
// nil (not computed).
func (m *MCTS) valueWanted() []float64 {
	if m.leafValue {
		return m.gvalue
	}
	return nil
}

// selectPUCT picks the action at tree node node of the guided search (m.mask
// holds the determinization's legal mask) by PUCT: the legal action of
// highest Q/W + cpuct * P * sqrt(N) / (1 + n), Q its mean return from the
// node on (for an action not yet tried: the node's mean, or 0 before any
// visit), W the width of the reward range, P the policy's probability of
// it at the node (mixed with the uniform distribution over the legal
// actions by option mix), N the node's visits (at least 1) and n the
// action's; the lowest action on ties.
func (m *MCTS) selectPUCT(node int32) int {
	nd := &m.nodes[node]
	off := int(nd.edges)
	edges := m.edges[off : off+len(m.mask)]
	prior := m.priors[off : off+len(m.mask)]
	sum := 0.0
	for a := range edges {
		sum += edges[a].sum
	}
	fpu := 0.0
	if nd.visits > 0 {
		fpu = sum / float64(nd.visits) * m.invW
	}
	sqrtN := math.Sqrt(float64(max(nd.visits, 1)))
	keep, uniform := 1.0, 0.0 // option mix: PUCT's prior is keep * P + uniform
	if m.mix > 0 {
		legal := 0
		for _, x := range m.mask {
			if x != 0 {
				legal++
			}
		}
		keep, uniform = 1-m.mix, m.mix/float64(max(legal, 1))
	}
	best, bestV := -1, math.Inf(-1)
	for a, x := range m.mask {
		if x == 0 {
			continue
		}
		e := &edges[a]
		q := fpu
		if e.visits > 0 {
			q = e.sum / float64(e.visits) * m.invW
			e.avail++
		}
		v := q + m.cpuct*(keep*prior[a]+uniform)*sqrtN/float64(1+e.visits)
		if v > bestV {
			best, bestV = a, v
		}
	}
	return best
}
