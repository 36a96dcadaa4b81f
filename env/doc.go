// Package env defines the environment API every galaxygym game implements,
// the registry of games, and the typed errors shared by all of them.
//
// The split follows pgx: a game package supplies pure rules (a [Game] that
// makes [State] values, which apply already-validated actions), and the
// [Env] wrapper in this package handles everything that is the same for
// every game, once: seeding and reset, the legal-action mask check that
// turns an illegal action into an [*IllegalActionError] without touching
// the state, truncation after a game's turn limit, per-player reward and
// return bookkeeping, and refusal to step a finished episode.
//
// The API is turn-based and N-player, like OpenSpiel and PettingZoo's AEC:
// one player acts per step ([Env.CurrentPlayer]), every player receives a
// reward on every step, and observations are fixed-shape uint8 tensors
// written into the caller's buffer so that a step allocates nothing.
//
// Games register themselves in init (as image/png does); import
// github.com/galaxygym/galaxygym/env/all to link every game in.
package env
