package agents

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/galaxygym/galaxygym/env"
)

func init() {
	Register("policy", "a neural-network policy (MLP over the observation, masked softmax) from an .npz weights "+
		"file (option weights, docs/policy-format.md), e.g. the training notebook's policy.npz; plays every "+
		"environment whose spec the file matches",
		func(spec *env.Spec, opts Options) (Agent, error) { return NewPolicy(spec, opts) })
}

// The format a weights file declares in its metadata (docs/policy-format.md).
const (
	PolicyFormat = "galaxygym-mlp-policy"
	// PolicyFormatVersion is the newest version this build reads: 2 adds
	// board planes and convolutions (meta "board", conv{i}.*), 3 the value
	// head (value{i}.*, meta "value_outputs"), 4 one-hot inputs for the
	// observation's codes (meta "codes"), 5 a linear term over the
	// game's action features (meta "action_features").
	PolicyFormatVersion = 5
)

// PolicyMeta is the optional "meta" array of a weights file: a 1-D uint8
// array holding this JSON object in UTF-8. When present, every field is
// required and checked.
type PolicyMeta struct {
	Format     string `json:"format"`      // PolicyFormat
	Version    int    `json:"version"`     // 1 to PolicyFormatVersion
	EnvID      string `json:"env_id"`      // the environment the policy plays, e.g. "galaxy-express-v1"
	ObsShape   []int  `json:"obs_shape"`   // that environment's observation shape
	NumActions int    `json:"num_actions"` // that environment's number of actions
	Activation string `json:"activation"`  // between layers: "tanh" or "relu"
	// Board (version 2): where the observation's board planes lie; the conv
	// layers conv0, conv1, ... read them. Nil: an MLP over the observation.
	Board *PolicyBoard `json:"board,omitempty"`
	// Play (optional, any version) says how the weights are meant to be
	// played: PlayGreedy (the most probable legal action, as they were
	// evaluated) or PlaySample (sample the masked softmax); "" reads as
	// PlaySample. The policy agent's greedy option overrides it.
	Play string `json:"play,omitempty"`
	// ValueOutputs (version 3, optional) is the number of outputs of the
	// value head (value0, value1, ...): output k is the expected return of
	// the player k seats after the observer. 0 (absent): whatever the last
	// value layer has; a file without value arrays has no value head.
	ValueOutputs int `json:"value_outputs,omitempty"`
	// Codes (version 4, optional) are observation bytes that hold a code
	// (a card kind, a seat), not a magnitude: layer 0 also reads each of
	// them one-hot, after its other inputs, in this order.
	Codes []PolicyCode `json:"codes,omitempty"`
	// ActionFeatures (version 5, optional) names the game's action
	// features (env.ActionFeaturer) the file reads, all of them, in the
	// game's order: array action_features.weight (float32, (F,)) adds
	// sum_f weight[f] * feature[a][f] to action a's logit.
	ActionFeatures []string `json:"action_features,omitempty"`
}

// PolicyCode names Size consecutive observation bytes from Offset, each a
// code 0 to Classes-1 (an observation layout field's classes, env.ObsField).
// Layer 0 reads byte j of the run as Classes inputs, one-hot: input v is 1
// when the byte is v (all 0 for a byte of Classes or more).
type PolicyCode struct {
	Offset  int `json:"offset"`
	Size    int `json:"size"`
	Classes int `json:"classes"`
}

// The values of [PolicyMeta.Play].
const (
	PlayGreedy = "greedy"
	PlaySample = "sample"
)

// PolicyBoard locates a stack of board planes in the flat observation:
// Planes planes of Height x Width elements, row-major, from element Offset.
// The planes are translated (cyclically: the board is a torus) so that the
// first nonzero observation byte of plane CenterPlane lies at row 0,
// column 0; -1 translates nothing (docs/policy-format.md).
type PolicyBoard struct {
	Offset      int `json:"offset"`
	Planes      int `json:"planes"`
	Height      int `json:"height"`
	Width       int `json:"width"`
	CenterPlane int `json:"center_plane"`
}

// The kinds of [*PolicyFileError]; test them with errors.Is.
var (
	ErrPolicyFile      = errors.New("unreadable weights file") // I/O, not an .npz, a malformed .npy
	ErrPolicyMissing   = errors.New("missing array")
	ErrPolicyDType     = errors.New("wrong dtype")
	ErrPolicyShape     = errors.New("wrong shape")
	ErrPolicyNotFinite = errors.New("non-finite value")
	ErrPolicyMeta      = errors.New("bad metadata")
	ErrPolicyEnv       = errors.New("weights for another environment")
)

// PolicyFileError reports a weights file the policy agent cannot use.
type PolicyFileError struct {
	Path   string // the file, as given
	Array  string // the array at fault ("layer1.weight"), "" for the whole file
	Kind   error  // one of the ErrPolicy* values
	Reason string
	Err    error // the underlying error, if any
}

func (e *PolicyFileError) Error() string {
	var b strings.Builder
	b.WriteString("agents: policy: ")
	b.WriteString(e.Path)
	if e.Array != "" {
		b.WriteString(": ")
		b.WriteString(e.Array)
	}
	b.WriteString(": ")
	b.WriteString(e.Reason)
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns Kind and Err.
func (e *PolicyFileError) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// policyNet is a weights file, read and checked in itself; it is shared,
// read-only, by every Policy made from the same file.
type policyNet struct {
	sha256 string
	meta   *PolicyMeta  // nil when the file has none
	relu   bool         // the activation is relu (else tanh)
	scale  []float64    // obs_scale
	sizes  []int        // sizes[0]: observation size; sizes[i+1]: outputs of layer i
	in0    int          // layer 0's input size: feat0, then the codes' one-hot inputs
	feat0  int          // the inputs before the codes': sizes[0], or the board features' with a board
	codes  []PolicyCode // meta codes (version 4): layer 0 reads them one-hot, from input feat0
	w0t    *mat.Dense   // layer 0 transposed (in0 x out): a nonzero input j (observation byte or board feature) adds row j
	board  *PolicyBoard
	conv   []convLayer
	w      []*mat.Dense
	b      []*mat.VecDense
	// The value head (version 3; nil without one): vw[i] (out x in) and
	// vb[i] of layer value{i}; vsizes[0] is the trunk's width, vsizes[i+1]
	// the outputs of value{i}.
	vw     []*mat.Dense
	vb     []*mat.VecDense
	vsizes []int
	// The action features' weights (version 5; nil without them):
	// feature f of action a adds afeatW[f] * feature to a's logit.
	afeatW []float64
}

var layerKey = regexp.MustCompile(`^layer(\d+)\.(weight|bias)$`)

var convKey = regexp.MustCompile(`^conv(\d+)\.(weight|bias)$`)

// readPolicyFile reads and checks a weights file (not against an env).
func readPolicyFile(path string) (*policyNet, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &PolicyFileError{Path: path, Kind: ErrPolicyFile, Reason: "cannot read", Err: err}
	}
	return parsePolicy(path, data)
}

// parsePolicy checks the weights file read from path.
func parsePolicy(path string, data []byte) (*policyNet, error) {
	r := &policyReader{path: path}
	var err error
	sum := sha256.Sum256(data)
	n := &policyNet{sha256: hex.EncodeToString(sum[:])}
	if r.f, err = openNPZ(data); err != nil {
		return nil, r.fail("", ErrPolicyFile, err, "not an .npz archive")
	}
	if r.f.has("meta") {
		if n.meta, err = r.meta(); err != nil {
			return nil, err
		}
		n.relu = n.meta.Activation == "relu"
	}
	if err := r.layers(n); err != nil {
		return nil, err
	}
	if err := r.values(n); err != nil {
		return nil, err
	}
	if err := r.actionFeatures(n); err != nil {
		return nil, err
	}
	if err := r.matchMeta(n); err != nil {
		return nil, err
	}
	return n, nil
}

// policyReader reads the arrays of one weights file.
type policyReader struct {
	path string
	f    *npzFile
}

// fail returns a *PolicyFileError about array (or the file, for "").
func (r *policyReader) fail(array string, kind error, err error, format string, args ...any) error {
	return &PolicyFileError{Path: r.path, Array: array, Kind: kind, Reason: fmt.Sprintf(format, args...), Err: err}
}

// read returns the named array.
func (r *policyReader) read(name string) (*npyArray, error) {
	if !r.f.has(name) {
		return nil, r.fail(name, ErrPolicyMissing, nil, "missing")
	}
	a, err := r.f.read(name)
	if err != nil {
		return nil, r.fail(name, ErrPolicyFile, err, "cannot read")
	}
	return a, nil
}

// floats32 reads a float32 array of the given shape (-1: any size) as
// float64s, and returns them with the array's shape.
func (r *policyReader) floats32(name string, shape ...int) ([]float64, []int, error) {
	a, err := r.read(name)
	if err != nil {
		return nil, nil, err
	}
	if dtypeName(a.dtype) != "float32" {
		return nil, nil, r.fail(name, ErrPolicyDType, nil, "dtype %s, want float32", dtypeName(a.dtype))
	}
	ok := len(a.shape) == len(shape)
	for i := 0; ok && i < len(shape); i++ {
		ok = a.shape[i] >= 1 && (shape[i] < 0 || a.shape[i] == shape[i])
	}
	if !ok {
		return nil, nil, r.fail(name, ErrPolicyShape, nil, "shape %s, want %s", shapeString(a.shape), shapeString(shape))
	}
	v := a.float64s()
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, nil, r.fail(name, ErrPolicyNotFinite, nil, "element %d is %v", i, x)
		}
	}
	return v, a.shape, nil
}

// meta reads and checks the "meta" array.
func (r *policyReader) meta() (*PolicyMeta, error) {
	a, err := r.read("meta")
	if err != nil {
		return nil, err
	}
	if dtypeName(a.dtype) != "uint8" || len(a.shape) != 1 {
		return nil, r.fail("meta", ErrPolicyMeta, nil, "%s %s, want 1-D uint8 (UTF-8 JSON)",
			dtypeName(a.dtype), shapeString(a.shape))
	}
	m := new(PolicyMeta)
	if err := json.Unmarshal(a.data, m); err != nil {
		return nil, r.fail("meta", ErrPolicyMeta, err, "not a JSON object")
	}
	switch {
	case m.Format != PolicyFormat:
		return nil, r.fail("meta", ErrPolicyMeta, nil, "format %q, want %q", m.Format, PolicyFormat)
	case m.Version < 1 || m.Version > PolicyFormatVersion:
		return nil, r.fail("meta", ErrPolicyMeta, nil, "format version %d: this build reads versions 1 to %d", m.Version, PolicyFormatVersion)
	case m.EnvID == "":
		return nil, r.fail("meta", ErrPolicyMeta, nil, "no env_id")
	case len(m.ObsShape) == 0 || slices.ContainsFunc(m.ObsShape, func(d int) bool { return d < 1 }):
		return nil, r.fail("meta", ErrPolicyMeta, nil, "obs_shape %v: want positive dimensions", m.ObsShape)
	case m.NumActions < 1:
		return nil, r.fail("meta", ErrPolicyMeta, nil, "num_actions %d", m.NumActions)
	case m.Activation != "tanh" && m.Activation != "relu":
		return nil, r.fail("meta", ErrPolicyMeta, nil, "activation %q: want tanh or relu", m.Activation)
	case m.Board != nil && m.Version < 2:
		return nil, r.fail("meta", ErrPolicyMeta, nil, "a board needs format version 2")
	case m.ValueOutputs != 0 && m.Version < 3:
		return nil, r.fail("meta", ErrPolicyMeta, nil, "value_outputs needs format version 3")
	case len(m.Codes) > 0 && m.Version < 4:
		return nil, r.fail("meta", ErrPolicyMeta, nil, "codes need format version 4")
	case len(m.ActionFeatures) > 0 && m.Version < 5:
		return nil, r.fail("meta", ErrPolicyMeta, nil, "action_features need format version 5")
	case slices.Contains(m.ActionFeatures, ""):
		return nil, r.fail("meta", ErrPolicyMeta, nil, "action_features %q: an empty name", m.ActionFeatures)
	case m.ValueOutputs < 0:
		return nil, r.fail("meta", ErrPolicyMeta, nil, "value_outputs %d: want a positive count", m.ValueOutputs)
	case m.Play != "" && m.Play != PlayGreedy && m.Play != PlaySample:
		return nil, r.fail("meta", ErrPolicyMeta, nil, "play %q: want %q or %q", m.Play, PlayGreedy, PlaySample)
	}
	if b := m.Board; b != nil && (b.Offset < 0 || b.Planes < 1 || b.Height < 1 || b.Width < 1 ||
		b.CenterPlane < -1 || b.CenterPlane >= b.Planes) {
		return nil, r.fail("meta", ErrPolicyMeta, nil, "board %+v: want offset >= 0, positive sizes, center_plane -1 or a plane", *b)
	}
	for _, c := range m.Codes {
		if c.Offset < 0 || c.Size < 1 || c.Classes < 2 || c.Classes > 256 {
			return nil, r.fail("meta", ErrPolicyMeta, nil, "code %+v: want offset >= 0, size >= 1, classes 2 to 256", c)
		}
	}
	return m, nil
}

// layers reads obs_scale and the layers layer0, layer1, ... (no gap),
// each layer's input size the previous one's output size.
func (r *policyReader) layers(n *policyNet) error {
	scale, shape, err := r.floats32("obs_scale", -1)
	if err != nil {
		return err
	}
	n.scale = scale
	n.sizes = []int{shape[0]}
	n.in0 = shape[0]
	if err := r.convs(n); err != nil {
		return err
	}
	n.feat0 = n.in0
	if n.meta != nil {
		for _, c := range n.meta.Codes {
			if c.Offset+c.Size > n.sizes[0] {
				return r.fail("meta", ErrPolicyShape, nil, "code %+v: bytes %d-%d, past the observation's %d",
					c, c.Offset, c.Offset+c.Size-1, n.sizes[0])
			}
			n.in0 += c.Size * c.Classes
		}
		n.codes = n.meta.Codes
	}
	numLayers := 0
	for r.f.has(fmt.Sprintf("layer%d.weight", numLayers)) {
		numLayers++
	}
	for _, k := range slices.Sorted(maps.Keys(r.f.keys)) {
		if m := layerKey.FindStringSubmatch(k); m != nil {
			if i, err := strconv.Atoi(m[1]); err != nil || i >= numLayers {
				return r.fail(fmt.Sprintf("layer%d.weight", numLayers), ErrPolicyMissing, nil,
					"missing (the file has %s)", k)
			}
		}
	}
	if numLayers == 0 {
		return r.fail("layer0.weight", ErrPolicyMissing, nil, "missing")
	}
	for i := range numLayers {
		in := n.sizes[i]
		if i == 0 {
			in = n.in0
		}
		w, shape, err := r.floats32(fmt.Sprintf("layer%d.weight", i), -1, in)
		if err != nil {
			return err
		}
		out := shape[0]
		b, _, err := r.floats32(fmt.Sprintf("layer%d.bias", i), out)
		if err != nil {
			return err
		}
		n.sizes = append(n.sizes, out)
		n.b = append(n.b, mat.NewVecDense(out, b))
		if i == 0 {
			t := make([]float64, len(w))
			for row := range out {
				for c := range in {
					t[c*out+row] = w[row*in+c]
				}
			}
			n.w0t = mat.NewDense(in, out, t)
			n.w = append(n.w, nil)
		} else {
			n.w = append(n.w, mat.NewDense(out, in, w))
		}
	}
	n.foldCodes()
	return nil
}

// foldCodes rewrites layer 0's code rows so that a code byte of 0, the
// most common value (no card, no seat), costs nothing, like an
// observation byte of 0: row 0 of each byte's one-hot goes into the bias,
// row v (1 <= v < classes) becomes row v - row 0, and row 0 becomes
// -row 0, which a byte of classes or more (no input: its row 0 must come
// out of the bias again) adds. The outputs are the file's to rounding.
func (n *policyNet) foldCodes() {
	if len(n.codes) == 0 {
		return
	}
	wt := n.w0t.RawMatrix()
	bias := n.b[0].RawVector().Data
	rowOf := func(j int) []float64 { return wt.Data[j*wt.Stride : j*wt.Stride+wt.Cols] }
	base := n.feat0
	for _, c := range n.codes {
		for range c.Size {
			r0 := rowOf(base)
			floats.Add(bias, r0)
			for v := 1; v < c.Classes; v++ {
				floats.Sub(rowOf(base+v), r0)
			}
			floats.Scale(-1, r0)
			base += c.Classes
		}
	}
}

// actionFeatures reads action_features.weight, one weight per feature
// meta's action_features names (version 5); the array without them is an
// error, as it would be silently ignored.
func (r *policyReader) actionFeatures(n *policyNet) error {
	const name = "action_features.weight"
	var names []string
	if n.meta != nil {
		names = n.meta.ActionFeatures
	}
	if len(names) == 0 {
		if r.f.has(name) {
			return r.fail(name, ErrPolicyMeta, nil, "present, but meta names no action_features (format version 5)")
		}
		return nil
	}
	w, _, err := r.floats32(name, len(names))
	if err != nil {
		return err
	}
	n.afeatW = w
	return nil
}

// matchMeta checks the layers against the metadata, when there is some.
func (r *policyReader) matchMeta(n *policyNet) error {
	m := n.meta
	if m == nil {
		return nil
	}
	if size := prod(m.ObsShape); size != n.sizes[0] {
		return r.fail("obs_scale", ErrPolicyShape, nil, "%d elements, but meta obs_shape %v has %d",
			n.sizes[0], m.ObsShape, size)
	}
	last := len(n.sizes) - 1
	if out := n.sizes[last]; out != m.NumActions {
		return r.fail(fmt.Sprintf("layer%d.weight", last-1), ErrPolicyShape, nil,
			"%d outputs, but meta num_actions is %d", out, m.NumActions)
	}
	return nil
}

// check reports whether the file fits spec.
func (n *policyNet) check(path string, spec *env.Spec) error {
	fail := func(array string, kind error, format string, args ...any) error {
		return &PolicyFileError{Path: path, Array: array, Kind: kind, Reason: fmt.Sprintf(format, args...)}
	}
	if m := n.meta; m != nil {
		if m.EnvID != spec.ID {
			return fail("meta", ErrPolicyEnv, "env_id %s, but the environment is %s", m.EnvID, spec.ID)
		}
		if len(m.ActionFeatures) > 0 {
			f := env.ActionFeaturesOf(spec.ID)
			if f == nil {
				return fail("meta", ErrPolicyEnv, "the file reads action features %v, but %s declares none", m.ActionFeatures, spec.ID)
			}
			if _, err := featureColumns(f.ActionFeatureNames(), m.ActionFeatures); err != nil {
				return fail("meta", ErrPolicyEnv, "action_features %v: %v", m.ActionFeatures, err)
			}
		}
		if !slices.Equal(m.ObsShape, spec.ObsShape) {
			return fail("meta", ErrPolicyShape, "obs_shape %v, but %s observations have shape %v", m.ObsShape, spec.ID, spec.ObsShape)
		}
	}
	if n.sizes[0] != spec.ObsSize() {
		return fail("obs_scale", ErrPolicyShape, "%d elements, but %s observations have %d bytes",
			n.sizes[0], spec.ID, spec.ObsSize())
	}
	last := len(n.sizes) - 1
	if n.sizes[last] != spec.NumActions() {
		return fail(fmt.Sprintf("layer%d.weight", last-1), ErrPolicyShape, "%d outputs, but %s has %d actions",
			n.sizes[last], spec.ID, spec.NumActions())
	}
	return nil
}

func prod(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

func shapeString(shape []int) string {
	s := make([]string, len(shape))
	for i, d := range shape {
		s[i] = strconv.Itoa(d)
		if d < 0 {
			s[i] = "N"
		}
	}
	if len(s) == 1 {
		return "(" + s[0] + ",)"
	}
	return "(" + strings.Join(s, ", ") + ")"
}

// policyFiles caches the weights files read, by absolute path, so that the
// workers of a run (and the runs of a process) read a file once. An entry
// is replaced when the file's size or modification time changes.
var policyFiles struct {
	sync.Mutex
	m map[string]*policyFileEntry
}

type policyFileEntry struct {
	size  int64
	mtime time.Time
	once  sync.Once
	net   *policyNet
	err   error
}

func loadPolicyFile(path string) (*policyNet, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, &PolicyFileError{Path: path, Kind: ErrPolicyFile, Reason: "cannot read", Err: err}
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, &PolicyFileError{Path: path, Kind: ErrPolicyFile, Reason: "cannot read", Err: err}
	}
	policyFiles.Lock()
	if policyFiles.m == nil {
		policyFiles.m = map[string]*policyFileEntry{}
	}
	e := policyFiles.m[abs]
	if e == nil || e.size != fi.Size() || !e.mtime.Equal(fi.ModTime()) {
		e = &policyFileEntry{size: fi.Size(), mtime: fi.ModTime()}
		policyFiles.m[abs] = e
	}
	policyFiles.Unlock()
	e.once.Do(func() { e.net, e.err = readPolicyFile(path) })
	return e.net, e.err
}

// Policy plays a multilayer perceptron read from an .npz weights file
// (docs/policy-format.md): the observation bytes times obs_scale, then
// layers of weight @ x + bias with tanh (or relu) between them, then a
// softmax over the legal actions' logits. It samples from that
// distribution with a PCG seeded by Reset, or, greedy, plays the most
// probable legal action (the lowest index on ties). A format-version-5
// file also adds to each logit its linear term over the game's action
// features (env.ActionFeaturer), which the game computes from obs.
//
// Options: weights (the file; required), greedy (true or false; default:
// what the file's meta "play" says, [PlayGreedy] or [PlaySample], and
// false when it says nothing). Files are read once per process and shared
// by every Policy. Act allocates nothing.
type Policy struct {
	net    *policyNet
	greedy bool
	rng    rand.PCG
	h      []*mat.VecDense // h[i]: the outputs of layer i
	probs  []float64
	vh     []*mat.VecDense // vh[i]: the outputs of value layer i (nil without a value head)
	// The game's action features (version 5): afeat (num_actions x G, the
	// game's G features) written by featurer for each observation, the
	// file's feature f in column afeatCol[f]; nil without them.
	featurer env.ActionFeaturer
	afeat    []uint8
	afeatCol []int
	convBuffers
}

// NewPolicy returns a policy agent for spec; see [Policy] for the options.
// A file that cannot be used, or does not fit spec, is a
// [*PolicyFileError].
func NewPolicy(spec *env.Spec, opts Options) (*Policy, error) {
	path := ""
	greedy, greedySet := false, false
	for k, v := range opts {
		switch k {
		case "weights":
			path = v
		case "greedy":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return nil, &OptionError{Agent: "policy", Key: k, Reason: "want true or false"}
			}
			greedy, greedySet = b, true
		default:
			return nil, &OptionError{Agent: "policy", Key: k, Reason: "unknown option (known: weights, greedy)"}
		}
	}
	if path == "" {
		return nil, &OptionError{Agent: "policy", Key: "weights",
			Reason: "required: the .npz weights file (--weights FILE or --agent-opt weights=FILE; docs/policy-format.md)"}
	}
	if spec == nil {
		return nil, &UnsupportedEnvError{Agent: "policy", Env: "<nil>"}
	}
	n, err := loadPolicyFile(path)
	if err != nil {
		return nil, err
	}
	if err := n.check(path, spec); err != nil {
		return nil, err
	}
	if !greedySet && n.meta != nil {
		greedy = n.meta.Play == PlayGreedy // how the file says it is meant to be played
	}
	p := &Policy{net: n, greedy: greedy, probs: make([]float64, spec.NumActions())}
	for _, size := range n.sizes[1:] {
		p.h = append(p.h, mat.NewVecDense(size, nil))
	}
	for _, size := range n.vsizes[min(1, len(n.vsizes)):] {
		p.vh = append(p.vh, mat.NewVecDense(size, nil))
	}
	p.convBuffers = n.newConvBuffers()
	if n.afeatW != nil {
		p.featurer = env.ActionFeaturesOf(spec.ID) // check made sure it declares them
		names := p.featurer.ActionFeatureNames()
		p.afeatCol, _ = featureColumns(names, n.meta.ActionFeatures) // check made sure they are there
		p.afeat = make([]uint8, spec.NumActions()*len(names))
	}
	return p, nil
}

// Name returns "policy".
func (*Policy) Name() string { return "policy" }

// Version returns "sha256:" and the weights file's SHA-256, which datasets
// record as the agent's version.
func (p *Policy) Version() string { return "sha256:" + p.net.sha256 }

// SHA256 returns the hex SHA-256 of the weights file.
func (p *Policy) SHA256() string { return p.net.sha256 }

// Greedy reports whether the agent plays the most probable action.
func (p *Policy) Greedy() bool { return p.greedy }

// Reset seeds the sampling generator for an episode.
func (p *Policy) Reset(seed uint64) { p.rng.Seed(seed, 0x706f6c696379) }

// logits runs the network on obs and returns the last layer's outputs (a
// buffer of p, valid until the next call).
func (p *Policy) logits(obs []uint8) []float64 {
	n := p.net
	if len(obs) != len(n.scale) {
		panic(fmt.Sprintf("agents: policy: observation of %d bytes, want %d", len(obs), len(n.scale)))
	}
	h := p.h[0].RawVector().Data
	copy(h, n.b[0].RawVector().Data)
	wt := n.w0t.RawMatrix()
	if n.board != nil {
		// Layer 0 from the board features' nonzero elements only: the
		// centred planes are as sparse as the observation, and the convs'
		// ReLU outputs are partly zero.
		p.boardFeatures(obs)
		for j, x := range p.feat.RawVector().Data {
			if x != 0 {
				floats.AddScaled(h, x, wt.Data[j*wt.Stride:j*wt.Stride+wt.Cols])
			}
		}
	} else {
		// Layer 0 from the observation's nonzero bytes only (about 5% of
		// Galaxy Express's): rows of the transposed weights, scaled.
		for j, o := range obs {
			if o != 0 {
				floats.AddScaled(h, float64(o)*n.scale[j], wt.Data[j*wt.Stride:j*wt.Stride+wt.Cols])
			}
		}
	}
	// The codes' one-hot inputs, folded (foldCodes): nothing for a 0, the
	// row of v below classes, row 0 (minus the file's) for a byte past them.
	row := n.feat0
	for _, c := range n.codes {
		for _, v := range obs[c.Offset : c.Offset+c.Size] {
			if v != 0 {
				j := row
				if int(v) < c.Classes {
					j += int(v)
				}
				floats.Add(h, wt.Data[j*wt.Stride:j*wt.Stride+wt.Cols])
			}
			row += c.Classes
		}
	}
	for i := 1; i < len(p.h); i++ {
		n.activate(h)
		out := p.h[i]
		out.MulVec(n.w[i], p.h[i-1])
		out.AddVec(out, n.b[i])
		h = out.RawVector().Data
	}
	if w := n.afeatW; w != nil {
		// The action features' linear term (version 5).
		p.featurer.ActionFeatures(obs, p.afeat)
		ng := len(p.afeat) / len(h)
		for a := range h {
			row := p.afeat[a*ng : (a+1)*ng]
			for f, c := range p.afeatCol {
				if x := row[c]; x != 0 {
					h[a] += w[f] * float64(x)
				}
			}
		}
	}
	return h
}

// activate applies the hidden layers' activation (meta's "activation":
// ReLU or tanh) to h in place.
func (n *policyNet) activate(h []float64) {
	if n.relu {
		for k, x := range h {
			h[k] = max(x, 0)
		}
		return
	}
	for k, x := range h {
		h[k] = math.Tanh(x)
	}
}

// maskedSoftmax writes the softmax of the legal actions' logits to dst (0
// for illegal actions) and returns the number of legal actions; with none,
// dst is all 0.
func maskedSoftmax(logits []float64, mask []uint8, dst []float64) int {
	top := math.Inf(-1)
	legal := 0
	for a, l := range logits {
		if mask[a] != 0 {
			legal++
			top = max(top, l)
		}
	}
	if legal == 0 {
		clear(dst)
		return 0
	}
	sum := 0.0
	for a, l := range logits {
		if mask[a] != 0 {
			e := math.Exp(l - top)
			dst[a] = e
			sum += e
		} else {
			dst[a] = 0
		}
	}
	inv := 1 / sum
	for a := range dst {
		dst[a] *= inv
	}
	return legal
}

// Probs writes the action probabilities for obs and mask to dst: the
// softmax of the legal actions' logits, 0 for the illegal ones (all 0 when
// no action is legal). len(obs) must be the observation size and
// len(mask) and len(dst) the number of actions. It allocates nothing.
func (p *Policy) Probs(obs, mask []uint8, dst []float64) {
	if len(mask) != len(p.probs) || len(dst) != len(p.probs) {
		panic(fmt.Sprintf("agents: policy: mask of %d and dst of %d for %d actions", len(mask), len(dst), len(p.probs)))
	}
	maskedSoftmax(p.logits(obs), mask, dst)
}

// Act samples a legal action from [Policy.Probs] (or, greedy, returns the
// most probable one), or returns -1 when no action is legal.
func (p *Policy) Act(_ int, obs, mask []uint8) int {
	logits := p.logits(obs)
	if len(mask) != len(logits) {
		panic(fmt.Sprintf("agents: policy: mask of %d for %d actions", len(mask), len(logits)))
	}
	if p.greedy {
		best := -1
		for a, l := range logits {
			if mask[a] != 0 && (best < 0 || l > logits[best]) {
				best = a
			}
		}
		return best
	}
	if maskedSoftmax(logits, mask, p.probs) == 0 {
		return -1
	}
	u := float64(p.rng.Uint64()>>11) * 0x1p-53
	last := -1
	for a, q := range p.probs {
		if q > 0 {
			last = a
			if u -= q; u < 0 {
				return a
			}
		}
	}
	return last // u within rounding of 1
}

// featureColumns returns, for each of a file's action feature names, its
// column among the game's (names the game declares, in its order): a file
// reads any of them, in any order, so that a feature the game adds leaves
// the files written before it as they were. A name the game does not
// declare, or one named twice, is an error.
func featureColumns(game, file []string) ([]int, error) {
	col := make([]int, len(file))
	for f, name := range file {
		c := slices.Index(game, name)
		if c < 0 {
			return nil, fmt.Errorf("the environment declares no feature %q (it declares %v)", name, game)
		}
		if slices.Contains(file[:f], name) {
			return nil, fmt.Errorf("feature %q named twice", name)
		}
		col[f] = c
	}
	return col, nil
}
