package agents

import (
	"errors"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

// afeatCases reads afeat_cases.npz (python/tests/make_policy_fixture.py):
// decisions of the heuristic's play with the game's action features, and
// afeat.npz's probabilities from numpy and from the float32 torch forward.
func afeatCases(t *testing.T) (c *policyCases, afeat [][]uint8) {
	t.Helper()
	c = &policyCases{probs: map[string][][]float64{}}
	for _, a := range readTestNPZ(t, filepath.Join(policyFixture, "afeat_cases.npz")) {
		n := a.shape[0]
		w := len(a.data) / n
		switch a.name {
		case "obs", "mask", "afeat":
			rows := make([][]uint8, n)
			for i := range rows {
				rows[i] = a.data[i*w : (i+1)*w]
			}
			switch a.name {
			case "obs":
				c.obs = rows
			case "mask":
				c.mask = rows
			default:
				afeat = rows
			}
		default:
			v := a.float64s()
			w = len(v) / n
			for i := range n {
				c.probs[a.name] = append(c.probs[a.name], v[i*w:(i+1)*w])
			}
		}
	}
	return c, afeat
}

// TestPolicyActionFeaturesParity: a format-version-5 file written by
// galaxygym.train (afeat.npz: an MLP with Galaxy Express's three action
// features) gives, in Go, with the features the game computes from each
// observation, the probabilities galaxygym.policy_probs gives with the
// features tools/dagger recorded (within 1e-12) and the float32 torch
// forward's (within 1e-5); the features Go computes are the recorded ones.
func TestPolicyActionFeaturesParity(t *testing.T) {
	spec := geSpec(t)
	c, recorded := afeatCases(t)
	f := env.ActionFeaturesOf(spec.ID)
	if f == nil {
		t.Fatal("galaxy-express-v1 declares no action features")
	}
	// The fixture was recorded when the game declared three features; it
	// declares more now, after them, and the first three are as recorded.
	ng := len(f.ActionFeatureNames())
	if !slices.Equal(f.ActionFeatureNames()[:3], []string{"lost", "orbit", "deliver"}) {
		t.Fatalf("the game's features are %v", f.ActionFeatureNames())
	}
	feat := make([]uint8, spec.NumActions()*ng)
	set := 0
	for i, o := range c.obs {
		f.ActionFeatures(o, feat)
		rw := len(recorded[i]) / spec.NumActions() // the fixture's three
		for a := range spec.NumActions() {
			if !slices.Equal(feat[a*ng:a*ng+rw], recorded[i][a*rw:(a+1)*rw]) {
				t.Fatalf("case %d: the game's features differ from the recorded ones", i)
			}
		}
		for _, x := range recorded[i] {
			set += int(x)
		}
	}
	if set < 100 {
		t.Fatalf("only %d features set in %d cases: the fixture does not test them", set, len(c.obs))
	}
	p := newTestPolicy(t, spec, filepath.Join(policyFixture, "afeat.npz"))
	if p.net.meta.Version != 5 || !slices.Equal(p.net.meta.ActionFeatures, []string{"lost", "orbit", "deliver"}) ||
		!slices.Equal(p.net.afeatW, []float64{-4, 1.5, 3}) {
		t.Fatalf("version %d, features %v, weights %v", p.net.meta.Version, p.net.meta.ActionFeatures, p.net.afeatW)
	}
	checkParity(t, "afeat", p, c, c.probs["probs_torch"], c.probs["probs_numpy"])

	// The features move the probabilities: without their term, they differ.
	full := make([]float64, spec.NumActions())
	cut := make([]float64, spec.NumActions())
	moved := 0
	w := p.net.afeatW
	for i := range c.obs {
		p.Probs(c.obs[i], c.mask[i], full)
		p.net.afeatW = []float64{0, 0, 0}
		p.Probs(c.obs[i], c.mask[i], cut)
		p.net.afeatW = w
		if !slices.Equal(full, cut) {
			moved++
		}
	}
	if moved < len(c.obs)/2 {
		t.Errorf("the features change the probabilities of %d of %d cases", moved, len(c.obs))
	}

	// Act and Probs allocate nothing with features.
	g := newTestPolicy(t, spec, filepath.Join(policyFixture, "afeat.npz"), "greedy=true")
	i := 0
	if n := testing.AllocsPerRun(200, func() {
		i = (i + 1) % len(c.obs)
		p.Act(0, c.obs[i], c.mask[i])
		g.Act(0, c.obs[i], c.mask[i])
		p.Probs(c.obs[i], c.mask[i], full)
	}); n != 0 {
		t.Errorf("%.1f allocations per decision, want 0", n)
	}
}

// TestPolicyActionFeaturesBadFiles: the action features' faults, each a
// *PolicyFileError of its kind, and a file for a game without them.
func TestPolicyActionFeaturesBadFiles(t *testing.T) {
	spec := geSpec(t)
	write := fixtureEditor(t, "afeat.npz")
	drop := func(arrays []*npyArray) []*npyArray {
		return slices.DeleteFunc(arrays, func(a *npyArray) bool { return a.name == "action_features.weight" })
	}
	for _, c := range []struct {
		name  string
		edit  func(map[string]any, []*npyArray) []*npyArray
		kind  error
		array string
	}{
		{"v4", func(m map[string]any, a []*npyArray) []*npyArray { m["version"] = 4; return a }, ErrPolicyMeta, "meta"},
		{"missing", func(_ map[string]any, a []*npyArray) []*npyArray { return drop(a) }, ErrPolicyMissing, "action_features.weight"},
		{"no-names", func(m map[string]any, a []*npyArray) []*npyArray { delete(m, "action_features"); return a }, ErrPolicyMeta, "action_features.weight"},
		{"empty-name", func(m map[string]any, a []*npyArray) []*npyArray {
			m["action_features"] = []string{"lost", "", "deliver"}
			return a
		}, ErrPolicyMeta, "meta"},
		{"shape", func(_ map[string]any, a []*npyArray) []*npyArray {
			return append(drop(a), float32Array("action_features.weight", []int{2}, []float32{1, 2}))
		}, ErrPolicyShape, "action_features.weight"},
		{"other-names", func(m map[string]any, a []*npyArray) []*npyArray {
			m["action_features"] = []string{"lost", "warp", "orbit"}
			return a
		}, ErrPolicyEnv, "meta"},
		{"named-twice", func(m map[string]any, a []*npyArray) []*npyArray {
			m["action_features"] = []string{"lost", "orbit", "lost"}
			return a
		}, ErrPolicyEnv, "meta"},
	} {
		_, err := New("policy", spec, Options{"weights": write(c.name, c.edit)})
		var pe *PolicyFileError
		if !errors.As(err, &pe) || !errors.Is(err, c.kind) || pe.Array != c.array {
			t.Errorf("%s: %v, want a *PolicyFileError on %s of kind %v", c.name, err, c.array, c.kind)
		}
	}
	// A game that declares no action features refuses a file that reads them.
	path := write("express", func(m map[string]any, a []*npyArray) []*npyArray { m["env_id"] = "express-v2"; return a })
	e, err := env.Make("express-v2", nil)
	if err != nil {
		t.Fatal(err)
	}
	if env.ActionFeaturesOf("express-v2") != nil {
		t.Skip("express-v2 declares action features now: pick another game")
	}
	_, err = New("policy", e.Spec(), Options{"weights": path})
	var pe *PolicyFileError
	if !errors.As(err, &pe) || !errors.Is(err, ErrPolicyEnv) || pe.Array != "meta" {
		t.Errorf("express-v2: %v, want a *PolicyFileError on meta of kind ErrPolicyEnv", err)
	}
}

// TestPolicyActionFeaturesByName: a file reads the game's features by
// name, any of them in any order: afeat.npz's weights written for its
// features in another order play as afeat.npz does (to rounding), and with
// a feature the game added since (trap) at weight 0, exactly; a weight on trap changes
// the decisions where a trap is on offer.
func TestPolicyActionFeaturesByName(t *testing.T) {
	spec := geSpec(t)
	c, _ := afeatCases(t)
	write := fixtureEditor(t, "afeat.npz")
	with := func(name string, names []string, w []float32) *Policy {
		path := write(name, func(m map[string]any, a []*npyArray) []*npyArray {
			m["action_features"] = names
			a = slices.DeleteFunc(a, func(x *npyArray) bool { return x.name == "action_features.weight" })
			return append(a, float32Array("action_features.weight", []int{len(w)}, w))
		})
		return newTestPolicy(t, spec, path)
	}
	ref := newTestPolicy(t, spec, filepath.Join(policyFixture, "afeat.npz"))
	same := map[string]*Policy{
		"permuted": with("permuted", []string{"deliver", "lost", "orbit"}, []float32{3, -4, 1.5}),
		"trap-0":   with("trap-0", []string{"trap", "lost", "orbit", "deliver"}, []float32{0, -4, 1.5, 3}),
	}
	trapped := with("trap", []string{"lost", "orbit", "deliver", "trap"}, []float32{-4, 1.5, 3, -0.5})
	want := make([]float64, spec.NumActions())
	got := make([]float64, spec.NumActions())
	f := env.ActionFeaturesOf(spec.ID)
	feat := make([]uint8, spec.NumActions()*len(f.ActionFeatureNames()))
	traps, moved := 0, 0
	for i := range c.obs {
		ref.Probs(c.obs[i], c.mask[i], want)
		for name, p := range same {
			p.Probs(c.obs[i], c.mask[i], got)
			for a := range got { // permuted: the same terms summed in another order
				if math.Abs(got[a]-want[a]) > 1e-12 || name == "trap-0" && got[a] != want[a] {
					t.Fatalf("%s: case %d: probabilities differ from afeat.npz's", name, i)
				}
			}
		}
		f.ActionFeatures(c.obs[i], feat)
		trap := false
		for a := range spec.NumActions() {
			trap = trap || feat[a*len(f.ActionFeatureNames())+3] != 0
		}
		trapped.Probs(c.obs[i], c.mask[i], got)
		if trap {
			traps++
		}
		if !slices.Equal(got, want) {
			moved++
			if !trap {
				t.Fatalf("case %d: the trap weight moved a decision without a trap", i)
			}
		}
	}
	if traps == 0 || moved != traps {
		t.Errorf("%d cases offer a trap, the trap weight moved %d", traps, moved)
	}
}
