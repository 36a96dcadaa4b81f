package play

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/env/envtest/trio"
)

// boardGames are the games the board test plays by clicking the board:
// Trio (the test game, which presents itself) and the four games, each
// run once its presenter has landed (skipped until then).
var boardGames = append([]struct{ env, hash string }{
	{trio.ID, "p.players=2&seats=human,random"},
	{pickID, "p.players=2&seats=human,random"},
}, browserGames...)

// viewports are the screens the board test plays on: a desktop and a phone.
var viewports = []struct {
	name string
	w, h int64
}{{"desktop", 1280, 800}, {"phone", 390, 844}, {"small-phone", 360, 740}}

// boardStep is what the board test reads of the page before each click.
type boardStep struct {
	pageState
	// Click is the centre of the thing to click (x, y in CSS pixels), or
	// Button the index of a move-bar button when no move has anything to
	// click; Wait when nothing is to be done (not my move, a forced move
	// about to be played).
	X, Y     float64
	ID       string
	Kind     string
	Button   int
	Overflow bool
	Errors   []string
	// What the page offered: the seat to move, the things lit and the
	// things to pick on the board, the id picked.
	ToMove     int `json:"to_move"`
	Lit        int
	Selectable int
	Picked     string
}

// pickJS chooses the next click as a person would: a move in the
// chooser; a lit target of the piece or card picked; something to pick
// (the middle one); else, when the moves involve nothing on the board, a
// button. It scrolls the thing into view and returns its centre; kind
// wait when it is not the person's move, moving while something on the
// page is still moving (measured then, a sliding card or a moving piece
// is clicked where it no longer is, and the click misses).
const pickJS = `(() => {
  const out = {kind: 'wait', button: -1, overflow: document.scrollingElement.scrollWidth > window.innerWidth,
    errors: window.__errs || [], to_move: -1, lit: document.querySelectorAll('#scene .lit').length,
    selectable: document.querySelectorAll('#scene .selectable').length,
    picked: [...document.querySelectorAll('#scene .picked')].map((e) => e.dataset.id).join(' ')};
  const s = galaxygym.table, v = galaxygym.view;
  if (v) out.to_move = v.to_move;
  if (!s || s.over || !v || !s.yours.includes(v.seat) || v.to_move !== v.seat || !v.actions || !v.actions.length) return JSON.stringify(out);
  // A card sliding to its new place, or a piece moving, is not clicked
  // where it is drawn now: wait until they stand still.
  if (document.getAnimations().some((a) => a.playState === 'running' && a.effect && a.effect.getComputedTiming().iterations !== Infinity)) {
    out.kind = 'moving'; return JSON.stringify(out); }
  const centre = (el) => { el.scrollIntoView({block: 'center', inline: 'center'}); const r = el.getBoundingClientRect();
    out.x = r.left + r.width / 2; out.y = r.top + r.height / 2; out.id = el.dataset.id || ''; };
  const ch = document.getElementById('chooser');
  if (!ch.hidden) { const b = ch.querySelector('button.choice'); centre(b); out.kind = 'chooser'; return JSON.stringify(out); }
  if (v.actions.length === 1 && document.getElementById('auto-forced').checked) return JSON.stringify(out);
  const lit = [...document.querySelectorAll('#scene .lit')];
  if (lit.length) { centre(lit[Math.floor(lit.length / 2)]); out.kind = 'target'; return JSON.stringify(out); }
  const sel = [...document.querySelectorAll('#scene .selectable')].filter((el) => !el.classList.contains('picked'));
  if (sel.length) { centre(sel[Math.floor(sel.length / 2)]); out.kind = 'pick'; return JSON.stringify(out); }
  const clickable = (v.scene.moves || []).filter((m) => (m.select && m.select.length) || (m.target && m.target.length));
  if (clickable.length) { out.kind = 'stuck'; return JSON.stringify(out); }
  const prompt = [...document.querySelectorAll('#scene button.prompt-move')];
  if (prompt.length) { centre(prompt[Math.floor(prompt.length / 2)]); out.id = 'prompt'; out.kind = 'prompt'; return JSON.stringify(out); }
  out.kind = 'button'; out.button = Math.floor(v.actions.length / 2);
  return JSON.stringify(out);
})()`

// watchErrors keeps every error the page shows (its toasts) in __errs.
const watchErrors = `window.__errs = []; window.addEventListener('error', (e) => window.__errs.push('script: ' + e.message + ' ' + e.filename + ':' + e.lineno));
  window.addEventListener('unhandledrejection', (e) => window.__errs.push('script: ' + e.reason));
  new MutationObserver(() => { const t = document.getElementById('toast');
  if (!t.hidden && t.textContent) window.__errs.push(t.textContent); }).observe(document.getElementById('toast'), {childList: true, attributes: true});`

// watchClicks keeps, for a failure's message, the last clicks the page
// received (where, on what, with the picked id after it) in __clicks, the
// last messages it sent in __sent and the last it received in __got (op,
// steps, to_move, the number of moves).
const watchClicks = `window.__clicks = []; window.__sent = [];
  document.addEventListener('click', (e) => { const d = e.target.closest && e.target.closest('[data-id]');
    window.__clicks.push([Math.round(e.clientX), Math.round(e.clientY), e.target.tagName + (d ? ' ' + d.dataset.id : '')]);
    setTimeout(() => window.__clicks[window.__clicks.length - 1].push(galaxygym.sel ? galaxygym.sel.id : null), 0);
    window.__clicks.splice(0, window.__clicks.length - 10); }, true);
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (d) { window.__sent.push(String(d).slice(0, 160)); window.__sent.splice(0, window.__sent.length - 10); return send.call(this, d); };
  window.__got = []; const ws = galaxygym.ws, om = ws.onmessage;
  ws.onmessage = (ev) => { try { const m = JSON.parse(ev.data); window.__got.push([m.op, m.status && m.status.steps, m.view && m.view.to_move, m.view && m.view.actions && m.view.actions.length, m.req]);
    window.__got.splice(0, window.__got.length - 12); } catch (e) { window.__got.push(String(e)); } return om.call(ws, ev); };`

// TestBrowserClicksBoard: in Chromium, at 1280x800, 390x844 and 360x740,
// a person plays each game that presents itself to the end by clicking
// the pieces, cards and spaces of the board, and the board's prompt
// buttons for moves that involve nothing on it (refuel, pass), never the
// move list; the page never scrolls sideways, shows no error, and its
// game-over panel shows the returns of the recorded episode; the rematch
// starts a new table with the person at the next seat.
func TestBrowserClicksBoard(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "rec")
	// Each game leaves its rematch running, its seat held for the grace
	// period: room for all of them from the one address (the limit has
	// tests of its own).
	ctx, base := browser(t, Config{RecordDir: rec, Limits: Limits{MaxTablesPerAddr: 4 * len(boardGames) * len(viewports)}})
	for _, g := range boardGames {
		for _, vp := range viewports {
			t.Run(g.env+"/"+vp.name, func(t *testing.T) {
				game, err := env.Lookup(g.env)
				if err != nil {
					t.Skip(err)
				}
				if _, ok := game.(env.Presenter); !ok {
					t.Skipf("%s does not present itself (env.Presenter) yet: nothing to click", g.env)
				}
				// Each game has a deadline of its own: a slow one fails alone
				// (the tab stays open for the next).
				ctx, cancel := context.WithTimeout(ctx, *boardGame)
				defer cancel()
				if err := run(ctx, chromedp.EmulateViewport(vp.w, vp.h)); err != nil {
					t.Fatal(err)
				}
				open(ctx, t, base+"/#play="+g.env+"&delay=0&"+g.hash)
				if err := run(ctx, chromedp.Evaluate(watchErrors+watchClicks, nil)); err != nil {
					t.Fatal(err)
				}
				kinds := playByBoard(ctx, t)
				if kinds["button"] > 0 {
					t.Fatalf("%d moves were played from the move list (clicks %v): every move must be on the board", kinds["button"], kinds)
				}
				var s pageState
				for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
					if s = state(ctx, t); s.Record != "" || s.Error != "" {
						break
					}
				}
				if s.Record == "" {
					t.Fatalf("no recording (%+v)", s)
				}
				var shown string
				var overflow bool
				if err := run(ctx, chromedp.WaitVisible("#result", chromedp.ByID),
					chromedp.AttributeValue("#result", "data-returns", &shown, nil, chromedp.ByID),
					chromedp.Evaluate(`document.scrollingElement.scrollWidth > window.innerWidth`, &overflow)); err != nil {
					t.Fatal(err)
				}
				if overflow {
					t.Fatal("the game-over page scrolls sideways")
				}
				var returns []float64
				if err := json.Unmarshal([]byte(shown), &returns); err != nil {
					t.Fatalf("returns %q: %v", shown, err)
				}
				_, ep := recordedEpisode(t, rec, s.Record)
				if !slices.Equal(ep.Returns, returns) {
					t.Fatalf("the game-over panel shows returns %v, the recording %v", returns, ep.Returns)
				}
				var head string
				if err := run(ctx, chromedp.Text("#headline", &head, chromedp.ByID)); err != nil {
					t.Fatal(err)
				}
				if head == "" || strings.Contains(head, "undefined") || strings.Contains(head, "NaN") || !strings.HasPrefix(head, "You") && !strings.HasPrefix(head, "A draw") {
					t.Fatalf("the headline to the person seated: %q", head)
				}
				if len(returns) == 2 && returns[0] != returns[1] && !strings.HasPrefix(head, "Your team") && !strings.HasPrefix(head, map[bool]string{true: "You won", false: "You lost"}[returns[0] > returns[1]]) {
					t.Fatalf("headline %q with returns %v", head, returns)
				}
				var errs []string
				if err := run(ctx, chromedp.Evaluate(`window.__errs`, &errs)); err != nil {
					t.Fatal(err)
				}
				if len(errs) > 0 {
					t.Fatalf("the page showed errors: %q", errs)
				}
				t.Logf("clicks %v, returns %v, headline %q", kinds, returns, head)
				// The rematch: a new table, the person one seat along.
				old := s.Version
				if err := run(ctx, chromedp.Click("#rematch", chromedp.ByID)); err != nil {
					t.Fatal(err)
				}
				var yours []int
				for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
					var js string
					if err := run(ctx, chromedp.Evaluate(`JSON.stringify(galaxygym.table.over ? null : galaxygym.table.yours)`, &js)); err == nil && state(ctx, t).Version > old {
						_ = json.Unmarshal([]byte(js), &yours)
						if len(yours) > 0 {
							break
						}
					}
				}
				if want := 1 % len(returns); len(yours) != 1 || yours[0] != want { // solitaire: seat 0 again
					t.Fatalf("after the rematch this page plays seats %v, want [%d]", yours, want)
				}
			})
		}
	}
}

var boardTrace = flag.Bool("board-trace", false, "TestBrowserClicksBoard logs every click")

var boardStall = flag.Duration("board-stall", 90*time.Second, "how long TestBrowserClicksBoard waits for a position to change")

var boardGame = flag.Duration("board-game", 5*time.Minute, "how long one game of TestBrowserClicksBoard may take, rematch included (its own deadline: a slow game fails alone)")

var boardMaxClicks = flag.Int("board-max-clicks", 600, "the most clicks one game of TestBrowserClicksBoard may take")

// boardClick is one click of playByBoard, as its ring keeps it, or a
// click not made (miss: what stood at the point instead).
type boardClick struct {
	at      time.Time
	step    boardStep
	version int
	miss    string
}

// clickRing keeps the last len(buf) clicks (and clicks not made) of a
// game, to tell what led to a failure.
type clickRing struct {
	buf [40]boardClick
	n   int // entries added
}

func (r *clickRing) add(c boardClick) { r.buf[r.n%len(r.buf)] = c; r.n++ }

// String lists the clicks kept, oldest first: time, kind, id, where,
// the version clicked at, the seat to move, lit and selectable things
// and the id picked when the click was chosen.
func (r *clickRing) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the last %d of %d clicks and misses:", min(r.n, len(r.buf)), r.n)
	for i := max(0, r.n-len(r.buf)); i < r.n; i++ {
		c := r.buf[i%len(r.buf)]
		fmt.Fprintf(&b, "\n  %s %-7s %-22q at %4.0f,%4.0f  version %d  to_move %d  lit %d  selectable %d  picked %q",
			c.at.Format("15:04:05.000"), c.step.Kind, c.step.ID, c.step.X, c.step.Y, c.version, c.step.ToMove, c.step.Lit, c.step.Selectable, c.step.Picked)
		if c.miss != "" {
			fmt.Fprintf(&b, "  not clicked: %q", c.miss)
		}
	}
	return b.String()
}

// pageDump is what the page shows, for a failure's message.
const pageDump = `JSON.stringify({t: galaxygym.table, v: galaxygym.view && {seat: galaxygym.view.seat, to_move: galaxygym.view.to_move,
  actions: (galaxygym.view.actions||[]).map((a) => a.a), moves: galaxygym.view.scene && (galaxygym.view.scene.moves||[]).map((m) => [m.a, m.name, m.select, m.target])},
  conn: document.getElementById('conn').textContent, ws: galaxygym.ws && galaxygym.ws.readyState, acted: galaxygym.actedAt, acted_ms_ago: Date.now() - galaxygym.actedTime, forced: galaxygym.forcedAt,
  sel: galaxygym.sel, version: galaxygym.version, chooser: !document.getElementById('chooser').hidden,
  ids: [...document.querySelectorAll('#scene [data-id]')].map((e) => e.dataset.id + (e.classList.contains('selectable') ? '*' : '') + (e.classList.contains('lit') ? '+' : '') + (e.classList.contains('picked') ? '!' : '')).join(' '),
  banner: document.getElementById('banner').textContent, errs: window.__errs, clicks: window.__clicks, sent: window.__sent, got: window.__got, onclick: !!document.getElementById('scene').onclick,
  status_to_move: galaxygym.table && galaxygym.table.to_move, over: galaxygym.table && galaxygym.table.over,
  probe: (() => { const sc = document.getElementById('scene'), el = sc.querySelector('.selectable'); if (!el || !sc.onclick) return 'nothing to probe';
    const r = el.getBoundingClientRect(), n = window.__sent.length; let err = '';
    try { sc.onclick({clientX: r.left + r.width / 2, clientY: r.top + r.height / 2, stopPropagation() {}}); } catch (e) { err = String(e && e.stack || e); }
    return {id: el.dataset.id, sent: window.__sent.slice(n), err, sel: galaxygym.sel, acted: galaxygym.actedAt, chooser: !document.getElementById('chooser').hidden}; })()})`

// dumpPage is pageDump read under a context of its own (ctx may be past
// its deadline: the tab is still open).
func dumpPage(ctx context.Context) string {
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	var dbg string
	if err := chromedp.Run(dctx, chromedp.Evaluate(pageDump, &dbg)); err != nil {
		return "(the page could not be read: " + err.Error() + ")"
	}
	return dbg
}

// playByBoard clicks the board until the game is over; it returns how
// many clicks of each kind it made. When the game fails (a stall, too
// many clicks, ctx's deadline, anything), the test's log has the last
// clicks and the page's state.
func playByBoard(ctx context.Context, t *testing.T) map[string]int {
	t.Helper()
	kinds := map[string]int{}
	var ring clickRing
	clicks := 0
	defer func() {
		if t.Failed() {
			t.Logf("clicks %v; %s\npage: %s", kinds, ring.String(), dumpPage(ctx))
		}
	}()
	// The game fails to end when the position stays the same for
	// boardStall (a loaded machine plays slowly, but it plays), or after
	// boardMaxClicks clicks (a game that goes round in circles).
	deadline, last := time.Now().Add(*boardStall), -1
	var stuckSince time.Time
	misses := 0
	for time.Now().Before(deadline) {
		if ctx.Err() != nil {
			t.Fatalf("the game did not end within -board-game %v (clicks %v)", *boardGame, kinds)
		}
		if clicks >= *boardMaxClicks {
			t.Fatalf("the game did not end after %d clicks (-board-max-clicks; clicks %v)", clicks, kinds)
		}
		s := state(ctx, t)
		if s.Version != last {
			deadline, last = time.Now().Add(*boardStall), s.Version
		}
		if s.Error != "" {
			t.Fatalf("the page shows an error: %s", s.Error)
		}
		if s.Over {
			return kinds
		}
		var js string
		if err := run(ctx, chromedp.Evaluate(pickJS, &js)); err != nil {
			t.Fatal(err)
		}
		var b boardStep
		if err := json.Unmarshal([]byte(js), &b); err != nil {
			t.Fatal(err)
		}
		if b.Overflow {
			t.Fatal("the page scrolls sideways")
		}
		if len(b.Errors) > 0 {
			t.Fatalf("the page showed errors: %q", b.Errors)
		}
		switch b.Kind {
		case "wait", "moving":
			time.Sleep(30 * time.Millisecond)
			continue
		case "stuck":
			// The board may be between two positions: look again, and fail
			// only when nothing is offered for a while.
			if stuckSince.IsZero() {
				stuckSince = time.Now()
			}
			if time.Since(stuckSince) > 3*time.Second {
				var dbg string
				_ = run(ctx, chromedp.Evaluate(`JSON.stringify({moves: galaxygym.view.scene.moves.map((m) => [m.name, m.select, m.target]), sel: [...document.querySelectorAll('#scene .selectable')].length, picked: [...document.querySelectorAll('#scene .picked')].map((e) => e.id || e.dataset.id), lit: [...document.querySelectorAll('#scene .lit')].length, ids: [...document.querySelectorAll('#scene [data-id]')].map((e) => e.dataset.id + (e.classList.contains('selectable') ? '*' : '')).join(' '), hidden: document.getElementById('scene').hidden, history: window.ggResearch.state.at, yours: galaxygym.table.yours, seat: galaxygym.view.seat, tm: galaxygym.view.to_move})`, &dbg))
				t.Fatalf("moves involve things on the board, and nothing is offered to click: %s", dbg)
			}
			time.Sleep(50 * time.Millisecond)
			continue
		case "button":
			// Clicked from the page's script: the move list is redrawn with
			// each position, and a node found by one query may be gone by the
			// time a mouse event reaches it.
			if err := runFor(ctx, 5*time.Second, chromedp.Evaluate(fmt.Sprintf(`(() => { const b = document.querySelectorAll('#actions button.act')[%d]; if (b) b.click(); })()`, b.Button), nil)); err != nil {
				t.Fatal(err)
			}
		default:
			// The page may have moved between the look and the click (a
			// panel redrawn above it): click only what is still there.
			if there := clickable(ctx, t, b); there != "ok" && there != "chooser" {
				ring.add(boardClick{time.Now(), b, s.Version, "at the point: " + there})
				if misses++; misses > 100 {
					t.Fatalf("the thing to click, %q at %.0f,%.0f, is not clickable: %s", b.ID, b.X, b.Y, there)
				}
				continue
			}
			if err := run(ctx, chromedp.MouseClickXY(b.X, b.Y)); err != nil {
				t.Fatal(err)
			}
		}
		stuckSince, misses = time.Time{}, 0
		kinds[b.Kind]++
		clicks++
		ring.add(boardClick{time.Now(), b, s.Version, ""})
		if *boardTrace {
			t.Logf("%s click %s %q at %.0f,%.0f (version %d, to_move %d, lit %d, selectable %d, picked %q)",
				time.Now().Format("15:04:05.000"), b.Kind, b.ID, b.X, b.Y, s.Version, b.ToMove, b.Lit, b.Selectable, b.Picked)
		}
		if b.Kind == "pick" {
			// Picked (its targets lit), or played at once: wait for either.
			for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
				var picked bool
				_ = run(ctx, chromedp.Evaluate(`!!document.querySelector('#scene .picked') || !document.getElementById('chooser').hidden`, &picked))
				if picked || state(ctx, t).Version != s.Version {
					break
				}
			}
			continue
		}
		// The move answered (a new position), or, like a person whose click
		// did not take, look again after a while. (A chooser's move too: read
		// at once, the old position offered its piece again, and the test
		// opened the chooser a second time.)
		for wait := time.Now().Add(5 * time.Second); time.Now().Before(wait) && state(ctx, t).Version == s.Version; {
			time.Sleep(10 * time.Millisecond)
		}
	}
	t.Fatalf("the game stopped: the position stayed the same for %v (clicks %v, %d misses in a row)", *boardStall, kinds, misses)
	return nil
}

// clickable says whether b's thing is still at b.X, b.Y: "ok", "chooser"
// (a move of the chooser), else what is there instead.
func clickable(ctx context.Context, t *testing.T, b boardStep) string {
	t.Helper()
	var there string
	if err := run(ctx, chromedp.Evaluate(fmt.Sprintf(`(() => { const hits = document.elementsFromPoint(%f, %f);
  if (!hits.length) return '';
  if (hits[0].closest('#chooser button')) return 'chooser';
  if (hits[0].closest('#scene button.prompt-move')) return 'ok';
  const d0 = (e) => e.tagName + '#' + e.id + '.' + e.className + ' ' + (e.textContent || '').slice(0, 40);
  if (!hits[0].closest('#scene')) return 'covered by ' + d0(hits[0]) + ' < ' + (hits[0].parentElement ? d0(hits[0].parentElement) : '');
  return hits.some((e) => { const d = e.closest('#scene [data-id]'); return !!d && d.dataset.id === %q; }) ? 'ok' : ''; })()`, b.X, b.Y, b.ID), &there)); err != nil {
		t.Fatal(err)
	}
	return there
}

// pickGame is Trio presented the other way a board is played: pick a card
// (a piece), then the slot it goes to (a space), or take the top slot's
// card by clicking the slot alone; its id is pickID. It tests the page's
// select-then-target and target-only moves, which Trio's own scene has
// none of.
type pickGame struct{ trio.Game }

const pickID = "zz-test-pick-v1"

var pickSpec = func() *env.Spec {
	sp := *trio.Game{}.Spec()
	sp.ID = pickID
	return &sp
}()

func init() { env.Register(pickGame{}) }

func (pickGame) Spec() *env.Spec { return pickSpec }

func (g pickGame) Present(p env.Params, seat int, obs []uint8, legal []int) (*env.Scene, error) {
	sc, err := g.Game.Present(p, seat, obs, legal)
	if err != nil {
		return nil, err
	}
	for i := range sc.Moves {
		m := &sc.Moves[i]
		m.Name = pickSpec.ActionNames[m.A]
		if m.A == 0 {
			m.Select, m.Target = nil, []string{"slot-0"}
			continue
		}
		m.Target = []string{sc.Spaces[m.A].ID}
	}
	return sc, nil
}
