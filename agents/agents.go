// Package agents defines the Agent interface, the registry of built-in
// agents, and the baseline agents: the masked uniform-random agent (any
// environment) and the Galaxy Express heuristic.
//
// An agent sees only what a player sees at the table: its observation, the
// legal-action mask, and whatever it remembers itself. It never receives the
// game state, so it cannot read hidden information.
package agents

import (
	"errors"
	"fmt"
	"sort"
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
// [*UnsupportedEnvError] when the agent cannot play that environment.
type Factory func(spec *env.Spec, opts Options) (Agent, error)

// Info describes a registered agent.
type Info struct {
	Name string
	Doc  string // one line: what it does and which envs it plays
	new  Factory
}

var (
	mu       sync.RWMutex
	registry = map[string]Info{}
)

// Register adds an agent factory under name. It panics on a duplicate name.
func Register(name, doc string, f Factory) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := registry[name]; dup {
		panic("agents: Register called twice for " + name)
	}
	registry[name] = Info{name, doc, f}
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

// UnsupportedEnvError reports an agent asked to play an environment it has
// no knowledge of.
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

// New builds the named agent for spec.
func New(name string, spec *env.Spec, opts Options) (Agent, error) {
	mu.RLock()
	in, ok := registry[name]
	mu.RUnlock()
	if !ok {
		return nil, &UnknownAgentError{name, Names()}
	}
	return in.new(spec, opts)
}

// Names returns the registered agent names, sorted.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]string, 0, len(registry))
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// List returns every registered agent's Info, sorted by name.
func List() []Info {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]Info, 0, len(registry))
	for _, in := range registry {
		out = append(out, in)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
