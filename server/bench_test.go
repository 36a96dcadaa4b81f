package server

import (
	"context"
	"fmt"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/galaxygym/galaxygym/agents"

	"github.com/galaxygym/galaxygym/server/wsconn"
)

// BenchmarkBatchStep measures the server's step path without the network:
// validating N actions, stepping N environments and encoding the reply.
// With features=true the replies also carry the action features (make's
// action_features).
func BenchmarkBatchStep(b *testing.B) {
	for _, c := range []struct {
		n, workers int
		features   bool
	}{{1, 2, false}, {64, 2, false}, {1024, 1, false}, {1024, 2, false}, {1024, 1, true}} {
		n := c.n
		name := fmt.Sprintf("N=%d/workers=%d", n, c.workers)
		if c.features {
			name += "/features"
		}
		b.Run(name, func(b *testing.B) {
			p := newPool(c.workers - 1)
			defer p.stop()
			bt, perr := newLearnerBatch(context.Background(), testEnv, n, nil, NextStep, func() uint64 { return 1 }, c.workers, 1<<40,
				nil, agents.Limits{}, c.features)
			if perr != nil {
				b.Fatal(perr)
			}
			seeds := make([]*uint64, n)
			for i := range seeds {
				s := uint64(i)
				seeds[i] = &s
			}
			out, perr := bt.reset(context.Background(), &Control{Type: MsgReset, Seeds: seeds})
			if perr != nil {
				b.Fatal(perr)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				pickFirstLegal(out, &bt.lay, bt.actions)
				if err := bt.validateStep(); err != nil {
					b.Fatal(err)
				}
				out, _ = bt.step(p)
			}
			b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "env-steps/s")
		})
	}
}

// pickFirstLegal writes the first legal action of each env of a reply.
func pickFirstLegal(reply []byte, l *Layout, actions []int32) {
	for i := range actions {
		m := reply[l.Mask+l.A*i : l.Mask+l.A*(i+1)]
		actions[i] = 0
		for a, v := range m {
			if v != 0 {
				actions[i] = int32(a)
				break
			}
		}
	}
}

// BenchmarkStepRoundTrip measures a step round trip through a real
// websocket (gorilla client, loopback): encode the request, send, step N
// environments, receive and pick the next actions.
func BenchmarkStepRoundTrip(b *testing.B) {
	for _, n := range []int{1, 64, 1024} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			_, url := startServer(b, Config{})
			c, m := openSession(b, url, n, "")
			seeds := make([]uint64, n)
			for i := range seeds {
				seeds[i] = uint64(i)
			}
			out := resetSeeds(b, c, seeds...)
			l := m.Layout
			actions := make([]int32, n)
			req := make([]byte, 0, StepRequestSize(n))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				pickFirstLegal(out, &l, actions)
				req = AppendStepRequest(req[:0], 0, actions)
				if err := c.WriteMessage(websocket.BinaryMessage, req); err != nil {
					b.Fatal(err)
				}
				mt, r, err := c.NextReader()
				if err != nil || mt != websocket.BinaryMessage {
					b.Fatalf("read: %v (type %d)", err, mt)
				}
				if out, err = wsconn.ReadAll(r, out); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "env-steps/s")
		})
	}
}

// BenchmarkEchoRoundTrip is the transport baseline of BenchmarkStepRoundTrip
// at N=1: a 12-byte frame out, a frame of a one-env step reply's size back,
// through /echo.
func BenchmarkEchoRoundTrip(b *testing.B) {
	_, url := startServer(b, Config{Echo: true})
	c, _, err := websocket.DefaultDialer.Dial(wsURL(url, "/echo"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	size := NewLayout(1, 503, 56, 1).FixedSize
	req := []byte{'E', 'C', 'H', 'O', byte(size), byte(size >> 8), 0, 0, 0, 0, 0, 0}
	var out []byte
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := c.WriteMessage(websocket.BinaryMessage, req); err != nil {
			b.Fatal(err)
		}
		_, r, err := c.NextReader()
		if err != nil {
			b.Fatal(err)
		}
		if out, err = wsconn.ReadAll(r, out); err != nil || len(out) != size {
			b.Fatal(err, len(out))
		}
	}
}
