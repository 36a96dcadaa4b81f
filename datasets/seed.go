package datasets

import "github.com/galaxygym/galaxygym/rollout"

// SeedRule is the derivation of every episode's seeds from the run seed, as
// recorded in the manifest and the Parquet footers ([rollout.SeedRule]; a
// dataset of mixed seats adds [rollout.SeatSeedRule]).
const SeedRule = rollout.SeedRule

// EpisodeSeeds returns the seeds of global episode index i of a run with
// the given seed: [rollout.EpisodeSeeds], where generate, bench and eval
// all take them.
func EpisodeSeeds(seed uint64, i int64) (envSeed, agentSeed uint64) {
	return rollout.EpisodeSeeds(seed, i)
}
