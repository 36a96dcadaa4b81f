package play

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/galaxygym/galaxygym/server"
)

// researchPage starts the real server's handler and a headless Chromium
// at w x h on its page, with the research panel loaded (index.html loads
// it; where it does not yet, the test adds it).
func researchPage(t *testing.T, w, h int) context.Context {
	path := chromium(t)
	srv, err := server.New(server.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ph, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(Mount(srv.Handler(), ph))
	t.Cleanup(func() { ph.Close(); hs.Close() })
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.WindowSize(w, h), chromedp.Flag("hide-scrollbars", true))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx, chromedp.WithErrorf(func(string, ...any) {}))
	t.Cleanup(cancel2)
	if err := chromedp.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if err := researchRun(ctx, chromedp.Navigate(hs.URL+"/play/")); err != nil {
		t.Fatal(err)
	}
	const load = `(() => { if (!window.ggResearch && !document.querySelector('script[src$="research.js"]')) {
	  const l = document.createElement('link'); l.rel = 'stylesheet'; l.href = '/play/static/research.css'; document.head.append(l);
	  const s = document.createElement('script'); s.src = '/play/static/research.js'; document.head.append(s); } return true; })()`
	var ok bool
	if err := researchRun(ctx, chromedp.Evaluate(load, &ok)); err != nil {
		t.Fatal(err)
	}
	researchWait(ctx, t, "the research panel's script", `!!window.ggResearch && window.galaxygym !== undefined && galaxygym.envs.length > 0`)
	return ctx
}

func researchRun(ctx context.Context, actions ...chromedp.Action) error {
	c, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	return chromedp.Run(c, actions...)
}

// researchWait waits (a minute at most) until the expression is true.
func researchWait(ctx context.Context, t *testing.T, what, expr string) {
	t.Helper()
	for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		var ok bool
		if err := researchRun(ctx, chromedp.Evaluate(expr, &ok)); err == nil && ok {
			return
		}
	}
	var dump string
	_ = researchRun(ctx, chromedp.Evaluate(`JSON.stringify({table: window.ggResearch && ggResearch.state.table && ggResearch.state.table.steps,
	  hist: window.ggResearch && ggResearch.state.hist && ggResearch.state.hist.steps, panel: (document.getElementById('research-panel') || {}).innerText})`, &dump))
	t.Fatalf("waiting for %s: %s", what, dump)
}

// TestResearchPanel plays a game of agents and reads it in the research
// panel at 1280x800 and 390x844: every move in the log with its thoughts,
// a marker for each step with rewards, a step back shows the position
// before the last move, and play from here starts a new table there;
// nothing scrolls sideways.
func TestResearchPanel(t *testing.T) {
	for _, size := range [][2]int{{1280, 800}, {390, 844}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			ctx := researchPage(t, size[0], size[1])
			var ok bool
			start := `(() => { const m = {op: 'new', lineup: {env: 'galaxy-express-v1', seats: ['heuristic'], delay_ms: 0, seed: 3}};
			  if (window.gg && gg.send) gg.send(m); else galaxygym.ws.send(JSON.stringify(m)); return true; })()`
			if err := researchRun(ctx, chromedp.Evaluate(start, &ok)); err != nil {
				t.Fatal(err)
			}
			const R = "ggResearch.state"
			researchWait(ctx, t, "the game's end in the log", R+`.table && `+R+`.table.over && `+R+`.hist && `+R+`.hist.log.length === `+R+`.table.steps`)
			var got struct {
				Steps, Items, Marks, Rewarded, Why int
			}
			var js string
			if err := researchRun(ctx, chromedp.Evaluate(`JSON.stringify({steps: `+R+`.table.steps,
			  items: document.querySelectorAll('#research-panel .research-log li').length,
			  marks: document.querySelectorAll('#research-panel .research-mark').length,
			  rewarded: `+R+`.hist.log.filter((e) => e.rewards).length,
			  why: document.querySelectorAll('#research-panel .research-why').length})`, &js)); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(js), &got); err != nil {
				t.Fatal(err)
			}
			if got.Items != got.Steps || got.Marks != got.Rewarded || got.Why == 0 {
				t.Fatalf("the panel after %d moves: %d log items, %d markers for %d rewarded steps, %d explained", got.Steps, got.Items, got.Marks, got.Rewarded, got.Why)
			}
			// One step back: the position before the last move.
			if err := researchRun(ctx, chromedp.Click(`#research-panel .research-scrub > button`, chromedp.ByQuery)); err != nil {
				t.Fatal(err)
			}
			back := got.Steps - 1
			researchWait(ctx, t, "the step back", fmt.Sprintf(`%s.hist.step === %d && document.getElementById('research-where').textContent.startsWith('position %d of')`, R, back, back))
			// Play from here.
			old := ""
			if err := researchRun(ctx, chromedp.Evaluate(R+`.table.table`, &old),
				chromedp.Click(`#research-panel .research-branch summary`, chromedp.ByQuery),
				chromedp.Click(`#research-panel .research-branch button.primary`, chromedp.ByQuery)); err != nil {
				t.Fatal(err)
			}
			researchWait(ctx, t, "the new table", fmt.Sprintf(`%s.table.table !== %q && %s.hist && %s.hist.from && %s.hist.prefix === %d`, R, old, R, R, R, back))
			var wide bool
			if err := researchRun(ctx, chromedp.Evaluate(`document.getElementById('research-panel').scrollWidth > document.getElementById('research-panel').clientWidth + 1`, &wide)); err != nil {
				t.Fatal(err)
			}
			if wide {
				t.Fatal("the research panel scrolls sideways")
			}
			var panel string
			_ = researchRun(ctx, chromedp.Evaluate(`document.getElementById('research-panel').innerText`, &panel))
			if !strings.Contains(panel, "Started from table") {
				t.Fatalf("the new table's panel does not say where it started:\n%s", panel)
			}
		})
	}
}
