package agents_test

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/datasets"
	"github.com/galaxygym/galaxygym/env"
	ge "github.com/galaxygym/galaxygym/env/galaxyexpress"
)

type Agent = agents.Agent
type Options = agents.Options

var New = agents.New

// mctsEvalStats are the results of seeded games.
type mctsEvalStats struct {
	games, decisions    int
	sum, sumSq, heurSum float64
	diffSq              float64
	elapsed             time.Duration // wall time
	busy                time.Duration // summed over workers
	work                agents.MCTSStats
}

// playSeeded plays episodes from..from+n-1 of `generate --seed 0` (env and
// agent seeds from datasets.EpisodeSeeds) with the agent that mk builds, on
// workers goroutines; paired, it also plays each with the heuristic.
func playSeeded(t testing.TB, from, n, workers int, mk func() Agent, paired bool) mctsEvalStats {
	t.Helper()
	var mu sync.Mutex
	var st mctsEvalStats
	next := from
	start := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e, err := env.Make(ge.ID, nil)
			if err != nil {
				t.Error(err)
				return
			}
			a := mk()
			defer func() {
				if m, ok := a.(*agents.MCTS); ok {
					ms := m.Stats()
					mu.Lock()
					st.work.Decisions += ms.Decisions
					st.work.Searched += ms.Searched
					st.work.Simulations += ms.Simulations
					st.work.Steps += ms.Steps
					mu.Unlock()
				}
			}()
			var h Agent
			if paired {
				h, _ = New("heuristic", e.Spec(), nil)
			}
			obs := make([]uint8, ge.ObsSize)
			play := func(ag Agent, es, as uint64) (float64, int) {
				e.Reset(es)
				ag.Reset(as)
				d := 0
				for !e.Done() {
					_ = e.Observe(0, obs)
					act := ag.Act(0, obs, e.Mask())
					d++
					if _, err := e.Step(act); err != nil {
						t.Errorf("episode seed %d: %v", es, err)
						return 0, d
					}
				}
				return e.Returns()[0], d
			}
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= from+n {
					return
				}
				es, as := datasets.EpisodeSeeds(0, int64(i))
				t0 := time.Now()
				sc, d := play(a, es, as)
				busy := time.Since(t0)
				hs := 0.0
				if paired {
					hs, _ = play(h, es, as)
				}
				mu.Lock()
				st.games++
				st.decisions += d
				st.sum += sc
				st.sumSq += sc * sc
				st.heurSum += hs
				st.diffSq += (sc - hs) * (sc - hs)
				st.busy += busy
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	st.elapsed = time.Since(start)
	return st
}

func (st mctsEvalStats) String() string {
	n := float64(st.games)
	m := st.sum / n
	sd := math.Sqrt(max(0, st.sumSq/n-m*m))
	s := fmt.Sprintf("games %d: mean score %.3f (sd %.2f, s.e. %.3f); %.1f ms/episode (one worker), "+
		"%.0f episodes/min (wall), %.1f decisions/episode, %.0f us/decision",
		st.games, m, sd, sd/math.Sqrt(n), st.busy.Seconds()*1000/n, n/st.elapsed.Minutes(),
		float64(st.decisions)/n, st.busy.Seconds()*1e6/float64(st.decisions))
	if w := st.work; w.Searched > 0 {
		s += fmt.Sprintf("; %.1f%% of decisions searched, %.1f simulations and %.0f simulated steps per searched decision",
			100*float64(w.Searched)/float64(w.Decisions), float64(w.Simulations)/float64(w.Searched),
			float64(w.Steps)/float64(w.Searched))
	}
	if st.heurSum != 0 {
		d := m - st.heurSum/n
		dsd := math.Sqrt(max(0, st.diffSq/n-d*d))
		s += fmt.Sprintf("; heuristic on the same seeds %.3f, difference %+.3f (s.e. %.3f)",
			st.heurSum/n, d, dsd/math.Sqrt(n))
	}
	return s
}

// TestMCTSEval plays MCTS_EVAL seeded games (episodes 0..N-1 of
// `galaxygym generate --seed 0`) with the mcts agent and logs the mean
// score and the time per episode; it is skipped unless the variable is
// set. MCTS_OPTS sets options (comma-separated key=value, e.g.
// "sims=128,c=0.5"), MCTS_WORKERS the number of games played at once
// (default GOMAXPROCS), MCTS_FROM the first episode index, and
// MCTS_PAIRED=1 also plays each game with the heuristic:
//
//	MCTS_EVAL=10000 MCTS_OPTS=sims=64 go test ./agents -run TestMCTSEval -v -timeout 0
func TestMCTSEval(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("MCTS_EVAL"))
	if n <= 0 {
		t.Skip("set MCTS_EVAL=N to play N seeded games")
	}
	opts := Options{}
	if s := os.Getenv("MCTS_OPTS"); s != "" {
		for _, kv := range strings.Split(s, ",") {
			k, v, _ := strings.Cut(kv, "=")
			opts[k] = v
		}
	}
	workers := runtime.GOMAXPROCS(0)
	if w, err := strconv.Atoi(os.Getenv("MCTS_WORKERS")); err == nil && w > 0 {
		workers = w
	}
	from, _ := strconv.Atoi(os.Getenv("MCTS_FROM"))
	spec := ge.Game{}.Spec()
	if _, err := New("mcts", spec, opts); err != nil {
		t.Fatal(err)
	}
	st := playSeeded(t, from, n, workers, func() Agent {
		a, _ := New("mcts", spec, opts)
		return a
	}, os.Getenv("MCTS_PAIRED") == "1")
	t.Logf("mcts %v, %d workers: %v", opts, workers, st)
}
