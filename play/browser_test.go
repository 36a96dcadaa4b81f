package play

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/galaxygym/galaxygym/datasets"
	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/server"
)

var screenshots = flag.String("screenshots", "", "write play-<game>.png screenshots (1280x800) of each game's page into this folder (make screenshots)")

// browserGames are the games the browser test plays, one person against
// the heuristic, with parameters that keep a game short. Express ends at
// 100 turns: a test's person, who always makes the same choice, and the
// heuristic can hand one card to and fro through the discard pile (the
// person takes the top discard, swaps it for a locomotive and discards
// that; the heuristic takes it back), so the draw pile never empties and
// the hand runs towards the default 3000 turns. Played out in Go with the
// board test's choices (2026-11), 23 deals of 1500 did; every other
// ended within 100 turns (median 18).
var browserGames = []struct {
	env, hash string
}{
	{"galaxy-express-v1", "seats=human"},
	{"galaxy-fighters-v1", "p.players=2&p.mission=rookie&seats=human,heuristic"},
	{"express-v1", "p.players=2&p.hand_only=true&p.max_turns=100&seats=human,heuristic"},
	{"pilots-of-gallaxia-v1", "p.players=2&p.max_turns=12&seats=human,heuristic"},
}

// chromium returns Debian's chromium, or skips the test.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium on PATH (make browser-deps installs Debian's)")
	return ""
}

// browser starts the real server's handler (training protocol and page on
// one port) and a headless Chromium at 1280x800.
func browser(t *testing.T, cfg Config) (context.Context, string) {
	path := chromium(t)
	srv, err := server.New(server.Config{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(Mount(srv.Handler(), h))
	t.Cleanup(func() { h.Close(); hs.Close() })
	return newBrowser(t, path), hs.URL
}

// newBrowser starts a headless Chromium of its own (its own profile and
// storage) at 1280x800.
func newBrowser(t *testing.T, path string) context.Context {
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.WindowSize(1280, 800), chromedp.Flag("hide-scrollbars", true))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	// An older cdproto than the browser logs events it does not know;
	// they do not concern the test.
	quiet := func(format string, args ...any) {
		if msg := fmt.Sprintf(format, args...); !strings.Contains(msg, "could not unmarshal event") {
			t.Logf("chromedp: %s", msg)
		}
	}
	ctx, cancel2 := chromedp.NewContext(actx, chromedp.WithErrorf(quiet))
	t.Cleanup(cancel2)
	// The browser lives as long as the test, and ends a little before go
	// test's -timeout (a test that runs out fails in its own words, not
	// go test's panic); a test of many games bounds each one with a
	// context of its own (TestBrowserClicksBoard: -board-game). Ending a
	// context derived from ctx leaves the browser and its tab open: only
	// the ones NewExecAllocator and NewContext return close them.
	if end, ok := t.Deadline(); ok {
		var cancel3 context.CancelFunc
		ctx, cancel3 = context.WithDeadline(ctx, end.Add(-20*time.Second))
		t.Cleanup(cancel3)
	}
	// The first Run starts the browser under the context it is given:
	// started here, on ctx, so that every later Run may be bounded.
	if err := chromedp.Run(ctx); err != nil {
		t.Fatal(err)
	}
	return ctx
}

// pageState is what the test reads of the page between clicks.
type pageState struct {
	Over     bool   `json:"over"`
	Acts     int    `json:"acts"`
	Version  int    `json:"version"`
	Handover bool   `json:"handover"`
	Record   string `json:"record"`
	Error    string `json:"error"`
}

const readState = `JSON.stringify({over: !!(galaxygym.table && galaxygym.table.over), acts: document.querySelectorAll('#actions button.act').length,
  version: galaxygym.version, handover: !document.getElementById('handover').hidden,
  record: (galaxygym.table && galaxygym.table.record) || '', error: (galaxygym.table && galaxygym.table.error) || ''})`

func state(ctx context.Context, t *testing.T) pageState {
	t.Helper()
	var js string
	var err error
	for try := 0; try < 20; try++ { // a page being loaded has no context yet
		if err = run(ctx, chromedp.Evaluate(readState, &js)); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	var s pageState
	if err := json.Unmarshal([]byte(js), &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// open loads url (a game set up by its link) and clicks Start once the
// page has its games.
func open(ctx context.Context, t *testing.T, url string) {
	t.Helper()
	if err := run(ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	const ready = "window.galaxygym !== undefined && galaxygym.envs.length > 0 && document.querySelectorAll('#lineup select').length > 0"
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var ok bool
		if err := run(ctx, chromedp.Evaluate(ready, &ok)); err == nil && ok {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("%s: the page did not load its games", url)
		}
	}
	if err := run(ctx, chromedp.Click("#start", chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
}

// playToEnd clicks offered moves (the middle one, for variety) until the
// game is over; it returns the number of clicks.
func playToEnd(ctx context.Context, t *testing.T, stopAfter int) int {
	t.Helper()
	clicks := 0
	handovers = 0
	// The game fails to end when nothing happens for a minute and a half
	// (a loaded machine plays slowly, but it plays).
	const stall = 90 * time.Second
	deadline, last := time.Now().Add(stall), -1
	for time.Now().Before(deadline) {
		s := state(ctx, t)
		if s.Version != last {
			deadline, last = time.Now().Add(stall), s.Version
		}
		if s.Error != "" {
			t.Fatalf("the page shows an error: %s", s.Error)
		}
		if s.Over || (stopAfter > 0 && clicks >= stopAfter) {
			return clicks
		}
		if s.Handover {
			if s.Acts != 0 {
				t.Fatal("the hand-over screen shows the next seat's moves")
			}
			if err := runFor(ctx, 5*time.Second, chromedp.Click("#handover-go", chromedp.ByID)); err != nil {
				if errors.Is(err, context.DeadlineExceeded) {
					continue // the screen changed under the click: read the page again
				}
				t.Fatal(err)
			}
			handovers++
			for time.Now().Before(deadline) && state(ctx, t).Handover {
				time.Sleep(10 * time.Millisecond)
			}
			continue
		}
		if s.Acts == 0 {
			time.Sleep(20 * time.Millisecond)
			continue
		}
		// The middle move of the list (the list may group its buttons, so
		// the n-th is found among all of them), clicked where it stands.
		pick := fmt.Sprintf(`(() => { const bs = [...document.querySelectorAll('#actions button.act')]; const b = bs[%d];
  if (!b) return ''; b.scrollIntoView({block: 'center'}); const r = b.getBoundingClientRect(); return JSON.stringify([r.left + r.width / 2, r.top + r.height / 2]); })()`, (s.Acts+1)/2-1)
		var at string
		if err := run(ctx, chromedp.Evaluate(pick, &at)); err != nil {
			t.Fatal(err)
		}
		var xy [2]float64
		if at == "" || json.Unmarshal([]byte(at), &xy) != nil {
			continue // the moves changed under the look: read the page again
		}
		// Click only the move still there (a panel may have moved the page).
		var there bool
		if err := run(ctx, chromedp.Evaluate(fmt.Sprintf(`(() => { const e = document.elementFromPoint(%f, %f); const b = e && e.closest('#actions button.act');
  return !!b && b === [...document.querySelectorAll('#actions button.act')][%d]; })()`, xy[0], xy[1], (s.Acts+1)/2-1), &there)); err != nil {
			t.Fatal(err)
		}
		if !there {
			continue
		}
		if err := run(ctx, chromedp.MouseClickXY(xy[0], xy[1])); err != nil {
			t.Fatal(err)
		}
		clicks++
		for time.Now().Before(deadline) && state(ctx, t).Version == s.Version {
			time.Sleep(10 * time.Millisecond)
		}
	}
	var dbg string
	_ = run(ctx, chromedp.Evaluate(`JSON.stringify({t: galaxygym.table, v: galaxygym.view && {seat: galaxygym.view.seat, to_move: galaxygym.view.to_move, n: (galaxygym.view.actions||[]).length}, banner: document.getElementById('banner').textContent, toast: document.getElementById('toast').textContent, acted: galaxygym.actedAt, chooser: !document.getElementById('chooser').hidden, errs: window.__errs, acts: document.querySelectorAll('#actions button.act').length})`, &dbg))
	t.Fatalf("the game stopped: nothing happened for %v after %d clicks: %s", stall, clicks, dbg)
	return clicks
}

// TestBrowserPlaysEveryGame: in headless Chromium, for each of the four
// games, one person (clicking the offered moves) plays the heuristic to
// the end; the score the page shows is the recorded dataset's, read back
// with datasets.Open; then a replay of the recording, scrubbed to a step
// with the arrow keys, shows that step's position.
func TestBrowserPlaysEveryGame(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "rec")
	ctx, base := browser(t, Config{RecordDir: rec})
	for _, g := range browserGames {
		t.Run(g.env, func(t *testing.T) {
			if _, err := env.Lookup(g.env); err != nil {
				t.Skip(err)
			}
			url := base + "/#play=" + g.env + "&delay=0&" + g.hash
			open(ctx, t, url)
			clicks := playToEnd(ctx, t, 0)
			var s pageState
			for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
				if s = state(ctx, t); s.Record != "" || s.Error != "" {
					break
				}
			}
			if s.Record == "" {
				t.Fatalf("after %d clicks: no recording (%+v)", clicks, s)
			}
			var shown string
			if err := run(ctx, chromedp.WaitVisible("#result", chromedp.ByID),
				chromedp.AttributeValue("#result", "data-scores", &shown, nil, chromedp.ByID)); err != nil {
				t.Fatal(err)
			}
			var scores []float64
			if err := json.Unmarshal([]byte(shown), &scores); err != nil {
				t.Fatalf("scores %q: %v", shown, err)
			}
			d, ep := recordedEpisode(t, rec, s.Record)
			if !slices.Equal(ep.Scores, scores) || ep.Seats[0] != Human {
				t.Fatalf("page shows scores %v, the recording %v (seats %v)", scores, ep.Scores, ep.Seats)
			}
			t.Logf("%d clicks, scores %v, recorded as %s (%d steps)", clicks, scores, s.Record, ep.Length)

			// Replay the recording, step with the keys, check the position.
			want := min(3, ep.Length)
			var stepText, boardText string
			if err := run(ctx, chromedp.Click("#record-name a", chromedp.ByQuery),
				chromedp.WaitVisible("#replay-controls", chromedp.ByID),
				chromedp.Sleep(300*time.Millisecond), chromedp.KeyEvent(kb.End), chromedp.Sleep(300*time.Millisecond),
				chromedp.KeyEvent(kb.Home), chromedp.Sleep(300*time.Millisecond)); err != nil {
				t.Fatal(err)
			}
			// Each key waits for the step it asks for (a loaded machine is
			// slow to answer; a fixed pause was not always enough).
			atStep := func(k int) chromedp.Action {
				return chromedp.Poll(fmt.Sprintf(`document.getElementById("replay-step").dataset.step === "%d"`, k), nil,
					chromedp.WithPollingTimeout(20*time.Second))
			}
			if err := run(ctx, atStep(0)); err != nil {
				t.Fatalf("replay at Home: %v", err)
			}
			for k := range want {
				if err := run(ctx, chromedp.KeyEvent(kb.ArrowRight), atStep(k+1)); err != nil {
					t.Fatalf("replay after %d presses of the right arrow: %v", k+1, err)
				}
			}
			if err := run(ctx, chromedp.Sleep(300*time.Millisecond),
				chromedp.AttributeValue("#replay-step", "data-step", &stepText, nil, chromedp.ByID),
				chromedp.Text("#text", &boardText, chromedp.ByID)); err != nil {
				t.Fatal(err)
			}
			if stepText != fmt.Sprint(want) {
				t.Fatalf("replay shows step %s, want %d", stepText, want)
			}
			wantText := positionText(t, d, want)
			if strings.TrimSpace(boardText) != strings.TrimSpace(wantText) {
				t.Fatalf("replay at step %d shows\n%s\nwant\n%s", want, boardText, wantText)
			}
		})
	}
}

// positionText is the face-up text of episode 0 of d after n steps,
// replayed here from the dataset's env id, seed and actions.
func positionText(t *testing.T, d *datasets.Dataset, n int) string {
	t.Helper()
	e, err := env.Make(d.Manifest.EnvID, d.Manifest.EnvParams)
	if err != nil {
		t.Fatal(err)
	}
	var seed uint64
	for ep, err := range d.Episodes() {
		if err != nil {
			t.Fatal(err)
		}
		if ep.ID == 0 {
			seed = ep.Seed
		}
	}
	e.Reset(seed)
	i := 0
	for st, err := range d.Steps() {
		if err != nil {
			t.Fatal(err)
		}
		if st.EpisodeID != 0 {
			continue
		}
		if i == n || st.Action < 0 {
			break
		}
		if _, err := e.Step(st.Action); err != nil {
			t.Fatal(err)
		}
		i++
	}
	return mustFaceUp(t, e).Text
}

// TestBrowserToken: with a token, the page without it asks for it; given
// once, it connects and plays.
func TestBrowserToken(t *testing.T) {
	ctx, base := browser(t, Config{Token: "s3cret"})
	var asked bool
	if err := run(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible("#token-box", chromedp.ByID),
		chromedp.Evaluate("!document.getElementById('token-box').hidden", &asked)); err != nil || !asked {
		t.Fatalf("the page did not ask for the token: %v", err)
	}
	if err := run(ctx, chromedp.SendKeys("#token", "s3cret", chromedp.ByID), chromedp.Click("#token-form button", chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var n int
		if err := run(ctx, chromedp.Evaluate("galaxygym.envs.length", &n)); err == nil && n > 0 {
			break
		}
		if time.Now().After(end) {
			var dbg string
			_ = run(ctx, chromedp.Evaluate("document.getElementById('conn').textContent + ' | ' + location.href + ' | ' + sessionStorage.getItem('galaxygym-token') + ' | ' + document.getElementById('token').value", &dbg))
			t.Fatalf("no games after the token was given: %s", dbg)
		}
	}
	// The token is kept for the tab: a link that sets up a game plays.
	open(ctx, t, base+"/#play=galaxy-express-v1&delay=0&seats=human")
	if playToEnd(ctx, t, 2) != 2 {
		t.Fatal("no moves")
	}
}

// handovers counts the hand-over screens playToEnd passed.
var handovers int

// TestBrowserHotSeat: two people on one browser (Express, both seats
// human): the page covers the board when the decision passes from one seat
// to the other, and the game plays to the end.
func TestBrowserHotSeat(t *testing.T) {
	ctx, base := browser(t, Config{})
	open(ctx, t, base+"/#play=express-v1&delay=0&p.players=2&p.hand_only=true&seats=human,human")
	_ = run(ctx, chromedp.Evaluate(watchErrors, nil))
	clicks := playToEnd(ctx, t, 0)
	if handovers == 0 {
		t.Fatalf("%d moves, no hand-over screen", clicks)
	}
	t.Logf("%d moves, %d hand-overs", clicks, handovers)
}

var nameRE = regexp.MustCompile(`-v[0-9]+$`)

// TestScreenshots writes docs/img/play-<game>.png (make screenshots): each
// game's page at 1280x800 a few moves into a game, from seat 0's view; and
// play-<game>-phone.png, the screen of a phone (390x844).
func TestScreenshots(t *testing.T) {
	if *screenshots == "" {
		t.Skip("-screenshots DIR not given")
	}
	ctx, base := browser(t, Config{})
	if err := os.MkdirAll(*screenshots, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, g := range browserGames {
		url := base + "/#play=" + g.env + "&delay=0&" + strings.Replace(g.hash, "p.max_turns=12", "p.max_turns=40", 1)
		open(ctx, t, url)
		playToEnd(ctx, t, 6)
		var png []byte
		if err := run(ctx, chromedp.EmulateViewport(1280, 800), chromedp.Sleep(500*time.Millisecond),
			chromedp.Evaluate(`document.getElementById('info').scrollTop = 0; window.scrollTo(0, 0)`, nil),
			chromedp.CaptureScreenshot(&png)); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(*screenshots, "play-"+nameRE.ReplaceAllString(g.env, "")+".png")
		if err := os.WriteFile(out, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", out)
		// The same page on a phone's screen (390x844), as its person sees
		// it: the top of the board, the moves' bar at the bottom.
		if err := run(ctx, chromedp.EmulateViewport(390, 844), chromedp.Sleep(500*time.Millisecond),
			chromedp.Evaluate(`window.scrollTo(0, 0)`, nil),
			chromedp.CaptureScreenshot(&png), chromedp.EmulateViewport(1280, 800)); err != nil {
			t.Fatal(err)
		}
		out = filepath.Join(*screenshots, "play-"+nameRE.ReplaceAllString(g.env, "")+"-phone.png")
		if err := os.WriteFile(out, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", out)
	}
}

// TestBrowserHints: in Chromium, at Trio: the Hint button writes the hint
// agent's numbers into the move buttons (each with its words and a tooltip
// of the game's help), and after a move the seats' lines say the person's
// own last move in the game's words.
func TestBrowserHints(t *testing.T) {
	ctx, base := browser(t, Config{})
	open(ctx, t, base+"/#play=envtest-trio-v1&delay=0&p.players=2&seats=human,random&hint=mcts")
	eval := func(js string, out any) {
		t.Helper()
		if err := run(ctx, chromedp.Evaluate(js, out)); err != nil {
			t.Fatal(err)
		}
	}
	for end := time.Now().Add(time.Minute); state(ctx, t).Acts == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("no move offered")
		}
	}
	var title, text string
	eval(`document.querySelector('#actions button.act').title`, &title)
	eval(`document.querySelector('#actions button.act').textContent`, &text)
	if !strings.HasPrefix(text, "take the") || !strings.Contains(title, "score") {
		t.Fatalf("a move button reads %q, tooltip %q: not the scene's words and help", text, title)
	}
	if err := run(ctx, chromedp.Click("#hint", chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	hinted := false
	for wait := time.Now().Add(30 * time.Second); time.Now().Before(wait) && !hinted; time.Sleep(50 * time.Millisecond) {
		var note string
		eval(`document.getElementById('hint-note').textContent`, &note)
		hinted = strings.Contains(note, "mcts would play take the")
	}
	if !hinted {
		t.Fatal("the hint did not arrive")
	}
	var nums int
	eval(`[...document.querySelectorAll('#actions button.act .num')].length`, &nums)
	if nums == 0 {
		t.Fatal("no numbers in the move buttons")
	}
	s := state(ctx, t)
	if err := run(ctx, chromedp.Click("#actions button.act", chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(30 * time.Second); state(ctx, t).Version == s.Version && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
	}
	var mine string
	eval(`document.querySelector('ul.seats li .move') ? document.querySelector('ul.seats li .move').textContent : ''`, &mine)
	if !strings.Contains(mine, "take the") {
		t.Fatalf("my last move on my seat's line: %q", mine)
	}
}

// run is chromedp.Run bounded by a minute, so that a query for an element
// that never shows fails the test instead of hanging it until go test's
// own timeout.
func run(ctx context.Context, actions ...chromedp.Action) error {
	return runFor(ctx, time.Minute, actions...)
}

// runFor is chromedp.Run bounded by d (the tab stays open when d runs out).
// The first Run of a chromedp context starts the browser under the context
// it is given, so that one runs on ctx itself: a bounded context would
// close the browser when it ends.
func runFor(ctx context.Context, d time.Duration, actions ...chromedp.Action) error {
	if c := chromedp.FromContext(ctx); c != nil && c.Browser == nil {
		if err := chromedp.Run(ctx); err != nil {
			return err
		}
	}
	c, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	return chromedp.Run(c, actions...)
}

// recordedEpisode reads back the dataset the page recorded as record (the
// status's name) under dir, and its one episode.
func recordedEpisode(t *testing.T, dir, record string) (*datasets.Dataset, *datasets.Episode) {
	t.Helper()
	d, err := datasets.Open(filepath.Join(dir, filepath.Base(record)))
	if err != nil {
		t.Fatal(err)
	}
	var ep *datasets.Episode
	for e, err := range d.Episodes() {
		if err != nil {
			t.Fatal(err)
		}
		ep = e
	}
	if ep == nil {
		t.Fatalf("%s holds no episode", record)
	}
	return d, ep
}
