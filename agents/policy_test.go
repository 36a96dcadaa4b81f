package agents

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/galaxygym/galaxygym/env"
	ge "github.com/galaxygym/galaxygym/env/galaxyexpress"
)

// The fixture (python/tests/make_policy_fixture.py writes it): two
// 503 -> 32 -> 32 -> 56 policies written by galaxygym.export_policy, and
// cases.npz, real Galaxy Express observations and masks with the
// probabilities torch (float32) and galaxygym.policy_probs (float64) give.
const policyFixture = "testdata/policy"

// readTestNPZ returns the arrays of an .npz file in archive order.
func readTestNPZ(t testing.TB, path string) []*npyArray {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := openNPZ(data)
	if err != nil {
		t.Fatal(err)
	}
	var out []*npyArray
	for _, k := range f.r.Keys() {
		a, err := f.read(strings.TrimSuffix(k, ".npy"))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, a)
	}
	return out
}

// npyBytes encodes an array as numpy's .npy format 1.0 does.
func npyBytes(a *npyArray, fortran bool) []byte {
	order := "False"
	if fortran {
		order = "True"
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", a.dtype, order, shapeString(a.shape))
	if len(a.shape) == 0 {
		dict = strings.Replace(dict, "(,)", "()", 1)
	}
	pad := 64 - (10+len(dict)+1)%64
	dict += strings.Repeat(" ", pad%64) + "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	_ = binary.Write(&b, binary.LittleEndian, uint16(len(dict)))
	b.WriteString(dict)
	b.Write(a.data)
	return b.Bytes()
}

// writeTestNPZ writes arrays as an .npz archive (deflated or stored).
func writeTestNPZ(t testing.TB, path string, deflate bool, arrays []*npyArray) {
	t.Helper()
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for _, a := range arrays {
		h := &zip.FileHeader{Name: a.name + ".npy", Method: zip.Store}
		if deflate {
			h.Method = zip.Deflate
		}
		w, err := z.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(npyBytes(a, false))
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func float32Array(name string, shape []int, v []float32) *npyArray {
	a := &npyArray{name: name, dtype: "<f4", shape: shape, data: make([]byte, 4*len(v))}
	for i, x := range v {
		binary.LittleEndian.PutUint32(a.data[4*i:], math.Float32bits(x))
	}
	return a
}

func geSpec(t testing.TB) *env.Spec {
	t.Helper()
	e, err := env.Make(ge.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	return e.Spec()
}

func newTestPolicy(t testing.TB, spec *env.Spec, path string, opts ...string) *Policy {
	t.Helper()
	o := Options{"weights": path}
	for _, kv := range opts {
		k, v, _ := strings.Cut(kv, "=")
		o[k] = v
	}
	a, err := New("policy", spec, o)
	if err != nil {
		t.Fatal(err)
	}
	return a.(*Policy)
}

type policyCases struct {
	obs, mask [][]uint8
	probs     map[string][][]float64 // "tanh_torch", "tanh_numpy", ...
}

func loadPolicyCases(t testing.TB) *policyCases {
	t.Helper()
	c := &policyCases{probs: map[string][][]float64{}}
	for _, a := range readTestNPZ(t, filepath.Join(policyFixture, "cases.npz")) {
		if len(a.shape) != 2 {
			t.Fatalf("cases.npz %s: shape %v", a.name, a.shape)
		}
		n, w := a.shape[0], a.shape[1]
		switch dtypeName(a.dtype) {
		case "uint8":
			m := make([][]uint8, n)
			for i := range m {
				m[i] = a.data[i*w : (i+1)*w]
			}
			if a.name == "obs" {
				c.obs = m
			} else {
				c.mask = m
			}
		case "float64":
			v := a.float64s()
			m := make([][]float64, n)
			for i := range m {
				m[i] = v[i*w : (i+1)*w]
			}
			c.probs[a.name] = m
		default:
			t.Fatalf("cases.npz %s: dtype %s", a.name, a.dtype)
		}
	}
	if len(c.obs) < 200 || len(c.mask) != len(c.obs) || len(c.probs) != 8 {
		t.Fatalf("cases.npz: %d obs, %d masks, %d probability arrays", len(c.obs), len(c.mask), len(c.probs))
	}
	return c
}

// TestPolicyParity checks Go's probabilities against torch's (float32, the
// notebook's forward pass) within 1e-5 and against galaxygym.policy_probs
// (float64) within 1e-12, on real observations.
func TestPolicyParity(t *testing.T) {
	spec := geSpec(t)
	c := loadPolicyCases(t)
	for _, act := range []string{"tanh", "relu"} {
		p := newTestPolicy(t, spec, filepath.Join(policyFixture, act+".npz"))
		if p.net.relu != (act == "relu") || !slices.Equal(p.net.sizes, []int{503, 32, 32, 56}) {
			t.Fatalf("%s: relu %v, sizes %v", act, p.net.relu, p.net.sizes)
		}
		checkParity(t, act, p, c, c.probs[act+"_torch"], c.probs[act+"_numpy"])
	}
}

// checkParity checks p's probabilities on the cases against torch's
// (float32) within 1e-5 and numpy's (float64) within 1e-12: illegal
// actions get 0, the legal ones sum to 1.
func checkParity(t *testing.T, name string, p *Policy, c *policyCases, torch, numpy [][]float64) {
	t.Helper()
	dst := make([]float64, len(c.mask[0]))
	var worstTorch, worstNumpy float64
	for i := range c.obs {
		p.Probs(c.obs[i], c.mask[i], dst)
		sum := 0.0
		for a, q := range dst {
			sum += q
			if c.mask[i][a] == 0 && q != 0 {
				t.Fatalf("%s case %d: illegal action %d has probability %v", name, i, a, q)
			}
			worstTorch = max(worstTorch, math.Abs(q-torch[i][a]))
			worstNumpy = max(worstNumpy, math.Abs(q-numpy[i][a]))
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Fatalf("%s case %d: probabilities sum to %v", name, i, sum)
		}
	}
	t.Logf("%s: %d cases, max |go - torch| %.2e, max |go - numpy| %.2e", name, len(c.obs), worstTorch, worstNumpy)
	if worstTorch > 1e-5 || worstNumpy > 1e-12 {
		t.Errorf("%s: max |go - torch| %.2e (want <= 1e-5), max |go - numpy| %.2e (want <= 1e-12)",
			name, worstTorch, worstNumpy)
	}
}

// TestPolicyFileVariants: the same weights stored deflated
// (numpy.savez_compressed), in Fortran order, big-endian, or without
// metadata give the same probabilities.
func TestPolicyFileVariants(t *testing.T) {
	spec := geSpec(t)
	c := loadPolicyCases(t)
	src := filepath.Join(policyFixture, "tanh.npz")
	arrays := readTestNPZ(t, src)
	dir := t.TempDir()
	variants := map[string]func() []byte{}
	variants["deflated"] = func() []byte {
		p := filepath.Join(dir, "x")
		writeTestNPZ(t, p, true, arrays)
		b, _ := os.ReadFile(p)
		return b
	}
	variants["fortran"] = func() []byte {
		var buf bytes.Buffer
		z := zip.NewWriter(&buf)
		for _, a := range arrays {
			w, _ := z.Create(a.name + ".npy")
			if len(a.shape) == 2 { // store the transpose's bytes, marked Fortran order
				r, cl := a.shape[0], a.shape[1]
				f := &npyArray{name: a.name, dtype: a.dtype, shape: a.shape, data: make([]byte, len(a.data))}
				for i := range r {
					for j := range cl {
						copy(f.data[4*(j*r+i):4*(j*r+i)+4], a.data[4*(i*cl+j):4*(i*cl+j)+4])
					}
				}
				w.Write(npyBytes(f, true))
			} else {
				w.Write(npyBytes(a, false))
			}
		}
		z.Close()
		return buf.Bytes()
	}
	variants["big-endian"] = func() []byte {
		var out []*npyArray
		for _, a := range arrays {
			if a.dtype == "<f4" {
				b := &npyArray{name: a.name, dtype: ">f4", shape: a.shape, data: slices.Clone(a.data)}
				for i := 0; i < len(b.data); i += 4 {
					slices.Reverse(b.data[i : i+4])
				}
				a = b
			}
			out = append(out, a)
		}
		p := filepath.Join(dir, "x")
		writeTestNPZ(t, p, false, out)
		b, _ := os.ReadFile(p)
		return b
	}
	variants["no meta (the notebook's older files)"] = func() []byte {
		p := filepath.Join(dir, "x")
		writeTestNPZ(t, p, false, slices.DeleteFunc(slices.Clone(arrays), func(a *npyArray) bool { return a.name == "meta" }))
		b, _ := os.ReadFile(p)
		return b
	}
	dst := make([]float64, spec.NumActions())
	i := 0
	for name, build := range variants {
		path := filepath.Join(dir, fmt.Sprintf("v%d.npz", i))
		i++
		if err := os.WriteFile(path, build(), 0o644); err != nil {
			t.Fatal(err)
		}
		p := newTestPolicy(t, spec, path)
		for k := range c.obs {
			p.Probs(c.obs[k], c.mask[k], dst)
			for a, q := range dst {
				if d := math.Abs(q - c.probs["tanh_numpy"][k][a]); d > 1e-12 {
					t.Fatalf("%s: case %d action %d: %v, want %v", name, k, a, q, c.probs["tanh_numpy"][k][a])
				}
			}
		}
	}
}

// TestPolicyOtherEnv: a file without metadata plays any environment whose
// observation size and number of actions it fits; with metadata, only
// its env_id.
func TestPolicyOtherEnv(t *testing.T) {
	names := make([]string, 56)
	for i := range names {
		names[i] = fmt.Sprint("a", i)
	}
	toy := &env.Spec{ID: "toy-v0", ObsShape: []int{503}, ActionNames: names}
	dir := t.TempDir()
	arrays := readTestNPZ(t, filepath.Join(policyFixture, "relu.npz"))
	path := filepath.Join(dir, "nometa.npz")
	writeTestNPZ(t, path, false, slices.DeleteFunc(slices.Clone(arrays), func(a *npyArray) bool { return a.name == "meta" }))
	p, err := NewPolicy(toy, Options{"weights": path})
	if err != nil {
		t.Fatal(err)
	}
	if p.net.relu {
		t.Error("a file without metadata is tanh")
	}
	_, err = NewPolicy(toy, Options{"weights": filepath.Join(policyFixture, "relu.npz")})
	if !errors.Is(err, ErrPolicyEnv) || !strings.HasPrefix(err.Error(), "agents: policy: ") {
		t.Errorf("galaxy-express-v1 weights on toy-v0: %v, want ErrPolicyEnv", err)
	}
	toy.ActionNames = names[:55]
	if _, err = NewPolicy(toy, Options{"weights": path}); !errors.Is(err, ErrPolicyShape) {
		t.Errorf("56 outputs for 55 actions: %v, want ErrPolicyShape", err)
	}
	toy.ActionNames, toy.ObsShape = names, []int{502}
	if _, err = NewPolicy(toy, Options{"weights": path}); !errors.Is(err, ErrPolicyShape) {
		t.Errorf("503 inputs for 502 bytes: %v, want ErrPolicyShape", err)
	}
	toy.ID, toy.ObsShape = ge.ID, []int{1, 503}
	if _, err = NewPolicy(toy, Options{"weights": filepath.Join(policyFixture, "relu.npz")}); !errors.Is(err, ErrPolicyShape) {
		t.Errorf("obs_shape [503] for [1 503]: %v, want ErrPolicyShape", err)
	}
}

// TestPolicyAct: sampling is deterministic per seed, plays legal actions
// only, follows the probabilities; greedy plays the argmax; no legal
// action gives -1 and all-zero probabilities.
func TestPolicyAct(t *testing.T) {
	spec := geSpec(t)
	c := loadPolicyCases(t)
	path := filepath.Join(policyFixture, "tanh.npz")
	a, b := newTestPolicy(t, spec, path), newTestPolicy(t, spec, path)
	g := newTestPolicy(t, spec, path, "greedy=true")
	if a.Greedy() || !g.Greedy() {
		t.Fatal("greedy option")
	}
	run := func(p *Policy, seed uint64) []int {
		p.Reset(seed)
		out := make([]int, len(c.obs))
		for i := range c.obs {
			out[i] = p.Act(0, c.obs[i], c.mask[i])
			if out[i] < 0 || c.mask[i][out[i]] == 0 {
				t.Fatalf("case %d: illegal action %d", i, out[i])
			}
		}
		return out
	}
	s1 := run(a, 1)
	run(a, 99)
	if !slices.Equal(s1, run(a, 1)) || !slices.Equal(s1, run(b, 1)) {
		t.Error("the same seed gave other actions")
	}
	if slices.Equal(s1, run(b, 2)) {
		t.Error("seeds 1 and 2 gave the same actions")
	}
	for i, act := range run(g, 5) {
		want := 0
		for k, q := range c.probs["tanh_numpy"][i] {
			if q > c.probs["tanh_numpy"][i][want] {
				want = k
			}
		}
		if act != want {
			t.Fatalf("greedy case %d: %d, want the argmax %d", i, act, want)
		}
	}
	// Frequencies over 40,000 draws match the probabilities of a case
	// with several likely actions.
	k := slices.IndexFunc(c.probs["tanh_numpy"], func(p []float64) bool { return slices.Max(p) < 0.5 })
	if k < 0 {
		t.Fatal("no case without a dominant action")
	}
	const draws = 40000
	counts := make([]float64, spec.NumActions())
	a.Reset(7)
	for range draws {
		counts[a.Act(0, c.obs[k], c.mask[k])]++
	}
	for act, q := range c.probs["tanh_numpy"][k] {
		if f := counts[act] / draws; math.Abs(f-q) > 5*math.Sqrt(q*(1-q)/draws)+1e-9 {
			t.Errorf("case %d action %d: frequency %.4f, probability %.4f", k, act, f, q)
		}
	}
	none := make([]uint8, spec.NumActions())
	dst := make([]float64, spec.NumActions())
	dst[3] = 1
	a.Probs(c.obs[0], none, dst)
	if slices.Max(dst) != 0 || a.Act(0, c.obs[0], none) != -1 || g.Act(0, c.obs[0], none) != -1 {
		t.Errorf("no legal action: probabilities %v, actions %d %d", dst, a.Act(0, c.obs[0], none), g.Act(0, c.obs[0], none))
	}
}

// TestPolicyPlays plays episodes through the registry, on two goroutines
// sharing the weights.
func TestPolicyPlays(t *testing.T) {
	path := filepath.Join(policyFixture, "tanh.npz")
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e, err := env.Make(ge.ID, nil)
			if err != nil {
				t.Error(err)
				return
			}
			a, err := New("policy", e.Spec(), Options{"weights": path, "greedy": fmt.Sprint(w == 1)})
			if err != nil {
				t.Error(err)
				return
			}
			obs := make([]uint8, e.Spec().ObsSize())
			for seed := range uint64(20) {
				e.Reset(seed)
				a.Reset(seed)
				for !e.Done() {
					_ = e.Observe(e.CurrentPlayer(), obs)
					if _, err := e.Step(a.Act(e.CurrentPlayer(), obs, e.Mask())); err != nil {
						t.Errorf("seed %d: %v", seed, err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

func TestPolicyVersionAndCache(t *testing.T) {
	spec := geSpec(t)
	src := filepath.Join(policyFixture, "tanh.npz")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	p := newTestPolicy(t, spec, src)
	if p.Version() != "sha256:"+hex.EncodeToString(sum[:]) || p.SHA256() != hex.EncodeToString(sum[:]) {
		t.Errorf("version %s, want sha256:%x", p.Version(), sum)
	}
	abs, _ := filepath.Abs(src)
	if q := newTestPolicy(t, spec, abs); q.net != p.net {
		t.Error("the same file was read twice")
	}
	// A file rewritten in place is read again.
	path := filepath.Join(t.TempDir(), "p.npz")
	os.WriteFile(path, data, 0o644)
	p1 := newTestPolicy(t, spec, path)
	writeTestNPZ(t, path, true, readTestNPZ(t, filepath.Join(policyFixture, "relu.npz")))
	p2 := newTestPolicy(t, spec, path)
	if p1.net == p2.net || !p2.net.relu || p1.Version() == p2.Version() {
		t.Error("a rewritten file was not read again")
	}
}

func TestPolicyOptions(t *testing.T) {
	spec := geSpec(t)
	path := filepath.Join(policyFixture, "tanh.npz")
	for _, tc := range []struct {
		opts Options
		key  string
	}{
		{nil, "weights"},
		{Options{"weights": ""}, "weights"},
		{Options{"weights": path, "greedy": "maybe"}, "greedy"},
		{Options{"weights": path, "temperature": "2"}, "temperature"},
	} {
		_, err := New("policy", spec, tc.opts)
		var oe *OptionError
		if !errors.As(err, &oe) || oe.Key != tc.key || oe.Agent != "policy" {
			t.Errorf("%v: %v, want an *OptionError on %q", tc.opts, err, tc.key)
		}
	}
}

// TestPolicyBadFiles: every file the agent cannot use is a
// *PolicyFileError of the right kind, naming the array at fault.
func TestPolicyBadFiles(t *testing.T) {
	spec := geSpec(t)
	good := readTestNPZ(t, filepath.Join(policyFixture, "tanh.npz"))
	dir := t.TempDir()
	// edit returns the good arrays with f applied to a copy of the named
	// one (f returning nil drops it).
	edit := func(name string, f func(a *npyArray) *npyArray) []*npyArray {
		var out []*npyArray
		for _, a := range good {
			if a.name == name {
				c := *a
				c.shape, c.data = slices.Clone(a.shape), slices.Clone(a.data)
				if a = f(&c); a == nil {
					continue
				}
			}
			out = append(out, a)
		}
		return out
	}
	drop := func(*npyArray) *npyArray { return nil }
	setMeta := func(json string) func(*npyArray) *npyArray {
		return func(a *npyArray) *npyArray { a.data, a.shape = []byte(json), []int{len(json)}; return a }
	}
	const metaOK = `{"format": "galaxygym-mlp-policy", "version": 1, "env_id": "galaxy-express-v1", "obs_shape": [503], "num_actions": 56, "activation": "tanh"}`
	for _, tc := range []struct {
		name   string
		arrays []*npyArray
		raw    []byte // the file's bytes instead of arrays
		kind   error
		array  string
	}{
		{name: "not a zip", raw: []byte("PK? no"), kind: ErrPolicyFile},
		{name: "missing obs_scale", arrays: edit("obs_scale", drop), kind: ErrPolicyMissing, array: "obs_scale"},
		{name: "missing bias", arrays: edit("layer1.bias", drop), kind: ErrPolicyMissing, array: "layer1.bias"},
		{name: "missing middle layer", arrays: edit("layer1.weight", drop), kind: ErrPolicyMissing, array: "layer1.weight"},
		{name: "no layers", arrays: slices.DeleteFunc(slices.Clone(good), func(a *npyArray) bool {
			return strings.HasPrefix(a.name, "layer")
		}), kind: ErrPolicyMissing, array: "layer0.weight"},
		{name: "float64 weights", arrays: edit("layer0.weight", func(a *npyArray) *npyArray {
			v := a.float64s()
			a.dtype, a.data = "<f8", make([]byte, 8*len(v))
			for i, x := range v {
				binary.LittleEndian.PutUint64(a.data[8*i:], math.Float64bits(x))
			}
			return a
		}), kind: ErrPolicyDType, array: "layer0.weight"},
		{name: "int32 obs_scale", arrays: edit("obs_scale", func(a *npyArray) *npyArray { a.dtype = "<i4"; return a }),
			kind: ErrPolicyDType, array: "obs_scale"},
		{name: "unknown dtype", arrays: edit("layer2.bias", func(a *npyArray) *npyArray { a.dtype = "<U4"; return a }),
			kind: ErrPolicyDType, array: "layer2.bias"},
		{name: "layer shapes do not chain", arrays: edit("layer1.weight", func(a *npyArray) *npyArray {
			a.shape, a.data = []int{32, 31}, a.data[:32*31*4]
			return a
		}), kind: ErrPolicyShape, array: "layer1.weight"},
		{name: "bias shape", arrays: edit("layer0.bias", func(a *npyArray) *npyArray {
			a.shape, a.data = []int{31}, a.data[:31*4]
			return a
		}), kind: ErrPolicyShape, array: "layer0.bias"},
		{name: "1-D weight", arrays: edit("layer2.weight", func(a *npyArray) *npyArray { a.shape = []int{56 * 32}; return a }),
			kind: ErrPolicyShape, array: "layer2.weight"},
		{name: "NaN weight", arrays: edit("layer2.weight", func(a *npyArray) *npyArray {
			binary.LittleEndian.PutUint32(a.data[4*77:], math.Float32bits(float32(math.NaN())))
			return a
		}), kind: ErrPolicyNotFinite, array: "layer2.weight"},
		{name: "Inf obs_scale", arrays: edit("obs_scale", func(a *npyArray) *npyArray {
			binary.LittleEndian.PutUint32(a.data[4*5:], math.Float32bits(float32(math.Inf(1))))
			return a
		}), kind: ErrPolicyNotFinite, array: "obs_scale"},
		{name: "truncated data", arrays: edit("layer1.weight", func(a *npyArray) *npyArray { a.data = a.data[:len(a.data)-3]; return a }),
			kind: ErrPolicyFile, array: "layer1.weight"},
		{name: "extra data", arrays: edit("layer1.bias", func(a *npyArray) *npyArray { a.data = append(a.data, 0, 0, 0, 0); return a }),
			kind: ErrPolicyFile, array: "layer1.bias"},
		{name: "wrong env", arrays: edit("meta", setMeta(strings.Replace(metaOK, "galaxy-express-v1", "express-v1", 1))),
			kind: ErrPolicyEnv, array: "meta"},
		{name: "meta not JSON", arrays: edit("meta", setMeta("{format")), kind: ErrPolicyMeta, array: "meta"},
		{name: "meta format", arrays: edit("meta", setMeta(strings.Replace(metaOK, "mlp-policy", "cnn-policy", 1))),
			kind: ErrPolicyMeta, array: "meta"},
		{name: "meta version 6", arrays: edit("meta", setMeta(strings.Replace(metaOK, `"version": 1`, `"version": 6`, 1))),
			kind: ErrPolicyMeta, array: "meta"},
		{name: "codes in version 3", arrays: edit("meta", setMeta(strings.Replace(strings.Replace(metaOK, `"version": 1`, `"version": 3`, 1),
			`"tanh"`, `"tanh", "codes": [{"offset": 440, "size": 1, "classes": 6}]`, 1))), kind: ErrPolicyMeta, array: "meta"},
		{name: "code of one class", arrays: edit("meta", setMeta(strings.Replace(strings.Replace(metaOK, `"version": 1`, `"version": 4`, 1),
			`"tanh"`, `"tanh", "codes": [{"offset": 440, "size": 1, "classes": 1}]`, 1))), kind: ErrPolicyMeta, array: "meta"},
		{name: "code past the observation", arrays: edit("meta", setMeta(strings.Replace(strings.Replace(metaOK, `"version": 1`, `"version": 4`, 1),
			`"tanh"`, `"tanh", "codes": [{"offset": 500, "size": 4, "classes": 6}]`, 1))), kind: ErrPolicyShape, array: "meta"},
		{name: "codes without their inputs", arrays: edit("meta", setMeta(strings.Replace(strings.Replace(metaOK, `"version": 1`, `"version": 4`, 1),
			`"tanh"`, `"tanh", "codes": [{"offset": 440, "size": 1, "classes": 6}]`, 1))), kind: ErrPolicyShape, array: "layer0.weight"},
		{name: "meta activation", arrays: edit("meta", setMeta(strings.Replace(metaOK, "tanh", "gelu", 1))),
			kind: ErrPolicyMeta, array: "meta"},
		{name: "meta num_actions", arrays: edit("meta", setMeta(strings.Replace(metaOK, "56", "55", 1))),
			kind: ErrPolicyShape, array: "layer2.weight"},
		{name: "meta obs_shape", arrays: edit("meta", setMeta(strings.Replace(metaOK, "[503]", "[500]", 1))),
			kind: ErrPolicyShape, array: "obs_scale"},
		{name: "meta float32", arrays: edit("meta", func(a *npyArray) *npyArray {
			a.dtype = "<f4"
			a.data = a.data[:len(a.data)/4*4]
			a.shape = []int{len(a.data) / 4}
			return a
		}),
			kind: ErrPolicyMeta, array: "meta"},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".npz")
		if tc.raw != nil {
			os.WriteFile(path, tc.raw, 0o644)
		} else {
			writeTestNPZ(t, path, false, tc.arrays)
		}
		_, err := New("policy", spec, Options{"weights": path})
		var pe *PolicyFileError
		switch {
		case !errors.As(err, &pe):
			t.Errorf("%s: %v, want a *PolicyFileError", tc.name, err)
		case !errors.Is(err, tc.kind) || pe.Array != tc.array || pe.Path != path ||
			!strings.HasPrefix(err.Error(), "agents: policy: "+path+": "):
			t.Errorf("%s: %v (kind %v, array %q), want kind %v, array %q", tc.name, err, pe.Kind, pe.Array, tc.kind, tc.array)
		default:
			t.Logf("%s: %v", tc.name, err)
		}
	}
	_, err := New("policy", spec, Options{"weights": filepath.Join(dir, "absent.npz")})
	if !errors.Is(err, ErrPolicyFile) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("absent file: %v, want ErrPolicyFile and fs.ErrNotExist", err)
	}
	// A malformed .npy header (npyio's parser panics on it) is an error.
	bad := npyBytes(good[0], false)
	copy(bad[10:], "{'shape': (503,), 'fortran_order': False, 'descr': '<f4', }")
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	w, _ := z.Create("obs_scale.npy")
	w.Write(bad)
	z.Close()
	path := filepath.Join(dir, "header.npz")
	os.WriteFile(path, buf.Bytes(), 0o644)
	if _, err := New("policy", spec, Options{"weights": path}); !errors.Is(err, ErrPolicyFile) {
		t.Errorf("malformed header: %v, want ErrPolicyFile", err)
	}
}

// TestPolicyActDoesNotAllocate: Act (sampled and greedy) and Probs
// allocate nothing, for MLPs (relu.npz, tanh.npz), board networks
// (conv_relu.npz, conv_tanh.npz) and files with codes (codes.npz,
// codes_conv.npz).
func TestPolicyActDoesNotAllocate(t *testing.T) {
	spec := geSpec(t)
	c := loadPolicyCases(t)
	for _, files := range [][2]string{{"relu.npz", "tanh.npz"}, {"conv_relu.npz", "conv_tanh.npz"}, {"codes.npz", "codes_conv.npz"}} {
		p := newTestPolicy(t, spec, filepath.Join(policyFixture, files[0]))
		g := newTestPolicy(t, spec, filepath.Join(policyFixture, files[1]), "greedy=true")
		dst := make([]float64, spec.NumActions())
		p.Reset(1)
		i := 0
		allocs := testing.AllocsPerRun(300, func() {
			i = (i + 1) % len(c.obs)
			p.Act(0, c.obs[i], c.mask[i])
			g.Act(0, c.obs[i], c.mask[i])
			p.Probs(c.obs[i], c.mask[i], dst)
		})
		if allocs != 0 {
			t.Errorf("%v: %.1f allocations per decision, want 0", files, allocs)
		}
	}
}

// benchmarkPolicyAct times Act of a 503 -> 256 -> 256 -> 56 tanh policy
// (the notebook's default size) on the recorded Galaxy Express decisions
// obsAll, maskAll (BenchmarkPolicyAct in policy_bench_test.go records
// them with the game's heuristic, which this package cannot import).
func benchmarkPolicyAct(b *testing.B, obsAll, maskAll [][]uint8) {
	spec := geSpec(b)
	rng := rand.New(rand.NewPCG(1, 2))
	sizes := []int{ge.ObsSize, 256, 256, spec.NumActions()}
	scale := make([]float32, ge.ObsSize)
	for i := range scale {
		scale[i] = 1 / float32(max(spec.ObsHigh[i], 1))
	}
	arrays := []*npyArray{float32Array("obs_scale", []int{ge.ObsSize}, scale)}
	for i := range len(sizes) - 1 {
		w := make([]float32, sizes[i+1]*sizes[i])
		for k := range w {
			w[k] = float32(rng.NormFloat64() / math.Sqrt(float64(sizes[i])))
		}
		arrays = append(arrays, float32Array(fmt.Sprintf("layer%d.weight", i), []int{sizes[i+1], sizes[i]}, w),
			float32Array(fmt.Sprintf("layer%d.bias", i), []int{sizes[i+1]}, make([]float32, sizes[i+1])))
	}
	path := filepath.Join(b.TempDir(), "p.npz")
	writeTestNPZ(b, path, false, arrays)
	for _, greedy := range []bool{false, true} {
		b.Run(fmt.Sprintf("greedy=%v", greedy), func(b *testing.B) {
			p := newTestPolicy(b, spec, path, fmt.Sprint("greedy=", greedy))
			timeActs(b, p, obsAll, maskAll)
		})
	}
}

// timeActs times p.Act over the recorded decisions, cycling through them,
// and reports ns/decision and allocations. The sampler is reset first.
func timeActs(b *testing.B, p *Policy, obsAll, maskAll [][]uint8) {
	b.Helper()
	p.Reset(1)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := i % len(obsAll)
		p.Act(0, obsAll[k], maskAll[k])
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/decision")
}

// TestPolicyOneLayer: a single linear layer (no activation) against a
// plain loop.
func TestPolicyOneLayer(t *testing.T) {
	spec := geSpec(t)
	c := loadPolicyCases(t)
	rng := rand.New(rand.NewPCG(3, 4))
	w := make([]float32, 56*503)
	b := make([]float32, 56)
	for i := range w {
		w[i] = float32(rng.NormFloat64())
	}
	for i := range b {
		b[i] = float32(rng.NormFloat64())
	}
	scale := make([]float32, 503)
	for i := range scale {
		scale[i] = 1 / float32(max(spec.ObsHigh[i], 1))
	}
	path := filepath.Join(t.TempDir(), "one.npz")
	writeTestNPZ(t, path, false, []*npyArray{float32Array("obs_scale", []int{503}, scale),
		float32Array("layer0.weight", []int{56, 503}, w), float32Array("layer0.bias", []int{56}, b)})
	p := newTestPolicy(t, spec, path)
	dst := make([]float64, 56)
	for k := range c.obs {
		p.Probs(c.obs[k], c.mask[k], dst)
		want := make([]float64, 56)
		top, sum := math.Inf(-1), 0.0
		for a := range want {
			want[a] = float64(b[a])
			for j, o := range c.obs[k] {
				want[a] += float64(w[a*503+j]) * float64(o) * float64(scale[j])
			}
			if c.mask[k][a] != 0 {
				top = max(top, want[a])
			}
		}
		for a := range want {
			if c.mask[k][a] != 0 {
				want[a] = math.Exp(want[a] - top)
				sum += want[a]
			} else {
				want[a] = 0
			}
		}
		for a := range want {
			if d := math.Abs(dst[a] - want[a]/sum); d > 1e-12 {
				t.Fatalf("case %d action %d: %v, want %v", k, a, dst[a], want[a]/sum)
			}
		}
	}
}
