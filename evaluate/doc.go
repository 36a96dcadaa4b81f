// Package evaluate compares agents on an environment: every agent plays the
// same seeded episodes (a paired comparison), and the report gives, per
// agent, the mean return with a 95% confidence interval, the win rate with
// a 95% Wilson score interval, the means of the game's statistics, the share
// of each value of the game's labels, the episode length, the throughput,
// and the paired difference of returns against the first agent. It is the
// engine of `galaxygym eval` and of the leaderboard in docs/benchmarks.md.
//
// # Episodes and seeds
//
// Episode i of a run with seed s is played from the seeds
// [datasets.EpisodeSeeds](s, i): the environment's and the agent's, the same
// as episode i of `galaxygym generate --seed s`. Every agent plays episodes
// 0..N-1, so agent A's episode i and agent B's episode i start from the same
// deal; comparing them episode by episode removes the variance of the deals
// from the difference. Workers split the episodes, and each episode's
// result is stored at its index, so a report does not depend on the number
// of workers (timings aside). Agents play one after another, each over all
// workers, so that each agent's wall time is its own.
//
// # Statistics
//
// The return of an episode is the mean over players of their undiscounted
// returns (for a one-player game such as Galaxy Express, the player's
// return, which equals the score). Over the N episodes of an agent:
//
//   - mean_return and sd_return are the sample mean and the sample standard
//     deviation (n-1 denominator); ci95_low and ci95_high are
//     mean ± t(0.975, N-1)·sd/√N, Student's t interval;
//   - win_rate is the share of episodes whose outcome is [env.OutcomeWin]
//     (truncated episodes are not wins); win_ci95_low and win_ci95_high are
//     the Wilson score interval with z = Φ⁻¹(0.975);
//   - mean_<stat> is the mean of each numeric statistic of [env.Info] over
//     the episodes that report it, in the game's order;
//   - share_<label>_<value> is the share of episodes whose label has that
//     value, the value written as a snake_case slug; a label's values are
//     ordered by the mean return of the episodes carrying them (over all
//     agents), highest first, which puts ordinal ratings in order;
//   - diff_vs_first, diff_ci95_low and diff_ci95_high are the mean and the
//     t interval of the per-episode differences return(agent) −
//     return(first agent), empty for the first agent;
//   - mean_length is the mean number of steps (decisions) per episode;
//     seconds is the wall time of the agent's episodes over all workers and
//     steps_per_second the steps played per second of it, which gives the
//     cost of the agent's decisions (environment time included).
//
// With fewer than two episodes the t intervals are undefined (NaN: an empty
// cell, null in JSON).
package evaluate
