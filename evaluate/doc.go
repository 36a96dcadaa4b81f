// Package evaluate compares agents on an environment. With Config.Agents,
// every agent plays every seat of the same seeded episodes (a paired
// comparison, for one-player and cooperative games); with Config.Seats, a
// lineup of agents plays the seats of a competitive game (see "Seats"
// below). The report of Agents gives, per
// agent, the mean return with a 95% confidence interval, the win rate with
// a 95% Wilson score interval, the means of the game's statistics, the share
// of each value of the game's labels, the episode length, the throughput,
// and the paired difference of returns against the first agent. It is the
// engine of `galaxygym eval` and of the leaderboard in docs/benchmarks.md.
//
// # Episodes and seeds
//
// Episode i of a run with seed s is played from the seeds
// [rollout.EpisodeSeeds](s, i): the environment's and the agent's, the same
// as episode i of `galaxygym generate --seed s`; the episodes are played by
// the shared loop of package rollout. Every agent plays episodes
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
//
// # Seats
//
// Config.Seats = [A, B, C] puts agent A in seat 0, B in seat 1, C in seat
// 2, each seat its own agent instance; an agent may sit in several seats.
// Config.Episodes is the number of deals: deal d is played from the seeds
// of episode d, seat k's agent reset with rollout.SeatSeed(agent seed, k).
// With Config.Rotate every deal is played once per rotation of the
// lineup: in rotation r seat k is played by Seats[(k+r) mod n], so every
// agent meets every deal from every seat its lineup position visits
// (duplicate style), which cancels the advantage of a seat and the luck of
// a deal. The report has one row per distinct agent, in order of first
// seat, over its appearances (one agent in one seat of one game):
//
//   - games: the appearances (deals x rotations x the agent's seats);
//   - win_rate with its Wilson interval: the share of appearances whose
//     per-player outcome ([env.Info] Outcomes) is a win (a shared first
//     place is a draw, not a win);
//   - mean_score, score_ci95_low/high and mean_rank, rank_ci95_low/high:
//     the mean of the seat's score (Info.Scores) and rank (Info.Ranks, 1 =
//     best) with t intervals (appearances of one game are not independent,
//     so these intervals are a little narrow for a lineup of repeated
//     agents);
//   - mean_return, mean_length;
//   - score_diff_vs_first and its interval: per deal, the agent's mean
//     score over its appearances minus the first agent's, averaged over
//     the deals with a t interval: the head-to-head difference on the same
//     deals, empty for the first agent.
package evaluate
