package loadtest

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/galaxygym/galaxygym/env"
	_ "github.com/galaxygym/galaxygym/env/all"
	"github.com/galaxygym/galaxygym/server"
)

// TestLoad runs a short load test against an in-process server: 8
// sessions x 4 environments of every game for a second and a half, a
// quarter of them slow readers and a quarter dropping their connection.
// No error may occur, and every session must be gone afterwards.
func TestLoad(t *testing.T) {
	srv, err := server.New(server.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	defer srv.Shutdown(context.Background())
	rep, err := Run(context.Background(), Config{
		URL: "ws" + strings.TrimPrefix(ts.URL, "http") + "/", EnvIDs: env.IDs(),
		Sessions: 8, Envs: 4, Duration: 1500 * time.Millisecond,
		SlowFraction: 0.25, SlowDelay: 5 * time.Millisecond, DropFraction: 0.25, DropEvery: 40, Seed: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + rep.String())
	if rep.Errors != 0 {
		t.Fatalf("%d errors: %v", rep.Errors, rep.ErrorSamples)
	}
	if rep.StepRequests == 0 || rep.Drops == 0 || rep.SlowReads == 0 {
		t.Fatalf("the mix did not happen: %d requests, %d drops, %d slow reads", rep.StepRequests, rep.Drops, rep.SlowReads)
	}
	if !(0 < rep.P50 && rep.P50 <= rep.P99 && rep.P99 <= rep.P999 && rep.P999 <= rep.Max) {
		t.Fatalf("latencies out of order: %v %v %v %v", rep.P50, rep.P99, rep.P999, rep.Max)
	}
	if rep.RSSPeak <= 0 {
		t.Fatal("no RSS read from /metrics")
	}
	deadline := time.Now().Add(5 * time.Second)
	for srv.Sessions() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions left after the load test", srv.Sessions())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestRefusesNonLoopback(t *testing.T) {
	for _, u := range []string{"ws://192.0.2.1:8765/", "ws://[2001:db8::1]:1/", "http://127.0.0.1:1/"} {
		_, err := Run(context.Background(), Config{URL: u, EnvIDs: []string{"x"}, Sessions: 1, Envs: 1, Duration: time.Second})
		var le *Error
		if !errors.As(err, &le) {
			t.Errorf("Run(%s) = %v, want a *loadtest.Error", u, err)
		}
	}
}

func TestHistQuantiles(t *testing.T) {
	var h hist
	for i := 1; i <= 1000; i++ {
		h.add(time.Duration(i) * time.Microsecond)
	}
	for _, c := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 500 * time.Microsecond}, {0.99, 990 * time.Microsecond}, {0.999, 999 * time.Microsecond}} {
		got := h.quantile(c.q)
		if d := float64(got-c.want) / float64(c.want); d < -0.03 || d > 0.03 {
			t.Errorf("quantile %v = %v, want %v within 3%%", c.q, got, c.want)
		}
	}
	for ns := int64(0); ns < 1<<20; ns = ns*5/4 + 1 {
		k := bucket(ns)
		if lower(k) > ns || lower(k+1) <= ns {
			t.Fatalf("bucket(%d) = %d covers [%d, %d)", ns, k, lower(k), lower(k+1))
		}
	}
}
