package agents

import (
	"context"
	"fmt"
	"hash/maphash"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/galaxygym/galaxygym/env"
)

func init() {
	RegisterGeneric("mcts", "information-set search on hidden states sampled from the observation (games "+
		"implementing env.Determinizer): sequential halving over common determinizations, or an IS-MCTS "+
		"tree; rollouts and prior by the game's rollout agent (its \"rollout\", else its \"heuristic\", "+
		"else random), or guided by a policy weights file (weights: PUCT prior, value head at the leaves); "+
		"maximises the acting player's own return; options sims, ms, search, z, margin, elim, c, bias, pw, "+
		"depth, rollout, rollout.KEY, score, weights, cpuct, mix, top, leaf, prior, rival, trust, follow and "+
		"the environment's parameters (docs/mcts.md)",
		func(spec *env.Spec) bool { return determinizer(spec) != nil },
		func(spec *env.Spec, opts Options) (Agent, error) { return NewMCTS(spec, opts) })
}

// MCTS defaults (see docs/mcts.md for the measurements behind them).
const (
	// DefaultMCTSSims is the default budget: simulations (rollouts) per
	// decision.
	DefaultMCTSSims = 256
	// DefaultMCTSZ is the default number of standard errors by which an
	// action must beat the prior to be played instead (search=halving).
	DefaultMCTSZ = 0.5
	// DefaultMCTSMargin is the default margin, in points of return, by which
	// an action must beat the prior (search=halving).
	DefaultMCTSMargin = 0.2
	// DefaultMCTSElim is the default elimination threshold (search=halving):
	// an action whose mean paired difference plus this many standard errors
	// is at most the margin is dropped.
	DefaultMCTSElim = 1.0
	// DefaultMCTSC is the default UCB exploration constant (search=ismcts),
	// in widths of the environment's reward range.
	DefaultMCTSC = 0.07
	// DefaultMCTSBias is the default progressive bias of the prior action at
	// the root (search=ismcts), in the same units.
	DefaultMCTSBias = 0.12
	// DefaultMCTSPW is the default progressive widening below the root
	// (search=ismcts).
	DefaultMCTSPW = 0.2
	// DefaultMCTSCPUCT is the default exploration constant of the guided
	// search's PUCT selection (option cpuct, with weights), in widths of the
	// environment's reward range like c.
	DefaultMCTSCPUCT = 0.5
)

// The values of [MCTS]'s option leaf (with weights).
const (
	LeafValue   = "value"   // the value head at the leaves
	LeafRollout = "rollout" // rollouts by the rollout agent to the end
)

// The values of [MCTS]'s option prior (with weights).
const (
	PriorPolicy  = "policy"  // the policy's most probable legal action (the default with weights)
	PriorRollout = "rollout" // the rollout agent's choice, as without weights
)

// mctsMinPaired is the fewest paired samples on which search=halving
// plays an action other than the prior.
const mctsMinPaired = 8

// Search algorithms of [MCTS].
const (
	SearchHalving = "halving"
	SearchISMCTS  = "ismcts"
)

// MCTS searches the player's decision on states sampled from its
// observation: an information-set search for any environment whose game
// implements [env.Determinizer]. It sees only the observation and the mask,
// like every agent; the hidden information it plans with is sampled, never
// read. A determinization is a complete state drawn, from a fresh seed,
// from those consistent with the observation (on Galaxy Express: the
// unscanned planet numbers, the queue below its top, the order of the
// face-down coins and the chance generator of later reshuffles, each
// uniform, which is their exact posterior). A simulation plays one
// determinization to the end of the episode (or to max_turns) and scores
// the deciding player's own undiscounted return from the decision on (its
// own rewards summed, whatever the others get: in a competitive game the
// search maximises the acting player's return, not the players' total).
// The rollout agent plays the simulations past the search, every player's
// moves included, and is the prior: its own choice on the real
// observation. By default it is the game's own agent registered as
// [Rollout] for the environment, else its [Heuristic], else random (found
// through the registry; the game's agents package registers them).
//
// search=halving (the default) is determinized rollout search at the root
// information set, by sequential halving over the legal actions with common
// determinizations: in each round every surviving action is played on the
// same new determinizations, with the same rollout seeds, as the prior
// action, which always survives; actions whose mean paired difference with
// the prior plus elim standard errors cannot exceed margin are dropped, and
// the better half of the others by mean paired difference goes on (rounds:
// ceil(log2(legal actions - 1)), the budget spread evenly over the rounds
// left; the search stops early when only the prior is left). The best
// survivor is played when, over at least 8 paired samples, its mean paired
// difference exceeds z standard errors plus margin points; otherwise the
// prior is. Common determinizations pair the comparison (the same hidden
// coins and planets, the same later reshuffles for every action), which
// removes most of the noise of single rollouts, and the test against the
// prior keeps the agent from trading a good heuristic move for a lucky one:
// it improves on its rollout agent (one step of policy iteration on the
// information set), and with few simulations plays like it. Every
// surviving action gets at least one simulation a round, so a decision with
// many legal actions may run a few more simulations than sims.
//
// search=ismcts is single-observer information-set Monte Carlo tree search
// (Cowling, Powley and Whitehouse, 2012). A node is an information set of
// the player: the observation reached by its actions (a child is found by
// the action and a hash of the observation that follows, so chance
// outcomes the player sees, such as the coin turned up, branch the tree).
// Each simulation samples a determinization, descends by UCB1 with
// availability counts (mean return/W + c*sqrt(ln(times available)/visits),
// W the width of the reward range, plus bias/(visits+1) for the prior at
// the root), expands one node, rolls out, and backs up at each node the
// return from that node's decision on; the most visited root action is
// played. Untried actions are tried the prior (below the root: the rollout
// agent's choice) first; below the root a node with n visits tries at most
// 1 + floor(pw*sqrt(n)) actions (progressive widening); depth caps the
// tree (depth=1: flat UCB over the root actions). At the budgets that fit
// 1,000 episodes a minute it plays worse than its rollout agent on Galaxy
// Express (docs/mcts.md): unpaired rollouts and the exploration inside the
// subtrees drown the small differences between good moves.
//
// Other players' moves, in games that have them, are the rollout agent's;
// the player to act is the state's, so a player who moves twice in a row
// or out of turn is followed (in the tree, a node is reached whenever the
// searching player is to act again). The determinizations are made with
// the spec's player count (the players parameter) unless an option gives
// it.
// A decision with a single legal action is not searched, nor is any when
// sims=0 (the agent then plays exactly like its rollout agent with the same
// seed). Everything random (the determinizations, the rollout agent's
// seeds, untried actions) derives from the seed given to Reset: an episode
// replays exactly, unless the ms time budget is used. Buffers and the tree
// are reused, so a decision does not allocate once they have grown.
//
// Options (Options / --agent-opt):
//
//	sims=N        simulations per decision (default DefaultMCTSSims; 0 plays
//	              the rollout agent)
//	ms=T          search T milliseconds per decision instead (sims, if given,
//	              still caps the count); not reproducible
//	search=S      halving (default) or ismcts
//	z=X margin=X elim=X
//	              halving's tests against the prior (defaults DefaultMCTSZ,
//	              DefaultMCTSMargin points, DefaultMCTSElim; elim=0 keeps
//	              every action to the halving)
//	c=X bias=X pw=X depth=N
//	              ismcts's exploration, prior bias, progressive widening and
//	              depth (defaults DefaultMCTSC, DefaultMCTSBias, DefaultMCTSPW,
//	              0 = unlimited; pw=0 tries every action)
//	rollout=A     the rollout and prior agent (default: the game's
//	              "rollout" agent, else its "heuristic", else random)
//	rollout.K=V   option K of the rollout agent
//	weights=FILE  guide the search by a policy weights file
//	              (docs/policy-format.md): its probabilities are the prior
//	              of PUCT selection at every node of search=ismcts (then the
//	              default search) and its most probable action the prior of
//	              search=halving and of unsearched decisions; its value head
//	              (format version 3), if any, scores the leaves: the rewards
//	              up to the searching player's next decision plus the value
//	              head's output 0 on its observation there (docs/mcts.md,
//	              "Guided search")
//	cpuct=X       PUCT's exploration constant, in reward-range widths
//	              (default DefaultMCTSCPUCT; needs weights)
//	mix=E         PUCT's prior is (1-E) times the policy's probabilities
//	              plus E times the uniform distribution over the legal
//	              actions, E in [0, 1] (default 0; needs weights): a sharp
//	              policy (a clone that puts 0.99 on one move) otherwise
//	              leaves every simulation on its own move, whatever cpuct;
//	              AlphaZero's root noise, without the noise (the search
//	              stays deterministic)
//	top=K         search=halving with weights: search the prior and the
//	              policy's K most probable other legal actions only (the
//	              lowest action on ties), not every legal action, so that
//	              each gets more of the budget (Gumbel AlphaZero's root, without
//	              the Gumbel noise); default: all; needs weights
//	leaf=L        value (the default with a value head) or rollout (roll
//	              out to the end, the default without one); needs weights
//	trust=X       search=halving with weights: the tests of a candidate a
//	              against the prior (elim's and the final one) add X points
//	              of return per unit of the policy's log-probability ratio
//	              ln(p(a)/p(prior)), each probability at least 1e-6 (so at
//	              most 13.8 units either way), so that a move the policy is
//	              sure of needs less evidence from the rollouts to replace
//	              the prior, and one it doubts needs more (Gumbel
//	              AlphaZero's final choice, the policy's logits plus a
//	              scaled value, inside halving's test; default 0, the test
//	              without the policy); needs weights
//	rival=rollout with search=halving and top: the rollout agent's choice,
//	              where it is not the prior, is the first of the top
//	              candidates beside the prior, so that the policy's prior
//	              is always weighed against it (needs weights)
//	prior=S       policy (the default with weights) or rollout: the prior
//	              action (halving's reference, the unsearched decisions'
//	              move, the first tried) is the rollout agent's choice as
//	              without weights, the policy still giving PUCT's
//	              probabilities and follow's move; needs weights
//	follow=P      after searching, play the policy's most probable legal
//	              action instead of the search's with probability P in
//	              [0, 1] (one draw of the agent's generator per searched
//	              decision; default 0; needs weights; [MCTS.Followed]):
//	              DAgger's mixture, so that expert iteration's data has the
//	              search's answers at positions the policy itself reaches
//	              (generate --record-search records a followed decision as
//	              unsearched)
//	score=W       add W times the searching player's score margin at the
//	              end of each rollout (its score in the game's Info minus
//	              the best other player's; 0 for a player alone or a team,
//	              and where Info gives no scores, as before the end) to the
//	              rollout's return, in reward units per score point (default
//	              0: the return alone). In a win/loss game (Pilots of
//	              Gallaxia: a win 1, a loss -1; its Rookie Run score 100 a
//	              ring home less the spaces to go) most rollouts from a
//	              position end the same way whichever move began them, so
//	              halving's test sees no difference; the margin says which
//	              move came closer. The search then maximises the return
//	              plus W times the margin, not the return alone
//	K=V           K a parameter of the environment (scan_wrap, max_turns):
//	              the value the environment was made with, which an agent
//	              cannot see (default: the parameter's default); passed on to
//	              the rollout agent when it accepts it
type MCTS struct {
	det      env.Determinizer
	params   env.Params
	maxTurns int

	sims     int
	budget   time.Duration
	search   string
	z        float64
	margin   float64
	elim     float64
	stats    MCTSStats
	c, bias  float64 // in reward-range widths
	invW     float64 // 1 / reward range width: scales returns for UCB
	maxDepth int
	pw       float64

	rollout         Agent
	rolloutNeedsObs bool
	rng             rand.PCG

	// The guided search (option weights; guide nil without it): the
	// policy's probabilities are the prior of PUCT, its value head (when
	// leafValue) scores the leaves.
	guide     *Policy
	cpuct     float64 // in reward-range widths
	mix       float64 // the share of the uniform distribution in PUCT's prior (option mix)
	top       int     // search=halving with weights: the policy's top actions searched beside the prior (0: all)
	leafValue bool
	follow    float64 // probability of playing the policy's choice after a search (option follow)
	followed  bool    // the last decision did (Followed)
	// priorRollout: the prior is the rollout agent's choice even with
	// weights (option prior=rollout).
	priorRollout bool
	// rivalRollout: with search=halving and top, the rollout agent's
	// choice is the first of the candidates beside the prior (option
	// rival=rollout); rivalMove is this decision's, -1 for none.
	rivalRollout bool
	rivalMove    int
	// trust: with search=halving and weights, the points of return that
	// one unit of the policy's log-probability ratio (a candidate's over
	// the prior's) adds to the candidate's tests (option trust).
	trust float64
	// scoreW: the weight of the searching player's score margin added to
	// each rollout's return at its end (option score; 0: none), and the
	// Info it is read from (reused).
	scoreW float64
	info   env.Info
	gprobs []float64 // the root's prior (the policy on the real observation)
	gvalue []float64 // the value head's outputs
	priors []float64 // per node, parallel to edges: the policy's probabilities at the node

	// Reused buffers.
	state   env.State // the current determinization
	obs     []uint8   // the rollout agent's observation
	mask    []uint8
	rewards []float64
	cand    []mctsCand
	nodes   []mctsNode
	edges   []mctsEdge
	tree    map[mctsKey]int32
	hseed   maphash.Seed
	path    []mctsStep

	// ActExplained's tally of rollFrom's returns (xvisits nil: none):
	// simulations and summed returns per root action.
	xvisits []int
	xsums   []float64

	// done is the Done channel of the context given to SetContext (nil:
	// no bound); the search stops at the next simulation once it closes.
	done <-chan struct{}
}

// NewMCTS returns the MCTS agent for spec; see [MCTS] for the options. It
// returns an *UnsupportedEnvError when spec's game is not registered or
// does not implement [env.Determinizer], and an *OptionError for a bad
// option (an error wrapping the rollout agent's for a bad rollout agent).
func NewMCTS(spec *env.Spec, opts Options) (*MCTS, error) {
	det := determinizer(spec)
	if det == nil {
		id := "<nil>"
		if spec != nil {
			id = spec.ID
		}
		return nil, &UnsupportedEnvError{Agent: "mcts", Env: id, Supported: EnvsOf("mcts")}
	}
	m := &MCTS{det: det, sims: DefaultMCTSSims, search: SearchHalving, z: DefaultMCTSZ,
		margin: DefaultMCTSMargin, elim: DefaultMCTSElim, c: DefaultMCTSC, bias: DefaultMCTSBias,
		pw: DefaultMCTSPW, cpuct: DefaultMCTSCPUCT}
	o, err := m.parseOptions(spec, opts)
	if err != nil {
		return nil, err
	}
	if err := m.resolveParams(spec, o.envParams); err != nil {
		return nil, err
	}
	if err := m.newRollout(spec, o, opts); err != nil {
		return nil, err
	}
	if err := m.newGuide(spec, o); err != nil {
		return nil, err
	}
	m.obs = make([]uint8, spec.ObsSize())
	m.mask = make([]uint8, spec.NumActions())
	m.rewards = make([]float64, spec.NumPlayers)
	m.tree = map[mctsKey]int32{}
	m.hseed = maphash.MakeSeed()
	return m, nil
}

// determinizer returns the [env.Determinizer] of spec's registered game,
// or nil.
func determinizer(spec *env.Spec) env.Determinizer {
	if spec == nil {
		return nil
	}
	g, err := env.Lookup(spec.ID)
	if err != nil {
		return nil
	}
	det, _ := g.(env.Determinizer)
	return det
}

// defaultRollout is the rollout agent of spec's environment: the game's
// own [Rollout] agent, else its [Heuristic], else "random".
func defaultRollout(spec *env.Spec) string {
	for _, name := range []string{Rollout, Heuristic} {
		if Plays(name, spec) {
			return name
		}
	}
	return "random"
}

// mctsOptions are the options NewMCTS passes on: to the environment and to
// the rollout agent.
type mctsOptions struct {
	envParams map[string]any // the environment parameters given
	rollout   string         // the rollout agent
	rollOpts  Options        // its options (rollout.K=V)
	simsSet   bool
	searchSet bool
	weights   string // the guide's weights file, or ""
	leaf      string // option leaf as given, or ""
	cpuctSet  bool
	mixSet    bool
	topSet    bool
	followSet bool
	priorSet  bool
	rivalSet  bool
	trustSet  bool
}

// parseOptions reads opts into m's settings, in key order (so that the
// first bad key is the one reported).
func (m *MCTS) parseOptions(spec *env.Spec, opts Options) (mctsOptions, error) {
	o := mctsOptions{envParams: map[string]any{}, rollout: defaultRollout(spec), rollOpts: Options{}}
	isParam := map[string]bool{}
	for _, p := range spec.Params {
		isParam[p.Name] = true
	}
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		v := opts[k]
		bad := func(reason string) error { return &OptionError{Agent: "mcts", Key: k, Reason: reason} }
		num := func() (float64, error) {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || !(f >= 0) || math.IsInf(f, 0) {
				return 0, bad("want a number >= 0")
			}
			return f, nil
		}
		var err error
		switch {
		case k == "sims" || k == "depth":
			n, e := strconv.Atoi(v)
			if e != nil || n < 0 {
				return o, bad("want an integer >= 0")
			}
			if k == "sims" {
				m.sims, o.simsSet = n, true
			} else {
				m.maxDepth = n
			}
		case k == "ms":
			var f float64
			f, err = num()
			m.budget = time.Duration(f * float64(time.Millisecond))
		case k == "z":
			m.z, err = num()
		case k == "elim":
			m.elim, err = num()
		case k == "margin":
			m.margin, err = num()
		case k == "c":
			m.c, err = num()
		case k == "pw":
			m.pw, err = num()
		case k == "bias":
			m.bias, err = num()
		case k == "cpuct":
			m.cpuct, err = num()
			o.cpuctSet = true
		case k == "top":
			n, e := strconv.Atoi(v)
			if e != nil || n < 1 {
				return o, bad("want an integer >= 1")
			}
			m.top, o.topSet = n, true
		case k == "mix":
			m.mix, err = num()
			if err == nil && m.mix > 1 {
				return o, bad("want a share in [0, 1]")
			}
			o.mixSet = true
		case k == "weights":
			if v == "" {
				return o, bad("want a weights file (.npz, docs/policy-format.md)")
			}
			o.weights = v
		case k == "prior":
			if v != PriorPolicy && v != PriorRollout {
				return o, bad("want " + PriorPolicy + " or " + PriorRollout)
			}
			m.priorRollout, o.priorSet = v == PriorRollout, true
		case k == "rival":
			if v != PriorRollout {
				return o, bad("want " + PriorRollout)
			}
			m.rivalRollout, o.rivalSet = true, true
		case k == "trust":
			m.trust, err = num()
			o.trustSet = true
		case k == "score":
			m.scoreW, err = num()
		case k == "follow":
			m.follow, err = num()
			if err == nil && m.follow > 1 {
				return o, bad("want a probability in [0, 1]")
			}
			o.followSet = true
		case k == "leaf":
			if v != LeafValue && v != LeafRollout {
				return o, bad("want " + LeafValue + " or " + LeafRollout)
			}
			o.leaf = v
		case k == "search":
			if v != SearchHalving && v != SearchISMCTS {
				return o, bad("want " + SearchHalving + " or " + SearchISMCTS)
			}
			m.search, o.searchSet = v, true
		case k == "rollout":
			if v == "mcts" {
				return o, bad("mcts cannot be its own rollout agent")
			}
			o.rollout = v
		case strings.HasPrefix(k, "rollout."):
			o.rollOpts[strings.TrimPrefix(k, "rollout.")] = v
		case isParam[k]:
			o.envParams[k] = v
		default:
			return o, bad("unknown option (known: sims, ms, search, z, margin, elim, c, bias, pw, depth, rollout, " +
				"rollout.KEY, weights, cpuct, mix, top, leaf, prior, rival, trust, follow, score, and the environment's parameters)")
		}
		if err != nil {
			return o, err
		}
	}
	if m.budget > 0 && !o.simsSet {
		m.sims = math.MaxInt32
	}
	if o.weights == "" {
		return o, o.needsWeights()
	}
	if !o.searchSet {
		m.search = SearchISMCTS // the guided search is a PUCT tree unless search=halving is asked for
	}
	if o.rivalSet && (!o.topSet || m.search != SearchHalving) {
		return o, &OptionError{Agent: "mcts", Key: "rival", Reason: "needs search=halving and top (it orders the candidates top keeps)"}
	}
	if o.trustSet && m.search != SearchHalving {
		return o, &OptionError{Agent: "mcts", Key: "trust", Reason: "needs search=halving (it changes halving's tests against the prior)"}
	}
	return o, nil
}

// needsWeights returns an *OptionError for the first option given that
// only a guided search (option weights) takes, or nil.
func (o *mctsOptions) needsWeights() error {
	for _, c := range []struct {
		set      bool
		key, why string
	}{
		{o.leaf != "", "leaf", "a policy file to guide the search"},
		{o.cpuctSet, "cpuct", "a policy file to guide the search"},
		{o.mixSet, "mix", "a policy file to guide the search"},
		{o.topSet, "top", "the policy ranks the actions"},
		{o.followSet, "follow", "a policy file to follow"},
		{o.priorSet, "prior", "without them the prior is the rollout agent's"},
		{o.rivalSet, "rival", "without them the prior is the rollout agent's"},
		{o.trustSet, "trust", "the policy's probabilities it weighs"},
	} {
		if c.set {
			return &OptionError{Agent: "mcts", Key: c.key, Reason: "needs weights (" + c.why + ")"}
		}
	}
	return nil
}

// newGuide reads the guided search's weights file (option weights), as
// the policy agent reads it (docs/policy-format.md), and sets the leaf
// evaluation: the value head unless leaf=rollout (or the file has none).
func (m *MCTS) newGuide(spec *env.Spec, o mctsOptions) error {
	if o.weights == "" {
		return nil
	}
	p, err := NewPolicy(spec, Options{"weights": o.weights, "greedy": "true"})
	if err != nil {
		return fmt.Errorf("agents: mcts: option weights: %w", err)
	}
	m.guide = p
	m.gprobs = make([]float64, spec.NumActions())
	m.gvalue = make([]float64, p.ValueOutputs())
	switch {
	case o.leaf == LeafValue && p.ValueOutputs() == 0:
		return &OptionError{Agent: "mcts", Key: "leaf",
			Reason: "value: the weights file has no value head (format version 3, docs/policy-format.md)"}
	case o.leaf == "":
		m.leafValue = p.ValueOutputs() > 0
	default:
		m.leafValue = o.leaf == LeafValue
	}
	return nil
}

// resolveParams sets the environment parameters the determinizations are
// made with: those given, the player count of spec (public knowledge), and
// the defaults; and the reward range's scale.
func (m *MCTS) resolveParams(spec *env.Spec, given map[string]any) error {
	in := maps.Clone(given)
	if spec.Param(env.PlayersParam) != nil {
		if _, set := in[env.PlayersParam]; !set {
			in[env.PlayersParam] = spec.NumPlayers
		}
	}
	var err error
	if m.params, err = spec.Resolve(in); err != nil {
		key := "environment parameter"
		if pe, ok := err.(*env.ParamError); ok {
			key = pe.Name
		}
		return &OptionError{Agent: "mcts", Key: key, Reason: err.Error()}
	}
	if n, ok := m.params[env.PlayersParam].(int); ok && n != spec.NumPlayers {
		return &OptionError{Agent: "mcts", Key: env.PlayersParam,
			Reason: fmt.Sprintf("%d, but the environment has %d players", n, spec.NumPlayers)}
	}
	if v, ok := m.params[env.MaxTurnsParam].(int); ok {
		m.maxTurns = v
	}
	w := spec.RewardRange[1] - spec.RewardRange[0]
	if !(w > 0) || math.IsInf(w, 0) {
		w = 1
	}
	m.invW = 1 / w
	return nil
}

// newRollout makes the rollout agent, passing it the environment
// parameters given that it accepts (those it refuses with an OptionError
// are dropped, unless given explicitly as rollout.K).
func (m *MCTS) newRollout(spec *env.Spec, o mctsOptions, opts Options) error {
	for k, v := range o.envParams {
		if _, set := o.rollOpts[k]; !set {
			o.rollOpts[k] = fmt.Sprint(v)
		}
	}
	var err error
	for {
		m.rollout, err = New(o.rollout, spec, o.rollOpts)
		oe, ok := err.(*OptionError)
		if !ok || o.envParams[oe.Key] == nil {
			break
		}
		if _, explicit := opts["rollout."+oe.Key]; explicit {
			break
		}
		delete(o.rollOpts, oe.Key) // a parameter this agent does not take
	}
	if err != nil {
		return fmt.Errorf("agents: mcts: rollout agent %q: %w", o.rollout, err)
	}
	m.rolloutNeedsObs = NeedsObservation(m.rollout)
	return nil
}

// Name returns "mcts".
func (*MCTS) Name() string { return "mcts" }

// Reset begins an episode: seed drives the search's generator, and the
// rollout agent is reset with seed itself (so that with sims=0 the agent
// plays exactly like its rollout agent).
func (m *MCTS) Reset(seed uint64) {
	m.rng.Seed(seed, 0x6d637473) // "mcts"
	m.rollout.Reset(seed)
}

// SetContext bounds the following decisions by ctx ([Cancellable]): once
// ctx is done, a search in progress stops before its next simulation (one
// rollout) and Act returns the best action so far, the prior (the rollout
// agent's choice) when the search has not yet found a better one; a
// decision begun after ctx is done plays the prior without searching. Such
// a decision is not reproducible. The rollout agent gets ctx too. A nil
// ctx removes the bound.
func (m *MCTS) SetContext(ctx context.Context) {
	m.done = nil
	if ctx != nil {
		m.done = ctx.Done()
	}
	SetContext(m.rollout, ctx)
}

// stopped reports whether the context given to SetContext is done.
func (m *MCTS) stopped() bool {
	select {
	case <-m.done: // a nil channel never receives
		return true
	default:
		return false
	}
}

// Act returns the searched action for player from obs and mask, or -1 when
// mask has no legal action. It keeps neither slice. A context given to
// [MCTS.SetContext] stops the search early.
func (m *MCTS) Act(player int, obs, mask []uint8) int {
	legal := 0
	for _, x := range mask {
		legal += int(x)
	}
	if legal == 0 {
		return -1
	}
	m.stats.Decisions++
	m.followed = false
	var prior, pick int
	if m.guide != nil {
		// The policy's most probable legal action (the lowest on ties).
		m.guide.Evaluate(obs, mask, m.gprobs, nil)
		pick = argmax(m.gprobs, mask)
		if pick < 0 || pick >= len(mask) || mask[pick] == 0 {
			pick = firstLegal(mask)
		}
		prior = pick
	}
	if m.guide == nil || m.priorRollout {
		prior = m.rollout.Act(player, obs, mask)
	}
	m.rivalMove = -1
	if m.rivalRollout && !m.priorRollout && legal > 1 && m.sims > 0 && !m.stopped() { // prior=rollout: the rival is the prior
		m.rivalMove = m.rollout.Act(player, obs, mask)
	}
	if prior < 0 || prior >= len(mask) || mask[prior] == 0 {
		prior = firstLegal(mask)
	}
	if legal == 1 || m.sims == 0 || m.stopped() {
		return prior
	}
	m.stats.Searched++
	var a int
	var ok bool
	if m.search == SearchISMCTS {
		a, ok = m.ismcts(player, obs, prior)
	} else {
		a, ok = m.halving(player, obs, mask, prior, legal)
	}
	if !ok {
		return prior // an observation no position has: play the prior
	}
	if m.follow > 0 && float64(m.rng.Uint64()>>11)/(1<<53) < m.follow {
		m.followed = true
		return pick // DAgger's mixture: the search answered, the policy plays
	}
	return a
}

// Followed reports whether the last decision played the policy's action
// in place of the search's answer (option follow).
func (m *MCTS) Followed() bool { return m.followed }

// MCTSStats counts an agent's work since it was made.
type MCTSStats struct {
	Decisions   int64 // calls to Act
	Searched    int64 // decisions searched (more than one legal action, sims > 0)
	Simulations int64 // rollouts (one per action evaluated on a determinization)
	Steps       int64 // actions applied in simulations, rollouts included
}

// RolloutAgent returns the agent that plays the simulations and gives the
// prior (option rollout, by default the game's own rollout agent).
func (m *MCTS) RolloutAgent() Agent { return m.rollout }

// Params returns the environment parameters the determinizations are made
// with (read only): the options given, the player count of the spec, and
// the defaults.
func (m *MCTS) Params() env.Params { return m.params }

// String describes the search settings, e.g. "mcts(search=halving sims=256
// rollout=heuristic)", with the guide's settings when it has weights.
func (m *MCTS) String() string {
	s := fmt.Sprintf("mcts(search=%s sims=%d rollout=%s", m.search, m.sims, m.rollout.Name())
	if m.guide != nil {
		leaf := LeafRollout
		if m.leafValue {
			leaf = LeafValue
		}
		s += fmt.Sprintf(" weights=%s cpuct=%g leaf=%s", m.guide.Version(), m.cpuct, leaf)
		if m.mix > 0 {
			s += fmt.Sprintf(" mix=%g", m.mix)
		}
		if m.follow > 0 {
			s += fmt.Sprintf(" follow=%g", m.follow)
		}
	}
	if m.scoreW > 0 {
		s += fmt.Sprintf(" score=%g", m.scoreW)
	}
	return s + ")"
}

// Version returns the guide's weights version, "sha256:" and the weights
// file's SHA-256 (which datasets record as the agent's version), or ""
// for a search without weights.
func (m *MCTS) Version() string {
	if m.guide == nil {
		return ""
	}
	return m.guide.Version()
}

// Guide returns the policy that guides the search (option weights), or nil.
func (m *MCTS) Guide() *Policy { return m.guide }

// argmax returns the legal action of highest p, the lowest on ties, or -1
// when mask has none.
func argmax(p []float64, mask []uint8) int {
	best := -1
	for a, x := range mask {
		if x != 0 && (best < 0 || p[a] > p[best]) {
			best = a
		}
	}
	return best
}

// Stats returns the work counters.
func (m *MCTS) Stats() MCTSStats { return m.stats }

func firstLegal(mask []uint8) int {
	for a, x := range mask {
		if x != 0 {
			return a
		}
	}
	return -1
}

// determinize samples a state for obs into the reused buffer.
func (m *MCTS) determinize(player int, obs []uint8, seed uint64) (env.State, bool) {
	st, err := m.det.Determinize(m.params, player, obs, seed, m.state)
	if err != nil {
		return nil, false
	}
	m.state = st
	return st, true
}

// deadline returns the time budget's end, or the zero time.
func (m *MCTS) deadline() time.Time {
	if m.budget <= 0 {
		return time.Time{}
	}
	return time.Now().Add(m.budget)
}

// rollFrom plays action a in st, then the rollout agent to the end (or
// max_turns) from a rollout seed, and returns player's return. With a
// value head at the leaves (leafValue) it stops at player's next decision
// instead and adds the value head's estimate of the rest (output 0, on
// player's own observation).
func (m *MCTS) rollFrom(st env.State, player, a int, rseed uint64) float64 {
	ret := m.roll(st, player, a, rseed)
	if m.xvisits != nil {
		m.xvisits[a]++
		m.xsums[a] += ret
	}
	return ret
}

// roll is rollFrom without ActExplained's tally.
func (m *MCTS) roll(st env.State, player, a int, rseed uint64) (ret float64) {
	m.rollout.Reset(rseed)
	m.stats.Simulations++
	for {
		m.stats.Steps++
		clear(m.rewards)
		st.Apply(a, m.rewards)
		ret += m.rewards[player]
		if st.Terminal() {
			return ret + m.scoreBonus(st, player)
		}
		if m.maxTurns > 0 && st.Turn() >= m.maxTurns {
			clear(m.rewards)
			st.Truncate(m.rewards)
			return ret + m.rewards[player] + m.scoreBonus(st, player)
		}
		p := st.CurrentPlayer()
		if m.leafValue && p == player {
			return ret + m.leafEstimate(st, player)
		}
		st.LegalMask(m.mask)
		a = m.rolloutAct(st, p)
	}
}

// scoreBonus returns option score's term at the end of a rollout in st:
// scoreW times player's score minus the best other player's (the scores
// of st's Info), or 0 when scoreW is 0, st's Info gives no scores or
// player is alone.
func (m *MCTS) scoreBonus(st env.State, player int) float64 {
	if m.scoreW == 0 {
		return 0
	}
	in := &m.info
	in.Scores, in.Stats, in.Labels = in.Scores[:0], in.Stats[:0], in.Labels[:0]
	st.Info(in)
	if player >= len(in.Scores) || len(in.Scores) < 2 {
		return 0
	}
	best := math.Inf(-1)
	for p, v := range in.Scores {
		if p != player && v > best {
			best = v
		}
	}
	return m.scoreW * (in.Scores[player] - best)
}

// rolloutAct asks the rollout agent for p's action in st (m.mask holds
// st's legal mask).
func (m *MCTS) rolloutAct(st env.State, p int) int {
	var obs []uint8
	if m.rolloutNeedsObs {
		st.Observe(p, m.obs)
		obs = m.obs
	}
	a := m.rollout.Act(p, obs, m.mask)
	if a < 0 || a >= len(m.mask) || m.mask[a] == 0 {
		return firstLegal(m.mask)
	}
	return a
}

// leafEstimate returns the value head's estimate of player's return from
// st on: its output 0 on player's observation of st.
func (m *MCTS) leafEstimate(st env.State, player int) float64 {
	st.Observe(player, m.obs)
	m.guide.Evaluate(m.obs, nil, nil, m.gvalue)
	return m.gvalue[0]
}
