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
//     and every value is within Spec.ObsHigh (and so, in a layout field of
//     codes, below its classes: ObsHigh is checked against them);
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
//     Spec.MaxEpisodeSteps steps and returns lie within Spec.ReturnRange;
//   - every position of the playout round-trips through the game's
//     notation: State.MarshalJSON (env.MarshalPosition) read back by
//     Game.LoadState (env.UnmarshalPosition) writes the same text and
//     shows every player the same observation, current player and text,
//     so that an illegal position (one the notation refuses, such as two
//     pieces on one space) fails at the step that reaches it;
//   - for a game that is an [env.Presenter], at every step of the first
//     playouts ([SceneEpisodes]), every seat's scene is well formed
//     (env.CheckScene), the same twice, round-trips as JSON, ends with the
//     episode, and its public part (env.PublicScene) is the same bytes as
//     every other seat's: a seat's own hidden cards appear only where its
//     scene marks them private, and nothing is worded for its observer;
//   - for a game that is an [env.PublicMover], on up to 40 decisions of
//     those playouts, every legal action's public words are non-empty
//     and two actions after which every other seat observes the same
//     bytes get the same words (a solitaire: non-empty only);
//   - for a game that is an [env.HiddenObserver], its layout tiles the
//     hidden part and HiddenHigh covers it (and the codes' classes), the
//     Env refuses a wrong buffer or seat, and at every step every
//     player's hidden part is written whole, the same twice, within
//     HiddenHigh, and the same on a clone, a reloaded snapshot and a
//     replay (it is part of the compared state);
//   - hidden information does not leak (the information-set test below).
//
// # The information-set test
//
// After the playouts, Run plays further seeded uniform random episodes
// (up to three, the first seeds of the Run; MaxSteps bounds them as it
// bounds the playouts) and draws positions from them ([InfoSetPositions],
// default 12 per Run: half uniformly, half where the legal actions offer
// the episode's rarest action families, a family being an action name up
// to its first '-', such as "broken" or "block"). From each position it
// takes two observers, the player to act and another drawn at random, and
// for each builds a twin: the game's [env.Determinizer] called with the
// observer's observation, a complete position that differs from the true
// one only in what the observer cannot see (other players' hands, the
// deck order, the chance generator). A game without a Determinizer skips
// the test (it is logged).
//
// Both positions must then look the same to the observer: the
// observation bytes, the legal mask when the observer acts, the current
// player, the phase (a Phase() method of the State, when it has one), the
// text render String, StringFor(observer) when the State has it, the
// rgb_array render (env.Renderer), and, for an env.Presenter, the public
// part (env.PublicScene) of every seat's scene, which a spectator sees and
// so must say nothing the observer cannot see; the twin must also be a position the
// game's notation accepts. Static twins are not enough (a decision offered
// only to the holder of a card shows one step later), so Run walks both
// with the same actions for up to 8 steps, whoever acts (out-of-turn
// decisions such as a block included): each step an action legal in both,
// drawn by family then uniformly, preferring actions that reveal nothing.
// After every step the same things (and the step's rewards) must agree;
// the rgb_array renders, slow to draw, are compared at the start and where
// a walk ends with the twins alike. A walk ends when no action is legal in
// both, the episode ends, or after 8 steps.
//
// A divergence is a leak unless the rules revealed something to the
// observer at that step: the observer drew a card, a die was rolled, a
// player had to show a card, a hand was scored. Only the game knows its
// rules, so it declares them: its State implements [Revealer] (a method
// Reveals(player, action int) bool, no import of envtest needed), or its
// conformance test passes the same function with [RevealsBy]. Reveals
// answers from what the player sees and the action only; the test checks
// that both twins give the same answer (an answer that reads hidden cards
// could excuse exactly the leaks sought). A step declared revealing ends
// the walk when the twins part ways after it; any other divergence fails
// the test, naming the observer, the actions, what differs and both
// positions. A game that declares no reveals gets one excuse: twins that
// no player can tell apart before the step (every player's observation
// equal) differ only in chance nobody has seen, so a divergence after it
// is chance (trio, Galaxy Express, Galaxy Fighters: no private
// information). A game with private information and no Revealer fails at
// its first divergence, with a hint to declare its reveals.
//
// For a game that is an [env.HiddenObserver], each twin is also checked
// against the observer's hidden part: when the twin gives the observer
// the same hidden part as the true position, the observer's observation
// and hidden part together leave nothing out, so every seat must observe
// the same bytes in both; a seat that tells them apart sees something the
// hidden part lacks. Each Run logs how many twins the hidden part told
// apart.
//
// Options for versions kept byte for byte: [KnownLeak] (the test must find
// a leak; the calling test fails at its end if no Run found one),
// [NoRoundTrip] (positions the notation refuses are logged and their
// snapshot checks skipped), [RendersShowMore] (renders that show what the
// observation hides are not compared). [InfoSetPositions](0) turns the
// test off for one Run. The leaks it reports are those random play
// reaches: a rare one may need more positions than the default. Each Run
// logs its twins, steps and how the walks ended; with the environment
// variable ENVTEST_INFOSET_DEBUG=1 it also logs the first line of every
// leak, with =2 every step of every walk.
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
//	var _ = flag.Bool("update", false, "rewrite golden files")
//
// in one of its test files, and envtest reads it through [Updating]
// (importing envtest registers no flag). go test ./... -update fails in
// the packages that have no golden files, so name the packages.
// TestGoldenPackagesDeclareUpdate in this package checks that every
// package calling Golden or Updating declares the flag.
package envtest
