package loadtest

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	_ "github.com/galaxygym/galaxygym/agents/all"
	"github.com/galaxygym/galaxygym/play"
	"github.com/galaxygym/galaxygym/server"
)

// TestPageLoad drives the browser page beside training on one in-process
// `serve` (the training protocol and the page mounted together): the
// page's games move, their watchers read them, and nothing fails.
func TestPageLoad(t *testing.T) {
	srv, err := server.New(server.Config{})
	if err != nil {
		t.Fatal(err)
	}
	page, err := play.New(play.Config{Limits: play.Limits{CPUShare: 1}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(play.Mount(srv.Handler(), page))
	defer ts.Close()
	defer srv.Shutdown(context.Background())
	defer page.Close()
	rep, err := Run(context.Background(), Config{
		URL: "ws" + strings.TrimPrefix(ts.URL, "http") + "/", EnvIDs: []string{"galaxy-express-v1"},
		Sessions: 2, Envs: 4, Duration: 2 * time.Second, Seed: 1,
		Page: PageLoad{Tables: 2, Watchers: 4, Env: "galaxy-fighters-v1", Params: map[string]any{"players": 2, "mission": "rookie"}, Agent: "random"},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + rep.String())
	if rep.Errors != 0 || rep.Page == nil || rep.Page.Errors != 0 {
		t.Fatalf("errors: %d %v; page %+v", rep.Errors, rep.ErrorSamples, rep.Page)
	}
	if rep.StepRequests == 0 || rep.Page.Moves == 0 || rep.Page.Messages == 0 {
		t.Fatalf("nothing happened: %d step requests, page %+v", rep.StepRequests, rep.Page)
	}
}
