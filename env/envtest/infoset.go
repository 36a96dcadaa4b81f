package envtest

import (
	"bytes"
	"fmt"
	"image"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

// Revealer is the optional interface of a game's [env.State] that says
// which steps may show a player something hidden from that player before
// the step; the information-set test of [Run] (see the package
// documentation) excuses a divergence between twins only after such a
// step. A game implements it on its State type (no import of envtest is
// needed), or its conformance test passes the same function with
// [RevealsBy].
type Revealer interface {
	// Reveals reports whether applying action (legal in this position) may
	// show player something player could not see before it: a chance
	// outcome player sees (a card player draws or is dealt, a die, a card
	// turned face up, a shuffle), or a hidden card the rules make someone
	// show (a blocking Way Car, a raid's card, a stolen card, a hand scored
	// at its end). It must depend only on what player sees (player's
	// observation) and on the action: the test checks that both twins
	// answer alike. When in doubt a game answers true, at the cost of a
	// weaker test; answering true for steps that reveal nothing by the
	// rules hides exactly the leaks the test looks for.
	Reveals(player, action int) bool
}

// infoSetDefaults bound the information-set test of one Run: positions
// drawn from the playouts, observers per position, steps per twin walk.
const (
	defaultInfoSetPositions = 12
	infoSetObservers        = 2
	infoSetWindow           = 8
	knownLeakPlayouts       = 100
)

// Options combines options into one, for a game's tests that pass the
// same set to several Runs.
func Options(opts ...Option) Option {
	return func(c *config) {
		for _, o := range opts {
			o(c)
		}
	}
}

// RevealsBy makes the information-set test ask f instead of the state's
// own [Revealer] method: f(s, player, action) has Reveals' meaning for
// position s. For a game whose State does not (yet) implement Revealer,
// or to test another reading.
func RevealsBy(f func(s env.State, player, action int) bool) Option {
	return func(c *config) { c.reveals = f }
}

// KnownLeak declares that the game leaks hidden information by its
// (frozen) rules, for a retired version kept byte for byte: the
// information-set test of each Run carrying it logs the leaks it finds
// instead of failing, and the test that calls Run fails at its end
// (t.Cleanup) if no Run carrying the same reason found a leak, so that a
// passing test shows the leak is still there and still seen. A Run that
// has not seen it yet draws further playouts (up to 100) until it does.
// reason names the defect (an issue, the rule).
func KnownLeak(reason string) Option {
	return func(c *config) { c.knownLeak = reason }
}

// knownLeaks records, per test and KnownLeak reason, whether a Run found
// the leak.
var knownLeaks = struct {
	sync.Mutex
	found map[*testing.T]map[string]*bool
}{found: map[*testing.T]map[string]*bool{}}

// knownLeakFlag returns the record of reason for test t, registering the
// end-of-test check on first use.
func knownLeakFlag(t *testing.T, reason string) *bool {
	knownLeaks.Lock()
	defer knownLeaks.Unlock()
	m := knownLeaks.found[t]
	if m == nil {
		m = map[string]*bool{}
		knownLeaks.found[t] = m
	}
	f := m[reason]
	if f == nil {
		f = new(bool)
		m[reason] = f
		t.Cleanup(func() {
			knownLeaks.Lock()
			defer knownLeaks.Unlock()
			if !*f {
				t.Errorf("KnownLeak(%q): no information-set test of this test found a leak; if the leak is fixed, "+
					"drop the option (a version whose behaviour changed needs a new id)", reason)
			}
			delete(m, reason)
			if len(m) == 0 {
				delete(knownLeaks.found, t)
			}
		})
	}
	return f
}

// InfoSetPositions sets how many positions of the playouts the
// information-set test starts twins from (default 12, each with two
// observers and walks of up to 8 steps); 0 turns the test off for this
// Run, which a game's conformance test does only for extra runs whose
// parameters change nothing hidden.
func InfoSetPositions(n int) Option { return func(c *config) { c.infoSetPositions = n } }

// NoRoundTrip turns off, for a retired version kept byte for byte, the
// check that every position of the playouts round-trips through the
// game's notation (see the package documentation); reason names the
// defect. The other checks of a snapshot (Load of MarshalJSON) are then
// skipped for positions the notation refuses, and only for those.
func NoRoundTrip(reason string) Option { return func(c *config) { c.noRoundTrip = reason } }

// RendersShowMore declares that the game's renders (the text render
// State.String and StringFor, and the rgb_array render) show information
// its observations leave out, for versions kept byte for byte whose
// golden files hold those renders: the information-set test then leaves
// the renders out of its comparisons (the observation, mask, current
// player, phase and rewards stay compared). reason names what the renders
// show.
func RendersShowMore(reason string) Option { return func(c *config) { c.rendersShowMore = reason } }

// twinView is everything an observer perceives of a position (and of the
// step that led to it).
type twinView struct {
	obs, mask []byte
	player    int
	phase     string
	text, own string
	rgb       []byte
	rewards   string
	terminal  bool
	// public is the public part (env.PublicScene, JSON) of every seat's
	// scene, for a game that is an env.Presenter: what a spectator sees
	// must not tell twins apart that the observer cannot.
	public []string
}

// view returns what observer sees of s; rewards are the last step's.
func (it *infoSet) view(s env.State, observer int, rewards []float64, rgb bool) twinView {
	v := twinView{player: s.CurrentPlayer(), terminal: s.Terminal()}
	renders := it.c.rendersShowMore == ""
	if renders {
		v.text = s.String()
	}
	v.obs = make([]byte, it.spec.ObsSize())
	s.Observe(observer, v.obs)
	if v.player == observer {
		v.mask = make([]byte, it.spec.NumActions())
		s.LegalMask(v.mask)
	}
	if m := reflect.ValueOf(s).MethodByName("Phase"); m.IsValid() && m.Type().NumIn() == 0 && m.Type().NumOut() == 1 {
		v.phase = fmt.Sprint(m.Call(nil)[0].Interface())
	}
	if f, ok := s.(interface{ StringFor(int) string }); ok && renders {
		v.own = f.StringFor(observer)
	}
	if r, ok := s.(env.Renderer); ok && rgb && renders {
		w, h := r.RenderSize()
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		r.Render(img)
		v.rgb = img.Pix
	}
	if rewards != nil {
		v.rewards = fmt.Sprint(rewards)
	}
	if it.pr != nil {
		pub, err := publicScenes(it.pr, it.spec, it.params, s, make([]uint8, it.spec.ObsSize()))
		if err != nil {
			it.t.Fatalf("the scenes of a twin walk's position: %v\n%s", err, s)
		}
		v.public = pub
	}
	return v
}

// diff names the first thing that differs between two views, or "".
func (a twinView) diff(b twinView, spec *env.Spec) string {
	switch {
	case a.player != b.player:
		return fmt.Sprintf("current player %d vs %d", a.player, b.player)
	case a.phase != b.phase:
		return fmt.Sprintf("phase %s vs %s", a.phase, b.phase)
	case a.terminal != b.terminal:
		return fmt.Sprintf("terminal %v vs %v", a.terminal, b.terminal)
	case !bytes.Equal(a.obs, b.obs):
		for i := range a.obs {
			if a.obs[i] != b.obs[i] {
				return fmt.Sprintf("observation byte %d: %d vs %d", i, a.obs[i], b.obs[i])
			}
		}
	case !bytes.Equal(a.mask, b.mask):
		for i := range a.mask {
			if a.mask[i] != b.mask[i] {
				return fmt.Sprintf("legal mask: %s %d vs %d", spec.ActionNames[i], a.mask[i], b.mask[i])
			}
		}
	case a.rewards != b.rewards:
		return fmt.Sprintf("rewards %s vs %s", a.rewards, b.rewards)
	case !slices.Equal(a.public, b.public):
		for i := range a.public {
			if a.public[i] != b.public[i] {
				return fmt.Sprintf("the public part (env.PublicScene) of seat %d's scene, %s", i,
					firstDiff([]byte(a.public[i]), []byte(b.public[i])))
			}
		}
	case a.text != b.text:
		return fmt.Sprintf("text render (String):\n%s\nvs\n%s", a.text, b.text)
	case a.own != b.own:
		return fmt.Sprintf("the observer's text render (StringFor):\n%s\nvs\n%s", a.own, b.own)
	case !bytes.Equal(a.rgb, b.rgb):
		return "rgb_array render"
	}
	return ""
}

// infoSet is one Run's information-set test.
type infoSet struct {
	t      *testing.T
	id     string
	c      *config
	spec   *env.Spec
	params env.Params
	det    env.Determinizer
	game   env.Game
	pr     env.Presenter // the game's, nil for a game that does not present itself

	twins, walked, steps int
	ends                 map[string]int
	// hiddenN is the size of the game's hidden part (env.HiddenObserver),
	// 0 for a game without one; hiddenTold counts the twins the
	// observer's hidden part tells apart from the true position.
	hiddenN, hiddenTold int
	leaks               []string
}

// runInfoSet is the information-set test of Run (see the package
// documentation).
func runInfoSet(parent, t *testing.T, id string, c *config) {
	g, err := env.Lookup(id)
	if err != nil {
		t.Fatal(err)
	}
	e, err := env.Make(id, c.params)
	if err != nil {
		t.Fatal(err)
	}
	det, ok := g.(env.Determinizer)
	if !ok {
		t.Skipf("%s implements no env.Determinizer, the source of twins", id)
	}
	it := &infoSet{t: t, id: id, c: c, spec: e.Spec(), params: e.Params(), det: det, game: g, ends: map[string]int{},
		hiddenN: e.HiddenSize()}
	it.pr, _ = g.(env.Presenter)
	episodes := max(1, min(c.episodes, 3))
	per := (c.infoSetPositions + episodes - 1) / episodes
	for i := 0; i < episodes; i++ {
		it.playout(c.seed+uint64(i), per)
	}
	// A known leak may be rare in random play: draw more positions, from
	// further seeds, until one shows (at most knownLeakPlayouts more).
	var found *bool
	if c.knownLeak != "" {
		found = knownLeakFlag(parent, c.knownLeak)
		knownLeaks.Lock()
		seen := *found
		knownLeaks.Unlock()
		for i := 0; !seen && len(it.leaks) == 0 && i < knownLeakPlayouts; i++ {
			it.playout(c.seed+uint64(episodes+i), per)
		}
	}
	t.Logf("%d twins, %d walked %d steps; walks ended: %v", it.twins, it.walked, it.steps, it.ends)
	if it.hiddenN > 0 {
		t.Logf("the observer's hidden part tells %d of %d twins from the true position", it.hiddenTold, it.twins)
	}
	if os.Getenv("ENVTEST_INFOSET_DEBUG") != "" {
		for _, l := range it.leaks {
			t.Log(strings.SplitN(l, "\n", 2)[0])
		}
	}
	switch {
	case found != nil && len(it.leaks) > 0:
		knownLeaks.Lock()
		*found = true
		knownLeaks.Unlock()
		t.Logf("KnownLeak(%q) found, as declared: %d leaks in %d twins, the first:\n%s", c.knownLeak, len(it.leaks),
			it.twins, it.leaks[0])
	case found != nil:
		t.Logf("KnownLeak(%q): not found by this Run (%d twins)", c.knownLeak, it.twins)
	case len(it.leaks) > 0:
		t.Errorf("hidden information leaks: %d of %d twins (told apart by the observer where the rules reveal nothing, or refused by the notation); the first:\n%s",
			len(it.leaks), it.twins, it.leaks[0])
	}
}

// playout plays a uniform random episode of seed and starts twins from
// per positions of it: half drawn uniformly, half where the mask offers
// the rarest action families of the episode (see family), so that rare
// decisions are walked from.
func (it *infoSet) playout(seed uint64, per int) {
	e, _ := env.Make(it.id, it.c.params)
	play := func(at func(step int)) {
		e.Reset(seed)
		rng := rand.New(rand.NewPCG(seed, 0x696e666f736574)) // "infoset"
		for !e.Done() && (it.c.maxSteps == 0 || e.Steps() < it.c.maxSteps) && e.Steps() < 1<<16 {
			at(e.Steps())
			if _, err := e.Step(Uniform(e, rng)); err != nil {
				it.t.Fatal(err)
			}
		}
	}
	// First pass: the families each position offers.
	famOf := map[string]int{}
	var offers [][]int
	var count []int
	play(func(int) {
		var fs []int
		for a, m := range e.Mask() {
			if m == 0 {
				continue
			}
			f, ok := famOf[family(it.spec.ActionNames[a])]
			if !ok {
				f = len(famOf)
				famOf[family(it.spec.ActionNames[a])] = f
				count = append(count, 0)
			}
			if !slices.Contains(fs, f) {
				fs = append(fs, f)
				count[f]++
			}
		}
		offers = append(offers, fs)
	})
	rng := rand.New(rand.NewPCG(seed, 0x7477696e73)) // "twins"
	order := rng.Perm(len(offers))
	rarity := func(i int) int {
		r := len(offers)
		for _, f := range offers[i] {
			r = min(r, count[f])
		}
		return r
	}
	chosen := map[int]bool{}
	rare := slices.Clone(order)
	slices.SortStableFunc(rare, func(i, j int) int { return rarity(i) - rarity(j) })
	for _, i := range rare {
		if len(chosen) >= per/2 {
			break
		}
		chosen[i] = true
	}
	for _, i := range order {
		if len(chosen) >= per {
			break
		}
		chosen[i] = true
	}
	// Second pass: the same episode, the chosen positions kept.
	type pos struct {
		s     env.State
		steps int
	}
	var keep []pos
	play(func(step int) {
		if chosen[step] {
			keep = append(keep, pos{e.State().Clone(), step})
		}
	})
	for _, p := range keep {
		observers := []int{p.s.CurrentPlayer()}
		if n := it.spec.NumPlayers; n > 1 {
			observers = append(observers, (p.s.CurrentPlayer()+1+rng.IntN(n-1))%n)
		}
		for _, o := range observers[:min(len(observers), infoSetObservers)] {
			it.twin(p.s, p.steps, o, rng)
		}
	}
}

// reveals asks the game (or the RevealsBy function) whether action may
// show player something; ok is false when the game declares nothing.
func (it *infoSet) reveals(s env.State, player, action int) (r, ok bool) {
	if it.c.reveals != nil {
		return it.c.reveals(s, player, action), true
	}
	if rv, ok := s.(Revealer); ok {
		return rv.Reveals(player, action), true
	}
	return false, false
}

// twin builds a twin of a for observer o from the determinizer and walks
// both with the same actions, comparing what o perceives.
func (it *infoSet) twin(a env.State, at, o int, rng *rand.Rand) {
	t := it.t
	t.Helper()
	obs := make([]byte, it.spec.ObsSize())
	a.Observe(o, obs)
	b, err := it.det.Determinize(it.params, o, obs, rng.Uint64(), nil)
	if err != nil {
		t.Fatalf("Determinize(player %d) of the position after %d steps: %v\n%s", o, at, err, a)
	}
	a = a.Clone()
	it.twins++
	var trail []string
	where := func() string {
		ja, _ := a.MarshalJSON()
		jb, _ := b.MarshalJSON()
		steps := "no step"
		if len(trail) > 0 {
			steps = strings.Join(trail, ", ")
		}
		return fmt.Sprintf("twins for player %d from the position after %d steps of the playout, then %s; now:\n"+
			"position  %s\ntwin      %s", o, at, steps, ja, jb)
	}
	roundTrip := func(s env.State, which string) {
		if it.c.noRoundTrip != "" {
			return
		}
		if err := it.roundTrip(s); err != nil {
			t.Fatalf("the %s does not round-trip through the game's notation: %v\n%s", which, err, where())
		}
	}
	if err := it.roundTrip(b); err != nil && it.c.noRoundTrip == "" {
		// The public position implies hidden cards the observation does
		// not carry (a decision that exists only for the holder of a
		// card), or the determinizer samples outside the rules.
		it.leaks = append(it.leaks, fmt.Sprintf("Determinize(player %d) gives a position the game's notation refuses "+
			"(%v): the public position implies hidden cards the observation does not carry, or the determinizer "+
			"samples positions the rules never reach\n%s", o, err, where()))
		it.ends["twin refused"]++
		return
	}
	va, vb := it.view(a, o, nil, true), it.view(b, o, nil, true)
	if d := va.diff(vb, it.spec); d != "" {
		t.Fatalf("Determinize(player %d) gives a position player %d tells apart from the true one (%s)\n%s", o, o, d, where())
	}
	if it.hiddenN > 0 && it.checkHiddenTwin(a, b, o, where) {
		it.hiddenTold++
	}
	ma, mb := make([]byte, it.spec.NumActions()), make([]byte, it.spec.NumActions())
	ra, rb := make([]float64, it.spec.NumPlayers), make([]float64, it.spec.NumPlayers)
	var legal, quiet []int
	walked := false
	for step := 0; ; step++ {
		legal = legal[:0]
		if !a.Terminal() && !b.Terminal() {
			a.LegalMask(ma)
			b.LegalMask(mb)
			for i := range ma {
				if ma[i] == 1 && mb[i] == 1 {
					legal = append(legal, i)
				}
			}
		}
		end := ""
		switch {
		case a.Terminal() || b.Terminal():
			end = "episode over"
		case step == infoSetWindow:
			end = "window"
		}
		if end == "" && step > 0 && len(legal) == 0 {
			end = "no action legal in both"
		}
		if end != "" {
			// The rgb_array renders, slow to draw, are compared at the
			// start and where a walk ends with the twins alike.
			if step > 0 {
				if d := it.view(a, o, nil, true).diff(it.view(b, o, nil, true), it.spec); d != "" {
					it.leaks = append(it.leaks, fmt.Sprintf("player %d tells the twins apart after %s: %s\n%s",
						o, trail[len(trail)-1], d, where()))
				}
			}
			it.ends[end]++
			return
		}
		if len(legal) == 0 {
			it.ends["no action legal in both"]++
			return
		}
		legal, quiet = it.preferQuiet(a, o, legal, quiet, rng)
		act := it.choose(legal, rng)
		revA, declared := it.reveals(a, o, act)
		revB, _ := it.reveals(b, o, act)
		if revA != revB {
			t.Fatalf("Reveals(player %d, %s) answers %v and %v for twins player %d cannot tell apart: "+
				"it must depend only on what the player sees\n%s", o, it.spec.ActionNames[act], revA, revB, o, where())
		}
		// Before the step: do the twins differ in anything any player
		// sees? If not, they differ only in chance nobody has seen.
		private := it.anyPlayerTellsApart(a, b, obs)
		actor := a.CurrentPlayer()
		clear(ra)
		clear(rb)
		a.Apply(act, ra)
		b.Apply(act, rb)
		trail = append(trail, fmt.Sprintf("%s by player %d", it.spec.ActionNames[act], actor))
		if os.Getenv("ENVTEST_INFOSET_DEBUG") == "2" {
			it.t.Logf("walk o=%d step %d: %s (reveal %v) -> cur %d", o, step, trail[len(trail)-1], revA, a.CurrentPlayer())
		}
		if !walked {
			walked = true
			it.walked++
		}
		it.steps++
		roundTrip(a, "position")
		roundTrip(b, "twin")
		va, vb := it.view(a, o, ra, false), it.view(b, o, rb, false)
		d := va.diff(vb, it.spec)
		if d == "" {
			continue
		}
		switch {
		case revA:
			it.ends["revealed"]++
		case !declared && !private:
			it.ends["chance (no Revealer; the twins differed in nothing any player saw)"]++
		default:
			hint := ""
			if !declared {
				hint = "\n(the game declares no reveals: implement envtest.Revealer on its State, or pass envtest.RevealsBy)"
			}
			it.leaks = append(it.leaks, fmt.Sprintf("player %d tells the twins apart after %s, which reveals nothing "+
				"to player %d: %s\n%s%s", o, trail[len(trail)-1], o, d, where(), hint))
			it.ends["leak"]++
		}
		return
	}
}

// preferQuiet returns the actions to choose from among legal: with
// reveals declared, four times in five (one draw of rng) only those that
// reveal nothing to player o when there are any (a reveal ends the
// comparison); quiet is the buffer they are gathered in, returned for
// reuse.
func (it *infoSet) preferQuiet(a env.State, o int, legal, quiet []int, rng *rand.Rand) (choices, buf []int) {
	if declared := it.c.reveals != nil || isRevealer(a); declared && rng.IntN(5) > 0 {
		quiet = quiet[:0]
		for _, x := range legal {
			if r, _ := it.reveals(a, o, x); !r {
				quiet = append(quiet, x)
			}
		}
		if len(quiet) > 0 {
			return quiet, quiet
		}
	}
	return legal, quiet
}

// anyPlayerTellsApart reports whether any player's observation differs
// between a and b (obs is a buffer of the observation's size): if none
// does, the twins differ only in chance nobody has seen.
func (it *infoSet) anyPlayerTellsApart(a, b env.State, obs []byte) bool {
	for p := 0; p < it.spec.NumPlayers; p++ {
		a.Observe(p, obs)
		x := append([]byte(nil), obs...)
		b.Observe(p, obs)
		if !bytes.Equal(x, obs) {
			return true
		}
	}
	return false
}

// roundTrip writes s with its MarshalJSON (the game's position notation)
// and reads it back with the game's LoadState: the state read must write
// the same text and show every player the same observation.
func (it *infoSet) roundTrip(s env.State) error {
	return roundTripState(it.game, it.params, it.spec, s)
}

// roundTripState is the notation round trip of one state.
func roundTripState(g env.Game, params env.Params, spec *env.Spec, s env.State) error {
	j, err := s.MarshalJSON()
	if err != nil {
		return fmt.Errorf("MarshalJSON: %w", err)
	}
	r, err := g.LoadState(params, j)
	if err != nil {
		return fmt.Errorf("the game refuses its own notation: %w", err)
	}
	k, err := r.MarshalJSON()
	if err != nil {
		return fmt.Errorf("MarshalJSON of the state read back: %w", err)
	}
	if !bytes.Equal(j, k) {
		return fmt.Errorf("read back, the position writes\n%s\nnot\n%s", k, j)
	}
	x, y := make([]byte, spec.ObsSize()), make([]byte, spec.ObsSize())
	for p := 0; p < spec.NumPlayers; p++ {
		s.Observe(p, x)
		r.Observe(p, y)
		if !bytes.Equal(x, y) {
			return fmt.Errorf("read back, player %d's observation differs", p)
		}
	}
	if s.CurrentPlayer() != r.CurrentPlayer() {
		return fmt.Errorf("read back, the current player is %d, not %d", r.CurrentPlayer(), s.CurrentPlayer())
	}
	if s.String() != r.String() {
		return fmt.Errorf("read back, the text render is\n%s\nnot\n%s", r.String(), s.String())
	}
	return nil
}

// family returns an action's family: its name up to the first '-'
// ("broken-p1-t2" is a "broken", "to-s0-P1" a "to").
func family(name string) string {
	if i := strings.IndexByte(name, '-'); i > 0 {
		return name[:i]
	}
	return name
}

// choose picks the action of a twin walk: a family uniformly among those
// of the legal actions, then an action of that family uniformly. Rare
// decisions (a Disaster among forty cards to meld, a raid among the
// spaces of a move) are then tried as often as common ones, so that a
// decision offered only to the holder of a card shows within a few
// steps.
func (it *infoSet) choose(legal []int, rng *rand.Rand) int {
	var fams []string
	for _, a := range legal {
		f := family(it.spec.ActionNames[a])
		if !slices.Contains(fams, f) {
			fams = append(fams, f)
		}
	}
	f := fams[rng.IntN(len(fams))]
	var of []int
	for _, a := range legal {
		if family(it.spec.ActionNames[a]) == f {
			of = append(of, a)
		}
	}
	return of[rng.IntN(len(of))]
}

func isRevealer(s env.State) bool {
	_, ok := s.(Revealer)
	return ok
}
