package evaluate_test

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/galaxygym/galaxygym/agents"
	_ "github.com/galaxygym/galaxygym/agents/all"
	"github.com/galaxygym/galaxygym/datasets"
	"github.com/galaxygym/galaxygym/env"
	_ "github.com/galaxygym/galaxygym/env/all"
	"github.com/galaxygym/galaxygym/evaluate"
	"github.com/galaxygym/galaxygym/rollout"
)

const ge = "galaxy-express-v1"

func run(t *testing.T, cfg evaluate.Config) *evaluate.Report {
	t.Helper()
	r, err := evaluate.Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Run(%+v): %v", cfg, err)
	}
	return r
}

// untimed returns the summaries with the wall-time fields cleared.
func untimed(r *evaluate.Report) []evaluate.AgentSummary {
	var out []evaluate.AgentSummary
	for _, a := range r.Agents {
		s := a.Summary
		s.Seconds, s.StepsPerSecond = 0, 0
		out = append(out, s)
	}
	return out
}

func TestPairedSelf(t *testing.T) {
	r := run(t, evaluate.Config{Env: ge, Agents: []string{"heuristic", "heuristic"}, Episodes: 200, Seed: 7, Workers: 2})
	a, b := r.Agents[0], r.Agents[1]
	if !reflect.DeepEqual(a.Returns, b.Returns) || !reflect.DeepEqual(a.Lengths, b.Lengths) {
		t.Fatal("the same agent over the same seeds played different episodes")
	}
	if a.Summary.DiffVsFirst != nil {
		t.Errorf("first agent has a difference: %+v", a.Summary.DiffVsFirst)
	}
	d := b.Summary.DiffVsFirst
	if d == nil || d.Mean != 0 || d.SD != 0 || d.CI != (evaluate.Interval{}) {
		t.Errorf("heuristic vs itself: diff %+v, want exactly 0 with a zero-width interval", d)
	}
	if a.Summary.Return.Mean < 100 || a.Summary.WinRate < 0.95 {
		t.Errorf("heuristic summary %+v", a.Summary)
	}
}

func TestWorkersDoNotMatter(t *testing.T) {
	cfg := evaluate.Config{Env: ge, Agents: []string{"random", "heuristic"}, Episodes: 300, Seed: 3, Workers: 1}
	r1 := run(t, cfg)
	for _, w := range []int{2, 3} {
		cfg.Workers = w
		r2 := run(t, cfg)
		for i := range r1.Agents {
			a, b := r1.Agents[i], r2.Agents[i]
			if !reflect.DeepEqual(a.Returns, b.Returns) || !reflect.DeepEqual(a.Lengths, b.Lengths) ||
				!reflect.DeepEqual(a.Wins, b.Wins) || a.Steps != b.Steps {
				t.Errorf("workers=%d: %s's episodes differ from workers=1", w, a.Name)
			}
		}
		if !reflect.DeepEqual(untimed(r1), untimed(r2)) || !reflect.DeepEqual(r1.Labels, r2.Labels) {
			t.Errorf("workers=%d: summaries differ:\n%+v\n%+v", w, untimed(r1), untimed(r2))
		}
	}
}

// TestSameEpisodesAsGenerate checks that eval's episode i is generate's
// episode i.
func TestSameEpisodesAsGenerate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	const n = 40
	if _, err := datasets.Generate(context.Background(), datasets.Config{Env: ge, Agent: "heuristic",
		Episodes: n, Seed: 11, Workers: 2, Out: dir}); err != nil {
		t.Fatal(err)
	}
	d, err := datasets.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	r := run(t, evaluate.Config{Env: ge, Agents: []string{"heuristic"}, Episodes: n, Seed: 11, Workers: 2})
	a := r.Agents[0]
	i := 0
	for ep, err := range d.Episodes() {
		if err != nil {
			t.Fatal(err)
		}
		if ep.Returns[0] != a.Returns[ep.ID] || ep.Length != int(a.Lengths[ep.ID]) || (ep.Outcome == "win") != a.Wins[ep.ID] {
			t.Errorf("episode %d: generate %v/%d/%s, eval %v/%d/%v", ep.ID, ep.Returns, ep.Length, ep.Outcome,
				a.Returns[ep.ID], a.Lengths[ep.ID], a.Wins[ep.ID])
		}
		i++
	}
	if i != n {
		t.Errorf("%d episodes in the dataset", i)
	}
}

func TestGalaxyExpressColumns(t *testing.T) {
	r := run(t, evaluate.Config{Env: ge, Agents: []string{"random", "heuristic"}, Episodes: 100, Workers: 2})
	if want := []string{"deliveries", "refuels", "unspent_coins", "turns"}; !reflect.DeepEqual(r.Stats, want) {
		t.Errorf("stats %v, want %v", r.Stats, want)
	}
	if len(r.Labels) != 1 || r.Labels[0].Name != "rating" || r.Labels[0].Slugs[0] != "employee_of_the_year" {
		t.Errorf("labels %+v", r.Labels)
	}
	for _, a := range r.Agents {
		s := a.Summary
		var total float64
		for _, x := range s.Shares[0] {
			total += x
		}
		if math.Abs(total-1) > 1e-12 {
			t.Errorf("%s: rating shares add up to %v", a.Name, total)
		}
		if s.MeanLength <= 0 || s.StepsPerSecond <= 0 || s.Seconds <= 0 || s.MeanStats[0] < 0 || s.MeanStats[0] > 6 {
			t.Errorf("%s: summary %+v", a.Name, s)
		}
	}
	if r.Agents[1].Summary.MeanStats[0] <= r.Agents[0].Summary.MeanStats[0] {
		t.Errorf("heuristic delivers less than random: %v", r.Agents[1].Summary.MeanStats)
	}
}

// TestMultiplayer checks the mean over players, win counting, the stats'
// means and the declared label values on the two-player fake game.
func TestMultiplayer(t *testing.T) {
	r := run(t, evaluate.Config{Env: fakeID, Agents: []string{"random"}, Episodes: 500, Seed: 1, Workers: 2})
	a := r.Agents[0]
	var wins int64
	var sumRet, sumTotal float64
	for ep, ret := range a.Returns {
		if a.Lengths[ep] != 4 {
			t.Fatalf("episode %d: length %d", ep, a.Lengths[ep])
		}
		total := 2 * ret // the return is the mean of the two players' returns
		if total != math.Round(total) || total < 0 || total > 4 {
			t.Fatalf("episode %d: return %v", ep, ret)
		}
		if a.Wins[ep] != (total >= 3) {
			t.Errorf("episode %d: total %v, win %v", ep, total, a.Wins[ep])
		}
		if a.Wins[ep] {
			wins++
		}
		sumRet += ret
		sumTotal += total
	}
	s := a.Summary
	n := float64(len(a.Returns))
	if !near(s.Return.Mean, sumRet/n) || !near(s.WinRate, float64(wins)/n) || !near(s.MeanStats[0], sumTotal/n) || s.MeanLength != 4 {
		t.Errorf("summary %+v", s)
	}
	want := evaluate.LabelValues{Name: "grade", Values: []string{"A", "B", "C", "D", "E"}, Slugs: []string{"a", "b", "c", "d", "e"}}
	if !reflect.DeepEqual(r.Labels, []evaluate.LabelValues{want}) {
		t.Errorf("labels %+v, want %+v", r.Labels, want)
	}
	// Random play: 4 fair coins; E never occurs.
	sh := s.Shares[0]
	if !near(sh[0]+sh[1], s.WinRate) || sh[4] != 0 || sh[0] < 0.02 || sh[0] > 0.12 {
		t.Errorf("grade shares %v (win rate %v)", sh, s.WinRate)
	}
	if cols := r.Columns(); !contains(cols, "mean_first_player") || !contains(cols, "share_grade_e") {
		t.Errorf("columns %v", cols)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := evaluate.Run(ctx, evaluate.Config{Env: ge, Agents: []string{"random"}, Episodes: 100})
	var ie *evaluate.InterruptedError
	if !errors.As(err, &ie) || !errors.Is(err, context.Canceled) || ie.Agent != "random" || ie.EpisodesDone != 0 {
		t.Errorf("cancelled before: %v", err)
	}

	// Cancelled while the second agent plays: it stops early.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	cfg := evaluate.Config{Env: ge, Agents: []string{"random", "heuristic"}, Episodes: 20000, Workers: 2,
		Progress: func(p evaluate.Progress) {
			if p.AgentIndex == 1 {
				cancel()
			}
		}}
	_, err = evaluate.Run(ctx, cfg)
	if !errors.As(err, &ie) || !errors.Is(err, context.Canceled) || ie.Agent != "heuristic" ||
		ie.EpisodesDone >= ie.Episodes || ie.Episodes != 20000 {
		t.Errorf("cancelled during: %v (%+v)", err, ie)
	}
}

func TestConfigErrors(t *testing.T) {
	_, err := evaluate.Run(context.Background(), evaluate.Config{Env: ge, Agents: []string{"random", "nosuch"}, Episodes: 10})
	var ue *agents.UnknownAgentError
	var ce *evaluate.ConfigError
	if !errors.As(err, &ue) || ue.Name != "nosuch" || !errors.As(err, &ce) || ce.Field != "Agents" ||
		!errors.Is(err, agents.ErrUnknownAgent) {
		t.Errorf("unknown agent: %v", err)
	}
	var oe *agents.OptionError
	_, err = evaluate.Run(context.Background(), evaluate.Config{Env: ge, Agents: []string{"heuristic"}, Episodes: 10,
		AgentOptions: map[string]agents.Options{"heuristic": {"scan_wrap": "maybe"}}})
	if !errors.As(err, &oe) {
		t.Errorf("bad option: %v", err)
	}
	for _, cfg := range []evaluate.Config{
		{Env: ge, Episodes: 10},
		{Env: ge, Agents: []string{"random"}},
		{Env: ge, Agents: []string{"random"}, Episodes: 10, Workers: -1},
		{Env: "nosuch-v0", Agents: []string{"random"}, Episodes: 10},
		{Env: ge, Agents: []string{"random"}, Episodes: 10, EnvParams: map[string]any{"nosuch": 1}},
		{Env: ge, Agents: []string{"random"}, Episodes: 10, AgentOptions: map[string]agents.Options{"heuristic": {"scan_wrap": "true"}}},
	} {
		if _, err := evaluate.Run(context.Background(), cfg); !errors.As(err, &ce) {
			t.Errorf("%+v: %v, want a *ConfigError", cfg, err)
		}
	}
	// Options reach the agent; scan_wrap=true with the matching parameter plays.
	r := run(t, evaluate.Config{Env: ge, Agents: []string{"heuristic"}, Episodes: 20, EnvParams: map[string]any{"scan_wrap": "true"},
		AgentOptions: map[string]agents.Options{"heuristic": {"scan_wrap": "true"}}})
	if r.EnvParams["scan_wrap"] != true || r.Agents[0].Options["scan_wrap"] != "true" {
		t.Errorf("report %+v", r)
	}
}

func TestCommand(t *testing.T) {
	cfg := evaluate.Config{Env: ge, Agents: []string{"random", "heuristic"}, Episodes: 10000, Seed: 2,
		AgentOptions: map[string]agents.Options{"heuristic": {"scan_wrap": "true"}},
		EnvParams:    map[string]any{"scan_wrap": "true"}}
	want := "galaxygym eval --env galaxy-express-v1 --agents random,heuristic --episodes 10000 --seed 2 " +
		"--agent-opt heuristic.scan_wrap=true --env-param scan_wrap=true"
	if got := cfg.Command(); got != want {
		t.Errorf("Command() = %q, want %q", got, want)
	}
}

// testAgent plays the first legal action; it can be told to ignore
// observations (and then checks it gets none) or to play illegal moves.
type testAgent struct {
	name           string
	obsFree, wrong bool
	sawObs         *atomic.Bool
}

func (a *testAgent) Name() string             { return a.name }
func (a *testAgent) Reset(uint64)             {}
func (a *testAgent) IgnoresObservation() bool { return a.obsFree }
func (a *testAgent) Act(_ int, obs, mask []uint8) int {
	if obs != nil {
		a.sawObs.Store(true)
	}
	if a.wrong {
		return len(mask)
	}
	for i, m := range mask {
		if m != 0 {
			return i
		}
	}
	return -1
}

var obsFreeSaw, obsSaw atomic.Bool

func init() {
	reg := func(name string, obsFree, wrong bool, saw *atomic.Bool) {
		agents.Register(name, "test agent", func(*env.Spec, agents.Options) (agents.Agent, error) {
			return &testAgent{name: name, obsFree: obsFree, wrong: wrong, sawObs: saw}, nil
		})
	}
	reg("evaluate-obsfree", true, false, &obsFreeSaw)
	reg("evaluate-obs", false, false, &obsSaw)
	reg("evaluate-illegal", false, true, &atomic.Bool{})
}

func TestObservations(t *testing.T) {
	run(t, evaluate.Config{Env: ge, Agents: []string{"evaluate-obsfree", "evaluate-obs"}, Episodes: 20, Workers: 2})
	if obsFreeSaw.Load() || !obsSaw.Load() {
		t.Errorf("observation-free agent saw observations: %v; the other saw them: %v", obsFreeSaw.Load(), obsSaw.Load())
	}
}

func TestIllegalAction(t *testing.T) {
	_, err := evaluate.Run(context.Background(), evaluate.Config{Env: ge, Agents: []string{"random", "evaluate-illegal"}, Episodes: 20, Workers: 2})
	var ae *rollout.AgentError
	var ie *env.IllegalActionError
	if !errors.As(err, &ae) || ae.Agent != "evaluate-illegal" || ae.Step != 0 || !errors.As(err, &ie) {
		t.Errorf("illegal action: %v", err)
	}
}
