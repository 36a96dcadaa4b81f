package agents

import (
	"encoding/json"
	"errors"
	"math"
	"path/filepath"
	"slices"
	"testing"
)

// valueCases reads value_cases.npz (python/tests/make_policy_fixture.py):
// value.npz's value outputs and probabilities for cases.npz's observations.
func valueCases(t testing.TB) map[string][][]float64 {
	t.Helper()
	out := map[string][][]float64{}
	for _, a := range readTestNPZ(t, filepath.Join(policyFixture, "value_cases.npz")) {
		n, w := a.shape[0], a.shape[1]
		v := a.float64s()
		m := make([][]float64, n)
		for i := range m {
			m[i] = v[i*w : (i+1)*w]
		}
		out[a.name] = m
	}
	return out
}

// TestPolicyValueParity: a format-version-3 file written by
// galaxygym.export_policy with a value head (value.npz) gives, in Go, the
// value head's outputs of galaxygym.policy_value within 1e-12 and of a
// float32 torch forward within 1e-4, and the same probabilities as
// galaxygym.policy_probs, from one forward pass (Evaluate).
func TestPolicyValueParity(t *testing.T) {
	spec := geSpec(t)
	c := loadPolicyCases(t)
	want := valueCases(t)
	p := newTestPolicy(t, spec, filepath.Join(policyFixture, "value.npz"))
	if p.ValueOutputs() != 2 || p.net.meta.Version != 3 || !slices.Equal(p.net.vsizes, []int{32, 16, 2}) {
		t.Fatalf("value head: %d outputs, version %d, sizes %v", p.ValueOutputs(), p.net.meta.Version, p.net.vsizes)
	}
	probs := make([]float64, spec.NumActions())
	value := make([]float64, 2)
	var worstNumpy, worstTorch, worstProbs float64
	for i := range c.obs {
		p.Evaluate(c.obs[i], c.mask[i], probs, value)
		for k, v := range value {
			worstNumpy = max(worstNumpy, math.Abs(v-want["value_numpy"][i][k]))
			worstTorch = max(worstTorch, math.Abs(v-want["value_torch"][i][k]))
		}
		for a, q := range probs {
			worstProbs = max(worstProbs, math.Abs(q-want["probs_numpy"][i][a]))
		}
		// Value alone, and probabilities alone, agree with the joint pass.
		alone := make([]float64, 2)
		p.Evaluate(c.obs[i], nil, nil, alone)
		if !slices.Equal(alone, value) {
			t.Fatalf("case %d: value alone %v, with the probabilities %v", i, alone, value)
		}
	}
	t.Logf("%d cases: max |go - numpy| value %.2e, torch %.2e; probabilities %.2e", len(c.obs), worstNumpy, worstTorch, worstProbs)
	if worstNumpy > 1e-12 || worstTorch > 1e-4 || worstProbs > 1e-12 {
		t.Errorf("max |go - numpy| value %.2e (want <= 1e-12), |go - torch| %.2e (want <= 1e-4), probabilities %.2e (want <= 1e-12)",
			worstNumpy, worstTorch, worstProbs)
	}
	if n := testing.AllocsPerRun(50, func() { p.Evaluate(c.obs[0], c.mask[0], probs, value) }); n != 0 {
		t.Errorf("Evaluate: %v allocations, want 0", n)
	}
	// A file without a value head has none.
	if q := newTestPolicy(t, spec, filepath.Join(policyFixture, "tanh.npz")); q.ValueOutputs() != 0 {
		t.Errorf("tanh.npz: %d value outputs, want 0", q.ValueOutputs())
	}
}

// TestPolicyValueBadFiles: the value head's faults, each a
// *PolicyFileError of its kind; and value arrays in a file of format
// version 1 or 2 are ignored, as those versions say.
func TestPolicyValueBadFiles(t *testing.T) {
	spec := geSpec(t)
	write := fixtureEditor(t, "value.npz")
	drop := func(names ...string) func(map[string]any, []*npyArray) []*npyArray {
		return func(_ map[string]any, arrays []*npyArray) []*npyArray {
			return slices.DeleteFunc(arrays, func(a *npyArray) bool { return slices.Contains(names, a.name) })
		}
	}
	for _, c := range []struct {
		name  string
		edit  func(map[string]any, []*npyArray) []*npyArray
		kind  error
		array string
	}{
		{"gap", drop("value0.weight", "value0.bias"), ErrPolicyMissing, "value0.weight"},
		{"no-bias", drop("value1.bias"), ErrPolicyMissing, "value1.bias"},
		{"outputs", func(m map[string]any, a []*npyArray) []*npyArray { m["value_outputs"] = 3; return a }, ErrPolicyShape, "value1.weight"},
		{"outputs-v2", func(m map[string]any, a []*npyArray) []*npyArray { m["version"] = 2; return a }, ErrPolicyMeta, "meta"},
		{"outputs-no-head", func(m map[string]any, a []*npyArray) []*npyArray {
			return drop("value0.weight", "value0.bias", "value1.weight", "value1.bias")(m, a)
		}, ErrPolicyMissing, "value0.weight"},
		{"width", func(_ map[string]any, a []*npyArray) []*npyArray {
			return append(drop("value0.weight")(nil, a), float32Array("value0.weight", []int{16, 31}, make([]float32, 16*31)))
		}, ErrPolicyShape, "value0.weight"},
		{"nan", func(_ map[string]any, a []*npyArray) []*npyArray {
			return append(drop("value1.bias")(nil, a), float32Array("value1.bias", []int{2}, []float32{0, float32(math.NaN())}))
		}, ErrPolicyNotFinite, "value1.bias"},
	} {
		_, err := New("policy", spec, Options{"weights": write(c.name, c.edit)})
		var pe *PolicyFileError
		if !errors.As(err, &pe) || !errors.Is(err, c.kind) || pe.Array != c.array {
			t.Errorf("%s: %v, want a *PolicyFileError on %s of kind %v", c.name, err, c.array, c.kind)
		}
	}
	// Version 2 without value_outputs: the value arrays are ignored.
	old := write("v2", func(m map[string]any, a []*npyArray) []*npyArray {
		m["version"] = 2
		delete(m, "value_outputs")
		return a
	})
	if p := newTestPolicy(t, spec, old); p.ValueOutputs() != 0 {
		t.Errorf("a version-2 file's value arrays read: %d outputs", p.ValueOutputs())
	}
	// A one-layer policy has no trunk for a value head.
	one := testNet{scale: make([]float32, 503), activation: "tanh", sizes: []int{56},
		layers: [][2][]float32{{make([]float32, 56*503), make([]float32, 56)}}}
	arrays := []*npyArray{float32Array("obs_scale", []int{503}, one.scale),
		float32Array("layer0.weight", []int{56, 503}, one.layers[0][0]), float32Array("layer0.bias", []int{56}, one.layers[0][1]),
		float32Array("value0.weight", []int{1, 503}, make([]float32, 503)), float32Array("value0.bias", []int{1}, []float32{0}),
		metaArray(t, map[string]any{"format": PolicyFormat, "version": 3, "env_id": spec.ID, "obs_shape": spec.ObsShape,
			"num_actions": 56, "activation": "tanh"})}
	path := filepath.Join(t.TempDir(), "one.npz")
	writeTestNPZ(t, path, false, arrays)
	if _, err := New("policy", spec, Options{"weights": path}); !errors.Is(err, ErrPolicyShape) {
		t.Errorf("a value head on a one-layer policy: %v, want ErrPolicyShape", err)
	}
}

// fixtureEditor returns a function that writes, under a test directory,
// the fixture file's arrays and meta as edit changes them (edit gets a
// copy of meta and the arrays but meta), and returns the file's path.
func fixtureEditor(t *testing.T, fixture string) func(name string, edit func(m map[string]any, arrays []*npyArray) []*npyArray) string {
	t.Helper()
	good := readTestNPZ(t, filepath.Join(policyFixture, fixture))
	var meta map[string]any
	for _, a := range good {
		if a.name == "meta" {
			if err := json.Unmarshal(a.data, &meta); err != nil {
				t.Fatal(err)
			}
		}
	}
	dir := t.TempDir()
	return func(name string, edit func(m map[string]any, arrays []*npyArray) []*npyArray) string {
		m := map[string]any{}
		for k, v := range meta {
			m[k] = v
		}
		var arrays []*npyArray
		for _, a := range good {
			if a.name != "meta" {
				arrays = append(arrays, a)
			}
		}
		arrays = edit(m, arrays)
		path := filepath.Join(dir, name+".npz")
		writeTestNPZ(t, path, false, append(arrays, metaArray(t, m)))
		return path
	}
}
