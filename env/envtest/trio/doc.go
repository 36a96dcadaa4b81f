// Package trio is Trio, a small competitive card game for 2-4 players
// (default 3) that exists to test the layers above the rules with several
// seats: the conformance suite and the kit of package envtest, per-player
// results, and eval/generate/bench with --seats. It is registered as
// envtest-trio-v1 only by programs that import this package (tests); the
// galaxygym binary, which imports env/all, does not offer it.
//
// # Rules
//
// Five cards lie face up in a row, each worth 1 to 9. In turn, starting
// with player 0, a player takes one card of the row and scores its value;
// a new card, drawn uniformly from 1-9 by the seeded chance generator,
// fills the slot. The slot just refilled is locked for the next player
// only. After every player has taken four cards the game ends and players
// rank by score (the highest wins; tied players share a rank, and a shared
// first place is a draw).
//
// # Spec
//
//	id               envtest-trio-v1 (Spec().Name "Trio")
//	players          2-4, the standard players parameter (default 3)
//	actions          Discrete(5): take-0 .. take-4, the slot taken; the
//	                 locked slot is illegal
//	observation      Box(0, ObsHigh, shape [12], uint8), fields
//	                 (Spec().ObservationLayout, observe.go):
//	                   0-4  row: the row's values (1-9)
//	                   5    locked: the locked slot + 1 (0: none)
//	                   6-9  scores: the scores of the observer, then of the players
//	                        after it in turn order (0 for absent seats)
//	                   10   taken: cards taken so far by all players (0-16)
//	                   11   players: the number of players
//	                 Everything but the chance generator is public.
//	rewards          the value of the card taken, to the taker
//	                 (RewardRange [0, 9], ReturnRange [0, 36])
//	terminated       after 4 takes per player (MaxEpisodeSteps 16)
//	truncated        after max_turns takes (0: never)
//	parameters       players    int  3  2-4
//	                 max_turns  int  0  0-16
//	info             per-player scores, outcomes and ranks by score
//	                 (env.Info.RankByScore); stat "cards" (cards taken)
//
// # Version history
//
//	v1  the first version
package trio
