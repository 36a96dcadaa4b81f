package evaluate_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/evaluate"
)

// TestLeagueExternalGames merges a games file into a Trio league: an
// external agent that always ranks first ("strong") and one that always
// ranks last ("weak"), each game with a pool agent in the middle, seats
// rotated. They join the ratings above and below the pool, and the pool
// keeps its order.
func TestLeagueExternalGames(t *testing.T) {
	pool := []string{"random", "picker@k=3", "picker@k=0", "picker@k=1"}
	const deals = 30
	var file strings.Builder
	for d := range deals {
		for i, mid := range pool {
			seats := []string{"strong", mid, "weak"}
			ranks := []int32{1, 2, 3}
			scores := []float64{9, 5, 1}
			r := (d + i) % 3
			line := map[string]any{"deal": d,
				"seats":  []string{seats[r], seats[(r+1)%3], seats[(r+2)%3]},
				"ranks":  []int32{ranks[r], ranks[(r+1)%3], ranks[(r+2)%3]},
				"scores": []float64{scores[r], scores[(r+1)%3], scores[(r+2)%3]}}
			b, _ := json.Marshal(line)
			file.Write(append(b, '\n'))
		}
	}
	ext, err := evaluate.ReadExternalGames(strings.NewReader(file.String()))
	if err != nil {
		t.Fatal(err)
	}
	cfg := evaluate.LeagueConfig{Env: trio, Pool: pool, Deals: deals, Seed: 5, Workers: 2, Bootstrap: 30, External: ext}
	r, err := evaluate.RunLeague(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, i := range r.Order {
		order = append(order, r.Agents[i].Name)
	}
	want := []string{"strong", "picker@k=0", "picker@k=1", "random", "picker@k=3", "weak"}
	if !reflect.DeepEqual(order, want) {
		t.Fatalf("order %v, want %v", order, want)
	}
	if r.ExternalGames != deals*4 || r.Games != 4*deals*3 || len(r.Agents) != 6 {
		t.Fatalf("%d external games, %d games, %d agents", r.ExternalGames, r.Games, len(r.Agents))
	}
	strong, weak := r.Agents[4], r.Agents[5]
	if strong.Name != "strong" || strong.Games != deals*4 || strong.WinRate != 1 || strong.MeanRank != 1 || strong.MeanScore != 9 {
		t.Fatalf("strong: %+v", strong)
	}
	if weak.Name != "weak" || weak.WinRate != 0 || weak.MeanRank != 3 {
		t.Fatalf("weak: %+v", weak)
	}
	// Pool agents: their league games plus one external game per deal.
	if a := r.Agents[0]; a.Games != 3*deals*3+deals {
		t.Fatalf("random: %d games", a.Games)
	}
	if r.Score[4][0] != 1 || r.Meetings[4][0] != deals || r.Score[5][4] != 0 || r.Meetings[4][5] != deals*4 {
		t.Fatalf("head to head: %v / %v", r.Score, r.Meetings)
	}
	for _, a := range r.Agents {
		if !(a.CI.Low <= a.Rating && a.Rating <= a.CI.High) {
			t.Fatalf("%s: rating %v outside %v", a.Name, a.Rating, a.CI)
		}
	}
	var js strings.Builder
	if err := r.Write(&js, evaluate.FormatJSON); err != nil || !strings.Contains(js.String(), `"external_games": 120`) {
		t.Fatalf("json (%v): %s", err, js.String())
	}
}

func TestReadExternalGamesErrors(t *testing.T) {
	ok := `{"seats": ["a", "b", "c"], "scores": [1, 2, 3], "ranks": [3, 2, 1], "deal": 0}`
	for _, c := range []struct{ file, want string }{
		{ok + "\n\n" + `{"seats": ["a"], "scores": [1], "ranks": [1], "deal": 0, "who": 1}`, `line 3: json: unknown field "who"`},
		{`{"seats": ["a", "b"], "scores": [1, NaN], "ranks": [1, 2], "deal": 0}`, "line 1: non-finite score"},
		{`{"seats": ["a", "b"], "scores": [1, 2], "ranks": [1, 2]}`, `line 1: missing field "deal"`},
		{`[1, 2]`, "line 1: not a JSON object"},
		{`{"seats": ["a", "b"], "scores": [1, 2], "ranks": [1, 2], "deal": 0} 7`, "line 1: not a JSON object"},
		{`{"seats": ["a", "b"], "scores": ["1", 2], "ranks": [1, 2], "deal": 0}`, "line 1: json: cannot unmarshal string"},
	} {
		_, err := evaluate.ReadExternalGames(strings.NewReader(c.file))
		var ee *evaluate.ExternalGameError
		if !errors.As(err, &ee) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an *ExternalGameError with %q", c.file, err, c.want)
		}
	}
	g, err := evaluate.ReadExternalGames(strings.NewReader(ok))
	if err != nil || len(g) != 1 || g[0].Line != 1 || g[0].Ranks[2] != 1 {
		t.Fatalf("%v: %+v", err, g)
	}
}

// TestLeagueExternalGameErrors checks that games that do not fit the
// league are refused before anything is played.
func TestLeagueExternalGameErrors(t *testing.T) {
	good := evaluate.ExternalGame{Seats: []string{"x", "random", "random"}, Scores: []float64{1, 2, 3}, Ranks: []int32{3, 2, 1}, Deal: 1}
	for _, c := range []struct {
		edit func(*evaluate.ExternalGame)
		want string
	}{
		{func(g *evaluate.ExternalGame) { g.Seats = g.Seats[:2] }, "2 seats for a 3-player game"},
		{func(g *evaluate.ExternalGame) { g.Ranks = g.Ranks[:2] }, "3 scores and 2 ranks for 3 seats"},
		{func(g *evaluate.ExternalGame) { g.Scores[1] = math.Inf(1) }, "seat 1: non-finite score +Inf"},
		{func(g *evaluate.ExternalGame) { g.Scores[0] = math.NaN() }, "seat 0: non-finite score NaN"},
		{func(g *evaluate.ExternalGame) { g.Ranks[2] = 4 }, "seat 2: rank 4 outside 1..3"},
		{func(g *evaluate.ExternalGame) { g.Ranks[2] = 0 }, "seat 2: rank 0 outside 1..3"},
		{func(g *evaluate.ExternalGame) { g.Deal = 2 }, "deal 2 outside 0..1"},
		{func(g *evaluate.ExternalGame) { g.Seats[0] = "" }, "seat 0 has an empty label"},
	} {
		g := good
		g.Seats, g.Scores, g.Ranks = append([]string(nil), good.Seats...), append([]float64(nil), good.Scores...), append([]int32(nil), good.Ranks...)
		c.edit(&g)
		g.Line = 7
		cfg := evaluate.LeagueConfig{Env: trio, Pool: []string{"random", "picker@k=0"}, Deals: 2, Workers: 1,
			External: []evaluate.ExternalGame{good, g}}
		_, err := evaluate.RunLeague(context.Background(), cfg)
		var ee *evaluate.ExternalGameError
		if !errors.As(err, &ee) || ee.Game != 1 || !strings.Contains(err.Error(), "line 7: "+c.want) {
			t.Errorf("%v, want an *ExternalGameError of game 1 with %q", err, c.want)
		}
	}
}

// TestLeagueManyExternalLabels: `eval --games` with 3,000 distinct labels
// (the rating fit must not keep a dense 3,000 x 3,000 matrix for every
// bootstrap draw): each label plays one game against the two pool agents
// and ranks 1, 2 or 3 by its index. Every label is an agent with its one
// game, the three classes are rated in that order, and a label's rating
// does not depend on which label it is.
func TestLeagueManyExternalLabels(t *testing.T) {
	const labels = 3000
	pool := []string{"random", "picker@k=0"}
	var file strings.Builder
	for i := range labels {
		r := int32(i % 3)
		line := map[string]any{"deal": i % 4,
			"seats":  []string{fmt.Sprintf("ext-%04d", i), pool[0], pool[1]},
			"ranks":  []int32{1 + r, 1 + (r+1)%3, 1 + (r+2)%3},
			"scores": []float64{float64(3 - r), float64(3 - (r+1)%3), float64(3 - (r+2)%3)}}
		b, _ := json.Marshal(line)
		file.Write(append(b, '\n'))
	}
	ext, err := evaluate.ReadExternalGames(strings.NewReader(file.String()))
	if err != nil {
		t.Fatal(err)
	}
	cfg := evaluate.LeagueConfig{Env: trio, Pool: pool, Deals: 4, Seed: 3, Workers: 2, Bootstrap: 10, External: ext}
	r, err := evaluate.RunLeague(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Agents) != labels+2 || r.ExternalGames != labels {
		t.Fatalf("%d agents and %d external games, want %d and %d", len(r.Agents), r.ExternalGames, labels+2, labels)
	}
	lo, hi := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}, [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for i, a := range r.Agents[2:] {
		k := i % 3
		if a.Name != fmt.Sprintf("ext-%04d", i) || a.Games != 1 || a.MeanRank != float64(1+k) || a.WinRate != map[bool]float64{true: 1}[k == 0] {
			t.Fatalf("agent %d: %+v", i+2, a)
		}
		lo[k], hi[k] = min(lo[k], a.Rating), max(hi[k], a.Rating)
	}
	for k := range 3 {
		if hi[k]-lo[k] > 1 {
			t.Errorf("labels that ranked %d: ratings spread over [%v, %v] Elo", k+1, lo[k], hi[k])
		}
		if k > 0 && lo[k-1] <= hi[k] {
			t.Errorf("labels that ranked %d (%v..%v) not above those that ranked %d (%v..%v)", k, lo[k-1], hi[k-1], k+1, lo[k], hi[k])
		}
	}
	var csv strings.Builder
	if err := r.Write(&csv, evaluate.FormatCSV); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(csv.String(), "\n"); n != labels+3 {
		t.Fatalf("csv: %d lines, want %d", n, labels+3)
	}
	// The table: every agent's row, then the head-to-head matrix of the
	// best rated HeadToHeadTableAgents only.
	var table strings.Builder
	if err := r.Write(&table, evaluate.FormatTable); err != nil {
		t.Fatal(err)
	}
	ratings, h2h, ok := strings.Cut(table.String(), "Head-to-head")
	if !ok || strings.Count(ratings, "\n") < labels+1 {
		t.Fatalf("table: %d lines of ratings, want %d", strings.Count(ratings, "\n"), labels+1)
	}
	want := fmt.Sprintf("The %d best rated of %d agents", evaluate.HeadToHeadTableAgents, labels+2)
	if !strings.Contains(h2h, want) || strings.Count(h2h, "\n") > evaluate.HeadToHeadTableAgents+8 {
		t.Fatalf("head-to-head: %d lines, want the %d best rated and %q", strings.Count(h2h, "\n"), evaluate.HeadToHeadTableAgents, want)
	}
}

// TestExternalLabelsPrintable: labels are never printed raw: a label with a control character is
// refused before any game is played, the error naming the line, the seat
// and the character; a label with | keeps the markdown table's columns.
func TestExternalLabelsPrintable(t *testing.T) {
	pool := []string{"random", "picker@k=0"}
	for _, c := range []struct{ label, char string }{
		{"\x1b[2Jred", "U+001B"}, {"a\rb", "U+000D"}, {"x\u0085", "U+0085"}, {"\u202eevil", "U+202E"}, {"l\u2028m", "U+2028"},
	} {
		ok, _ := json.Marshal(map[string]any{"deal": 0, "seats": []string{"fine", pool[0], pool[1]}, "ranks": []int32{1, 2, 3}, "scores": []float64{3, 2, 1}})
		bad, _ := json.Marshal(map[string]any{"deal": 0, "seats": []string{pool[0], c.label, pool[1]}, "ranks": []int32{1, 2, 3}, "scores": []float64{3, 2, 1}})
		ext, err := evaluate.ReadExternalGames(strings.NewReader(string(ok) + "\n" + string(bad) + "\n"))
		if err != nil {
			t.Fatal(err)
		}
		_, err = evaluate.RunLeague(context.Background(), evaluate.LeagueConfig{Env: trio, Pool: pool, Deals: 1, Workers: 1, Bootstrap: 1, External: ext})
		var ee *evaluate.ExternalGameError
		if !errors.As(err, &ee) || ee.Line != 2 || !strings.Contains(err.Error(), "line 2: seat 1") || !strings.Contains(err.Error(), c.char) {
			t.Errorf("label %q: %v, want an *ExternalGameError naming line 2, seat 1 and %s", c.label, err, c.char)
		}
	}
	line, _ := json.Marshal(map[string]any{"deal": 0, "seats": []string{"a|b", pool[0], pool[1]}, "ranks": []int32{1, 2, 3}, "scores": []float64{3, 2, 1}})
	ext, err := evaluate.ReadExternalGames(strings.NewReader(string(line)))
	if err != nil {
		t.Fatal(err)
	}
	r, err := evaluate.RunLeague(context.Background(), evaluate.LeagueConfig{Env: trio, Pool: pool, Deals: 1, Workers: 1, Bootstrap: 1, External: ext})
	if err != nil {
		t.Fatal(err)
	}
	var md strings.Builder
	if err := r.Write(&md, evaluate.FormatMarkdown); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(md.String(), "\n") {
		if strings.Contains(l, "a") && strings.Contains(l, "b") && strings.HasPrefix(l, "|") {
			if strings.Contains(l, "a|b") {
				t.Fatalf("markdown row splits the label a|b: %q", l)
			}
		}
	}
	if !strings.Contains(md.String(), `a\|b`) {
		t.Fatalf("markdown lacks the escaped label a\\|b:\n%s", md.String())
	}
}
