package agents

import (
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

// TestPolicyCodesParity: format-version-4 files written by galaxygym.train
// with codes (codes.npz, an MLP; codes_conv.npz, a board network; see
// python/tests/make_policy_fixture.py) give, in Go, the probabilities of
// galaxygym.policy_probs within 1e-12 and of the float32 torch forward
// within 1e-5 on real observations, whose code bytes are in and past each
// code's classes.
func TestPolicyCodesParity(t *testing.T) {
	spec := geSpec(t)
	c := loadPolicyCases(t)
	want := map[string][][]float64{}
	for _, a := range readTestNPZ(t, filepath.Join(policyFixture, "codes_cases.npz")) {
		n, w := a.shape[0], a.shape[1]
		v := a.float64s()
		for i := range n {
			want[a.name] = append(want[a.name], v[i*w:(i+1)*w])
		}
	}
	wantCodes := []PolicyCode{{Offset: 432, Size: 71, Classes: 12}, {Offset: 0, Size: 48, Classes: 2}}
	past := 0 // code bytes of classes or more: read as no class
	for _, o := range c.obs {
		for _, b := range o[432:503] {
			if b >= 12 {
				past++
			}
		}
	}
	if past == 0 {
		t.Fatal("no observation has a code byte past its classes: the fixture does not test that case")
	}
	for _, name := range []string{"codes", "codes_conv"} {
		p := newTestPolicy(t, spec, filepath.Join(policyFixture, name+".npz"))
		if p.net.meta.Version != 4 || !slices.Equal(p.net.codes, wantCodes) || p.net.in0 != p.net.feat0+71*12+48*2 {
			t.Fatalf("%s: version %d, codes %+v, inputs %d and %d", name, p.net.meta.Version, p.net.codes, p.net.feat0, p.net.in0)
		}
		checkParity(t, name, p, c, want[name+"_torch"], want[name+"_numpy"])
	}
}

// TestPolicyCodesMatter: layer 0 reads the codes' one-hot inputs.
// Zeroing their weights (the rows of layer 0 past the observation's
// bytes) changes codes.npz's probabilities.
func TestPolicyCodesMatter(t *testing.T) {
	spec := geSpec(t)
	c := loadPolicyCases(t)
	p := newTestPolicy(t, spec, filepath.Join(policyFixture, "codes.npz"))
	full := make([]float64, spec.NumActions())
	cut := make([]float64, spec.NumActions())
	p.Probs(c.obs[0], c.mask[0], full)
	n := p.net
	saved := slices.Clone(n.w0t.RawMatrix().Data)
	defer copy(n.w0t.RawMatrix().Data, saved)
	wt := n.w0t.RawMatrix()
	clear(wt.Data[n.feat0*wt.Stride:])
	p.Probs(c.obs[0], c.mask[0], cut)
	if slices.Equal(full, cut) {
		t.Fatal("the codes' inputs do not change the probabilities")
	}
}

// BenchmarkPolicyActCodes times Act of a network of the committed Pilots of
// Gallaxia policies' size (7,954 -> 512 -> 512 -> 380, relu, random
// weights) without codes and with the layout's codes one-hot (1,089 more
// inputs, format version 4), on the decisions of 10 two-player games of
// uniformly random play.
func BenchmarkPolicyActCodes(b *testing.B) {
	e, err := env.Make("pilots-of-gallaxia-v2", map[string]any{"players": 2})
	if err != nil {
		b.Fatal(err)
	}
	spec := e.Spec()
	r, _ := New("random", spec, nil)
	var obsAll, maskAll [][]uint8
	for seed := range uint64(10) {
		e.Reset(seed)
		r.Reset(seed)
		for !e.Done() {
			p := e.CurrentPlayer()
			obs := make([]uint8, spec.ObsSize())
			_ = e.Observe(p, obs)
			m := slices.Clone(e.Mask())
			obsAll, maskAll = append(obsAll, obs), append(maskAll, m)
			_, _ = e.Step(r.Act(p, obs, m))
		}
	}
	var codes []PolicyCode
	extra := 0
	for _, f := range spec.ObservationLayout {
		if f.Classes != 0 {
			codes = append(codes, PolicyCode{Offset: f.Offset, Size: f.Size(), Classes: f.Classes})
			extra += f.Size() * f.Classes
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	random := func(n int, sd float64) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64() * sd)
		}
		return v
	}
	obsSize, sizes := spec.ObsSize(), []int{512, 512, spec.NumActions()}
	scale := make([]float32, obsSize)
	for i := range scale {
		scale[i] = 1 / float32(max(spec.ObsHigh[i], 1))
	}
	in0 := obsSize + extra
	w0 := random(sizes[0]*in0, 0.02)
	rest := []*npyArray{float32Array("layer0.bias", []int{sizes[0]}, random(sizes[0], 0.1)),
		float32Array("layer1.weight", []int{sizes[1], sizes[0]}, random(sizes[1]*sizes[0], 0.05)),
		float32Array("layer1.bias", []int{sizes[1]}, random(sizes[1], 0.1)),
		float32Array("layer2.weight", []int{sizes[2], sizes[1]}, random(sizes[2]*sizes[1], 0.05)),
		float32Array("layer2.bias", []int{sizes[2]}, random(sizes[2], 0.1))}
	plain := make([]float32, sizes[0]*obsSize) // the same weights, less the codes' columns
	for o := range sizes[0] {
		copy(plain[o*obsSize:(o+1)*obsSize], w0[o*in0:o*in0+obsSize])
	}
	dir := b.TempDir()
	meta := map[string]any{"format": PolicyFormat, "version": 1, "env_id": spec.ID, "obs_shape": spec.ObsShape,
		"num_actions": spec.NumActions(), "activation": "relu"}
	files := map[string][]*npyArray{
		"plain": append([]*npyArray{metaArray(b, meta), float32Array("obs_scale", []int{obsSize}, scale),
			float32Array("layer0.weight", []int{sizes[0], obsSize}, plain)}, rest...),
	}
	meta["version"], meta["codes"] = 4, codes
	files["codes"] = append([]*npyArray{metaArray(b, meta), float32Array("obs_scale", []int{obsSize}, scale),
		float32Array("layer0.weight", []int{sizes[0], in0}, w0)}, rest...)
	for _, name := range []string{"plain", "codes"} {
		path := filepath.Join(dir, name+".npz")
		writeTestNPZ(b, path, false, files[name])
		b.Run(name, func(b *testing.B) {
			p := newTestPolicy(b, spec, path, "greedy=true")
			timeActs(b, p, obsAll, maskAll)
		})
	}
}
