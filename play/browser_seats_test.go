package play

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// frames records the websocket messages a tab receives.
type frames struct {
	mu  sync.Mutex
	got []string
}

// listen opens the tab of ctx and records its websocket messages.
func listen(ctx context.Context, t *testing.T) *frames {
	t.Helper()
	// The first Run of a tab opens it for the life of the context it is
	// given: ctx itself, not a bounded one.
	if err := chromedp.Run(ctx); err != nil {
		t.Fatal(err)
	}
	f := &frames{}
	chromedp.ListenTarget(ctx, func(ev any) {
		if e, ok := ev.(*network.EventWebSocketFrameReceived); ok {
			f.mu.Lock()
			f.got = append(f.got, e.Response.PayloadData)
			f.mu.Unlock()
		}
	})
	return f
}

// holding returns the received messages that contain any of secrets.
func (f *frames) holding(secrets ...string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, m := range f.got {
		for _, s := range secrets {
			if strings.Contains(m, s) {
				out = append(out, m)
				break
			}
		}
	}
	return out
}

func (f *frames) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.got)
}

// waitJS evaluates js (a string expression) until it is not empty, for
// up to 30 s, and returns it.
func waitJS(ctx context.Context, t *testing.T, what, js string) string {
	t.Helper()
	var out string
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if err := run(ctx, chromedp.Evaluate(js, &out)); err == nil && out != "" {
			return out
		}
	}
	t.Fatalf("waited 30 s for %s", what)
	return ""
}

// TestBrowserTwoPeopleHideHands seats two people in one Express game from
// two browsers (separate profiles, separate sessionStorage): the first
// starts it with seat 1 invited by link, the second opens the link. Neither
// reaches the other's hand: a third tab opening the table's link (or the
// other seat's link, or asking for a seat's view) gets the public view, and
// a reload brings each person back to their own seat and hand. The page's
// text and every websocket message each tab received are searched for the
// other hand's cards.
func TestBrowserTwoPeopleHideHands(t *testing.T) {
	ctxA, base := browser(t, Config{})
	ctxB := newBrowser(t, chromium(t))
	logA, logB := listen(ctxA, t), listen(ctxB, t)
	// Forced moves are not played for them: a reload must find the hand
	// as it was (a forced draw would change it).
	for _, ctx := range []context.Context{ctxA, ctxB} {
		if err := run(ctx, chromedp.Navigate(base+"/"), chromedp.Evaluate(`localStorage.setItem('galaxygym-auto-forced', '0')`, nil)); err != nil {
			t.Fatal(err)
		}
	}
	open(ctxA, t, base+"/#play=express-v2&delay=0&p.players=2&p.hand_only=true&seats=human,invite")
	link := waitJS(ctxA, t, "the link for seat 1", `galaxygym.table && galaxygym.table.yours.join() === '0' ? document.getElementById('share-link').value : ''`)
	if !strings.HasSuffix(link, "&seat=1") {
		t.Fatalf("the link to send: %q", link)
	}
	id := strings.TrimSuffix(link[strings.Index(link, "#table=")+len("#table="):], "&seat=1")
	if err := run(ctxB, chromedp.Navigate(link)); err != nil {
		t.Fatal(err)
	}
	const myHand = `galaxygym.view && galaxygym.table.yours.length && galaxygym.view.hand ? galaxygym.table.yours.join() + '|' + galaxygym.view.hand : ''`
	waitJS(ctxA, t, "seat 1 taken", `galaxygym.table && galaxygym.table.held[1] ? 'yes' : ''`)
	handOf := func(ctx context.Context, seat string) string {
		t.Helper()
		got := strings.SplitN(waitJS(ctx, t, "seat "+seat+"'s hand", myHand), "|", 2)
		if got[0] != seat {
			t.Fatalf("the page plays seats %s, want %s", got[0], seat)
		}
		cards := handCards.FindString(got[1])
		if cards == "" {
			t.Fatalf("seat %s: no cards in the hand %q", seat, got[1])
		}
		return cards
	}
	handA, handB := handOf(ctxA, "0"), handOf(ctxB, "1")
	if handA == handB {
		t.Fatalf("both hands read %s: the test cannot tell them apart", handA)
	}
	var stored string
	if err := run(ctxB, chromedp.Evaluate(`location.href + ' ' + JSON.stringify(Object.keys(sessionStorage))`, &stored)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stored, "galaxygym-secret:"+id+":1") {
		t.Fatalf("the second browser keeps no secret for seat 1: %s", stored)
	}
	for _, b := range []struct {
		ctx  context.Context
		name string
	}{{ctxA, "the first person's browser"}, {ctxB, "the second person's browser"}} {
		// A third tab, without the secrets: the table's link, the other
		// seat's link, a seat's view asked for.
		tab, cancel := chromedp.NewContext(b.ctx)
		logT := listen(tab, t)
		for i, hash := range []string{"#table=" + id, "#table=" + id + "&seat=0", "#table=" + id + "&seat=1", "#table=" + id + "&view=0", "#table=" + id + "&view=-1"} {
			n := logT.count()
			go_ := chromedp.Navigate(base + "/" + hash)
			if i > 0 { // the same page: the hash changes (a load would not come)
				go_ = chromedp.Evaluate(fmt.Sprintf("location.hash = %q", hash), nil)
			}
			if err := run(tab, go_); err != nil {
				t.Fatal(err)
			}
			shown := waitJS(tab, t, b.name+": a third tab at "+hash,
				`galaxygym.table && galaxygym.view ? galaxygym.table.yours.length + '|' + galaxygym.view.seat + '|' + document.body.innerText : ''`)
			parts := strings.SplitN(shown, "|", 3)
			if parts[0] != "0" || parts[1] != "-2" {
				t.Fatalf("%s: a third tab at %s plays %s seats and sees view %s", b.name, hash, parts[0], parts[1])
			}
			if strings.Contains(parts[2], handA) || strings.Contains(parts[2], handB) {
				t.Fatalf("%s: a third tab at %s shows a hand:\n%s", b.name, hash, parts[2])
			}
			for end := time.Now().Add(5 * time.Second); logT.count() == n && time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
			}
		}
		if leak := logT.holding(handA, handB); len(leak) > 0 {
			t.Fatalf("%s: a third tab received a hand: %s", b.name, leak[0])
		}
		cancel()
	}
	// Reloads: each person comes back to their own seat and hand.
	for _, r := range []struct {
		ctx        context.Context
		seat, hand string
	}{{ctxB, "1", handB}, {ctxA, "0", handA}} {
		if err := run(r.ctx, chromedp.Reload()); err != nil {
			t.Fatal(err)
		}
		if got := handOf(r.ctx, r.seat); got != r.hand {
			t.Fatalf("seat %s after a reload holds %s, before %s", r.seat, got, r.hand)
		}
	}
	if leak := logA.holding(handB); len(leak) > 0 {
		t.Fatalf("the first person received the second's hand: %s", leak[0])
	}
	if leak := logB.holding(handA); len(leak) > 0 {
		t.Fatalf("the second person received the first's hand: %s", leak[0])
	}
	// The game goes on: whoever is to act moves.
	var toMove int
	if err := run(ctxA, chromedp.Evaluate(`galaxygym.table.to_move`, &toMove)); err != nil {
		t.Fatal(err)
	}
	mover := map[int]context.Context{0: ctxA, 1: ctxB}[toMove]
	if mover == nil {
		t.Fatalf("seat %d to move", toMove)
	}
	if n := playToEnd(mover, t, 1); n != 1 {
		t.Fatalf("seat %d made %d moves", toMove, n)
	}
	waitJS(ctxA, t, "the move seen by the first person", `galaxygym.table && galaxygym.table.steps >= 1 ? 'yes' : ''`)
}
