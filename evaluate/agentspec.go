package evaluate

import (
	"maps"
	"strconv"

	"github.com/galaxygym/galaxygym/agents"
)

// AgentSpec is one agent instance of a lineup or of Config.Agents, written
// name[@key=value]...: the registered agent name, then its own options,
// each after an @, e.g. "mcts@sims=64", "policy@weights=a.npz" or
// "mcts@sims=256@search=ismcts". Two instances of one agent with different
// options are two rows of a report, each labelled by its spec as written.
// It is [agents.Spec], the syntax the server's opponents and the page share;
// its Options override Config.AgentOptions[Name], which every instance of
// Name shares.
type AgentSpec = agents.Spec

// ParseAgentSpec parses name[@key=value]... ([agents.ParseSpec]). Errors: a
// *[ConfigError] (Field "Agents") for an empty name, an option without
// key=value, or a key given twice.
func ParseAgentSpec(s string) (AgentSpec, error) {
	sp, err := agents.ParseSpec(s)
	if se, ok := err.(*agents.SpecError); ok {
		return sp, &ConfigError{Field: "Agents", Reason: "agent " + strconv.Quote(se.Spec) + ": " + se.Reason}
	}
	return sp, err
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
