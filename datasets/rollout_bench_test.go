package datasets

import (
	"context"
	"testing"
)

// The rollout benchmarks time datasets.Bench on one worker, the rollout
// loop without files (the path of galaxygym bench): one op is one run;
// ns/step (wall) and cpu-ns/step (user+system CPU, steadier on a shared
// machine) are reported.
func BenchmarkRolloutRandom(b *testing.B) {
	benchRollout(b, "galaxy-express-v1", nil, "random", 20000)
}
func BenchmarkRolloutHeuristic(b *testing.B) {
	benchRollout(b, "galaxy-express-v1", nil, "heuristic", 4000)
}
func BenchmarkRolloutFightersRandom(b *testing.B) {
	benchRollout(b, "galaxy-fighters-v1", map[string]any{"players": 2}, "random", 300)
}

func benchRollout(b *testing.B, id string, params map[string]any, agent string, episodes int64) {
	cfg := Config{Env: id, EnvParams: params, Agent: agent, Episodes: episodes, Workers: 1}
	if _, err := Bench(context.Background(), Config{Env: id, EnvParams: params, Agent: agent, Episodes: 1, Workers: 1}); err != nil {
		b.Fatal(err) // builds the agent's tables outside the timing
	}
	var steps int64
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := Bench(context.Background(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		steps += res.Steps
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(steps), "ns/step")
	b.ReportMetric((cpuTime()-cpu0).Seconds()*1e9/float64(steps), "cpu-ns/step")
}
