package play

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/galaxygym/galaxygym/server"
)

// TestBrowserWatchTraining opens the URL a training client prints
// (render_mode="human") in Chromium: the page shows the session's
// position read-only with its banner, and its scene changes after the
// client's steps.
func TestBrowserWatchTraining(t *testing.T) {
	path := chromium(t)
	srv, err := server.New(server.Config{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(Config{Training: srv})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(Mount(srv.Handler(), h))
	t.Cleanup(func() { h.Close(); hs.Close() })
	ctx := newBrowser(t, path)
	tr, id, key := startTrainer(t, strings.TrimPrefix(hs.URL, "http://"))
	if err := run(ctx, chromedp.Navigate(hs.URL+"/play/#training="+id+"&env=0&key="+key)); err != nil {
		t.Fatal(err)
	}
	type seen struct {
		Views  int    `json:"views"`
		Turn   string `json:"turn"`
		Scene  string `json:"scene"`
		Banner string `json:"banner"`
		Acts   int    `json:"acts"`
		Error  string `json:"error"`
	}
	const read = `JSON.stringify({views: (window.galaxygymWatch || {}).views || 0, turn: document.getElementById('board').dataset.turn || '',
	  scene: document.getElementById('scene').innerHTML, banner: document.getElementById('banner').textContent,
	  acts: document.querySelectorAll('#actions button').length, error: (window.galaxygymWatch || {}).error || ''})`
	wait := func(what string, ok func(s seen) bool) seen {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			var s seen
			var js string
			if err := run(ctx, chromedp.Evaluate(read, &js)); err == nil && js != "" {
				if err := json.Unmarshal([]byte(js), &s); err != nil {
					t.Fatal(err)
				}
				if s.Error != "" {
					t.Fatalf("the page: %s (%s)", s.Error, s.Banner)
				}
				if ok(s) {
					return s
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("no %s: %+v", what, s)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	first := wait("first view", func(s seen) bool { return s.Views > 0 && s.Scene != "" })
	if !strings.Contains(first.Banner, "watching training session "+id[:8]+"…, env 0") || first.Acts != 0 {
		t.Fatalf("banner %q, %d action buttons: want the session's banner and none", first.Banner, first.Acts)
	}
	for range 5 {
		tr.step()
	}
	wait("scene change after 5 steps", func(s seen) bool { return s.Turn != first.Turn && s.Scene != first.Scene && s.Acts == 0 })
	// The session ends: the page says so.
	tr.call(map[string]any{"type": "close"})
	wait("the end of the session", func(s seen) bool { return strings.Contains(s.Banner, "ended") })
	// A wrong key: the page says why it shows nothing.
	var banner string
	if err := run(ctx, chromedp.Navigate(hs.URL+"/play/?again#training="+id+"&env=0&key="+strings.Repeat("0", 64))); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(banner, "watch_denied") {
		if time.Now().After(deadline) {
			t.Fatalf("banner %q: want watch_denied", banner)
		}
		time.Sleep(50 * time.Millisecond)
		_ = run(ctx, chromedp.Evaluate(`document.getElementById('banner').textContent`, &banner))
	}
}
