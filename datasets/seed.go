package datasets

// golden is SplitMix64's increment, 2^64 / phi.
const golden = 0x9E3779B97F4A7C15

// SeedRule is the derivation of every episode's seeds from the run seed, as
// recorded in the manifest and the Parquet footers.
const SeedRule = "SplitMix64 outputs of the run seed: env_seed(i) = mix(seed + (2i+1)*0x9E3779B97F4A7C15), " +
	"agent_seed(i) = mix(seed + (2i+2)*0x9E3779B97F4A7C15), arithmetic mod 2^64, i = episode_id, " +
	"mix(z) = z^(z>>31) after z = (z^(z>>30))*0xBF58476D1CE4E5B9, z = (z^(z>>27))*0x94D049BB133111EB"

// mix is SplitMix64's output function.
func mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// EpisodeSeeds returns the seeds of global episode index i of a run with
// the given seed: the environment's ([env.Env.Reset]) and the agent's
// ([agents.Agent.Reset]). They are outputs 2i+1 and 2i+2 of a SplitMix64
// generator seeded with seed (see [SeedRule]), so every episode is
// reproducible on its own, whatever the number of workers or parts.
func EpisodeSeeds(seed uint64, i int64) (envSeed, agentSeed uint64) {
	k := uint64(i) * 2
	return mix(seed + (k+1)*golden), mix(seed + (k+2)*golden)
}
