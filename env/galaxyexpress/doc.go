// Package galaxyexpress is Galaxy Express, Matt Worden's piecepack
// solitaire (v1.3, 2003), as the environment galaxy-express-v1.
//
// The full rules, in our own words, with every gap of the printed rules
// resolved and marked as an assumption, are in docs/rules/galaxy-express.md.
// Source: the printed rules of the game and their piecepack wiki text.
//
// # Rules in brief
//
// The Star Chart is an 8x6 grid (4x3 tiles of 2x2 squares) whose edges
// wrap around for movement. Six planets, numbered 0-5, lie face down on six
// different tiles, one each, in a random quadrant. The Delivery Queue is a
// random order of the six numbers; only its top is visible. Each of the two
// coin suits, Thrust (Sun) and Brake (Moon), has the values 0 (null) to 5
// (ace = 1); each suit is shuffled into its own stack with two coins face
// up.
//
// The first decision is the launch planet: the ship is placed on it and it
// is flipped; if its number is the queue top, that crown moves to the
// bottom of the queue. Then every turn plays one face-up coin: a Thrust
// adds its value to the speed, a Brake subtracts it, clamped to 0..10. At a
// speed above 0 the ship slides exactly that many squares in one of the
// four directions, wrapping around the edges, and every planet on or
// orthogonally next to the square where it stops is flipped (scanned). A
// ship at speed 0 on a planet is in orbit: if the planet is the queue top
// the delivery is made (+20), then the player may refuel (-10: every coin
// back, both stacks reshuffled, two face up each). Unless the player
// refueled, a replacement coin of the played suit is then turned face up.
// The game is won at the sixth delivery and lost (Lost in Space) as soon as
// no order of the unspent coins, face-down ones included, can bring the
// ship to rest on a planet. The score is 20 per delivery, -10 per refuel,
// +1 per unspent coin.
//
// # Spec
//
//	id               galaxy-express-v1 (Spec().Name "Galaxy Express")
//	players          1 (player 0; CurrentPlayer is env.Terminal at the end)
//	actions          Discrete(56), one space for every phase:
//	                   0-5    launch-planet-k: launch from the k-th planet in
//	                          reading order (row 1 first, left to right)
//	                   6-53   <suit>-<value>-<dir>, e.g. thrust-3-west:
//	                          6 + (suit*6 + value)*4 + dir, suit thrust=0,
//	                          brake=1, value 0-5, dir north, east, south, west
//	                          ([CoinAction], [DecodeCoinAction])
//	                   54     refuel
//	                   55     no-refuel
//	                 Moves with the same outcome are one action: at a new
//	                 speed of 0 only the coin's north action is legal, and
//	                 when two directions land on the same square (speed 4 or
//	                 8 east/west, speed 3, 6 or 9 north/south) only the first
//	                 in N, E, S, W order is.
//	observation      Box(0, ObsHigh, shape [503], uint8), flat:
//	                   offset len
//	                     0     48  the Starship (row-major, a1 = 0, h6 = 47)
//	                    48     48  planets not yet scanned
//	                    96    288  six planes: scanned planet numbered 0-5
//	                   384     48  the target planet, once scanned
//	                   432     11  speed, one-hot 0-10
//	                   443      6  target number (queue top), one-hot
//	                   449      6  numbers already delivered
//	                   455      6  crown moved to the queue bottom at launch
//	                   461     12  face-up coins, Thrust 0-5 then Brake 0-5
//	                   473     12  spent coins, same order
//	                   485     12  face-down coins, same order
//	                   497      3  phase: launch, play a coin, refuel decision
//	                   500      1  deliveries 0-6
//	                   501      1  refuels 0-255 (saturating)
//	                   502      1  turns 0-255 (saturating)
//	                 (offsets are the Off* constants; nothing hidden is shown)
//	rewards          +20 per delivery, -10 per refuel, and the unspent coins
//	                 (+1 each) on the step that ends the episode, truncation
//	                 included, so the return equals the score. One step's
//	                 reward lies in [-10, 32]; the return in [-2000, 132]
//	                 under the default max_turns.
//	terminated       the sixth delivery (outcome "win") or Lost in Space
//	                 ("loss")
//	truncated        after max_turns turns (coins played); outcome
//	                 "truncated". MaxEpisodeSteps 401 (launch, and at most a
//	                 coin and a refuel decision per turn)
//	parameters       max_turns  int   200    truncation, in coins played
//	                                         (1-30000; above 255 the
//	                                         observed turn count saturates,
//	                                         so a policy cannot see the
//	                                         limit coming)
//	                 scan_wrap  bool  false  scanning adjacency wraps around
//	                                         the edges like movement
//	info             outcome, score, deliveries, refuels, unspent_coins,
//	                 turns, and the label rating
//	rating           100 or more  "Employee of the Year!!"  [RatingEmployee]
//	                 90 to 99     "Nice going, kid!"        [RatingNice]
//	                 80 to 89     "Not bad ... for a rookie!" [RatingRookie]
//	                 below 80     "Maybe you need to spend more time at the
//	                              Academy!"                 [RatingAcademy]
//	determinism      everything random (the deal, the reshuffles on a refuel)
//	                 derives from the reset seed, through a PCG kept in the
//	                 state and serialized with it
//	version history  v1: first release
//
// # Positions as text
//
// [ParsePosition] and [State.Position] read and write a compact, complete
// text form of a position (hidden information and the generator included),
// used by the rules tests, bug reports and the JSON form of a state. See
// notation.go for the grammar.
package galaxyexpress
