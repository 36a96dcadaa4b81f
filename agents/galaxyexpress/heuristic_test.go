package galaxyexpress

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
	ge "github.com/galaxygym/galaxygym/env/galaxyexpress"
)

func newHeuristicEnv(t testing.TB) (*env.Env, agents.Agent) {
	t.Helper()
	e, err := env.Make(ge.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := agents.New("heuristic", e.Spec(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return e, a
}

// heuristicStats summarises seeded games of the heuristic.
type heuristicStats struct {
	games, wins, lost, decisions int
	sum, sumSq, refuels          float64
	elapsed                      time.Duration
}

func (st heuristicStats) mean() float64 { return st.sum / float64(st.games) }

func (st heuristicStats) String() string {
	m := st.mean()
	sd := math.Sqrt(max(0, st.sumSq/float64(st.games)-m*m))
	n := float64(st.games)
	return fmt.Sprintf("games %d: mean score %.3f (sd %.2f, s.e. %.3f), win rate %.5f, lost %.5f, refuels %.3f, "+
		"%.2f decisions/game, %.0f ns/decision incl. env step and observation",
		st.games, m, sd, sd/math.Sqrt(n), float64(st.wins)/n, float64(st.lost)/n, st.refuels/n,
		float64(st.decisions)/n, float64(st.elapsed.Nanoseconds())/float64(st.decisions))
}

// playHeuristic plays seeds from..from+n-1 (env.Reset(seed), agent
// Reset(seed)) and fails on any illegal action.
func playHeuristic(t testing.TB, from, n int) heuristicStats {
	t.Helper()
	e, a := newHeuristicEnv(t)
	obs := make([]uint8, e.Spec().ObsSize())
	var st heuristicStats
	start := time.Now()
	for seed := from; seed < from+n; seed++ {
		e.Reset(uint64(seed))
		a.Reset(uint64(seed))
		for !e.Done() {
			if err := e.Observe(0, obs); err != nil {
				t.Fatal(err)
			}
			act := a.Act(0, obs, e.Mask())
			st.decisions++
			if _, err := e.Step(act); err != nil {
				t.Fatalf("seed %d step %d: action %d: %v\n%v", seed, e.Steps(), act, err, e)
			}
		}
		s := e.State().(*ge.State)
		sc := float64(s.Score())
		st.games++
		st.sum += sc
		st.sumSq += sc * sc
		st.refuels += float64(s.Refuels())
		if s.Lost() {
			st.lost++
		} else if s.Deliveries() == ge.MaxDeliveries {
			st.wins++
		}
	}
	st.elapsed = time.Since(start)
	return st
}

func TestHeuristicPlaysLegalActions(t *testing.T) {
	st := playHeuristic(t, 1_000_000, 3000)
	if st.wins+st.lost != st.games {
		t.Errorf("%d of %d games neither won nor lost (truncated?)", st.games-st.wins-st.lost, st.games)
	}
}

func TestHeuristicMeanScore(t *testing.T) {
	st := playHeuristic(t, 0, 2000)
	t.Log(st)
	if m := st.mean(); m < 90 {
		t.Errorf("mean score %.2f over %d games, want >= 90", m, st.games)
	}
}

func TestHeuristicDeterministic(t *testing.T) {
	e, a := newHeuristicEnv(t)
	_, b := newHeuristicEnv(t)
	obs := make([]uint8, e.Spec().ObsSize())
	run := func(ag agents.Agent, seed uint64) []int { return playEpisode(t, e, ag, seed, obs) }
	for seed := uint64(0); seed < 200; seed++ {
		first := run(a, seed)
		run(a, seed+1000) // different history in between
		if again := run(a, seed); !slices.Equal(first, again) {
			t.Fatalf("seed %d: replay differs:\n%v\n%v", seed, first, again)
		}
		if other := run(b, seed); !slices.Equal(first, other) {
			t.Fatalf("seed %d: second agent differs:\n%v\n%v", seed, first, other)
		}
	}
}

// hiddenVariant rewrites a position (galaxyexpress notation) keeping what a
// player sees and shuffling what is hidden: the numbers of the unscanned
// planets, the delivery queue below its top (the crown moved to the bottom
// at launch stays last), the order of both face-down stacks and the chance
// generator.
func hiddenVariant(t *testing.T, pos string, r *rand.Rand) string {
	t.Helper()
	tok := strings.Fields(pos)
	var idx []int
	var nums []string
	for i := 0; i < ge.Squares; i++ {
		if strings.HasSuffix(tok[i], "?") {
			idx = append(idx, i)
			nums = append(nums, strings.TrimSuffix(tok[i], "?"))
		}
	}
	r.Shuffle(len(nums), func(i, j int) { nums[i], nums[j] = nums[j], nums[i] })
	for k, i := range idx {
		tok[i] = nums[k] + "?"
	}
	hasBottom := strings.Contains(pos, " bottom=")
	shuffleList := func(list string, keepFirst, keepLast bool) string {
		if list == "-" {
			return list
		}
		p := strings.Split(list, ",")
		lo, hi := 0, len(p)
		if keepFirst {
			lo++
		}
		if keepLast {
			hi--
		}
		if hi-lo > 1 {
			q := p[lo:hi]
			r.Shuffle(len(q), func(i, j int) { q[i], q[j] = q[j], q[i] })
		}
		return strings.Join(p, ",")
	}
	for i := ge.Squares; i < len(tok); i++ {
		key, val, _ := strings.Cut(tok[i], "=")
		switch key {
		case "queue":
			tok[i] = key + "=" + shuffleList(val, true, hasBottom)
		case "thrust", "brake":
			up, down, _ := strings.Cut(val, "/")
			tok[i] = key + "=" + up + "/" + shuffleList(down, false, false)
		case "rng":
			tok[i] = fmt.Sprintf("rng=%x:%x", r.Uint64(), r.Uint64())
		}
	}
	board := make([]string, ge.Rows)
	for row := range board {
		board[row] = strings.Join(tok[row*ge.Cols:(row+1)*ge.Cols], " ")
	}
	return strings.Join(board, "\n") + "\n" + strings.Join(tok[ge.Squares:], " ")
}

// TestHeuristicPublicInformationOnly checks that positions differing only
// in hidden information give the same observation and the same action.
// (The agent API passes only the observation and the mask; this checks
// that nothing hidden reaches it through them.)
func TestHeuristicPublicInformationOnly(t *testing.T) {
	e, a := newHeuristicEnv(t)
	_, b := newHeuristicEnv(t)
	r := rand.New(rand.NewPCG(1, 2))
	obs := make([]uint8, ge.ObsSize)
	obs2 := make([]uint8, ge.ObsSize)
	mask := make([]uint8, ge.NumActions)
	mask2 := make([]uint8, ge.NumActions)
	checked := 0
	for seed := uint64(0); seed < 300; seed++ {
		e.Reset(seed)
		a.Reset(seed)
		for !e.Done() {
			s := e.State().(*ge.State)
			pos := s.Position()
			v, err := ge.ParsePosition(hiddenVariant(t, pos, r), false)
			if err != nil {
				t.Fatalf("variant of\n%s\n: %v", pos, err)
			}
			s.Observe(0, obs)
			v.Observe(0, obs2)
			s.LegalMask(mask)
			v.LegalMask(mask2)
			if !slices.Equal(obs, obs2) || !slices.Equal(mask, mask2) {
				t.Fatalf("hidden-information variant changes the observation:\n%s\n%s", pos, v.Position())
			}
			a.Reset(seed*7 + uint64(e.Steps()))
			b.Reset(seed*7 + uint64(e.Steps()))
			act, act2 := a.Act(0, obs, mask), b.Act(0, obs2, mask2)
			if act != act2 {
				t.Fatalf("same observation, different actions %d and %d:\n%s\n%s", act, act2, pos, v.Position())
			}
			checked++
			if _, err := e.Step(act); err != nil {
				t.Fatal(err)
			}
		}
	}
	// A hand-made pair: the same public position with a different numbering
	// of the unscanned planets, queue below its top and face-down order.
	const p1 = `. . . . . . . .
. . . @4 1? . . .
. 3? . . . . . .
. . . . . . 0 .
2? . . . . . . 5?
. . . . . . . .
speed=2 queue=0,1,2,3,5 delivered=4 thrust=3,5/0,1 brake=2,3/4,5`
	const p2 = `. . . . . . . .
. . . @4 5? . . .
. 2? . . . . . .
. . . . . . 0 .
1? . . . . . . 3?
. . . . . . . .
speed=2 queue=0,5,3,2,1 delivered=4 thrust=3,5/1,0 brake=2,3/5,4 rng=1234:5678`
	s1, err1 := ge.ParsePosition(p1, false)
	s2, err2 := ge.ParsePosition(p2, false)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	s1.Observe(0, obs)
	s2.Observe(0, obs2)
	s1.LegalMask(mask)
	if !slices.Equal(obs, obs2) {
		t.Fatal("hand-made positions observe differently")
	}
	for seed := uint64(0); seed < 20; seed++ {
		a.Reset(seed)
		b.Reset(seed)
		if x, y := a.Act(0, obs, mask), b.Act(0, obs2, mask); x != y || mask[x] == 0 {
			t.Fatalf("hand-made pair: actions %d, %d", x, y)
		}
	}
	t.Logf("%d positions checked", checked)
}

func TestHeuristicUnsupportedEnv(t *testing.T) {
	other := &env.Spec{ID: "tic-tac-toe-v0", NumPlayers: 2, ActionNames: make([]string, 9), ObsShape: []int{9}}
	for _, spec := range []*env.Spec{other, nil} {
		_, err := agents.New("heuristic", spec, nil)
		var ue *agents.UnsupportedEnvError
		if !errors.As(err, &ue) || ue.Agent != "heuristic" || !slices.Equal(ue.Supported, []string{ge.ID}) {
			t.Errorf("spec %v: got %v, want *agents.UnsupportedEnvError", spec, err)
		}
	}
	spec := ge.Game{}.Spec()
	for _, opts := range []agents.Options{{"scan_wrap": "maybe"}, {"depth": "3"}} {
		var oe *agents.OptionError
		if _, err := agents.New("heuristic", spec, opts); !errors.As(err, &oe) {
			t.Errorf("options %v: got %v, want *agents.OptionError", opts, err)
		}
	}
	if _, err := agents.New("heuristic", spec, agents.Options{"scan_wrap": "true"}); err != nil {
		t.Error(err)
	}
}

// TestHeuristicScanWrap plays the scan_wrap variant with the matching option.
func TestHeuristicScanWrap(t *testing.T) {
	e, err := env.Make(ge.ID, map[string]any{"scan_wrap": true})
	if err != nil {
		t.Fatal(err)
	}
	a, err := agents.New("heuristic", e.Spec(), agents.Options{"scan_wrap": "true"})
	if err != nil {
		t.Fatal(err)
	}
	obs := make([]uint8, ge.ObsSize)
	sum := 0.0
	const n = 300
	for seed := uint64(0); seed < n; seed++ {
		e.Reset(seed)
		a.Reset(seed)
		for !e.Done() {
			_ = e.Observe(0, obs)
			if _, err := e.Step(a.Act(0, obs, e.Mask())); err != nil {
				t.Fatal(err)
			}
		}
		sum += e.Returns()[0]
	}
	if sum/n < 90 {
		t.Errorf("scan_wrap mean score %.2f, want >= 90", sum/n)
	}
}

// TestHeuristicConcurrent plays from two goroutines, one agent each, as a
// two-worker rollout does; the tables are shared (run with -race).
func TestHeuristicConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	res := make([]heuristicStats, 2)
	for w := range res {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[w] = playHeuristic(t, 100*w, 100)
		}()
	}
	wg.Wait()
	want := playHeuristic(t, 0, 200)
	if got := res[0].sum + res[1].sum; got != want.sum {
		t.Errorf("two workers scored %v in all, one worker %v", got, want.sum)
	}
}

func TestHeuristicActDoesNotAllocate(t *testing.T) {
	e, a := newHeuristicEnv(t)
	obs := make([]uint8, ge.ObsSize)
	e.Reset(3)
	a.Reset(3)
	allocs := testing.AllocsPerRun(200, func() {
		if e.Done() {
			e.Reset(3)
		}
		_ = e.Observe(0, obs)
		act := a.Act(0, obs, e.Mask())
		if _, err := e.Step(act); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations per step, want 0", allocs)
	}
}

// TestHeuristicTables checks the leg tables: the last table's fail value is
// its own fixed point, reach masks imply the rules' Lost in Space test
// passes (the tables respect the face-up order, the rules do not), and the
// value at the target at speed 0 is the delivery's worth.
func TestHeuristicTables(t *testing.T) {
	tb := getTables()
	if d := tb.last.freshAll - legRefuel - legDelta - legFail1; math.Abs(float64(d)) > 0.05 {
		t.Errorf("legFail1 = %v, the programme gives %v", legFail1, legFail1+d)
	}
	for _, lt := range []*legTable{tb.last, tb.two, tb.more} {
		if !(lt.fail < lt.freshAll && lt.freshAll < lt.lo+255*lt.step) {
			t.Errorf("table range: fail %v fresh %v hi %v", lt.fail, lt.freshAll, lt.lo+255*lt.step)
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	var reached, agree int
	for i := 0; i < 20000; i++ {
		c := r.IntN(numCoinStates)
		s := r.IntN(numSpeeds)
		ship, planet := r.IntN(ge.Squares), r.IntN(ge.Squares)
		if ship == planet && s == 0 {
			continue
		}
		blk := tb.last.q[(c*numSpeeds+s)*blkSize:][:blkSize]
		reach := binary.LittleEndian.Uint32(blk[blkReach:])&(1<<relOff[ship][planet]) != 0
		it, ib := c/numSuitStates, c%numSuitStates
		coins := uint16(suitUp[it]|suitDown[it]) | uint16(suitUp[ib]|suitDown[ib])<<6
		can := ge.CanStop(ship, s, coins, 1<<planet)
		if reach {
			reached++
			if !can {
				t.Fatalf("coin state %d speed %d ship %d planet %d: table reaches, CanStop says lost", c, s, ship, planet)
			}
			if float32(blk[relOff[ship][planet]])*tb.last.step+tb.last.lo <= tb.last.fail-0.01 {
				t.Fatalf("reachable below the fail value")
			}
		}
		if reach == can {
			agree++
		}
	}
	if reached == 0 {
		t.Fatal("no reachable sample")
	}
	t.Logf("reachable %d of 20000 samples; CanStop agrees on %d", reached, agree)
	// At the target at speed 0 the value is the delivery's: 20 + coins.
	for _, c := range []int{0, numCoinStates - 1, 12345} {
		got := tb.last.lo + tb.last.step*float32(tb.last.q[c*numSpeeds*blkSize])
		if want := float32(legDeliver + coinCount(c)); math.Abs(float64(got-want)) > float64(tb.last.step) {
			t.Errorf("coin state %d: value at target %v, want %v", c, got, want)
		}
	}
}

// BenchmarkHeuristicEpisode plays whole episodes (reset, observe, act,
// step); ns/op is per episode, and steps/s and ns/step are reported.
func BenchmarkHeuristicEpisode(b *testing.B) {
	e, a := newHeuristicEnv(b)
	obs := make([]uint8, ge.ObsSize)
	steps := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.Reset(uint64(i))
		a.Reset(uint64(i))
		for !e.Done() {
			_ = e.Observe(0, obs)
			_, _ = e.Step(a.Act(0, obs, e.Mask()))
			steps++
		}
	}
	b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(steps), "ns/step")
}

// BenchmarkHeuristicAct times Act alone over recorded decisions of 2,000
// games (observations and masks replayed in order).
func BenchmarkHeuristicAct(b *testing.B) {
	_, a := newHeuristicEnv(b)
	obsAll, maskAll := heuristicDecisions(b, 2000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := i % len(obsAll)
		a.Act(0, obsAll[k], maskAll[k])
	}
}

// ExampleNewHeuristic plays one seeded game of Galaxy Express.
func ExampleNewHeuristic() {
	e, _ := env.Make(ge.ID, nil)
	a, _ := NewHeuristic(e.Spec(), nil)
	obs := make([]uint8, e.Spec().ObsSize())
	e.Reset(42)
	a.Reset(42)
	for !e.Done() {
		_ = e.Observe(0, obs)
		_, _ = e.Step(a.Act(0, obs, e.Mask()))
	}
	s := e.State().(*ge.State)
	fmt.Println("deliveries:", s.Deliveries(), "lost:", s.Lost())
	// Output: deliveries: 6 lost: false
}

// TestHeuristicActionValues checks that ActionValues returns what Act does
// (same tie-breaking stream), gives every legal action a finite value and
// every illegal one NaN, that the chosen action has the highest value, and
// that it does not allocate.
func TestHeuristicActionValues(t *testing.T) {
	e, _ := newHeuristicEnv(t)
	h1, err := NewHeuristic(e.Spec(), nil)
	if err != nil {
		t.Fatal(err)
	}
	h2, _ := NewHeuristic(e.Spec(), nil)
	obs := make([]uint8, ge.ObsSize)
	q := make([]float32, ge.NumActions)
	decisions, ties := 0, 0
	for seed := range uint64(60) {
		e.Reset(seed)
		h1.Reset(seed)
		h2.Reset(seed)
		for !e.Done() {
			_ = e.Observe(0, obs)
			mask := e.Mask()
			want := h1.Act(0, obs, mask)
			got := h2.ActionValues(obs, mask, q)
			if got != want {
				t.Fatalf("seed %d turn %d: ActionValues chose %d, Act %d", seed, decisions, got, want)
			}
			best, n := float32(math.Inf(-1)), 0
			for a, m := range mask {
				v := float64(q[a])
				switch {
				case m == 0 && !math.IsNaN(v):
					t.Fatalf("illegal action %d has value %v", a, v)
				case m != 0 && (math.IsNaN(v) || math.IsInf(v, 0)):
					t.Fatalf("legal action %d (%s) has value %v", a, e.Spec().ActionNames[a], v)
				case m != 0 && q[a] > best:
					best, n = q[a], 1
				case m != 0 && q[a] == best:
					n++
				}
			}
			if q[got] != best {
				t.Fatalf("chose %d of value %v, best %v", got, q[got], best)
			}
			if n > 1 {
				ties++
			}
			decisions++
			if _, err := e.Step(got); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("%d decisions, %d with tied best values", decisions, ties)
	allocs := testing.AllocsPerRun(100, func() {
		if e.Done() {
			e.Reset(3)
		}
		_ = e.Observe(0, obs)
		if _, err := e.Step(h2.ActionValues(obs, e.Mask(), q)); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations per decision, want 0", allocs)
	}
}
