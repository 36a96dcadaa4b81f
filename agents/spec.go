package agents

import (
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/galaxygym/galaxygym/env"
)

// Spec is one agent instance written name[@key=value]...: the registered
// agent name, then its own options, each after an @, e.g. "mcts@sims=64",
// "policy@weights=a.npz@greedy=true" or "mcts@sims=256@search=ismcts". It
// is the one syntax of galaxygym eval's lineups, of a make message's
// "opponents" (docs/protocol.md) and of the page's lineups (there the name
// and its options come as separate fields: [SpecOf]).
type Spec struct {
	// Label is the spec as written (spaces trimmed): a report's row name,
	// the name a lineup shows, and the key identifying an instance.
	Label string
	// Name is the registered agent name.
	Name string
	// Options are the instance's own options (nil for none); keys and
	// values have their surrounding spaces trimmed.
	Options Options
}

// String returns the spec's label.
func (s Spec) String() string { return s.Label }

// SpecError reports an agent spec that does not parse.
type SpecError struct {
	Spec   string // the spec as written
	Reason string
}

// Error returns "agents: agent SPEC: REASON".
func (e *SpecError) Error() string {
	return "agents: agent " + strconv.Quote(e.Spec) + ": " + e.Reason
}

// ParseSpec parses name[@key=value]... (see [Spec]). It returns a
// *[SpecError] for an empty name, an option that is not key=value (with a
// non-empty key), or a key given twice. It checks only the syntax: the
// name and options are checked by [New] (or [Limits.New]).
func ParseSpec(s string) (Spec, error) {
	s = strings.TrimSpace(s)
	parts := strings.Split(s, "@")
	sp := Spec{Label: s, Name: strings.TrimSpace(parts[0])}
	if sp.Name == "" {
		return sp, &SpecError{Spec: s, Reason: "no agent name (want name[@key=value]...)"}
	}
	for _, kv := range parts[1:] {
		k, v, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return sp, &SpecError{Spec: s, Reason: "option " + strconv.Quote(kv) + " is not key=value"}
		}
		if sp.Options == nil {
			sp.Options = Options{}
		}
		if _, dup := sp.Options[k]; dup {
			return sp, &SpecError{Spec: s, Reason: "option " + strconv.Quote(k) + " given twice"}
		}
		sp.Options[k] = strings.TrimSpace(v)
	}
	return sp, nil
}

// SpecOf returns the spec of agent name with opts (nil for none), its
// label written name[@key=value]... with the keys sorted.
func SpecOf(name string, opts Options) Spec {
	var b strings.Builder
	b.WriteString(name)
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		b.WriteString("@" + k + "=" + opts[k])
	}
	return Spec{Label: b.String(), Name: name, Options: maps.Clone(opts)}
}

// Defaults of a server's [Limits] (galaxygym serve --max-agent-sims,
// --max-agent-time), measured in docs/mcts.md ("Limits"): one decision of
// mcts (search=halving, the game's heuristic rolling out) at
// DefaultMaxMCTSSims simulations takes at most about 2 s of one core on the
// slowest games (Pilots of Gallaxia v2 1.4 s mean, 2.0 s max; Galaxy
// Fighters v2 0.8 s, 1.6 s; Express v2 0.3 s, 0.4 s; Galaxy Express 8 ms).
const (
	DefaultMaxMCTSSims = 1024
	DefaultMaxMCTSTime = 2 * time.Second
)

// Limits bound the agents a client may ask a server for, and say where
// their weights files are. A server's two faces (the training protocol's
// opponents and the page's agent seats and hints) check every spec with
// the same Limits, so that one name means one file and one cap everywhere.
// The zero value caps nothing and serves no weights.
type Limits struct {
	// MaxMCTSSims caps mcts's sims option: the simulations of one decision
	// (0: no cap). An mcts given no sims option plays DefaultMCTSSims,
	// which must then be within the cap; one given only a time budget (ms > 0)
	// gets sims=MaxMCTSSims, so that both bounds hold.
	MaxMCTSSims int
	// MaxMCTSTime caps mcts's ms option: the search time of one decision
	// (0: no cap).
	MaxMCTSTime time.Duration
	// WeightsDir is the folder whose files a spec's weights options
	// (policy's weights, mcts's rollout.weights: every key "weights" or
	// ending in ".weights") may name, by a name relative to it; "" serves
	// none. See [Limits.ResolveWeights].
	WeightsDir string
}

// LimitError reports an agent option over a cap of [Limits].
type LimitError struct {
	Agent string // the agent name, e.g. "mcts"
	Key   string // the option, e.g. "sims"
	Value string // as given, or the default it takes
	Max   string // the cap, with its unit, e.g. "4096 simulations per decision"
	Flag  string // the server flag that sets the cap, e.g. "--max-agent-sims"
}

// Error returns "agents: AGENT: KEY=VALUE is over this server's limit of
// MAX (FLAG)".
func (e *LimitError) Error() string {
	return fmt.Sprintf("agents: %s: %s=%s is over this server's limit of %s (%s)", e.Agent, e.Key, e.Value, e.Max, e.Flag)
}

// WeightsError reports a weights name that [Limits.ResolveWeights]
// refuses: outside the weights folder, absolute, through "..", a symbolic
// link that leaves the folder, missing, not a regular file, or any name
// when no folder is served.
type WeightsError struct {
	Name   string // the name as given
	Reason string
}

// Error returns "agents: weights NAME: REASON".
func (e *WeightsError) Error() string {
	return "agents: weights " + strconv.Quote(e.Name) + ": " + e.Reason
}

// ResolveWeights returns the real path of the weights file name inside
// l.WeightsDir: name is local (not absolute, no ".." element), and the
// file it names, with every symbolic link resolved (filepath.EvalSymlinks
// of the folder and of the file), is a regular file inside the folder's
// real path. Anything else is a *[WeightsError], so that a client names no
// other file of the server's machine.
func (l Limits) ResolveWeights(name string) (string, error) {
	if l.WeightsDir == "" {
		return "", &WeightsError{Name: name, Reason: "this server serves no weights (galaxygym serve --weights DIR)"}
	}
	if !filepath.IsLocal(name) {
		return "", &WeightsError{Name: name, Reason: "want a file name inside the server's weights folder"}
	}
	root, err := filepath.EvalSymlinks(l.WeightsDir)
	if err != nil {
		return "", &WeightsError{Name: name, Reason: "the server's weights folder is unreadable"}
	}
	real, err := filepath.EvalSymlinks(filepath.Join(root, name))
	if err != nil {
		return "", &WeightsError{Name: name, Reason: "no such file in the server's weights folder"}
	}
	rel, err := filepath.Rel(root, real)
	if err != nil || !filepath.IsLocal(rel) {
		return "", &WeightsError{Name: name, Reason: "outside the server's weights folder"}
	}
	if fi, err := os.Stat(real); err != nil || !fi.Mode().IsRegular() {
		return "", &WeightsError{Name: name, Reason: "not a regular file"}
	}
	return real, nil
}

// WeightsFor lists the weights files l offers for environment id: the
// files of l.WeightsDir named <id>-*.npz that [Limits.ResolveWeights]
// accepts (a symbolic link leaving the folder is left out), by name,
// sorted. It returns nil when no folder is served or it cannot be read.
func (l Limits) WeightsFor(id string) []string {
	if l.WeightsDir == "" {
		return nil
	}
	ents, err := os.ReadDir(l.WeightsDir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		if !strings.HasPrefix(n, id+"-") || !strings.HasSuffix(n, ".npz") {
			continue
		}
		if _, err := l.ResolveWeights(n); err == nil {
			out = append(out, n)
		}
	}
	return out // ReadDir sorts by name
}

// isWeightsKey reports whether option key names a weights file: "weights"
// (policy) or a key ending in ".weights" (an inner agent's, e.g. mcts's
// rollout.weights).
func isWeightsKey(k string) bool { return k == "weights" || strings.HasSuffix(k, ".weights") }

// Check checks sp against l and returns the options to build it with (a
// new map; sp is not changed): every weights option resolved to its real
// path ([Limits.ResolveWeights]), and an mcts given only a time budget
// capped to MaxMCTSSims simulations. Errors: a *[LimitError] for an mcts
// whose sims (given, or the default) or ms is over its cap, a
// *[WeightsError] for a refused weights name, and an *[OptionError] for a
// sims or ms that is not a number (the agent's own checks come with
// [New]).
func (l Limits) Check(sp Spec) (Options, error) {
	opts := maps.Clone(sp.Options)
	if opts == nil {
		opts = Options{}
	}
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		if isWeightsKey(k) {
			path, err := l.ResolveWeights(opts[k])
			if err != nil {
				return nil, err
			}
			opts[k] = path
		}
	}
	if sp.Name == "mcts" {
		if err := l.checkMCTS(opts); err != nil {
			return nil, err
		}
	}
	return opts, nil
}

// checkMCTS applies the mcts caps to opts (see [Limits.Check]).
func (l Limits) checkMCTS(opts Options) error {
	var budget time.Duration // option ms
	if v, ok := opts["ms"]; ok {
		ms, err := strconv.ParseFloat(v, 64)
		if err != nil || !(ms >= 0) || math.IsInf(ms, 0) {
			return &OptionError{Agent: "mcts", Key: "ms", Reason: "want a number >= 0"}
		}
		budget = time.Duration(ms * float64(time.Millisecond))
		if l.MaxMCTSTime > 0 && budget > l.MaxMCTSTime {
			return &LimitError{Agent: "mcts", Key: "ms", Value: v,
				Max: strconv.FormatInt(l.MaxMCTSTime.Milliseconds(), 10) + " ms per decision", Flag: "--max-agent-time"}
		}
	}
	if l.MaxMCTSSims <= 0 {
		return nil
	}
	v, given := opts["sims"]
	switch {
	case given:
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return &OptionError{Agent: "mcts", Key: "sims", Reason: "want an integer >= 0"}
		}
		if n <= l.MaxMCTSSims {
			return nil
		}
	case budget > 0: // a time budget alone would search without a count
		opts["sims"] = strconv.Itoa(l.MaxMCTSSims)
		return nil
	case DefaultMCTSSims <= l.MaxMCTSSims:
		return nil
	default:
		v = strconv.Itoa(DefaultMCTSSims) + " (the default)"
	}
	return &LimitError{Agent: "mcts", Key: "sims", Value: v,
		Max: strconv.Itoa(l.MaxMCTSSims) + " simulations per decision", Flag: "--max-agent-sims"}
}

// New checks sp against l ([Limits.Check]) and builds the agent for spec
// ([New]); it returns the agent and the options it was built with.
// Errors: Check's, then New's.
func (l Limits) New(spec *env.Spec, sp Spec) (Agent, Options, error) {
	opts, err := l.Check(sp)
	if err != nil {
		return nil, nil, err
	}
	a, err := New(sp.Name, spec, opts)
	if err != nil {
		return nil, nil, err
	}
	return a, opts, nil
}
