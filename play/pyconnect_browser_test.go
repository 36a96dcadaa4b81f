package play

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// python returns $GALAXYGYM_PYTHON (make test-go passes the project's
// venv), else the checkout's .venv, with numpy and websocket-client; or
// skips the test.
func python(t *testing.T) string {
	py := os.Getenv("GALAXYGYM_PYTHON")
	if py == "" {
		py, _ = filepath.Abs(filepath.Join("..", ".venv", "bin", "python"))
	}
	if _, err := os.Stat(py); err != nil {
		t.Skip("no Python: set GALAXYGYM_PYTHON to a venv with the galaxygym package's dependencies (make venv)")
	}
	if out, err := exec.Command(py, "-c", "import numpy, websocket").CombinedOutput(); err != nil {
		t.Skipf("%s lacks numpy or websocket-client: %s", py, out)
	}
	return py
}

// agentScript makes an Express table with two human seats, takes seat 0
// and plays it with a seeded random policy through galaxygym.play.connect;
// it prints "table ID" once the table exists, then "result JSON".
const agentScript = `
import json, sys, numpy as np, galaxygym.play as gp
url = sys.argv[1]
table = gp.create_table("express-v1", ["human", "human"], url=url, params={"players": 2, "hand_only": True}, seed=21, take=[0])
print("table", table.id, flush=True)
rng = np.random.default_rng(0)
r = gp.connect(url, table, 0, lambda obs, mask: int(rng.choice(np.flatnonzero(mask))), timeout=120)
print("result", json.dumps({"returns": r.returns, "scores": r.info["scores"], "steps": r.steps, "decisions": r.decisions, "error": r.error}), flush=True)
`

// TestBrowserAgainstPythonAgent seats a Python agent (galaxygym.play, a
// subprocess) at seat 0 of an Express table and a person in headless
// Chromium, joining by the table's link, at seat 1; the person clicks
// moves until the game is over. Both sides see the same end: the page's
// scores are the agent's, and both played.
func TestBrowserAgainstPythonAgent(t *testing.T) {
	py := python(t)
	ctx, base := browser(t, Config{})
	cmd := exec.Command(py, "-u", "-c", agentScript, base)
	cmd.Env = append(os.Environ(), "PYTHONPATH="+mustAbs(t, filepath.Join("..", "python")))
	cmd.Stderr = &strings.Builder{}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited, stop := make(chan error, 1), make(chan struct{})
	t.Cleanup(func() {
		close(stop)
		_ = cmd.Process.Kill()
		<-exited
	})
	lines := make(chan string, 4)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-stop:
			}
		}
		close(lines)
		exited <- cmd.Wait()
	}()
	line := func(prefix string) string {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok || !strings.HasPrefix(l, prefix+" ") {
				t.Fatalf("the agent printed %q, want %q ...; stderr:\n%s", l, prefix, cmd.Stderr)
			}
			return strings.TrimPrefix(l, prefix+" ")
		case <-time.After(3 * time.Minute):
			t.Fatalf("the agent printed no %q line in 3 minutes; stderr:\n%s", prefix, cmd.Stderr)
		}
		return ""
	}
	id := line("table")
	if err := run(ctx, chromedp.Navigate(base+"/#table="+id+"&seat=1")); err != nil {
		t.Fatal(err)
	}
	clicks := playToEnd(ctx, t, 0)
	var res struct {
		Returns   []float64 `json:"returns"`
		Scores    []float64 `json:"scores"`
		Steps     int       `json:"steps"`
		Decisions int       `json:"decisions"`
		Error     string    `json:"error"`
	}
	if err := json.Unmarshal([]byte(line("result")), &res); err != nil {
		t.Fatal(err)
	}
	var shown string
	if err := run(ctx, chromedp.Evaluate(`JSON.stringify({scores: galaxygym.table.result.scores, steps: galaxygym.table.steps})`, &shown)); err != nil {
		t.Fatal(err)
	}
	var page struct {
		Scores []float64 `json:"scores"`
		Steps  int       `json:"steps"`
	}
	if err := json.Unmarshal([]byte(shown), &page); err != nil {
		t.Fatal(err)
	}
	scores := page.Scores
	// Forced moves may be played without a click, so clicks are at most
	// the person's moves.
	if res.Error != "" || !slices.Equal(scores, res.Scores) || page.Steps != res.Steps || clicks == 0 || res.Decisions == 0 ||
		clicks+res.Decisions > res.Steps {
		t.Fatalf("the page shows scores %v after %d steps, %d clicks; the agent got %+v", scores, page.Steps, clicks, res)
	}
	t.Logf("%d clicks, %d agent decisions, scores %v, returns %v", clicks, res.Decisions, scores, res.Returns)
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
