package agents

import (
	"errors"
	"slices"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

func init() {
	RegisterFor(duelSpec.ID, "registry-test", "the duel's own test agent",
		func(*env.Spec, Options) (Agent, error) { return NewRandom(), nil })
	RegisterFor("panics-test-v0", "panics-test", "",
		func(*env.Spec, Options) (Agent, error) { return NewRandom(), nil })
}

// TestRegistry checks the registry keyed by agent name and environment:
// a game's own agent is found only for its environment, a generic agent
// for the environments it plays, and each failure has its typed error.
func TestRegistry(t *testing.T) {
	duel := duelGame{}.Spec()
	fake := fakeSpec("mcts-fake-v0")
	det := fakeSpec("mcts-fake-det-v0")

	if a, err := New("registry-test", duel, nil); err != nil || a == nil {
		t.Fatalf("the duel's own agent: %v", err)
	}
	var ue *UnsupportedEnvError
	if _, err := New("registry-test", fake, nil); !errors.As(err, &ue) || ue.Agent != "registry-test" ||
		ue.Env != fake.ID || !slices.Equal(ue.Supported, []string{duel.ID}) {
		t.Errorf("another game's agent: %v, want *UnsupportedEnvError naming %s", err, duel.ID)
	}
	if _, err := New("registry-test", nil, nil); !errors.As(err, &ue) || ue.Env != "<nil>" {
		t.Errorf("nil spec: %v, want *UnsupportedEnvError", err)
	}
	var unk *UnknownAgentError
	if _, err := New("nobody", duel, nil); !errors.As(err, &unk) || !errors.Is(err, ErrUnknownAgent) ||
		!slices.Contains(unk.Known, "registry-test") || !slices.Contains(unk.Known, "random") {
		t.Errorf("unknown name: %v, want *UnknownAgentError listing the names", err)
	}

	// Generic agents: random everywhere (even an unregistered spec), mcts
	// where the game implements env.Determinizer.
	other := &env.Spec{ID: "unregistered-v0", NumPlayers: 1, ActionNames: []string{"a"}, ObsShape: []int{1}}
	for _, spec := range []*env.Spec{duel, fake, det, other} {
		if !Plays("random", spec) {
			t.Errorf("random does not play %s", spec.ID)
		}
	}
	if Plays("mcts", fake) || !Plays("mcts", det) || !Plays("mcts", duel) || Plays("mcts", other) {
		t.Error("mcts plays exactly the determinizable games")
	}
	if got := EnvsOf("registry-test"); !slices.Equal(got, []string{duel.ID}) {
		t.Errorf("EnvsOf(registry-test) = %v", got)
	}

	names := func(ins []Info) []string {
		var out []string
		for _, in := range ins {
			out = append(out, in.Name)
		}
		return out
	}
	if got := names(Playing(fake)); slices.Contains(got, "mcts") || slices.Contains(got, "registry-test") ||
		!slices.Contains(got, "random") || !slices.Contains(got, "policy") {
		t.Errorf("Playing(%s) = %v", fake.ID, got)
	}
	if got := names(Playing(duel)); !slices.Contains(got, "mcts") || !slices.Contains(got, "registry-test") ||
		!slices.IsSorted(got) {
		t.Errorf("Playing(%s) = %v, want mcts and its own agent, sorted", duel.ID, got)
	}
	for _, in := range List() {
		if in.Name == "registry-test" && (in.Generic() || in.Env != duel.ID) {
			t.Errorf("List: %+v", in)
		}
		if in.Name == "random" && !in.PlaysEvery() || in.Name == "mcts" && (in.PlaysEvery() || !in.Generic()) {
			t.Errorf("List: %+v", in)
		}
	}
}

// TestRegisterPanics checks the programming errors: a name registered
// twice for one environment, a game's agent under a generic agent's name,
// and a generic agent under a name already taken.
func TestRegisterPanics(t *testing.T) {
	f := func(*env.Spec, Options) (Agent, error) { return NewRandom(), nil }
	for name, register := range map[string]func(){
		"twice for one environment": func() { RegisterFor("panics-test-v0", "panics-test", "", f) },
		"a generic agent's name":    func() { RegisterFor("panics-test-v0", "random", "", f) },
		"a game agent's name":       func() { Register("panics-test", "", f) },
		"a generic name twice":      func() { RegisterGeneric("mcts", "", nil, f) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			register()
		}()
	}
}
