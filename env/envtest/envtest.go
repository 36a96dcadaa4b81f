package envtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

// Updating reports whether the test binary runs with -update, the request
// to rewrite golden files. The flag is declared where it is used, as
// go/printer's tests do: each package whose tests write golden files
// declares var _ = flag.Bool("update", false, "rewrite golden files")
// in a test file; envtest only looks it up, so importing envtest
// registers no flag.
func Updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// Policy chooses the action to play in a playout: a legal action of e
// (e.Mask() has at least one 1). It may read e, and e.State() for
// game-aware policies, but must not modify them; rng is the playout's
// seeded generator, its only source of randomness.
type Policy func(e *env.Env, rng *rand.Rand) int

// Uniform is the default policy: uniform over the legal actions.
func Uniform(e *env.Env, rng *rand.Rand) int {
	mask := e.Mask()
	n := 0
	for _, m := range mask {
		n += int(m)
	}
	k := rng.IntN(n)
	for a, m := range mask {
		if m != 0 {
			if k == 0 {
				return a
			}
			k--
		}
	}
	return -1
}

// Option configures [Run] and [Golden].
type Option func(*config)

type config struct {
	episodes   int
	seed       uint64
	params     map[string]any
	maxSteps   int
	otherRanks bool
	policy     Policy
	policyName string

	// the information-set test and the notation round trip (infoset.go)
	reveals          func(s env.State, player, action int) bool
	knownLeak        string
	infoSetPositions int
	noRoundTrip      string
	rendersShowMore  string

	sceneEpisodes int // playouts that check every seat's scene at every step (scene.go)
}

func newConfig(episodes int, opts []Option) config {
	c := config{episodes: episodes, seed: 1, policy: Uniform, policyName: "uniform", infoSetPositions: defaultInfoSetPositions,
		sceneEpisodes: defaultSceneEpisodes}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// Episodes sets the number of playouts (default 8 for Run, 3 for Golden).
func Episodes(n int) Option { return func(c *config) { c.episodes = n } }

// Seed sets the seed of the first playout; playout i uses seed+i, for the
// environment and for the policy's generator alike (default 1).
func Seed(seed uint64) Option { return func(c *config) { c.seed = seed } }

// Params sets the environment parameters (default: none, the game's
// defaults). With parameters other than the defaults, Run does not check
// Spec.MaxEpisodeSteps and Spec.ReturnRange, which hold for the defaults.
func Params(p map[string]any) Option { return func(c *config) { c.params = p } }

// MaxSteps stops each playout after n steps (0, the default: play to the
// end). The end-of-episode checks are skipped for a playout cut short.
func MaxSteps(n int) Option { return func(c *config) { c.maxSteps = n } }

// RanksNotByScore turns off the check that a finished episode's
// Info.Ranks follow Info.Scores (rank = 1 + the number of players with a
// strictly higher score), for a game that ranks players by something else
// (tie-breakers, elimination order). The other per-player checks stay.
func RanksNotByScore() Option { return func(c *config) { c.otherRanks = true } }

// WithPolicy makes Run choose actions with p instead of [Uniform]. name
// labels the playouts. [Golden] accepts only the uniform policy, so that
// every golden file can be replayed from its header.
func WithPolicy(name string, p Policy) Option {
	return func(c *config) { c.policy, c.policyName = p, name }
}

var idPattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*-v[0-9]+$`)

// Run is the conformance suite: it checks the spec of game id, then plays
// seeded playouts (see [Option]) and checks every step as the package
// documentation lists. Each playout is a subtest named by its seed.
func Run(t *testing.T, id string, opts ...Option) {
	t.Helper()
	c := newConfig(8, opts)
	e, err := env.Make(id, c.params)
	if err != nil {
		t.Fatalf("env.Make(%q, %v): %v", id, c.params, err)
	}
	t.Run("spec", func(t *testing.T) { checkSpec(t, id, c) })
	defaults := isDefault(e.Spec(), e.Params())
	for i := 0; i < c.episodes; i++ {
		seed := c.seed + uint64(i)
		t.Run(fmt.Sprintf("%s/seed=%d", c.policyName, seed), func(t *testing.T) {
			p := &playout{t: t, id: id, c: &c, seed: seed, defaults: defaults, scenes: i < c.sceneEpisodes}
			p.run()
		})
	}
	if c.knownLeak != "" {
		knownLeakFlag(t, c.knownLeak) // the end-of-test check
	}
	if c.infoSetPositions > 0 {
		t.Run("infoset", func(st *testing.T) { runInfoSet(t, st, id, &c) })
	}
}

func checkSpec(t *testing.T, id string, c config) {
	g, err := env.Lookup(id)
	if err != nil {
		t.Fatal(err)
	}
	s := g.Spec()
	if s != g.Spec() {
		t.Errorf("Spec() returns a new object on every call; return one immutable *Spec")
	}
	if s.ID != id {
		t.Errorf("Spec().ID = %q, registered as %q", s.ID, id)
	}
	if !idPattern.MatchString(id) {
		t.Errorf("id %q is not lower-case-words-vN", id)
	}
	if s.Name == "" || s.Description == "" {
		t.Errorf("Spec needs a Name and a Description")
	}
	if s.NumPlayers < 1 {
		t.Errorf("NumPlayers = %d", s.NumPlayers)
	}
	if s.NumActions() < 1 {
		t.Errorf("no actions")
	}
	seen := map[string]int{}
	for a, name := range s.ActionNames {
		if name == "" || strings.ContainsAny(name, " \t\n") {
			t.Errorf("action %d has name %q: want a non-empty name without spaces", a, name)
		}
		if b, dup := seen[name]; dup {
			t.Errorf("actions %d and %d share the name %q", b, a, name)
		}
		seen[name] = a
	}
	if s.ObsDType != "uint8" {
		t.Errorf("ObsDType = %q, want uint8", s.ObsDType)
	}
	if s.ObsSize() < 1 {
		t.Errorf("ObsShape %v is empty", s.ObsShape)
	}
	if len(s.ObsHigh) != s.ObsSize() {
		t.Errorf("len(ObsHigh) = %d, want ObsSize %d", len(s.ObsHigh), s.ObsSize())
	}
	for _, f := range s.ObservationLayout {
		for i := f.Offset; f.Classes != 0 && i < f.End() && i < len(s.ObsHigh); i++ {
			if int(s.ObsHigh[i]) >= f.Classes {
				t.Errorf("layout field %q holds codes of %d classes, but ObsHigh[%d] = %d", f.Name, f.Classes, i, s.ObsHigh[i])
			}
		}
	}
	if s.MaxEpisodeSteps < 1 {
		t.Errorf("MaxEpisodeSteps = %d", s.MaxEpisodeSteps)
	}
	for _, r := range [][2]float64{s.RewardRange, s.ReturnRange} {
		if math.IsNaN(r[0]) || math.IsNaN(r[1]) || r[0] > r[1] {
			t.Errorf("bad range %v", r)
		}
	}
	names := map[string]bool{}
	for _, ps := range s.Params {
		if names[ps.Name] {
			t.Errorf("parameter %q declared twice", ps.Name)
		}
		names[ps.Name] = true
		if ps.Doc == "" {
			t.Errorf("parameter %q has no Doc", ps.Name)
		}
		if _, err := s.Resolve(map[string]any{ps.Name: ps.Default}); err != nil {
			t.Errorf("the default of parameter %q does not resolve: %v", ps.Name, err)
		}
	}
	if _, err := s.Resolve(nil); err != nil {
		t.Errorf("Resolve(nil): %v", err)
	}
	if _, err := env.Make(id, map[string]any{"no such parameter": 1}); err == nil {
		t.Errorf("Make accepted an undeclared parameter")
	}

	// The wrapper before the first Reset.
	e, err := env.Make(id, c.params)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Step(0); !errors.Is(err, env.ErrNotReset) {
		t.Errorf("Step before Reset: err = %v, want ErrNotReset", err)
	}
	if err := e.Observe(0, make([]uint8, s.ObsSize())); !errors.Is(err, env.ErrNotReset) {
		t.Errorf("Observe before Reset: err = %v, want ErrNotReset", err)
	}
	if e.CurrentPlayer() != env.Terminal {
		t.Errorf("CurrentPlayer before Reset = %d, want env.Terminal", e.CurrentPlayer())
	}
	e.Reset(c.seed)
	var se *env.ShapeError
	if err := e.Observe(0, make([]uint8, s.ObsSize()+1)); !errors.As(err, &se) {
		t.Errorf("Observe with a wrong-sized buffer: err = %v, want *env.ShapeError", err)
	}
	if err := e.LegalMask(make([]uint8, s.NumActions()+1)); !errors.As(err, &se) {
		t.Errorf("LegalMask with a wrong-sized buffer: err = %v, want *env.ShapeError", err)
	}
	var pe *env.PlayerError
	for _, p := range []int{-1, e.Spec().NumPlayers} {
		if err := e.Observe(p, make([]uint8, s.ObsSize())); !errors.As(err, &pe) {
			t.Errorf("Observe(player %d): err = %v, want *env.PlayerError", p, err)
		}
	}
	checkHiddenSpec(t, e)
}

// isDefault reports whether the resolved parameters are the spec defaults.
func isDefault(s *env.Spec, p env.Params) bool {
	for _, ps := range s.Params {
		if fmt.Sprint(p[ps.Name]) != fmt.Sprint(ps.Default) {
			return false
		}
	}
	return true
}

// stepRecord is what one step produced, for the replays.
type stepRecord struct {
	action     int
	rewards    []float64
	terminated bool
	truncated  bool
	obs        []byte // every player's observation after the step
	text       string // String() after the step
}

type playout struct {
	t        *testing.T
	id       string
	c        *config
	seed     uint64
	defaults bool

	spec *env.Spec
	game env.Game
	obs  []uint8
	mask []uint8

	// The hidden part of a game that is an env.HiddenObserver (hiddenN 0
	// for one that is not).
	hiddenN      int
	hiddenLayout env.ObsLayout
	hiddenHigh   []uint8

	scenes bool // check every seat's scene at every step (the game's env.Presenter)
	// publicChecked counts the decisions whose public words were checked
	// (public.go; on the scene playouts only).
	publicChecked int
}

// fingerprint is everything observable about an Env; two Envs in the same
// situation have equal fingerprints.
type fingerprint struct {
	json, text, info string
	obs, mask        string
	hidden           string // every player's hidden part (env.HiddenObserver)
	returns          string
	steps, player    int
	done             bool
}

func (p *playout) fingerprint(e *env.Env) fingerprint {
	p.t.Helper()
	j, err := e.MarshalJSON()
	if err != nil {
		p.t.Fatalf("MarshalJSON: %v", err)
	}
	if err := e.LegalMask(p.mask); err != nil {
		p.t.Fatalf("LegalMask: %v", err)
	}
	info := e.Info()
	return fingerprint{
		json:    string(j),
		text:    e.String(),
		info:    string(info.AppendJSON(nil)),
		obs:     string(p.observeAll(e)),
		hidden:  p.hiddenAll(e),
		mask:    string(p.mask),
		returns: fmt.Sprint(e.Returns()),
		steps:   e.Steps(),
		player:  e.CurrentPlayer(),
		done:    e.Done(),
	}
}

func (f fingerprint) diff(g fingerprint) string {
	switch {
	case f.json != g.json:
		return fmt.Sprintf("JSON differs:\n%s\nvs\n%s", f.json, g.json)
	case f.text != g.text:
		return fmt.Sprintf("String() differs:\n%s\nvs\n%s", f.text, g.text)
	case f.obs != g.obs:
		return "observations differ"
	case f.hidden != g.hidden:
		return "hidden parts (env.HiddenObserver) differ"
	case f.mask != g.mask:
		return "legal masks differ"
	case f.info != g.info:
		return fmt.Sprintf("Info differs: %s vs %s", f.info, g.info)
	case f.returns != g.returns:
		return fmt.Sprintf("Returns differ: %s vs %s", f.returns, g.returns)
	case f.steps != g.steps:
		return fmt.Sprintf("Steps differ: %d vs %d", f.steps, g.steps)
	case f.player != g.player:
		return fmt.Sprintf("CurrentPlayer differs: %d vs %d", f.player, g.player)
	case f.done != g.done:
		return fmt.Sprintf("Done differs: %v vs %v", f.done, g.done)
	}
	return ""
}

// observeAll returns every player's observation, concatenated, after
// checking that Observe writes every byte and respects ObsHigh.
func (p *playout) observeAll(e *env.Env) []byte {
	p.t.Helper()
	n := p.spec.ObsSize()
	out := make([]byte, 0, n*p.spec.NumPlayers)
	for pl := 0; pl < p.spec.NumPlayers; pl++ {
		for i := range p.obs {
			p.obs[i] = 0xA5
		}
		if err := e.Observe(pl, p.obs); err != nil {
			p.t.Fatalf("Observe(%d): %v", pl, err)
		}
		first := append([]byte(nil), p.obs...)
		for i := range p.obs {
			p.obs[i] = 0x5A
		}
		if err := e.Observe(pl, p.obs); err != nil {
			p.t.Fatalf("Observe(%d): %v", pl, err)
		}
		if !bytes.Equal(first, p.obs) {
			p.t.Fatalf("Observe(%d) leaves bytes of the buffer unwritten (or is not deterministic)", pl)
		}
		for i, v := range p.obs {
			if v > p.spec.ObsHigh[i] {
				p.t.Fatalf("observation of player %d: element %d = %d > ObsHigh %d", pl, i, v, p.spec.ObsHigh[i])
			}
		}
		out = append(out, p.obs...)
	}
	return out
}

func (p *playout) newEnv() *env.Env {
	p.t.Helper()
	e, err := env.Make(p.id, p.c.params)
	if err != nil {
		p.t.Fatalf("env.Make: %v", err)
	}
	return e
}

// checkMask checks the mask of a running or finished episode and returns
// the number of legal actions.
func (p *playout) checkMask(e *env.Env) int {
	t := p.t
	t.Helper()
	n := 0
	for a, m := range p.mask {
		if m > 1 {
			t.Fatalf("mask[%d] = %d, want 0 or 1", a, m)
		}
		n += int(m)
	}
	if e.Done() {
		if n != 0 {
			t.Fatalf("the episode is over but %d actions are legal", n)
		}
		return 0
	}
	if n == 0 {
		t.Fatalf("no legal action before the end of the episode:\n%s", e)
	}
	if !bytes.Equal(e.Mask(), p.mask) {
		t.Fatalf("Mask() differs from LegalMask()")
	}
	// The game's own mask: every byte written, count returned.
	st := e.State()
	buf := make([]uint8, len(p.mask))
	for i := range buf {
		buf[i] = 0xFF
	}
	if k := st.LegalMask(buf); k != n {
		t.Fatalf("State.LegalMask returns %d, but the mask has %d ones", k, n)
	}
	if !bytes.Equal(buf, p.mask) {
		t.Fatalf("State.LegalMask leaves bytes unwritten or disagrees with Env.LegalMask")
	}
	return n
}

func (p *playout) checkRewards(r []float64) {
	p.t.Helper()
	if len(r) != p.spec.NumPlayers {
		p.t.Fatalf("step gave %d rewards, want NumPlayers = %d", len(r), p.spec.NumPlayers)
	}
	lo, hi := p.spec.RewardRange[0], p.spec.RewardRange[1]
	for pl, v := range r {
		if math.IsNaN(v) || v < lo || v > hi {
			p.t.Fatalf("reward %v to player %d outside RewardRange %v", v, pl, p.spec.RewardRange)
		}
	}
}

func (p *playout) run() {
	t := p.t
	e := p.newEnv()
	p.spec = e.Spec()
	p.obs = make([]uint8, p.spec.ObsSize())
	p.mask = make([]uint8, p.spec.NumActions())
	p.hiddenLayout, p.hiddenHigh = e.HiddenLayout()
	p.hiddenN = e.HiddenSize()
	rng := rand.New(rand.NewPCG(p.seed, 0x656e7674657374)) // "envtest"

	e.Reset(p.seed)
	if e.Seed() != p.seed {
		t.Fatalf("Seed() = %d after Reset(%d)", e.Seed(), p.seed)
	}
	if e.Steps() != 0 {
		t.Fatalf("Steps() = %d after Reset", e.Steps())
	}
	initial := p.observeAll(e)
	initialText := e.String()
	sums := make([]float64, p.spec.NumPlayers)
	var recs []stepRecord
	var snapshots []snapshot
	seen := 0
	keep := rand.New(rand.NewPCG(p.seed, 0x726573756d65)) // "resume"
	limit := p.spec.MaxEpisodeSteps
	if !p.defaults {
		limit = 1 << 20 // a runaway guard only
	}
	cut := false
	for {
		fp := p.fingerprint(e)
		p.checkMask(e)
		if p.scenes {
			p.checkScenes(e)
			p.checkPublicWords(e)
		}
		if e.Done() {
			break
		}
		if p.c.maxSteps > 0 && e.Steps() >= p.c.maxSteps {
			cut = true
			break
		}
		if e.Steps() >= limit {
			t.Fatalf("episode still running after %d steps (MaxEpisodeSteps %d)", e.Steps(), p.spec.MaxEpisodeSteps)
		}
		if pl := e.CurrentPlayer(); pl < 0 || pl >= p.spec.NumPlayers {
			t.Fatalf("CurrentPlayer = %d, want [0, %d)", pl, p.spec.NumPlayers)
		} else if sp := e.State().CurrentPlayer(); sp != pl {
			t.Fatalf("State.CurrentPlayer = %d, Env.CurrentPlayer = %d", sp, pl)
		}
		if in := e.Info(); in.Outcome != env.OutcomeOngoing {
			t.Fatalf("Info.Outcome = %q before the end", in.Outcome)
		} else if len(in.Scores)+len(in.Outcomes)+len(in.Ranks) != 0 {
			t.Fatalf("per-player results before the end (want them empty while the episode runs): "+
				"Scores %v, Outcomes %v, Ranks %v", in.Scores, in.Outcomes, in.Ranks)
		}

		p.checkIllegal(e, fp, rng)
		refused := p.checkNotation(e, recs)
		if !refused {
			p.checkLoad(e, fp)
		}
		if !refused && (len(snapshots) == 0 || rng.IntN(8) == 0) {
			// Every resume replays to the end of the episode, so the
			// checks cost O(length^2): keep a uniform sample of at most
			// maxResumeChecks snapshots (reservoir sampling, the first
			// always kept, drawn from a generator of its own so that the
			// playout's actions do not depend on it).
			seen++
			j, _ := e.MarshalJSON()
			switch {
			case len(snapshots) < maxResumeChecks:
				snapshots = append(snapshots, snapshot{len(recs), j})
			default:
				if k := 1 + keep.IntN(seen-1); k < maxResumeChecks {
					snapshots[k] = snapshot{len(recs), j}
				}
			}
		}

		a := p.c.policy(e, rng)
		if a < 0 || a >= len(p.mask) || e.Mask()[a] == 0 {
			t.Fatalf("policy %s chose %d, which is not legal", p.c.policyName, a)
		}

		// Clone: equal before, independent while stepped, and the same
		// result as the original with the same action.
		c := e.Clone()
		if d := fp.diff(p.fingerprint(c)); d != "" {
			t.Fatalf("Clone differs from the original: %s", d)
		}
		cres, err := c.Step(a)
		if err != nil {
			t.Fatalf("clone.Step(%s): %v", p.spec.ActionNames[a], err)
		}
		crew := append([]float64(nil), cres.Rewards...)
		if d := fp.diff(p.fingerprint(e)); d != "" {
			t.Fatalf("stepping a clone changed the original: %s", d)
		}

		res, err := e.Step(a)
		if err != nil {
			t.Fatalf("Step(%s): %v", p.spec.ActionNames[a], err)
		}
		p.checkRewards(res.Rewards)
		if fmt.Sprint(res.Rewards) != fmt.Sprint(crew) || res.Terminated != cres.Terminated || res.Truncated != cres.Truncated {
			t.Fatalf("the clone stepped with %s got %v %v/%v, the original %v %v/%v", p.spec.ActionNames[a],
				crew, cres.Terminated, cres.Truncated, res.Rewards, res.Terminated, res.Truncated)
		}
		if d := p.fingerprint(c).diff(p.fingerprint(e)); d != "" {
			t.Fatalf("the clone and the original part ways after the same action %s: %s", p.spec.ActionNames[a], d)
		}
		if res.Terminated && res.Truncated {
			t.Fatalf("step %d is both terminated and truncated", e.Steps())
		}
		if res.Terminated != e.Terminated() || res.Truncated != e.Truncated() || e.Done() != (res.Terminated || res.Truncated) {
			t.Fatalf("StepResult flags %v/%v disagree with Terminated()/Truncated()/Done() %v/%v/%v",
				res.Terminated, res.Truncated, e.Terminated(), e.Truncated(), e.Done())
		}
		if e.Steps() != len(recs)+1 {
			t.Fatalf("Steps() = %d after %d steps", e.Steps(), len(recs)+1)
		}
		for i, r := range res.Rewards {
			sums[i] += r
		}
		recs = append(recs, stepRecord{a, append([]float64(nil), res.Rewards...), res.Terminated, res.Truncated,
			p.observeAll(e), e.String()})
	}

	if !cut {
		p.checkEnd(e, sums, len(recs))
	}
	p.checkSameSeed(e, initial, initialText, recs)
	for _, s := range snapshots {
		p.checkResume(s, recs)
	}
}

// checkNotation checks that the position round-trips through the game's
// notation (State.MarshalJSON, Game.LoadState), so that an illegal
// position is caught at the step that reaches it. It reports whether the
// notation refused the position under [NoRoundTrip] (the caller then
// skips the snapshot checks of this step).
func (p *playout) checkNotation(e *env.Env, recs []stepRecord) bool {
	p.t.Helper()
	if p.game == nil {
		g, err := env.Lookup(p.id)
		if err != nil {
			p.t.Fatal(err)
		}
		p.game = g
	}
	err := roundTripState(p.game, e.Params(), p.spec, e.State())
	if err == nil {
		return false
	}
	last := "(start)"
	if len(recs) > 0 {
		last = p.spec.ActionNames[recs[len(recs)-1].action]
	}
	if p.c.noRoundTrip != "" {
		p.t.Logf("NoRoundTrip(%q): the position after %d steps (last action %s) does not round-trip: %v",
			p.c.noRoundTrip, len(recs), last, err)
		return true
	}
	p.t.Fatalf("the position after %d steps (last action %s) does not round-trip through the game's notation: %v\n%s",
		len(recs), last, err, e)
	return true
}

type snapshot struct {
	at   int // steps taken when it was written
	json []byte
}

// checkIllegal tries a masked-out action and two out-of-range ones.
func (p *playout) checkIllegal(e *env.Env, fp fingerprint, rng *rand.Rand) {
	t := p.t
	t.Helper()
	tries := []int{-1, len(p.mask)}
	var illegal []int
	for a, m := range p.mask {
		if m == 0 {
			illegal = append(illegal, a)
		}
	}
	if len(illegal) > 0 {
		tries = append(tries, illegal[rng.IntN(len(illegal))])
	}
	for _, a := range tries {
		_, err := e.Step(a)
		if !errors.Is(err, env.ErrIllegalAction) {
			t.Fatalf("Step(%d), an illegal action: err = %v, want one wrapping env.ErrIllegalAction", a, err)
		}
		var ie *env.IllegalActionError
		if !errors.As(err, &ie) || ie.Action != a {
			t.Fatalf("Step(%d): err = %#v, want an *env.IllegalActionError for action %d", a, err, a)
		}
		if d := fp.diff(p.fingerprint(e)); d != "" {
			t.Fatalf("the illegal action %d changed the environment: %s", a, d)
		}
	}
}

// checkLoad round-trips the environment through JSON into a fresh Env.
func (p *playout) checkLoad(e *env.Env, fp fingerprint) {
	t := p.t
	t.Helper()
	j, err := e.MarshalJSON()
	if err != nil {
		t.Fatalf("MarshalJSON: %v", err)
	}
	if !json.Valid(j) {
		t.Fatalf("MarshalJSON wrote invalid JSON: %s", j)
	}
	f := p.newEnv()
	if err := f.Load(j); err != nil {
		t.Fatalf("Load(MarshalJSON()): %v\n%s", err, j)
	}
	if d := fp.diff(p.fingerprint(f)); d != "" {
		t.Fatalf("JSON round trip: %s", d)
	}
}

// checkEnd checks a finished episode.
func (p *playout) checkEnd(e *env.Env, sums []float64, steps int) {
	t := p.t
	t.Helper()
	if e.CurrentPlayer() != env.Terminal {
		t.Fatalf("CurrentPlayer = %d after the end, want env.Terminal", e.CurrentPlayer())
	}
	if e.Terminated() == e.Truncated() {
		t.Fatalf("at the end Terminated = %v and Truncated = %v: want exactly one", e.Terminated(), e.Truncated())
	}
	if e.Terminated() && !e.State().Terminal() {
		t.Fatalf("terminated but State.Terminal() is false")
	}
	fp := p.fingerprint(e)
	for _, a := range []int{0, len(p.mask) - 1, -1} {
		if _, err := e.Step(a); !errors.Is(err, env.ErrEpisodeOver) {
			t.Fatalf("Step(%d) after the end: err = %v, want env.ErrEpisodeOver", a, err)
		}
	}
	if d := fp.diff(p.fingerprint(e)); d != "" {
		t.Fatalf("stepping after the end changed the environment: %s", d)
	}
	in := e.Info()
	switch {
	case e.Truncated() && in.Outcome != env.OutcomeTruncated:
		t.Fatalf("truncated, but Info.Outcome = %q", in.Outcome)
	case e.Terminated() && in.Outcome != env.OutcomeWin && in.Outcome != env.OutcomeLoss && in.Outcome != env.OutcomeDraw:
		t.Fatalf("terminated, but Info.Outcome = %q", in.Outcome)
	}
	ret := e.Returns()
	for i := range sums {
		if math.Abs(sums[i]-ret[i]) > 1e-9 {
			t.Fatalf("player %d: summed rewards %v != Returns %v", i, sums[i], ret[i])
		}
	}
	if p.spec.NumPlayers == 1 && math.Abs(in.Score-ret[0]) > 1e-9 {
		t.Fatalf("final Info.Score %v != return %v", in.Score, ret[0])
	}
	if err := CheckResults(&in, p.spec.NumPlayers, !p.c.otherRanks); err != nil {
		t.Fatalf("%v (truncated %v)", err, e.Truncated())
	}
	if p.defaults {
		if steps > p.spec.MaxEpisodeSteps {
			t.Fatalf("episode of %d steps > MaxEpisodeSteps %d", steps, p.spec.MaxEpisodeSteps)
		}
		for i, r := range ret {
			if r < p.spec.ReturnRange[0] || r > p.spec.ReturnRange[1] {
				t.Fatalf("return %v of player %d outside ReturnRange %v", r, i, p.spec.ReturnRange)
			}
		}
	}
}

// replay steps e through recs[from:], comparing every result.
func (p *playout) replay(e *env.Env, recs []stepRecord, from int, what string) {
	t := p.t
	t.Helper()
	for i := from; i < len(recs); i++ {
		r := recs[i]
		res, err := e.Step(r.action)
		if err != nil {
			t.Fatalf("%s: step %d (%s): %v", what, i+1, p.spec.ActionNames[r.action], err)
		}
		if fmt.Sprint(res.Rewards) != fmt.Sprint(r.rewards) || res.Terminated != r.terminated || res.Truncated != r.truncated {
			t.Fatalf("%s: step %d (%s) gave %v %v/%v, first time %v %v/%v", what, i+1, p.spec.ActionNames[r.action],
				res.Rewards, res.Terminated, res.Truncated, r.rewards, r.terminated, r.truncated)
		}
		if !bytes.Equal(p.observeAll(e), r.obs) {
			t.Fatalf("%s: observations differ after step %d (%s)", what, i+1, p.spec.ActionNames[r.action])
		}
		if s := e.String(); s != r.text {
			t.Fatalf("%s: after step %d (%s) the position is\n%s\nfirst time\n%s", what, i+1, p.spec.ActionNames[r.action], s, r.text)
		}
	}
}

// checkSameSeed resets e with the same seed and replays the actions.
func (p *playout) checkSameSeed(e *env.Env, initial []byte, text string, recs []stepRecord) {
	e.Reset(p.seed)
	if e.Steps() != 0 || e.Done() {
		p.t.Fatalf("Reset did not start a fresh episode (Steps %d, Done %v)", e.Steps(), e.Done())
	}
	for _, r := range e.Returns() {
		if r != 0 {
			p.t.Fatalf("Reset left returns %v", e.Returns())
		}
	}
	if !bytes.Equal(p.observeAll(e), initial) || e.String() != text {
		p.t.Fatalf("same seed %d, different first observation", p.seed)
	}
	p.replay(e, recs, 0, "replay with the same seed")
}

// maxResumeChecks bounds the JSON snapshots of one playout that are loaded
// into a fresh Env and replayed to the end (see run).
const maxResumeChecks = 24

// checkResume loads a snapshot into a fresh Env and replays the rest.
func (p *playout) checkResume(s snapshot, recs []stepRecord) {
	f := p.newEnv()
	if err := f.Load(s.json); err != nil {
		p.t.Fatalf("Load(snapshot after %d steps): %v", s.at, err)
	}
	p.replay(f, recs, s.at, fmt.Sprintf("resumed from the JSON snapshot after %d steps", s.at))
}

// better orders per-player outcomes: a win is better than a draw, a draw
// better than a loss.
func better(o env.Outcome) int {
	switch o {
	case env.OutcomeWin:
		return 2
	case env.OutcomeDraw:
		return 1
	}
	return 0
}

// CheckResults checks the per-player results of a finished episode's info
// for n players and returns a *ResultsError naming the first violation:
// Scores, Outcomes and Ranks have length n; scores are finite; every
// outcome is win, loss or draw; ranks are a competition ranking (1 for the
// best, tied players share a rank, the next rank skips: rank = 1 + the
// number of players ranked strictly better); a better-ranked player's
// outcome is never worse than a worse-ranked one's. With byScore, ranks
// also follow the scores: rank = 1 + the number of players with a strictly
// higher score. [Run] calls it at the end of every playout; a game's own
// tests may call it on any Info.
func CheckResults(in *env.Info, n int, byScore bool) error {
	if len(in.Scores) != n || len(in.Outcomes) != n || len(in.Ranks) != n {
		return &ResultsError{fmt.Sprintf("want %d scores, outcomes and ranks at the end, have %d, %d and %d",
			n, len(in.Scores), len(in.Outcomes), len(in.Ranks))}
	}
	for i := range n {
		s, o, r := in.Scores[i], in.Outcomes[i], in.Ranks[i]
		if math.IsNaN(s) || math.IsInf(s, 0) {
			return &ResultsError{fmt.Sprintf("player %d scores %v", i, s)}
		}
		if o != env.OutcomeWin && o != env.OutcomeLoss && o != env.OutcomeDraw {
			return &ResultsError{fmt.Sprintf("player %d's outcome is %q, want win, loss or draw", i, o)}
		}
		above, higher := 0, 0
		for j := range n {
			if in.Ranks[j] < r {
				above++
				if better(in.Outcomes[j]) < better(o) {
					return &ResultsError{fmt.Sprintf("player %d (rank %d, %s) ranks above player %d (rank %d, %s) with a worse outcome",
						j, in.Ranks[j], in.Outcomes[j], i, r, o)}
				}
			}
			if in.Scores[j] > s {
				higher++
			}
		}
		if r != 1+above {
			return &ResultsError{fmt.Sprintf("ranks %v are not a competition ranking (player %d has rank %d with %d players ranked above)",
				in.Ranks, i, r, above)}
		}
		if byScore && r != 1+higher {
			return &ResultsError{fmt.Sprintf("ranks %v do not follow scores %v (player %d: rank %d, %d higher scores); "+
				"use envtest.RanksNotByScore for a game that ranks otherwise", in.Ranks, in.Scores, i, r, higher)}
		}
	}
	return nil
}

// ResultsError reports per-player results that break the contract of
// [env.Info] (see [CheckResults]).
type ResultsError struct{ Reason string }

func (e *ResultsError) Error() string { return "envtest: per-player results: " + e.Reason }
