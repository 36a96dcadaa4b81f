package envtest

import (
	"github.com/galaxygym/galaxygym/env"
)

// publicDecisions is the most decisions of a playout whose public words
// ([env.PublicMover]) are checked: every legal action is stepped on a clone
// and every other seat observes, so each costs legal x seats observations.
const publicDecisions = 40

// checkPublicWords checks, for a game that is an env.PublicMover, the
// contract of the public words at the decision of e: for every legal action
// (each stepped on a clone) the words are non-empty, and two actions after
// which every seat but the mover observes the same bytes get the same
// words (the words tell the others nothing their observations do not). A
// solitaire game (one seat: nobody to hide a move from) gets only the
// non-empty check.
func (p *playout) checkPublicWords(e *env.Env) {
	t := p.t
	t.Helper()
	g, err := env.Lookup(p.id)
	if err != nil {
		t.Fatal(err)
	}
	pm, ok := g.(env.PublicMover)
	if !ok || e.Done() || p.publicChecked >= publicDecisions {
		return
	}
	if e.Steps() >= publicDecisions/2 && e.Steps()%5 != 0 {
		return // the first decisions, then one in five
	}
	p.publicChecked++
	mover := e.CurrentPlayer()
	type group struct {
		obs    string
		words  string
		action int
	}
	var groups []group
	obs := make([]uint8, len(p.obs))
	rewards := make([]float64, p.spec.NumPlayers)
	for a, m := range e.Mask() {
		if m == 0 {
			continue
		}
		words := pm.PublicWords(e.Params(), mover, a)
		if words == "" {
			t.Fatalf("step %d: PublicWords(seat %d, action %d %q) is empty", e.Steps(), mover, a, p.spec.ActionNames[a])
		}
		if p.spec.NumPlayers == 1 {
			continue
		}
		st := e.State().Clone()
		st.Apply(a, rewards)
		var seen []byte
		for seat := range p.spec.NumPlayers {
			if seat == mover {
				continue
			}
			st.Observe(seat, obs)
			seen = append(seen, obs...)
		}
		key := string(seen)
		for _, g := range groups {
			if g.obs == key && g.words != words {
				t.Fatalf("step %d: seat %d's actions %q and %q look the same to every other seat, but their public words differ "+
					"(the words leak a hidden choice): %q vs %q", e.Steps(), mover,
					p.spec.ActionNames[g.action], p.spec.ActionNames[a], g.words, words)
			}
		}
		groups = append(groups, group{key, words, a})
	}
}
