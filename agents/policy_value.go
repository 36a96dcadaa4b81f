package agents

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/mat"
)

// The value head (format version 3, docs/policy-format.md): a small MLP on
// the policy's shared trunk, AlphaZero-style. Its input is the trunk's last
// hidden layer, x_{L-1} = act(h_{L-2}), the vector the policy's last layer
// reads; its layers value0, value1, ... have the activation between them
// and none after the last, whose M outputs are expected returns: output k
// is the expected undiscounted return, from the observed position to the
// end of the episode (or max_turns), of the player k seats after the
// observing player (seat (observer + k) mod players; k = 0: the observer
// itself), in the environment's reward units.

var valueKey = regexp.MustCompile(`^value(\d+)\.(weight|bias)$`)

// values reads the value head value0, value1, ... (no gap) of a version-3
// file; files of versions 1 and 2 have none (their value* arrays, if any,
// are ignored, as those versions say).
func (r *policyReader) values(n *policyNet) error {
	if n.meta == nil || n.meta.Version < 3 {
		return nil
	}
	numValue := 0
	for r.f.has(fmt.Sprintf("value%d.weight", numValue)) {
		numValue++
	}
	for _, k := range slices.Sorted(maps.Keys(r.f.keys)) {
		if m := valueKey.FindStringSubmatch(k); m != nil {
			if i, err := strconv.Atoi(m[1]); err != nil || i >= numValue {
				return r.fail(fmt.Sprintf("value%d.weight", numValue), ErrPolicyMissing, nil, "missing (the file has %s)", k)
			}
		}
	}
	if numValue == 0 {
		if n.meta.ValueOutputs != 0 {
			return r.fail("value0.weight", ErrPolicyMissing, nil, "missing (meta value_outputs is %d)", n.meta.ValueOutputs)
		}
		return nil
	}
	if len(n.w) < 2 {
		return r.fail("value0.weight", ErrPolicyShape, nil,
			"a value head reads the policy's last hidden layer, but the policy has a single layer")
	}
	in := n.sizes[len(n.sizes)-2] // the width of x_{L-1}
	n.vsizes = []int{in}
	for i := range numValue {
		w, shape, err := r.floats32(fmt.Sprintf("value%d.weight", i), -1, in)
		if err != nil {
			return err
		}
		out := shape[0]
		b, _, err := r.floats32(fmt.Sprintf("value%d.bias", i), out)
		if err != nil {
			return err
		}
		n.vw = append(n.vw, mat.NewDense(out, in, w))
		n.vb = append(n.vb, mat.NewVecDense(out, b))
		n.vsizes = append(n.vsizes, out)
		in = out
	}
	if m := n.meta.ValueOutputs; m != 0 && m != in {
		return r.fail(fmt.Sprintf("value%d.weight", numValue-1), ErrPolicyShape, nil,
			"%d outputs, but meta value_outputs is %d", in, m)
	}
	return nil
}

// ValueOutputs returns the number of outputs of the file's value head
// (docs/policy-format.md: output k is the expected return of the player k
// seats after the observer), or 0 when the file has none.
func (p *Policy) ValueOutputs() int {
	if len(p.vh) == 0 {
		return 0
	}
	return p.vh[len(p.vh)-1].Len()
}

// Evaluate runs the network once on obs and writes the action
// probabilities of [Policy.Probs] to probs (len: the number of actions;
// nil: not wanted; mask is then unused and may be nil) and the value
// head's outputs to value (len [Policy.ValueOutputs]; nil: not wanted).
// It panics on a value slice for a file without a value head, or on
// wrong lengths. It allocates nothing.
func (p *Policy) Evaluate(obs, mask []uint8, probs, value []float64) {
	if value != nil && len(value) != p.ValueOutputs() {
		panic(fmt.Sprintf("agents: policy: value of %d for a value head of %d outputs", len(value), p.ValueOutputs()))
	}
	logits := p.logits(obs)
	if probs != nil {
		if len(mask) != len(p.probs) || len(probs) != len(p.probs) {
			panic(fmt.Sprintf("agents: policy: mask of %d and probs of %d for %d actions", len(mask), len(probs), len(p.probs)))
		}
		maskedSoftmax(logits, mask, probs)
	}
	if value != nil {
		copy(value, p.valueHead())
	}
}

// valueHead runs the value head on the trunk p.logits left in p.h[L-2]
// (activated in place) and returns its outputs (a buffer of p).
func (p *Policy) valueHead() []float64 {
	n := p.net
	in := p.h[len(p.h)-2]
	for i := range p.vh {
		if i > 0 {
			n.activate(in.RawVector().Data)
		}
		out := p.vh[i]
		out.MulVec(n.vw[i], in)
		out.AddVec(out, n.vb[i])
		in = out
	}
	return in.RawVector().Data
}
