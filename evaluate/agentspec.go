package evaluate

import (
	"maps"
	"strconv"
	"strings"

	"github.com/galaxygym/galaxygym/agents"
)

// AgentSpec is one agent instance of a lineup or of Config.Agents, written
// name[@key=value]...: the registered agent name, then its own options,
// each after an @, e.g. "mcts@sims=64", "policy@weights=a.npz" or
// "mcts@sims=256@search=ismcts". Two instances of one agent with different
// options are two rows of a report, each labelled by its spec as written.
type AgentSpec struct {
	// Label is the spec as written (spaces trimmed): the row's name in a
	// report and the key identifying the instance (equal labels are one
	// agent).
	Label string
	// Name is the registered agent name.
	Name string
	// Options are the instance's own options (nil for none); they override
	// Config.AgentOptions[Name], which every instance of Name shares.
	Options agents.Options
}

// ParseAgentSpec parses name[@key=value]... (see [AgentSpec]). Errors: a
// *[ConfigError] (Field "Agents") for an empty name, an option without
// key=value, or a key given twice.
func ParseAgentSpec(s string) (AgentSpec, error) {
	s = strings.TrimSpace(s)
	parts := strings.Split(s, "@")
	sp := AgentSpec{Label: s, Name: strings.TrimSpace(parts[0])}
	if sp.Name == "" {
		return sp, &ConfigError{Field: "Agents", Reason: "agent " + strconv.Quote(s) + ": no agent name (want name[@key=value]...)"}
	}
	for _, kv := range parts[1:] {
		k, v, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return sp, &ConfigError{Field: "Agents", Reason: "agent " + strconv.Quote(s) + ": option " + strconv.Quote(kv) + " is not key=value"}
		}
		if sp.Options == nil {
			sp.Options = agents.Options{}
		}
		if _, dup := sp.Options[k]; dup {
			return sp, &ConfigError{Field: "Agents", Reason: "agent " + strconv.Quote(s) + ": option " + strconv.Quote(k) + " given twice"}
		}
		sp.Options[k] = v
	}
	return sp, nil
}

// specs parses every label and merges each instance's options over the
// shared options of its agent name.
func (c Config) specs(field string, labels []string) ([]AgentSpec, error) {
	out := make([]AgentSpec, len(labels))
	for i, l := range labels {
		sp, err := ParseAgentSpec(l)
		if err != nil {
			err.(*ConfigError).Field = field
			return nil, err
		}
		if shared := c.AgentOptions[sp.Name]; len(shared) > 0 || sp.Options != nil {
			opts := maps.Clone(shared)
			if opts == nil {
				opts = agents.Options{}
			}
			maps.Copy(opts, sp.Options)
			sp.Options = opts
		}
		out[i] = sp
	}
	return out, nil
}

// names returns the registered agent names of specs.
func names(specs []AgentSpec) []string {
	out := make([]string, len(specs))
	for i, sp := range specs {
		out[i] = sp.Name
	}
	return out
}
