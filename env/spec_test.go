package env_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/env"
	_ "github.com/galaxygym/galaxygym/env/envtest" // the shared -update flag
)

func TestBoundsJSON(t *testing.T) {
	b := env.Bounds{1, 0, 255, 6}
	data, err := json.Marshal(b)
	if err != nil || string(data) != "[1,0,255,6]" {
		t.Fatalf("Marshal = %s, %v; want [1,0,255,6]", data, err)
	}
	var back env.Bounds
	if err := json.Unmarshal(data, &back); err != nil || string(back) != string(b) {
		t.Fatalf("round trip = %v, %v; want %v", back, err, b)
	}
	for _, bad := range []string{`[256]`, `[-1]`, `"AQID"`, `[1.5]`} {
		if err := json.Unmarshal([]byte(bad), &back); err == nil {
			t.Errorf("Unmarshal(%s) accepted", bad)
		}
	}
}

// TestInfoJSON checks that Info's JSON form is valid JSON that reads back,
// whatever its strings hold.
func TestInfoJSON(t *testing.T) {
	for _, v := range []string{"", "win", "best (109+)", `quote " and \ backslash`, "tab\tnewline\n\x00", "planète ★", "bad utf-8 \xff"} {
		in := env.Info{Outcome: env.OutcomeLoss, Score: 109, Stats: []env.Stat{{"deliveries", 6}, {"ratio", 0.25}}, Labels: []env.Label{{"rating", v}}}
		b := in.AppendJSON(nil)
		if !json.Valid(b) {
			t.Fatalf("%q: invalid JSON %s", v, b)
		}
		var out env.Info
		if err := out.UnmarshalJSON(b); err != nil {
			t.Fatalf("%q: %v", v, err)
		}
		want := strings.ToValidUTF8(v, "\uFFFD")
		if got, _ := out.Label("rating"); got != want || out.Outcome != env.OutcomeLoss || out.Score != 109 {
			t.Errorf("%q: read back %+v", v, out)
		}
		if d, _ := out.Stat("deliveries"); d != 6 {
			t.Errorf("%q: deliveries %v", v, d)
		}
	}
	if got := string((&env.Info{Outcome: env.OutcomeWin, Score: 109, Labels: []env.Label{{"rating", "Excellent"}}}).AppendJSON(nil)); got != `{"outcome":"win","score":109,"rating":"Excellent"}` {
		t.Errorf("AppendJSON = %s", got)
	}
}

func BenchmarkInfoAppendJSON(b *testing.B) {
	in := env.Info{Outcome: env.OutcomeLoss, Score: 7, Stats: []env.Stat{{"deliveries", 1}, {"refuels", 2}}, Labels: []env.Label{{"rating", "Lost in Space"}}}
	buf := make([]byte, 0, 256)
	for b.Loop() {
		buf = in.AppendJSON(buf[:0])
	}
}

// TestRankByScore checks competition ranking, shared first places and the
// per-player outcomes a competitive game reports.
func TestRankByScore(t *testing.T) {
	for _, c := range []struct {
		scores   []float64
		ranks    []int
		outcomes []env.Outcome
		episode  env.Outcome
	}{
		{[]float64{120, 96, 130, 96}, []int{2, 3, 1, 3}, []env.Outcome{env.OutcomeLoss, env.OutcomeLoss, env.OutcomeWin, env.OutcomeLoss}, env.OutcomeWin},
		{[]float64{5, 7, 7}, []int{3, 1, 1}, []env.Outcome{env.OutcomeLoss, env.OutcomeDraw, env.OutcomeDraw}, env.OutcomeDraw},
		{[]float64{-1, 1}, []int{2, 1}, []env.Outcome{env.OutcomeLoss, env.OutcomeWin}, env.OutcomeWin},
	} {
		var in env.Info
		in.RankByScore(c.scores)
		if !slices.Equal(in.Ranks, c.ranks) || !slices.Equal(in.Outcomes, c.outcomes) || in.Outcome != c.episode ||
			!slices.Equal(in.Scores, c.scores) || in.Score != slices.Max(c.scores) {
			t.Errorf("RankByScore(%v) = ranks %v outcomes %v episode %v score %v", c.scores, in.Ranks, in.Outcomes, in.Outcome, in.Score)
		}
		var back env.Info
		if err := back.UnmarshalJSON(in.AppendJSON(nil)); err != nil || !slices.Equal(back.Ranks, c.ranks) ||
			!slices.Equal(back.Outcomes, c.outcomes) || !slices.Equal(back.Scores, c.scores) {
			t.Errorf("JSON round trip of %s: %+v, %v", in.AppendJSON(nil), back, err)
		}
	}
	var in env.Info
	in.SetTeamResult(3, env.OutcomeLoss, -1)
	if !slices.Equal(in.Ranks, []int{1, 1, 1}) || !slices.Equal(in.Scores, []float64{-1, -1, -1}) || in.Outcome != env.OutcomeLoss {
		t.Errorf("SetTeamResult: %+v", in)
	}
}

// paramSpecGame is a ParamSpecer whose SpecFor returns specs it built
// itself, which Register never saw.
type paramSpecGame struct{ specs map[int]*env.Spec }

func (g paramSpecGame) Spec() *env.Spec                               { return g.specs[2] }
func (g paramSpecGame) SpecFor(p env.Params) *env.Spec                { return g.specs[p.Int(env.PlayersParam)] }
func (paramSpecGame) NewState(env.Params, uint64) env.State           { return nil }
func (paramSpecGame) LoadState(env.Params, []byte) (env.State, error) { return nil, nil }

// TestParamSpecerSpecsAreCompleted checks that the spec of an Env of a
// ParamSpecer names the outcome codes and the player bounds, as a
// registered spec does, whatever SpecFor returned.
func TestParamSpecerSpecsAreCompleted(t *testing.T) {
	mk := func(n int) *env.Spec {
		return &env.Spec{ID: "paramspec-test-v1", Name: "t", NumPlayers: n, ActionNames: []string{"a"},
			ObsShape: []int{1}, ObsDType: "uint8", ObsHigh: []uint8{1}, MaxEpisodeSteps: 1, Description: "t"}
	}
	g := paramSpecGame{map[int]*env.Spec{2: mk(2), 3: mk(3)}}
	g.specs[2].MinPlayers, g.specs[2].MaxPlayers = 2, 3
	env.Register(g)
	p, err := g.Spec().Resolve(map[string]any{"players": 3})
	if err != nil {
		t.Fatal(err)
	}
	_ = p
	e, err := env.New(g, map[string]any{"players": 3})
	if err != nil {
		t.Fatal(err)
	}
	s := e.Spec()
	if s.NumPlayers != 3 || s.MinPlayers != 2 || s.MaxPlayers != 3 || len(s.OutcomeNames) != 5 || s.OutcomeNames[1] != "win" {
		t.Fatalf("spec of a 3-player env: %+v", s)
	}
	e2, _ := env.New(g, map[string]any{"players": 3})
	if e2.Spec() != s {
		t.Fatal("the completed spec is made anew for every Env")
	}
}
