package evaluate_test

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/evaluate"
)

// committedBaseline is one learned policy committed under
// notebooks/weights/ (docs/learning-baselines-multiplayer.md) with the
// short seeded evaluation it must pass.
type committedBaseline struct {
	file   string         // under notebooks/weights/
	env    string         // the environment id its meta names
	params map[string]any // the parameters it was trained and is evaluated at
	// Competitive games: the policy against random in 2-player games,
	// seats rotated, over deals deals; its win rate must reach minWin.
	// Cooperative games (seats nil): the policy in every seat over
	// episodes games; its win rate must reach minWin (random's is 0).
	seats    []string
	episodes int64
	minWin   float64
	// minScoreGap, competitive games: the policy's mean score must exceed
	// random's by at least this many points.
	minScoreGap float64
	// stat, when set, names a game statistic ([evaluate.Report] Stats)
	// whose mean must exceed random's by at least minStatGap.
	stat       string
	minStatGap float64
	// opp names the agent the policy is measured against ("" reads as
	// random); for a cooperative game it plays the same missions alone.
	opp string
}

var committedBaselines = []committedBaseline{
	{file: "express-v2-bc.npz", env: "express-v2", params: map[string]any{"players": 2},
		seats: []string{"policy", "random"}, episodes: 50, minWin: 0.65, minScoreGap: 30},
	{file: "pilots-of-gallaxia-v2-bc.npz", env: "pilots-of-gallaxia-v2", params: map[string]any{"players": 2},
		seats: []string{"policy", "random"}, episodes: 20, minWin: 0.75, minScoreGap: 60},
	{file: "galaxy-fighters-v2-bc.npz", env: "galaxy-fighters-v2", params: map[string]any{"mission": "expert"},
		episodes: 200, minWin: 0.05, stat: "aliens_destroyed", minStatGap: 100},
	// The self-play stage (notebooks/weights/make_selfplay.sh).
	{file: "express-v2-selfplay.npz", env: "express-v2", params: map[string]any{"players": 2},
		seats: []string{"policy", "random"}, episodes: 50, minWin: 0.75, minScoreGap: 40},
	{file: "express-v2-selfplay.npz", env: "express-v2", params: map[string]any{"players": 2},
		seats: []string{"policy", "heuristic"}, episodes: 50, minWin: 0.55, minScoreGap: 5, opp: "heuristic"},
	{file: "pilots-of-gallaxia-v2-selfplay.npz", env: "pilots-of-gallaxia-v2", params: map[string]any{"players": 2},
		seats: []string{"policy", "random"}, episodes: 20, minWin: 0.75, minScoreGap: 60},
	{file: "galaxy-fighters-v2-team.npz", env: "galaxy-fighters-v2", params: map[string]any{"mission": "expert"},
		episodes: 200, minWin: 0.3, stat: "aliens_destroyed", minStatGap: 100},
	// The heuristic's DAgger clone (notebooks/weights/make_dagger_fighters.sh), the warm start
	// of Galaxy Fighters' expert iteration.
	{file: "galaxy-fighters-v2-dagger.npz", env: "galaxy-fighters-v2", params: map[string]any{"mission": "expert"},
		episodes: 200, minWin: 0.5, stat: "aliens_destroyed", minStatGap: 100},
}

// checkMeta fails t unless the meta of the weights file at path names
// spec's environment, observation shape and number of actions.
func checkMeta(t *testing.T, path string, spec *env.Spec) {
	t.Helper()
	m := npzMeta(t, path)
	if m.EnvID != spec.ID || !slices.Equal(m.ObsShape, spec.ObsShape) || m.NumActions != spec.NumActions() {
		t.Fatalf("meta %+v: want env %s, obs_shape %v, num_actions %d", m, spec.ID, spec.ObsShape, spec.NumActions())
	}
}

// npzMeta reads the "meta" member of a weights file: a 1-D uint8 .npy
// array holding the JSON of agents.PolicyMeta.
func npzMeta(t *testing.T, path string) agents.PolicyMeta {
	t.Helper()
	z, err := zip.OpenReader(path)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer z.Close()
	for _, f := range z.File {
		if f.Name != "meta.npy" {
			continue
		}
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		raw, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(raw, []byte("\x93NUMPY")) || len(raw) < 12 {
			t.Fatalf("%s: meta.npy: not an .npy array", path)
		}
		start := 10 + int(binary.LittleEndian.Uint16(raw[8:10])) // format 1.0
		if raw[6] >= 2 {
			start = 12 + int(binary.LittleEndian.Uint32(raw[8:12]))
		}
		var m agents.PolicyMeta
		if err := json.Unmarshal(raw[start:], &m); err != nil {
			t.Fatalf("%s: meta: %v", path, err)
		}
		return m
	}
	t.Fatalf("%s: no meta array", path)
	return agents.PolicyMeta{}
}

// TestCommittedBaselines plays every committed multi-player baseline
// (notebooks/weights/*-bc.npz, *-selfplay.npz, *-team.npz) natively: its meta names its environment
// with that environment's observation shape and number of actions, the Go
// policy agent accepts it (every array checked against the spec), and over
// a short seeded evaluation it plays far better than random (a
// competitive game: at least minWin of its games against random, seats
// rotated, and a mean score at least minScoreGap above random's; Galaxy Fighters: at least minWin of the Expert missions won
// with the policy in every seat, where random wins none, and at least
// minStatGap more aliens destroyed than random). express-v2-selfplay.npz
// is also played against the heuristic it was trained to beat (seed 7,
// 100 games: at least minWin of them and a higher mean score).
func TestCommittedBaselines(t *testing.T) {
	for _, b := range committedBaselines {
		opp := b.opp
		if opp == "" {
			opp = "random"
		}
		t.Run(b.file+"/vs-"+opp, func(t *testing.T) {
			path := filepath.Join("..", "notebooks", "weights", b.file)
			if _, err := os.Stat(path); err != nil {
				t.Fatalf("committed weights: %v", err)
			}
			e, err := env.Make(b.env, b.params)
			if err != nil {
				t.Fatal(err)
			}
			spec := e.Spec()
			checkMeta(t, path, spec)
			opts := agents.Options{"weights": path, "greedy": "true"}
			if _, err := agents.NewPolicy(spec, opts); err != nil {
				t.Fatalf("NewPolicy: %v", err)
			}
			cfg := evaluate.Config{Env: b.env, EnvParams: b.params, Episodes: b.episodes, Seed: 7, Workers: 2,
				AgentOptions: map[string]agents.Options{"policy": opts}}
			if b.seats != nil {
				cfg.Seats, cfg.Rotate = b.seats, true
			} else {
				cfg.Agents = []string{opp, "policy"}
			}
			r := run(t, cfg)
			var pol, rnd *evaluate.AgentReport
			for _, a := range r.Agents {
				switch a.Name {
				case "policy":
					pol = a
				case opp:
					rnd = a
				}
			}
			if pol == nil || rnd == nil {
				t.Fatalf("report without policy or %s: %+v", opp, r.Agents)
			}
			t.Logf("%s: policy wins %.3f of %d games, %s %.3f", b.env, pol.Summary.WinRate,
				pol.Summary.Episodes, opp, rnd.Summary.WinRate)
			if pol.Summary.WinRate < b.minWin {
				t.Errorf("policy won %.3f of its %d games, want at least %.2f (%s: %.3f)", pol.Summary.WinRate,
					pol.Summary.Episodes, b.minWin, opp, rnd.Summary.WinRate)
			}
			if gap := pol.Summary.Score.Mean - rnd.Summary.Score.Mean; b.seats != nil && gap < b.minScoreGap {
				t.Errorf("policy's mean score %.2f, %s's %.2f: want a gap of at least %.0f", pol.Summary.Score.Mean,
					opp, rnd.Summary.Score.Mean, b.minScoreGap)
			}
			if b.stat != "" {
				j := slices.Index(r.Stats, b.stat)
				if j < 0 {
					t.Fatalf("no statistic %q in %v", b.stat, r.Stats)
				}
				p, q := pol.Summary.MeanStats[j], rnd.Summary.MeanStats[j]
				t.Logf("mean %s: policy %.1f, %s %.1f", b.stat, p, opp, q)
				if p-q < b.minStatGap {
					t.Errorf("mean %s: policy %.1f, %s %.1f: want a gap of at least %.0f", b.stat, p, opp, q, b.minStatGap)
				}
			}
			if pol.Summary.WinRate <= rnd.Summary.WinRate {
				t.Errorf("policy won %.3f, no more than %s's %.3f", pol.Summary.WinRate, opp, rnd.Summary.WinRate)
			}
		})
	}
}
