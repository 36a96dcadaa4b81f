package play

import (
	"context"
	"runtime"
	"sync"
	"time"
)

// pool runs the page's work so that it cannot take the cores the training
// protocol needs: a fixed number of workers for agent moves (with the
// views they draw) and recordings, as many for hints (so that a long hint
// does not hold the games up), and a CPU budget over both: page work may
// use at most share x GOMAXPROCS cores, measured over the wall time of
// each piece of work; when it used more, the next piece waits.
type pool struct {
	moves chan func()
	hints chan func()
	cpu   *cpuBudget
}

// newPool starts workers goroutines per lane, until ctx is done.
func newPool(ctx context.Context, workers int, share float64) *pool {
	p := &pool{moves: make(chan func()), hints: make(chan func()),
		cpu: &cpuBudget{rate: share * float64(runtime.GOMAXPROCS(0)), burst: 50 * time.Millisecond, last: time.Now()}}
	for range workers {
		go p.work(ctx, p.moves)
		go p.work(ctx, p.hints)
	}
	return p
}

func (p *pool) work(ctx context.Context, lane chan func()) {
	for {
		select {
		case <-ctx.Done():
			return
		case f := <-lane:
			p.cpu.wait(ctx)
			start := time.Now()
			f()
			p.cpu.charge(time.Since(start))
		}
	}
}

// do runs f on lane and returns once it ran; when ctx ends first, f does
// not run and do returns ctx's error. f itself must watch ctx (agents get
// it through agents.SetContext).
func (p *pool) do(ctx context.Context, lane chan func(), f func()) error {
	done := make(chan struct{})
	run := func() {
		defer close(done)
		if ctx.Err() == nil {
			f()
		}
	}
	select {
	case lane <- run:
	case <-ctx.Done():
		return ctx.Err()
	}
	<-done
	return ctx.Err()
}

// cpuBudget is a leaky bucket of CPU time: work charges its duration,
// which drains at rate cores; work waits while more than burst is owed.
type cpuBudget struct {
	mu    sync.Mutex
	rate  float64 // cores
	burst time.Duration
	owed  time.Duration
	last  time.Time
}

func (b *cpuBudget) drainLocked(now time.Time) {
	b.owed -= time.Duration(float64(now.Sub(b.last)) * b.rate)
	b.owed = max(b.owed, 0)
	b.last = now
}

// wait returns once at most burst is owed, or ctx is done.
func (b *cpuBudget) wait(ctx context.Context) {
	for {
		b.mu.Lock()
		b.drainLocked(time.Now())
		over := b.owed - b.burst
		b.mu.Unlock()
		if over <= 0 {
			return
		}
		timer := time.NewTimer(time.Duration(float64(over) / b.rate))
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-timer.C:
		}
	}
}

func (b *cpuBudget) charge(d time.Duration) {
	b.mu.Lock()
	b.drainLocked(time.Now())
	b.owed += d
	b.mu.Unlock()
}
