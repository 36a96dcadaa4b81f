package agents

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/env"
	_ "github.com/galaxygym/galaxygym/env/all"
)

// metaArray is the meta array of a weights file holding m as JSON.
func metaArray(t testing.TB, m any) *npyArray {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return &npyArray{name: "meta", dtype: "|u1", shape: []int{len(b)}, data: b}
}

// testNet is a small network for a weights file written by a test: the
// policy's layers and the value head's, as (out, in) weights and biases.
type testNet struct {
	scale            []float32
	layers, value    [][2][]float32 // weight (row-major), bias
	sizes, valueOuts []int          // outputs of each layer
	activation       string
}

// write writes n as a weights file for spec (format version 3 when it has
// a value head, else 1) and returns its path.
func (n testNet) write(t testing.TB, spec *env.Spec, path string) string {
	t.Helper()
	arrays := []*npyArray{float32Array("obs_scale", []int{len(n.scale)}, n.scale)}
	in := len(n.scale)
	for i, l := range n.layers {
		out := n.sizes[i]
		arrays = append(arrays, float32Array(fmt.Sprintf("layer%d.weight", i), []int{out, in}, l[0]),
			float32Array(fmt.Sprintf("layer%d.bias", i), []int{out}, l[1]))
		in = out
	}
	in = n.sizes[len(n.sizes)-2]
	for i, l := range n.value {
		out := n.valueOuts[i]
		arrays = append(arrays, float32Array(fmt.Sprintf("value%d.weight", i), []int{out, in}, l[0]),
			float32Array(fmt.Sprintf("value%d.bias", i), []int{out}, l[1]))
		in = out
	}
	meta := map[string]any{"format": PolicyFormat, "version": 1, "env_id": spec.ID, "obs_shape": spec.ObsShape,
		"num_actions": spec.NumActions(), "activation": n.activation}
	if len(n.value) > 0 {
		meta["version"] = 3
	}
	arrays = append(arrays, metaArray(t, meta))
	writeTestNPZ(t, path, false, arrays)
	return path
}

// randomNet is a seeded random MLP for spec: obs -> hidden -> hidden ->
// actions, with a value head hidden -> 8 -> players when value.
func randomNet(spec *env.Spec, seed uint64, hidden int, value bool) testNet {
	rng := rand.New(rand.NewPCG(seed, 1))
	fill := func(k int, std float64) []float32 {
		v := make([]float32, k)
		for i := range v {
			v[i] = float32(rng.NormFloat64() * std)
		}
		return v
	}
	obs := spec.ObsSize()
	n := testNet{scale: make([]float32, obs), activation: "tanh", sizes: []int{hidden, hidden, spec.NumActions()}}
	for i := range n.scale {
		n.scale[i] = 1 / float32(max(1, int(spec.ObsHigh[i])))
	}
	in := obs
	for _, out := range n.sizes {
		n.layers = append(n.layers, [2][]float32{fill(out*in, 1/float64(in)), fill(out, 0.1)})
		in = out
	}
	if value {
		n.valueOuts = []int{8, spec.NumPlayers}
		n.value = [][2][]float32{{fill(8*hidden, 0.3), fill(8, 0.1)}, {fill(8*spec.NumPlayers, 0.3), fill(spec.NumPlayers, 0.1)}}
	}
	return n
}

// withValueHead copies the weights file src (a committed one, format
// version 1 or 2) into dir as format version 3 with a seeded random value
// head on its trunk.
func withValueHead(t testing.TB, spec *env.Spec, src, dir string) string {
	t.Helper()
	var arrays []*npyArray
	var meta map[string]any
	hidden := 0
	for _, a := range readTestNPZ(t, src) {
		if a.name == "meta" {
			if err := json.Unmarshal(a.data, &meta); err != nil {
				t.Fatal(err)
			}
			continue
		}
		arrays = append(arrays, a)
	}
	last := 0
	for _, a := range arrays {
		var i int
		if _, err := fmt.Sscanf(a.name, "layer%d.weight", &i); err == nil && i >= last {
			last, hidden = i, a.shape[1]
		}
	}
	rng := rand.New(rand.NewPCG(7, 7))
	w := make([]float32, spec.NumPlayers*hidden)
	for i := range w {
		w[i] = float32(rng.NormFloat64() * 0.1)
	}
	arrays = append(arrays, float32Array("value0.weight", []int{spec.NumPlayers, hidden}, w),
		float32Array("value0.bias", []int{spec.NumPlayers}, make([]float32, spec.NumPlayers)))
	meta["version"] = 3
	meta["value_outputs"] = spec.NumPlayers
	arrays = append(arrays, metaArray(t, meta))
	path := filepath.Join(dir, "value-"+filepath.Base(src))
	writeTestNPZ(t, path, false, arrays)
	return path
}

// playAll plays one episode of e with agent a in every seat (reset with
// seed), or its first limit moves (limit > 0), and returns the actions,
// failing on an illegal one.
func playAll(t testing.TB, e *env.Env, a Agent, seed uint64, limit ...int) []int {
	t.Helper()
	obs := make([]uint8, e.Spec().ObsSize())
	e.Reset(seed)
	a.Reset(seed)
	var acts []int
	for !e.Done() && (len(limit) == 0 || len(acts) < limit[0]) {
		p := e.CurrentPlayer()
		_ = e.Observe(p, obs)
		act := a.Act(p, obs, e.Mask())
		acts = append(acts, act)
		if _, err := e.Step(act); err != nil {
			t.Fatalf("%s seed %d step %d: %v", e.Spec().ID, seed, len(acts), err)
		}
	}
	return acts
}

// TestMCTSGuidedPlaysEveryGame: mcts with weights plays every game that
// mcts plays legally, and the same seed gives the same moves: with a
// committed weights file where one exists for the id (the policy's
// prior, rollouts at the leaves), and with a format-version-3 file
// holding a value head (the committed file with a value head added, or a
// small random one written here), with either search. (The rollout agent
// is random here, the games' own agents being out of this package's
// reach: sims=2 keeps its long rollouts short; the same moves are checked
// on the first 40 moves.)
func TestMCTSGuidedPlaysEveryGame(t *testing.T) {
	dir := t.TempDir()
	ids := 0
	for _, id := range env.IDs() {
		spec := fakeSpec(id)
		e, err := env.Make(id, map[string]any{"max_turns": 40})
		if err != nil {
			if e, err = env.Make(id, nil); err != nil {
				continue
			}
		}
		spec = e.Spec()
		if determinizer(spec) == nil || strings.HasPrefix(id, "mcts-") || strings.HasPrefix(id, "envtest-") {
			continue
		}
		ids++
		committed, _ := filepath.Glob(filepath.Join("..", "notebooks", "weights", id+"-*.npz"))
		var files []string
		if len(committed) > 0 {
			files = append(files, committed[0], withValueHead(t, spec, committed[0], dir))
		} else {
			files = append(files, randomNet(spec, 3, 16, true).write(t, spec, filepath.Join(dir, id+".npz")))
		}
		for _, f := range files {
			for _, search := range []string{SearchISMCTS, SearchHalving} {
				sims := "6"
				if !strings.Contains(f, "value") && !strings.HasPrefix(filepath.Base(f), id+".") {
					sims = "2" // rollouts at the leaves
				}
				opts := Options{"weights": f, "sims": sims, "search": search}
				if v, ok := e.Params()[env.MaxTurnsParam]; ok {
					opts[env.MaxTurnsParam] = fmt.Sprint(v)
				}
				mk := func() Agent {
					a, err := New("mcts", spec, opts)
					if err != nil {
						t.Fatalf("%s %s: %v", id, f, err)
					}
					return a
				}
				a := mk()
				if a.(*MCTS).Guide() == nil {
					t.Fatalf("%s: no guide", id)
				}
				first := playAll(t, e, a, 11)
				if again := playAll(t, e, mk(), 11, 40); !slices.Equal(first[:len(again)], again) {
					t.Errorf("%s %s %s: the same seed played %v, then %v", id, filepath.Base(f), search, first, again)
				}
			}
		}
	}
	if ids < 4 {
		t.Fatalf("%d game ids played, want all four games'", ids)
	}
}

// fakePolicy writes a weights file for the fake one-player game (one
// observation byte, three actions) whose prior is the softmax of logits,
// whatever the observation.
func fakePolicy(t testing.TB, path string, logits []float32) string {
	spec := fakeSpec("mcts-fake-det-v0")
	n := testNet{scale: []float32{1}, activation: "tanh", sizes: []int{1, 3},
		layers: [][2][]float32{{{0}, {0}}, {{0, 0, 0}, logits}}}
	return n.write(t, spec, path)
}

// TestMCTSPUCTPrior: with a prior that puts (nearly) all its mass on one
// legal move, the guided search (PUCT) spends most of a small budget on
// that move, even a worse one (action 0 is worth 0 points, action 2 is
// worth 2), however many simulations; with a uniform prior, or the sharp
// prior mixed half and half with the uniform (option mix), it finds the
// 2-point action.
func TestMCTSPUCTPrior(t *testing.T) {
	dir := t.TempDir()
	e, err := env.Make("mcts-fake-det-v0", nil)
	if err != nil {
		t.Fatal(err)
	}
	spec := e.Spec()
	obs := []uint8{0}
	mask := []uint8{1, 1, 1}
	for _, c := range []struct {
		logits []float32
		sims   string
		want   int
		mix    string
	}{
		{[]float32{20, 0, 0}, "8", 0, ""},
		{[]float32{0, 20, 0}, "8", 1, ""},
		{[]float32{20, 0, 0}, "64", 0, ""}, // a sharp prior keeps every simulation, however many
		{[]float32{0, 0, 0}, "64", 2, ""},
		{[]float32{20, 0, 0}, "64", 2, "0.5"}, // mixed with the uniform: the search finds the 2 points
		{[]float32{20, 0, 0}, "64", 0, "0"},
	} {
		f := fakePolicy(t, filepath.Join(dir, fmt.Sprint(c.logits[0], c.logits[1])+".npz"), c.logits)
		opts := Options{"weights": f, "sims": c.sims}
		if c.mix != "" {
			opts["mix"] = c.mix
		}
		a, err := New("mcts", spec, opts)
		if err != nil {
			t.Fatal(err)
		}
		m := a.(*MCTS)
		m.Reset(5)
		var th Thoughts
		got := m.ActExplained(0, obs, mask, &th)
		best := 0
		for i, n := range th.Visits {
			if n > th.Visits[best] {
				best = i
			}
		}
		if best != c.want || got != c.want {
			t.Errorf("prior logits %v, sims %s, mix %q: visits %v, played %d; want action %d most visited and played",
				c.logits, c.sims, c.mix, th.Visits, got, c.want)
		}
		if top := slices.Index(c.logits, slices.Max(c.logits)); len(th.Probs) != 3 || th.Probs[top] < 0.3 {
			t.Errorf("prior logits %v: thoughts' probs %v, want the policy's prior", c.logits, th.Probs)
		}
	}
}

// TestMCTSFollow: follow=P plays the policy's most probable action (0
// here) after the search with probability P, and the search itself is the
// same either way: follow=0 plays the most visited action at every
// decision, follow=1 the policy's, follow=0.5 each about half the time
// where they differ, the same seed the same sequence.
func TestMCTSFollow(t *testing.T) {
	dir := t.TempDir()
	e, err := env.Make("mcts-fake-det-v0", nil)
	if err != nil {
		t.Fatal(err)
	}
	spec := e.Spec()
	obs, mask := []uint8{0}, []uint8{1, 1, 1}
	f := fakePolicy(t, filepath.Join(dir, "p.npz"), []float32{0.1, 0, 0})
	// play returns, over 200 decisions, how often the policy's and the
	// search's choice were played where they differ, and the sequence.
	play := func(follow string) (policy, search int, seq []int) {
		a, err := New("mcts", spec, Options{"weights": f, "sims": "64", "follow": follow})
		if err != nil {
			t.Fatal(err)
		}
		m := a.(*MCTS)
		m.Reset(9)
		var th Thoughts
		for range 200 {
			got := m.ActExplained(0, obs, mask, &th)
			seq = append(seq, got)
			best := slices.Index(th.Visits, slices.Max(th.Visits))
			switch {
			case best == 0:
			case got == 0:
				policy++
			case got == best:
				search++
			default:
				t.Fatalf("follow=%s: played %d, visits %v: neither the policy's 0 nor the search's %d", follow, got, th.Visits, best)
			}
		}
		return policy, search, seq
	}
	if p, s, _ := play("1"); s != 0 || p < 50 {
		t.Errorf("follow=1: the policy's action %d times, the search's %d, where they differ; want the policy's always", p, s)
	}
	if p, s, _ := play("0"); p != 0 || s < 50 {
		t.Errorf("follow=0: the policy's action %d times, the search's %d, where they differ; want the search's always", p, s)
	}
	p, s, seq := play("0.5")
	if p < (p+s)/4 || s < (p+s)/4 || p+s < 50 {
		t.Errorf("follow=0.5: the policy's action %d times, the search's %d, where they differ; want about half each", p, s)
	}
	if _, _, again := play("0.5"); !slices.Equal(seq, again) {
		t.Error("follow=0.5: the same seed played two different sequences")
	}
	a, _ := New("mcts", spec, Options{"weights": f, "follow": "0.25"})
	if s := a.(*MCTS).String(); !strings.Contains(s, "follow=0.25") {
		t.Errorf("String() = %q, want follow=0.25 in it", s)
	}
}

// TestMCTSPriorRollout: with prior=rollout the weights change nothing in
// sequential halving (the prior is the rollout agent's, the leaves rolled
// out): mcts@search=halving@weights=F@prior=rollout@leaf=rollout plays
// move for move like mcts without weights, on every game with a committed
// file; with follow=1 it plays the policy's moves, move for move.
func TestMCTSPriorRollout(t *testing.T) {
	for _, id := range []string{"galaxy-express-v1", "express-v2"} {
		e, err := env.Make(id, nil)
		if err != nil {
			t.Fatal(err)
		}
		spec := e.Spec()
		files, _ := filepath.Glob(filepath.Join("..", "notebooks", "weights", id+"-*.npz"))
		if len(files) == 0 {
			t.Fatalf("%s: no committed weights", id)
		}
		mk := func(opts Options) Agent {
			opts["sims"], opts["rollout"] = "12", "random"
			a, err := New("mcts", spec, opts)
			if err != nil {
				t.Fatal(err)
			}
			return a
		}
		plain := playAll(t, e, mk(Options{}), 3, 60)
		guided := playAll(t, e, mk(Options{"weights": files[0], "search": "halving", "prior": "rollout", "leaf": "rollout"}), 3, 60)
		if !slices.Equal(plain, guided) {
			t.Errorf("%s: prior=rollout played %v, mcts without weights %v", id, guided, plain)
		}
		p, err := NewPolicy(spec, Options{"weights": files[0], "greedy": "true"})
		if err != nil {
			t.Fatal(err)
		}
		followed := mk(Options{"weights": files[0], "search": "halving", "prior": "rollout", "follow": "1"})
		if got, want := playAll(t, e, followed, 3, 60), playAll(t, e, p, 3, 60); !slices.Equal(got, want) {
			t.Errorf("%s: prior=rollout follow=1 played %v, the policy %v", id, got, want)
		}
	}
}

// duelValueNet is a weights file for the duel game (2 players, observation:
// turn and scores; actions take and give) with a uniform prior and a value
// head that is the constant 5 (preferring nothing) or player 1's score
// (preferring positions where the other player has more: "give").
func duelValueNet(t testing.TB, path string, prefersGive bool) string {
	n := testNet{scale: []float32{1, 1, 1, 1}, activation: "relu", sizes: []int{2, 2},
		layers: [][2][]float32{
			{{0, 0, 1, 0, 0, 0, 0, 0}, {0, 0}}, // hidden 0: player 1's score
			{{0, 0, 0, 0}, {0, 0}},             // uniform prior
		},
		valueOuts: []int{1}}
	if prefersGive {
		n.value = [][2][]float32{{{1, 0}, {0}}}
	} else {
		n.value = [][2][]float32{{{0, 0}, {5}}}
	}
	return n.write(t, duelSpec, path)
}

// TestMCTSValueHead: the value head scores the leaves. On the duel game
// with an always-giving rollout agent, taking is worth 10 points by the
// next decision and giving 9, with player 1 at 2 and 6; a constant value
// head leaves take the better move, one that values player 1's score
// makes give better (12 against 15), and the search plays it, with
// either search; leaf=rollout plays the rollouts to the end instead and
// takes.
func TestMCTSValueHead(t *testing.T) {
	dir := t.TempDir()
	constant := duelValueNet(t, filepath.Join(dir, "constant.npz"), false)
	prefers := duelValueNet(t, filepath.Join(dir, "prefers.npz"), true)
	obs := []uint8{0, 0, 0, 0}
	mask := []uint8{1, 1}
	for _, search := range []string{SearchISMCTS, SearchHalving} {
		for _, c := range []struct {
			file, leaf string
			want       int
		}{
			{constant, "", 0},
			{prefers, "", 1},
			{prefers, LeafRollout, 0},
		} {
			opts := Options{"weights": c.file, "sims": "32", "rollout": "giver", "search": search}
			if c.leaf != "" {
				opts["leaf"] = c.leaf
			}
			a, err := New("mcts", duelSpec, opts)
			if err != nil {
				t.Fatal(err)
			}
			a.Reset(1)
			if got := a.Act(0, obs, mask); got != c.want {
				t.Errorf("%s, %s, leaf %q: played %d, want %d", search, filepath.Base(c.file), c.leaf, got, c.want)
			}
		}
	}
}

// TestMCTSGuidedOptions: the guided search's options and their errors.
func TestMCTSGuidedOptions(t *testing.T) {
	dir := t.TempDir()
	spec := fakeSpec("mcts-fake-det-v0")
	noValue := fakePolicy(t, filepath.Join(dir, "p.npz"), []float32{0, 0, 0})
	var oe *OptionError
	for _, opts := range []Options{
		{"cpuct": "1"},                                                // needs weights
		{"leaf": "value"},                                             // needs weights
		{"weights": noValue, "leaf": "x"},                             // unknown leaf
		{"weights": noValue, "cpuct": "-1"},                           // negative
		{"weights": noValue, "leaf": "value"},                         // no value head
		{"follow": "0.5"},                                             // needs weights
		{"weights": noValue, "follow": "1.5"},                         // not a probability
		{"weights": noValue, "follow": "-1"},                          // not a probability
		{"prior": "rollout"},                                          // needs weights
		{"mix": "0.25"},                                               // needs weights
		{"top": "3"},                                                  // needs weights
		{"weights": noValue, "top": "0"},                              // not a count
		{"weights": noValue, "mix": "1.5"},                            // not a share
		{"weights": noValue, "mix": "-0.1"},                           // not a share
		{"weights": noValue, "prior": "x"},                            // unknown prior
		{"rival": "rollout"},                                          // needs weights
		{"weights": noValue, "search": "halving", "rival": "rollout"}, // needs top
		{"weights": noValue, "top": "1", "rival": "rollout"},          // needs search=halving
		{"weights": noValue, "search": "halving", "top": "1", "rival": "policy"}, // unknown rival
		{"trust": "0.1"},                                         // needs weights
		{"weights": noValue, "trust": "0.1"},                     // needs search=halving
		{"weights": noValue, "search": "halving", "trust": "-1"}, // negative
	} {
		if _, err := New("mcts", spec, opts); !errors.As(err, &oe) {
			t.Errorf("options %v: got %v, want an *OptionError", opts, err)
		}
	}
	_, err := New("mcts", spec, Options{"weights": filepath.Join(dir, "none.npz")})
	var pe *PolicyFileError
	if !errors.As(err, &pe) || !errors.Is(err, ErrPolicyFile) || !strings.HasPrefix(err.Error(), "agents: mcts: option weights: agents: policy: ") {
		t.Errorf("missing file: %v, want a *PolicyFileError", err)
	}
	a, err := New("mcts", spec, Options{"weights": noValue, "cpuct": "2"})
	if err != nil {
		t.Fatal(err)
	}
	m := a.(*MCTS)
	if m.search != SearchISMCTS || m.cpuct != 2 || m.leafValue || !strings.HasPrefix(m.Version(), "sha256:") {
		t.Errorf("guided defaults: %v, version %q", m, m.Version())
	}
	if a, err := New("mcts", spec, nil); err != nil || a.(*MCTS).Version() != "" || a.(*MCTS).search != SearchHalving {
		t.Errorf("unguided: %v %v", a, err)
	}
	// Served weights: a server's Limits resolve mcts's weights like policy's.
	data, err := os.ReadFile(noValue)
	if err != nil {
		t.Fatal(err)
	}
	served := t.TempDir()
	if err := os.WriteFile(filepath.Join(served, "mcts-fake-det-v0-p.npz"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	sp, err := ParseSpec("mcts@sims=4@weights=mcts-fake-det-v0-p.npz")
	if err != nil {
		t.Fatal(err)
	}
	if a, _, err := (Limits{WeightsDir: served}).New(spec, sp); err != nil || a.(*MCTS).Guide() == nil {
		t.Errorf("served weights: %v", err)
	}
	if _, _, err := (Limits{}).New(spec, sp); err == nil {
		t.Error("weights accepted from a server that serves none")
	}
}

// TestMCTSGuidedDoesNotAllocate: once its buffers have grown, a guided
// decision (PUCT tree with the value head at the leaves) allocates nothing.
func TestMCTSGuidedDoesNotAllocate(t *testing.T) {
	dir := t.TempDir()
	e, err := env.Make("express-v2", nil)
	if err != nil {
		t.Fatal(err)
	}
	spec := e.Spec()
	f := withValueHead(t, spec, filepath.Join("..", "notebooks", "weights", "express-v2-selfplay.npz"), dir)
	for _, search := range []string{SearchISMCTS, SearchHalving} {
		a, err := New("mcts", spec, Options{"weights": f, "sims": "16", "search": search})
		if err != nil {
			t.Fatal(err)
		}
		e.Reset(3)
		a.Reset(3)
		obs := make([]uint8, spec.ObsSize())
		legal := func() (n int) {
			for _, x := range e.Mask() {
				n += int(x)
			}
			return n
		}
		for legal() < 2 {
			_ = e.Observe(e.CurrentPlayer(), obs)
			_, _ = e.Step(a.Act(e.CurrentPlayer(), obs, e.Mask()))
		}
		p := e.CurrentPlayer()
		_ = e.Observe(p, obs)
		mask := slices.Clone(e.Mask())
		for range 3 {
			a.Act(p, obs, mask)
		}
		if n := testing.AllocsPerRun(20, func() { a.Act(p, obs, mask) }); n > 0 {
			t.Errorf("%s: %v allocations per guided decision, want 0", search, n)
		}
		// ActExplained too, once its buffers have grown (generate
		// --record-search calls it at every decision).
		var th Thoughts
		m := a.(*MCTS)
		m.ActExplained(p, obs, mask, &th)
		if n := testing.AllocsPerRun(20, func() { m.ActExplained(p, obs, mask, &th) }); n > 0 {
			t.Errorf("%s: %v allocations per explained decision, want 0", search, n)
		}
	}
}

// TestOldWeightsPlayUnchanged: the committed weights files (format
// versions 1 and 2, no value head) play exactly as before the value head
// (format version 3) came: the policy agent's actions over seeded
// episodes, and an unguided mcts's, hash to the digests recorded with the
// code before the change.
func TestOldWeightsPlayUnchanged(t *testing.T) {
	h := sha256.New()
	for _, c := range []struct{ id, file string }{
		{"galaxy-express-v1", "galaxy-express-v1-bc.npz"},
		{"galaxy-express-v1", "galaxy-express-v1-ppo.npz"},
		{"express-v2", "express-v2-selfplay.npz"},
		{"pilots-of-gallaxia-v2", "pilots-of-gallaxia-v2-bc.npz"},
		{"galaxy-fighters-v2", "galaxy-fighters-v2-team.npz"},
	} {
		e, err := env.Make(c.id, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, greedy := range []string{"true", "false"} {
			a, err := New("policy", e.Spec(), Options{"weights": filepath.Join("..", "notebooks", "weights", c.file), "greedy": greedy})
			if err != nil {
				t.Fatal(err)
			}
			for seed := range uint64(3) {
				fmt.Fprintln(h, c.file, greedy, seed, playAll(t, e, a, seed))
			}
		}
	}
	e, err := env.Make("galaxy-express-v1", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, search := range []string{SearchHalving, SearchISMCTS} {
		a, err := New("mcts", e.Spec(), Options{"sims": "8", "search": search})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(h, search, playAll(t, e, a, 4))
	}
	const want = "0bc8e9791eaa9ebaa248d4999e41073883cd4d8de7a9a46ab3507878a2065cf2"
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		t.Errorf("digest of the old files' play %s, want %s (recorded before format version 3)", got, want)
	}
}

// TestMCTSHalvingTop: search=halving with top=K searches the prior and
// the policy's K most probable other actions only: with the prior on the
// 0-point action and the policy ranking the 1-point action next, top=1
// plays the 1-point action; ranking the 2-point action next, or without
// top (every legal action searched), it plays the 2-point action.
func TestMCTSHalvingTop(t *testing.T) {
	dir := t.TempDir()
	spec := fakeSpec("mcts-fake-det-v0")
	for _, c := range []struct {
		logits []float32
		top    string
		want   int
	}{
		{[]float32{20, 5, 0}, "1", 1},
		{[]float32{20, 0, 5}, "1", 2},
		{[]float32{20, 5, 0}, "", 2},
		{[]float32{20, 5, 0}, "2", 2},
	} {
		f := fakePolicy(t, filepath.Join(dir, fmt.Sprint(c.logits[1], c.logits[2])+".npz"), c.logits)
		opts := Options{"weights": f, "sims": "64", "search": "halving", "leaf": "rollout"}
		if c.top != "" {
			opts["top"] = c.top
		}
		a, err := New("mcts", spec, opts)
		if err != nil {
			t.Fatal(err)
		}
		m := a.(*MCTS)
		m.Reset(3)
		if got := m.Act(0, []uint8{0}, []uint8{1, 1, 1}); got != c.want {
			t.Errorf("logits %v, top %q: played %d, want %d", c.logits, c.top, got, c.want)
		}
	}
}

// lastLegal plays the highest legal action: mcts-fake-det-v0's rollout
// agent in TestMCTSHalvingRival, whose choice there is the 2-point action.
type lastLegal struct{}

func (lastLegal) Name() string { return "last-legal" }
func (lastLegal) Reset(uint64) {}
func (lastLegal) Act(_ int, _, m []uint8) int {
	for a := len(m) - 1; a >= 0; a-- {
		if m[a] != 0 {
			return a
		}
	}
	return -1
}

func init() {
	RegisterFor("mcts-fake-det-v0", "last-legal", "the highest legal action (TestMCTSHalvingRival)",
		func(*env.Spec, Options) (Agent, error) { return lastLegal{}, nil })
}

// TestMCTSHalvingRival: rival=rollout puts the rollout agent's choice first
// among the candidates top keeps beside the prior. With the policy's
// prior on the 0-point action and the 1-point action its next, top=1
// plays the 1-point action; with the rollout agent choosing the 2-point
// action as the rival, the 2-point action. A rival that is the prior
// leaves the policy's next as the candidate.
func TestMCTSHalvingRival(t *testing.T) {
	dir := t.TempDir()
	spec := fakeSpec("mcts-fake-det-v0")
	for _, c := range []struct {
		logits []float32
		rival  bool
		want   int
	}{
		{[]float32{20, 5, 0}, false, 1},
		{[]float32{20, 5, 0}, true, 2},
		{[]float32{0, 5, 20}, true, 2}, // the rival is the prior: top=1 compares it with action 1
		{[]float32{0, 20, 5}, true, 2}, // prior 1, rival 2
	} {
		f := fakePolicy(t, filepath.Join(dir, fmt.Sprint(c.logits)+".npz"), c.logits)
		opts := Options{"weights": f, "sims": "64", "search": "halving", "leaf": "rollout", "top": "1",
			"rollout": "last-legal"}
		if c.rival {
			opts["rival"] = PriorRollout
		}
		a, err := New("mcts", spec, opts)
		if err != nil {
			t.Fatal(err)
		}
		a.Reset(3)
		if got := a.Act(0, []uint8{0}, []uint8{1, 1, 1}); got != c.want {
			t.Errorf("logits %v, rival %v: played %d, want %d", c.logits, c.rival, got, c.want)
		}
	}
}

// TestMCTSHalvingTrust: trust adds the policy's log-probability ratio of a
// candidate over the prior, in points per unit, to halving's tests. The
// policy's most probable action is the 0-point one, its next the 2-point
// action, 5 logits below: as the prior, the rollouts find the 2-point
// action 2 points better (no noise in this game), so at margin 0 it is
// played unless trust makes the policy's doubt cost more than 2 points
// (trust 1: 5 points). With prior=rollout the prior is the 2-point action
// (last-legal) and the policy's 0-point action the candidate, 2 points
// worse: it is played only when trust makes the policy's confidence worth
// more than that (trust 1), elimination included.
func TestMCTSHalvingTrust(t *testing.T) {
	dir := t.TempDir()
	spec := fakeSpec("mcts-fake-det-v0")
	f := fakePolicy(t, filepath.Join(dir, "p.npz"), []float32{10, 0, 5})
	for _, c := range []struct {
		opts Options
		want int
	}{
		{Options{"margin": "0"}, 2},
		{Options{"margin": "0", "trust": "0"}, 2},
		{Options{"margin": "0", "trust": "0.3"}, 2}, // 2 - 1.5 > 0
		{Options{"margin": "0", "trust": "1"}, 0},   // 2 - 5 < 0
		{Options{"margin": "3"}, 0},
		{Options{"margin": "0", "prior": "rollout"}, 2},
		{Options{"margin": "0", "trust": "0.3", "prior": "rollout"}, 2}, // -2 + 1.5 < 0
		{Options{"margin": "0", "trust": "1", "prior": "rollout"}, 0},   // -2 + 5 > 0
	} {
		opts := Options{"weights": f, "sims": "64", "search": "halving", "leaf": "rollout", "top": "1",
			"rollout": "last-legal", "z": "0"}
		for k, v := range c.opts {
			opts[k] = v
		}
		a, err := New("mcts", spec, opts)
		if err != nil {
			t.Fatal(err)
		}
		a.Reset(3)
		if got := a.Act(0, []uint8{0}, []uint8{1, 1, 1}); got != c.want {
			t.Errorf("%v: played %d, want %d", c.opts, got, c.want)
		}
	}
}
