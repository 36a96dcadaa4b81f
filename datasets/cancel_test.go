package datasets

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
)

// cancelAgent plays the first legal action and, at its cancelAt-th decision,
// calls cancelRun: a stand-in for a person pressing Ctrl-C while a slow
// agent (a search) is in the middle of a part.
type cancelAgent struct{ ctx context.Context }

var (
	cancelRun  atomic.Pointer[context.CancelFunc]
	cancelActs atomic.Int64
	cancelAt   int64
	cancelCtx  atomic.Bool // SetContext was given a context
)

func (*cancelAgent) Name() string { return "test-cancel" }
func (*cancelAgent) Reset(uint64) {}
func (a *cancelAgent) SetContext(ctx context.Context) {
	a.ctx = ctx
	cancelCtx.Store(ctx != nil)
}
func (*cancelAgent) Act(_ int, _, mask []uint8) int {
	if cancelActs.Add(1) == cancelAt {
		if c := cancelRun.Load(); c != nil {
			(*c)()
		}
	}
	for i, m := range mask {
		if m != 0 {
			return i
		}
	}
	return 0
}

func init() {
	agents.Register("test-cancel", "datasets tests: cancels the run at its n-th decision",
		func(*env.Spec, agents.Options) (agents.Agent, error) { return &cancelAgent{}, nil })
}

// TestCancelStopsWithinAPart: a run cancelled in the middle of a part stops
// within the episode it is playing (the agents get the run's context, and
// the context is checked before every episode and after the part's last),
// however many episodes the part has left: nothing of the part is written,
// and running the same command again writes the whole dataset. Before, the
// check came every 256 episodes, so a part of fewer episodes was always
// played to its end (a Ctrl-C of a search's generate waited minutes).
func TestCancelStopsWithinAPart(t *testing.T) {
	const maxEpisodeDecisions = 200 // galaxy-express-v1's max_turns
	cfg := Config{Env: testEnv, Agent: "test-cancel", Episodes: 400, EpisodesPerPart: 200, Workers: 1, Seed: 3}
	// The decisions of part 0, from an uncancelled run.
	cancelRun.Store(nil)
	cancelActs.Store(0)
	cancelAt = -1
	var part0 int64
	cfg.Out = t.TempDir()
	cfg.Progress = func(p Progress) {
		if p.PartsDone == 1 && part0 == 0 {
			part0 = cancelActs.Load()
		}
	}
	generate(t, cfg)
	if part0 < 200 {
		t.Fatalf("part 0 took %d decisions", part0)
	}
	for _, at := range []int64{40, part0 / 2, part0} { // early, mid-part, at the part's very last decision
		dir := t.TempDir()
		cfg.Out = dir
		ctx, cancel := context.WithCancel(context.Background())
		cancelRun.Store(&cancel)
		cancelActs.Store(0)
		cancelAt = at
		cancelCtx.Store(false)
		var parts atomic.Int64
		cfg.Progress = func(p Progress) { parts.Store(int64(p.PartsDone)) }
		_, err := Generate(ctx, cfg)
		cancelRun.Store(nil)
		acts := cancelActs.Load()
		var ie *InterruptedError
		if acts < at || !errors.As(err, &ie) || !errors.Is(err, context.Canceled) {
			t.Fatalf("cancel at decision %d: Generate = %v after %d decisions, want an *InterruptedError", at, err, acts)
		}
		if !cancelCtx.Load() {
			t.Error("the agents were not given the run's context")
		}
		if acts > at+maxEpisodeDecisions {
			t.Errorf("cancel at decision %d: %d decisions were played; the run should stop with the episode it was in", at, acts)
		}
		if ie.PartsDone != 0 || parts.Load() != 0 {
			t.Errorf("cancel at decision %d of part 0's %d: %d parts done; want none (the part is cut short)", at, part0, ie.PartsDone)
		}
		for _, sub := range []string{StepsDir, EpisodesDir} {
			entries, _ := os.ReadDir(filepath.Join(dir, sub))
			for _, e := range entries {
				t.Errorf("cancel at decision %d: left %s", at, filepath.Join(sub, e.Name()))
			}
		}
		res, err := Generate(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if res.PartsWritten != 2 {
			t.Errorf("resumed: kept %d, wrote %d parts; want 0 and 2", res.PartsKept, res.PartsWritten)
		}
	}
}
