// Package datasets writes and reads Parquet datasets of agent play: the
// rollout runner behind `galaxygym generate` and `galaxygym bench`, the
// steps and episodes tables, the manifest, and a reader.
//
// [Generate] plays Config.Episodes episodes of an agent on an environment
// with Config.Workers goroutines and writes, under Config.Out:
//
//	manifest.json                 the dataset card (Minari's metadata names), written last
//	steps/part-NNNNN.parquet      one row per step, plus one per episode for its final observation
//	episodes/part-NNNNN.parquet   one row per episode: seed, length, returns, outcome, info
//
// Part i holds episodes [i*P, (i+1)*P) for P = Config.EpisodesPerPart, and a
// worker writes whole parts, so the files are byte-identical whatever the
// number of workers. Episode i is seeded by [EpisodeSeeds] from the run seed
// and i alone. Every file is written under a temporary name, synced and
// renamed; running the same configuration again resumes an interrupted run
// and refuses a directory written with other parameters ([*MismatchError]).
// [Bench] runs the same loop without writing anything.
//
// The steps table (columns Col*, footer keys Key*) follows Minari: an
// episode of T steps has T+1 rows; row t < T holds the observation s_t, the
// action mask, the action a_t, the reward r_{t+1} and whether that step
// terminated or truncated the episode; row T holds the final observation
// s_T with action -1. docs/datasets.md documents both tables column by
// column, how to rebuild (s, a, r, s', done) transitions, and the measured
// sizes and speeds.
//
// [Open] reads a finished dataset's manifest; [Dataset.Episodes] and
// [Dataset.Steps] iterate over its rows and [Dataset.Verify] checks its
// files against the manifest's checksums.
//
// Errors are typed and prefixed "datasets: ": [*ConfigError],
// [*MismatchError], [*WriteError] (a full disk names the file),
// [*InterruptedError], *[rollout.AgentError] and [*FormatError].
package datasets
