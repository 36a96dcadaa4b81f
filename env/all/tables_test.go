package all_test

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/galaxygym/galaxygym/env"
	_ "github.com/galaxygym/galaxygym/env/all"
	"github.com/galaxygym/galaxygym/env/express"
	gf "github.com/galaxygym/galaxygym/env/galaxyfighters"
	pog "github.com/galaxygym/galaxygym/env/pilotsofgallaxia"
)

// specJSON returns every registered spec's JSON, by id.
func specJSON(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, id := range env.IDs() {
		g, err := env.Lookup(id)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(g.Spec())
		if err != nil {
			t.Fatal(err)
		}
		out[id] = string(b)
	}
	return out
}

// playTrace plays one seeded random game of id and returns what it shows:
// every action's name, the final position and the returns.
func playTrace(t *testing.T, id string) string {
	t.Helper()
	e, err := env.Make(id, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.Reset(7)
	r := rand.New(rand.NewPCG(7, 11))
	trace := ""
	for i := 0; i < 400 && !e.Done(); i++ {
		var legal []int
		for a, ok := range e.Mask() {
			if ok == 1 {
				legal = append(legal, a)
			}
		}
		a := legal[r.IntN(len(legal))]
		trace += e.ActionName(a) + ";"
		if _, err := e.Step(a); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := json.Marshal(e.Returns())
	return trace + e.String() + string(b)
}

// TestTablesAreNotShared: mutating the slices of one registered Spec
// (outcome and action names, parameter choices) changes no other Spec, no outcome's name and
// no game's play; mutating what the packages' table accessors return
// changes nothing at all (no Spec shares env.OutcomeNames or
// express.ActionNames, and no rules read an exported table such as
// galaxyfighters.Speed).
func TestTablesAreNotShared(t *testing.T) {
	before := specJSON(t)
	ids := env.IDs()
	traces := map[string]string{}
	for _, id := range ids {
		traces[id] = playTrace(t, id)
	}
	outcomes := env.OutcomeNames()

	// Accessors hand out copies.
	env.OutcomeNames()[1] = "mutated"
	express.ActionNames()[0] = "mutated"
	gf.WeaponNames()[0] = "mutated"
	gf.EngineNames()[0] = "mutated"
	pogFirst := pog.ActionNames()[0]
	pog.ActionNames()[0] = "mutated"
	pog.NeighboursOf(pog.ID, 0)[0] = -1
	if got := env.OutcomeWin.String(); got != "win" {
		t.Errorf("OutcomeWin.String() = %q after mutating env.OutcomeNames()", got)
	}
	if got := express.ActionNames()[0]; got != "draw" {
		t.Errorf("express.ActionNames()[0] = %q after mutating a copy", got)
	}
	if got := gf.WeaponNames()[0]; got != "wide-beam" {
		t.Errorf("gf.WeaponNames()[0] = %q after mutating a copy", got)
	}
	if got := gf.EngineNames()[0]; got != "thrusters" {
		t.Errorf("gf.EngineNames()[0] = %q after mutating a copy", got)
	}
	if got := pog.ActionNames()[0]; got != pogFirst || got == "mutated" {
		t.Errorf("pog.ActionNames()[0] = %q after mutating a copy", got)
	}
	if got := pog.NeighboursOf(pog.ID, 0)[0]; got == -1 {
		t.Error("pog.NeighboursOf returns the board's own table")
	}

	// Each spec owns its slices: mutating one changes only it.
	for _, id := range ids {
		g, _ := env.Lookup(id)
		s := g.Spec()
		savedOut, savedAct := slices.Clone(s.OutcomeNames), slices.Clone(s.ActionNames)
		for i := range s.OutcomeNames {
			s.OutcomeNames[i] = "mutated"
		}
		for i := range s.ActionNames {
			s.ActionNames[i] = "mutated"
		}
		savedChoices := make([][]string, len(s.Params))
		for i := range s.Params {
			savedChoices[i] = slices.Clone(s.Params[i].Choices)
			for j := range s.Params[i].Choices {
				s.Params[i].Choices[j] = "mutated"
			}
		}
		for _, o := range []env.Outcome{env.OutcomeOngoing, env.OutcomeWin, env.OutcomeLoss, env.OutcomeDraw, env.OutcomeTruncated} {
			if o.String() != outcomes[o] {
				t.Errorf("%s: mutating Spec().OutcomeNames renamed outcome %d to %q", id, o, o.String())
			}
			if p, ok := env.ParseOutcome(outcomes[o]); !ok || p != o {
				t.Errorf("%s: ParseOutcome(%q) = %v, %v after mutating Spec().OutcomeNames", id, outcomes[o], p, ok)
			}
		}
		if got := env.OutcomeNames(); !slices.Equal(got, outcomes) {
			t.Errorf("%s: env.OutcomeNames() = %v after mutating Spec().OutcomeNames", id, got)
		}
		if id == express.ID || id == express.IDv2 {
			if got := express.ActionNames()[0]; got != "draw" {
				t.Errorf("%s: express.ActionNames()[0] = %q after mutating Spec().ActionNames", id, got)
			}
		}
		after := specJSON(t)
		for _, other := range ids {
			if other != id && after[other] != before[other] {
				t.Errorf("mutating %s's spec changed %s's spec", id, other)
			}
		}
		copy(s.OutcomeNames, savedOut)
		copy(s.ActionNames, savedAct)
		for i := range s.Params {
			copy(s.Params[i].Choices, savedChoices[i])
		}
	}
	if after := specJSON(t); !mapsEqual(after, before) {
		t.Fatal("specs not restored")
	}
	for _, id := range ids {
		if got := playTrace(t, id); got != traces[id] {
			t.Errorf("%s: the same seeded game plays differently after the mutations", id)
		}
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
