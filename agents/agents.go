// Package agents defines the Agent interface, the registry of agents keyed
// by agent name and environment, and the generic agents, which know no
// game: the masked uniform-random agent (random), information-set search
// (mcts, for games implementing [env.Determinizer]) and a neural-network
// policy read from an .npz file (policy).
//
// A game's own agents live in a package of their own, agents/<game>, which
// registers them for the game's environment ids in its init function
// ([RegisterFor]); its heuristic is registered as "heuristic", so that
// New("heuristic", spec, opts) resolves to the heuristic of spec's game.
// The package agents/all imports every such package, as env/all does for
// the games: a program that resolves agents by name imports it.
//
// An agent sees only what a player sees at the table: its observation, the
// legal-action mask, and whatever it remembers itself. It never receives the
// game state, so it cannot read hidden information.
package agents

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/galaxygym/galaxygym/env"
)

// Agent chooses actions for one player from that player's view. An Agent is
// used by one goroutine at a time; make one per worker.
type Agent interface {
	// Name returns the registered name, e.g. "random".
	Name() string
	// Reset begins a new episode. seed drives every random choice the
	// agent makes during the episode, so that a rollout is reproducible.
	Reset(seed uint64)
	// Act returns a legal action for player. obs is the player's
	// observation (len Spec.ObsSize(); nil when the agent implements
	// [ObservationFree] and the caller skipped observing); mask is the
	// legal-action mask (len Spec.NumActions(), at least one 1). Neither
	// slice may be retained after Act returns.
	Act(player int, obs, mask []uint8) int
}

// ObservationFree is implemented by agents that decide from the mask alone;
// a runner may then skip writing observations it does not store.
type ObservationFree interface {
	IgnoresObservation() bool
}

// NeedsObservation reports whether a must be given observations.
func NeedsObservation(a Agent) bool {
	of, ok := a.(ObservationFree)
	return !ok || !of.IgnoresObservation()
}

// Options are an agent's settings, from the command line (--agent-opt
// key=value) or a caller; each agent documents the keys it reads.
type Options map[string]string

// Factory builds an agent for an environment. It returns an
// [*UnsupportedEnvError] when the agent cannot play that environment, and
// an [*OptionError] (or an error of the agent's own) for bad options.
type Factory func(spec *env.Spec, opts Options) (Agent, error)

// The names with a meaning across games.
const (
	// Heuristic is the name under which a game's agents package registers
	// the game's own planner ([RegisterFor]).
	Heuristic = "heuristic"
	// Rollout is the name under which a game's agents package may register
	// a fast agent for the simulations of search agents, when its
	// heuristic is too slow for them; mcts plays rollouts with the game's
	// "rollout" agent, else its "heuristic", else "random".
	Rollout = "rollout"
)

// Info describes a registered agent.
type Info struct {
	Name string
	Doc  string // one line: what it does and which environments it plays
	// Env is the environment id a game's own agent is registered for
	// ([RegisterFor]); "" for a generic agent ([Register], [RegisterGeneric]).
	Env string

	plays func(*env.Spec) bool // generic agents: nil plays every environment
	new   Factory
}

// Generic reports whether the agent is generic (it knows no game).
func (in Info) Generic() bool { return in.Env == "" }

// PlaysEvery reports whether the agent is generic and registered for every
// environment ([Register]), not for those a predicate accepts.
func (in Info) PlaysEvery() bool { return in.Env == "" && in.plays == nil }

// key is a registry entry's key: a game's own agent has its environment
// id, a generic agent "".
type key struct{ name, env string }

var (
	mu       sync.RWMutex
	registry = map[key]Info{}
)

// Register adds a generic agent, one that knows no game, under name: it
// plays every environment (its factory may still refuse a spec, with an
// [*UnsupportedEnvError]). It is [RegisterGeneric] with a nil plays.
func Register(name, doc string, f Factory) { RegisterGeneric(name, doc, nil, f) }

// RegisterGeneric adds a generic agent under name that plays the
// environments whose spec plays accepts (nil: every environment), such as
// mcts, which plays the games implementing [env.Determinizer]; [New]
// refuses the others with an [*UnsupportedEnvError] and [Playing] leaves
// them out. It panics when name is already registered, generically or for
// some environment. Packages call it from init.
func RegisterGeneric(name, doc string, plays func(spec *env.Spec) bool, f Factory) {
	mu.Lock()
	defer mu.Unlock()
	for k := range registry {
		if k.name == name {
			panic("agents: " + name + " registered twice")
		}
	}
	registry[key{name, ""}] = Info{Name: name, Doc: doc, plays: plays, new: f}
}

// RegisterFor adds name as an agent of the environment envID (an id such
// as "galaxy-express-v1", the spec's ID): New(name, spec, opts) for a spec
// with that ID calls f. A game's agents package registers its heuristic as
// [Heuristic] for each id of its game, from init:
//
//	func init() {
//		agents.RegisterFor(express.ID, agents.Heuristic, "what it does, in one line",
//			func(spec *env.Spec, opts agents.Options) (agents.Agent, error) {
//				h, err := NewHeuristic(spec, opts)
//				if err != nil {
//					return nil, err // a nil Agent, not a typed nil pointer
//				}
//				return h, nil
//			})
//	}
//
// and agents/all imports the package.
// RegisterFor panics when (name, envID) is already registered or name is a
// generic agent's.
func RegisterFor(envID, name, doc string, f Factory) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := registry[key{name, envID}]; dup {
		panic("agents: " + name + " registered twice for " + envID)
	}
	if _, generic := registry[key{name, ""}]; generic {
		panic("agents: " + name + " is a generic agent; RegisterFor cannot add it for " + envID)
	}
	registry[key{name, envID}] = Info{Name: name, Doc: doc, Env: envID, new: f}
}

// ErrUnknownAgent is wrapped by [*UnknownAgentError].
var ErrUnknownAgent = errors.New("agents: unknown agent")

// UnknownAgentError reports a name no agent is registered under.
type UnknownAgentError struct {
	Name  string
	Known []string
}

func (e *UnknownAgentError) Error() string {
	return fmt.Sprintf("agents: unknown agent %q (registered: %v)", e.Name, e.Known)
}

// Unwrap returns [ErrUnknownAgent].
func (e *UnknownAgentError) Unwrap() error { return ErrUnknownAgent }

// UnsupportedEnvError reports an agent asked to play an environment it
// does not play; Supported lists the registered environments it plays.
type UnsupportedEnvError struct {
	Agent, Env string
	Supported  []string
}

func (e *UnsupportedEnvError) Error() string {
	return fmt.Sprintf("agents: %s does not play %s (it plays %v)", e.Agent, e.Env, e.Supported)
}

// OptionError reports a bad agent option.
type OptionError struct {
	Agent, Key, Reason string
}

func (e *OptionError) Error() string {
	return fmt.Sprintf("agents: %s: option %q: %s", e.Agent, e.Key, e.Reason)
}

// lookup returns the entry that plays spec under name: the game's own
// agent of that name, else the generic one if it plays spec.
func lookup(name string, spec *env.Spec) (Info, bool) {
	mu.RLock()
	defer mu.RUnlock()
	if spec != nil {
		if in, ok := registry[key{name, spec.ID}]; ok {
			return in, true
		}
	}
	in, ok := registry[key{name, ""}]
	if ok && spec != nil && (in.plays == nil || in.plays(spec)) {
		return in, true
	}
	return Info{}, false
}

// New builds the named agent for spec: the agent registered under name for
// spec.ID ([RegisterFor]), else the generic agent of that name when it
// plays spec ([Register]). It returns an [*UnknownAgentError] when no agent
// has that name, an [*UnsupportedEnvError] when the agents of that name do
// not play spec's environment (or spec is nil), and the factory's error
// otherwise.
func New(name string, spec *env.Spec, opts Options) (Agent, error) {
	if in, ok := lookup(name, spec); ok {
		return in.new(spec, opts)
	}
	if !slices.Contains(Names(), name) {
		return nil, &UnknownAgentError{name, Names()}
	}
	id := "<nil>"
	if spec != nil {
		id = spec.ID
	}
	return nil, &UnsupportedEnvError{Agent: name, Env: id, Supported: EnvsOf(name)}
}

// Plays reports whether an agent registered under name plays spec's
// environment (its factory may still refuse the options, or a generic
// agent the spec itself).
func Plays(name string, spec *env.Spec) bool {
	_, ok := lookup(name, spec)
	return ok
}

// EnvsOf returns the ids of the registered environments ([env.IDs]) that
// an agent registered under name plays, sorted.
func EnvsOf(name string) []string {
	var ids []string
	for _, id := range env.IDs() {
		if g, err := env.Lookup(id); err == nil && Plays(name, g.Spec()) {
			ids = append(ids, id)
		}
	}
	return ids
}

// Names returns the registered agent names, sorted, each once.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	set := map[string]bool{}
	for k := range registry {
		set[k.name] = true
	}
	return slices.Sorted(maps.Keys(set))
}

// List returns every registration's Info, sorted by name, then
// environment (a generic agent first).
func List() []Info {
	mu.RLock()
	defer mu.RUnlock()
	ins := slices.Collect(maps.Values(registry))
	slices.SortFunc(ins, func(a, b Info) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.Env, b.Env))
	})
	return ins
}

// Playing returns the agents that play spec's environment, one Info per
// name (the game's own agent where it has one of that name, else the
// generic one), sorted by name.
func Playing(spec *env.Spec) []Info {
	var out []Info
	for _, name := range Names() {
		if in, ok := lookup(name, spec); ok {
			out = append(out, in)
		}
	}
	return out
}
