package play

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
)

// DefaultMCTSSims is the simulations of an mcts seat or hint whose lineup
// gives none.
const DefaultMCTSSims = 200

// limits returns the agent limits of the page: those of the training
// protocol's opponents (galaxygym serve gives both the same flags).
func (h *Handler) limits() agents.Limits {
	return agents.Limits{MaxMCTSSims: h.cfg.MaxAgentSims, MaxMCTSTime: h.cfg.MaxAgentTime, WeightsDir: h.cfg.WeightsDir}
}

// weightNames returns the weights files offered for environment id.
func (h *Handler) weightNames(id string) []string { return h.weights[id] }

// agentOptions checks the options a page gives an agent (a seat's or the
// hint's) and returns those to build it with: mcts plays by simulation
// count only (a time budget would not replay; default DefaultMCTSSims, at
// most the server's cap), optionally guided by one of the weights files
// offered for the environment (mcts@weights: the policy's prior, its value
// head at the leaves; docs/mcts.md), policy only with one of those files;
// the checks and the weights' resolution are the training protocol's
// ([agents.Limits.Check]). Errors are *RequestError bad_lineup.
func (h *Handler) agentOptions(spec *env.Spec, name string, in agents.Options) (agents.Options, error) {
	bad := func(msg string) error { return &RequestError{Code: "bad_lineup", Message: name + ": " + msg} }
	offered := map[string][]string{"mcts": {"sims", "weights"}, "policy": {"weights"}}[name]
	for k := range in {
		switch {
		case offered == nil:
			return nil, bad("takes no options here")
		case !slices.Contains(offered, k):
			return nil, bad("option " + strconv.Quote(k) + " is not offered here (" + strings.Join(offered, ", ") + " only)")
		}
	}
	sp := agents.SpecOf(name, in)
	switch name {
	case "mcts":
		if sp.Options == nil {
			sp.Options = agents.Options{} // SpecOf's options are its own copy
		}
		if sp.Options["sims"] == "" {
			sp.Options["sims"] = strconv.Itoa(DefaultMCTSSims)
		}
		if w, ok := in["weights"]; ok && !slices.Contains(h.weightNames(spec.ID), w) {
			return nil, bad(fmt.Sprintf("weights %q is not one of the server's weights for %s (%v)", w, spec.ID, h.weightNames(spec.ID)))
		}
		if n, err := strconv.Atoi(sp.Options["sims"]); err != nil || n < 1 {
			return nil, bad(fmt.Sprintf("sims must be an integer within 1..%d", h.cfg.MaxAgentSims))
		}
	case "policy":
		if w := in["weights"]; !slices.Contains(h.weightNames(spec.ID), w) {
			return nil, bad(fmt.Sprintf("weights %q is not one of the server's weights for %s (%v)", w, spec.ID, h.weightNames(spec.ID)))
		}
	}
	opts, err := h.limits().Check(sp)
	if err != nil {
		return nil, bad(err.Error())
	}
	return opts, nil
}
