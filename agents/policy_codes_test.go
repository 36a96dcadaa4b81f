package agents

import (
	"path/filepath"
	"slices"
	"testing"
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
