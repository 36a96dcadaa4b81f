package rollout

// golden is SplitMix64's increment, 2^64 / phi.
const golden = 0x9E3779B97F4A7C15

// SeedRule is the derivation of every episode's seeds from the run seed, as
// recorded in a dataset's manifest and Parquet footers.
const SeedRule = "SplitMix64 outputs of the run seed: env_seed(i) = mix(seed + (2i+1)*0x9E3779B97F4A7C15), " +
	"agent_seed(i) = mix(seed + (2i+2)*0x9E3779B97F4A7C15), arithmetic mod 2^64, i = episode_id, " +
	"mix(z) = z^(z>>31) after z = (z^(z>>30))*0xBF58476D1CE4E5B9, z = (z^(z>>27))*0x94D049BB133111EB"

// SeatSeedRule is how the agent of each seat is seeded when seats hold
// distinct agents: seat k's agent is reset with seat_seed(agent_seed, k).
const SeatSeedRule = "seat_seed(s, 0) = s; seat_seed(s, k) = mix(s + k*0x9E3779B97F4A7C15) for k > 0; " +
	"an agent playing several seats is reset once, with the seed of its first seat"

// mix is SplitMix64's output function.
func mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// EpisodeSeeds returns the seeds of global episode index i of a run with
// the given seed: the environment's ([env.Env.Reset]) and the agents'
// ([agents.Agent.Reset], see [SeatSeed]). They are outputs 2i+1 and 2i+2 of
// a SplitMix64 generator seeded with seed (see [SeedRule]), so every
// episode is reproducible on its own, whatever the number of workers or
// parts. generate, bench and eval all derive their seeds here.
func EpisodeSeeds(seed uint64, i int64) (envSeed, agentSeed uint64) {
	k := uint64(i) * 2
	return mix(seed + (k+1)*golden), mix(seed + (k+2)*golden)
}

// SeatSeed returns the seed of seat k's agent from an episode's agent seed
// (see [SeatSeedRule]): agentSeed itself for seat 0, so that one agent
// playing every seat is seeded as it always was.
func SeatSeed(agentSeed uint64, k int) uint64 {
	if k == 0 {
		return agentSeed
	}
	return mix(agentSeed + uint64(k)*golden)
}
