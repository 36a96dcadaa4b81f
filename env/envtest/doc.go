// Package envtest is the conformance suite every galaxygym game passes, and
// the golden-playthrough helper every game uses.
//
// It is modelled on OpenSpiel's RandomSimTest: [Run] plays seeded random
// playouts through [env.Make] and, at every step, checks the contract of
// the env package from the outside:
//
//   - the legal-action mask has NumActions bytes of 0 or 1, is non-empty
//     until the episode ends and empty after, and State.LegalMask returns
//     the number of ones;
//   - every player's observation has ObsSize bytes, every byte is written,
//     and every value is within Spec.ObsHigh;
//   - a Clone equals the original, and stepping the clone leaves the
//     original untouched (JSON, String, observations, mask, returns) while
//     reaching the same result the original reaches with the same action;
//   - MarshalJSON followed by Env.Load gives an identical environment (same
//     JSON, mask, observations, String, info), and continuing from a loaded
//     snapshot with the same actions gives the same rewards and observations;
//   - the same seed and actions give the same observations, rewards and
//     flags, byte for byte;
//   - an illegal action (masked out or out of range) returns an error
//     wrapping env.ErrIllegalAction and changes nothing, and stepping a
//     finished episode returns env.ErrEpisodeOver;
//   - the current player is in [0, NumPlayers) until the end and
//     env.Terminal after; every step gives NumPlayers rewards, each within
//     Spec.RewardRange; terminated and truncated are never both set;
//   - summed rewards equal Env.Returns, and, for a one-player game, the
//     final Info.Score;
//   - Info's per-player results (Scores, Outcomes, Ranks) are empty while
//     the episode runs and hold NumPlayers entries once it is over:
//     outcomes win, loss or draw, ranks a competition ranking that follows
//     the scores (opt out of the last with [RanksNotByScore]) and never
//     gives a better-ranked player a worse outcome ([CheckResults]);
//   - under the default parameters, the episode lasts at most
//     Spec.MaxEpisodeSteps steps and returns lie within Spec.ReturnRange.
//
// A game's test calls it in a line:
//
//	func TestConformance(t *testing.T) { envtest.Run(t, mygame.ID) }
//
// # Golden playthroughs and the -update flag
//
// [Golden] writes or checks a readable transcript of a few seeded episodes
// (the position before every step, the legal actions and the chosen one by
// name, rewards, a hash of every observation, the final info). By
// convention the golden file of game id lives in the game's package at
// testdata/golden/<id>.txt ([GoldenPath]); this package's own test fails
// for a registered game without one, and replays every golden file.
//
// Regenerate a game's goldens with
//
//	go test ./env/<game> -update
//
// The -update flag is declared where it is used, as go/printer's tests
// do: each package whose tests write golden files declares
//
//	var update = flag.Bool("update", false, "rewrite golden files")
//
// in one of its test files, and envtest reads it through [Updating]
// (importing envtest registers no flag). go test ./... -update fails in
// the packages that have no golden files, so name the packages.
// TestGoldenPackagesDeclareUpdate in this package checks that every
// package calling Golden or Updating declares the flag.
package envtest
