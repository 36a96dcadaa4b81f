package agents

import (
	"errors"
	"path/filepath"
	"testing"
)

// TestPolicyMetaPlay: a weights file's meta "play" sets how the policy agent
// plays unless the greedy option says otherwise; an unknown value is a
// meta error.
func TestPolicyMetaPlay(t *testing.T) {
	spec := geSpec(t)
	good := readTestNPZ(t, filepath.Join(policyFixture, "tanh.npz"))
	dir := t.TempDir()
	withMeta := func(name, json string) string {
		var arrays []*npyArray
		for _, a := range good {
			if a.name != "meta" {
				arrays = append(arrays, a)
			}
		}
		arrays = append(arrays, &npyArray{name: "meta", dtype: "|u1", shape: []int{len(json)}, data: []byte(json)})
		path := filepath.Join(dir, name+".npz")
		writeTestNPZ(t, path, false, arrays)
		return path
	}
	const head = `{"format": "galaxygym-mlp-policy", "version": 1, "env_id": "galaxy-express-v1", "obs_shape": [503], "num_actions": 56, "activation": "tanh"`
	for _, tc := range []struct {
		name, play string
		opts       []string
		want       bool
	}{
		{name: "greedy", play: `, "play": "greedy"`, want: true},
		{name: "greedy-overridden", play: `, "play": "greedy"`, opts: []string{"greedy=false"}, want: false},
		{name: "sample", play: `, "play": "sample"`, want: false},
		{name: "sample-overridden", play: `, "play": "sample"`, opts: []string{"greedy=true"}, want: true},
		{name: "unsaid", play: ``, want: false},
	} {
		p := newTestPolicy(t, spec, withMeta(tc.name, head+tc.play+"}"), tc.opts...)
		if p.Greedy() != tc.want {
			t.Errorf("%s: Greedy() = %v, want %v", tc.name, p.Greedy(), tc.want)
		}
	}
	_, err := New("policy", spec, Options{"weights": withMeta("bad", head+`, "play": "argmax"}`)})
	var pe *PolicyFileError
	if !errors.As(err, &pe) || !errors.Is(err, ErrPolicyMeta) {
		t.Fatalf("play argmax: %v, want a *PolicyFileError wrapping ErrPolicyMeta", err)
	}
	// Greedy play from the file gives the same actions as greedy=true.
	a := newTestPolicy(t, spec, withMeta("greedy2", head+`, "play": "greedy"}`))
	b := newTestPolicy(t, spec, filepath.Join(policyFixture, "tanh.npz"), "greedy=true")
	c := loadPolicyCases(t)
	for i := range c.obs {
		if x, y := a.Act(0, c.obs[i], c.mask[i]), b.Act(0, c.obs[i], c.mask[i]); x != y {
			t.Fatalf("case %d: %d from meta play greedy, %d from greedy=true", i, x, y)
		}
	}
}

// TestCommittedWeightsPlayGreedy: the committed weights say they are meant
// to be played greedily (as the README's figures were measured), so
// `eval --agents policy --weights FILE` needs no greedy option.
func TestCommittedWeightsPlayGreedy(t *testing.T) {
	spec := geSpec(t)
	for _, f := range []string{"galaxy-express-v1-bc.npz", "galaxy-express-v1-ppo.npz"} {
		p := newTestPolicy(t, spec, filepath.Join("..", "notebooks", "weights", f))
		if !p.Greedy() || p.net.meta == nil || p.net.meta.Play != PlayGreedy {
			t.Errorf("%s: plays greedy %v (meta %+v), want the file to say greedy", f, p.Greedy(), p.net.meta)
		}
	}
}
