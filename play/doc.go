// Package play is the browser page of `galaxygym serve`: play any
// registered game against the agents, watch agents play, replay an episode
// of a dataset, and record the games people play as datasets.
//
// The page (plain HTML, CSS and JavaScript modules embedded with go:embed,
// no build step) is served at / beside the training protocol on the same
// port ([Mount]), and talks to this package over its own websocket,
// /play/ws, with the small JSON protocol of docs/protocol.md ("The page's
// protocol"). The training protocol's package, server, knows no files and
// no datasets; this package reads the dataset folders it is given
// (read-only, by name, never by a path from the page) and writes games
// with a person seated into its record folder, through datasets.Generate,
// so that a recording is a dataset like any other (agent "human" in
// seat_agents).
//
// Hidden information is respected by construction: the view a seated
// person's page receives ([SeatView]) is computed from that seat's
// observation alone. The position is rebuilt from the observation with the
// game's env.Determinizer and a fixed seed, then drawn with the game's
// public renderer and text plus the seat's own hand; the legal actions are
// the rebuilt position's, which the determinizer guarantees equal the true
// ones. Two positions that differ only in what the seat cannot see give
// byte-identical views (TestSeatViewHidesWhatTheSeatCannotSee). An
// agent's thoughts (policy probabilities, heuristic action values), its
// moves by name and the returns are sent only to tables with no person
// seated, and every card face up ([FaceUpView]) likewise.
package play
