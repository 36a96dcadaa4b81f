package galaxyfighters

import (
	"testing"

	"github.com/galaxygym/galaxygym/env/envtest"
)

// BenchmarkRandomPlayout steps uniformly random four-player games through
// the Env wrapper (envtest.BenchmarkRandomPlay: mask, choice, Step; a Reset
// when an episode ends). One op is one step.
func BenchmarkRandomPlayout(b *testing.B) { envtest.BenchmarkRandomPlay(b, ID, nil, false) }

// BenchmarkRandomPlayoutObserve also writes the acting player's observation
// every step.
func BenchmarkRandomPlayoutObserve(b *testing.B) { envtest.BenchmarkRandomPlay(b, ID, nil, true) }
