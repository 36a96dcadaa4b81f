// Package pilotsofgallaxia is Pilots of Gallaxia, a competitive space race
// for 2-6 pilots, as the environments pilots-of-gallaxia-v2 (current) and
// pilots-of-gallaxia-v1 (legacy: kept registered and unchanged so that
// published numbers reproduce).
//
// The seed text is fragmentary; the reconstruction, every rule cited to its
// seed line and every invention marked as an assumption (A1, A2, ...), is
// docs/rules/pilots-of-gallaxia.md.
//
// # Rules in brief
//
// Six sektors ring a sun; each pilot's sektor holds its home hangar (two
// starships), its LAIR (a Durriken mercenary), eight planets, a Teleprism
// and a vortex, joined by trade routes of three caravan spaces (board.txt,
// 282 spaces). Each pilot's scientist is held on planet #4 of the opposite
// sektor; in the Rookie Run the first pilot to bring theirs home wins. On
// a turn a pilot moves each starship once (a fuel card, a planet-card
// warp, the base move of 2, or an Afterburner; Teleprisms and vortices on
// the way), may move and hire the Durriken (Durriken-card warps that
// destroy trade routes, a base move of 3), claims caravan spaces into
// quickroutes and BLOKKs, raids neighbouring pieces (a hidden card and a
// d6 each, ties to the defender, the loser flees to a d6+d8 planet), buys
// Captain's Cards, and ends with The Gambit (take the card, or guess
// higher/lower up to three cards; a tie is a push, a wrong guess loses
// them). The Rekkoning card makes everyone discard down to 5.
//
// # Spec
//
//	id               pilots-of-gallaxia-v2 (ID), pilots-of-gallaxia-v1 (IDv1)
//	                 (Spec().Name "Pilots of Gallaxia"); both share the
//	                 actions, the observation and the notation below
//	players          2-6, the standard players parameter (default 4); pilot p
//	                 sits in sektor 1,4 (2 players), 1,3,5 (3), 1,2,4,5 (4),
//	                 1-5 (5), 1-6 (6), in that order; CurrentPlayer is the
//	                 pilot to decide (the defender for its raid card, the
//	                 raid's winner for its spoils, a pilot discarding to the
//	                 Rekkoning), env.Terminal at the end
//	actions          Discrete(380), in the acting pilot's frame (sektor s0
//	                 its own, s1 the next clockwise, ...):
//	                   0-281    to-sS-X: a space (sektor S, local name X:
//	                            H, L, T, V, P1-P8, rNa-rNc, t1, t2): the
//	                            next space of a move (or the far planet of
//	                            a quickroute), the planet of a Durriken
//	                            warp, the caravan space of a slide-off
//	                   282-346  card-*: a card by kind: planets card-sS-Pn
//	                            (48), fuel card-f3..f8, Durriken
//	                            card-d1..d8, card-afterburner,
//	                            card-deflector, card-salvage. Its use
//	                            depends on the phase: main (a planet card
//	                            or two fuel cards buy a Captain's draw,
//	                            Salvage draws 2), way (fuel, warp,
//	                            Durriken warp, Afterburner), raid (the
//	                            hidden card), land (discard for a
//	                            Captain's draw), sellfuel (the second
//	                            fuel card), discarding to the Rekkoning
//	                   347-348  ship-1, ship-2: move that starship
//	                   349      durriken: move the Durriken
//	                   350      hire
//	                   351      end-moves: go to The Gambit
//	                   352      base-move
//	                   353      stop: end the move
//	                   354-356  claim, claim-blokk, no-claim
//	                   357-371  raid-rR-ship-1|ship-2|durriken: raid the
//	                            piece of the pilot R seats clockwise
//	                   372      no-card: raid without a card
//	                   373-374  take-card, draw-card: a raid's spoils
//	                   375-377  take, higher, lower: The Gambit
//	                   378      cash-in: a push for a Captain's draw
//	                   379      pass: keep the card of the planet landed on
//	                            (v2 asks on every landing on a planet,
//	                            whether or not the pilot holds its card:
//	                            the phase shows the others nothing; v1 only
//	                            when it holds it)
//	                 The mask is exact: every legal action and nothing else.
//	observation      Box(0, ObsHigh, shape [7954], uint8), flat, in the
//	                 observer's frame: 27 planes of 282 spaces (ships,
//	                 Durriken, caravans per relative seat, BLOKKs, rings per
//	                 owner, yellow rings, the moving piece), 16 bytes per
//	                 relative seat, the own hand and the discard piles by
//	                 kind, The Gambit's cards, the phase, the routes scored
//	                 in A New Life, the move and raid
//	                 state: see observe.go (Off* constants). Other hands show
//	                 only as sizes; the deck order never.
//	rewards          Rookie Run: +1 to the winner, -1 to every other pilot on
//	                 the last step; with shaping > 0 also shaping for each
//	                 ring picked up, ring brought home and raid won. A New
//	                 Life: each countdown point as it is scored.
//	                 RewardRange [-1, 8]; ReturnRange [-1, 1] under the
//	                 defaults.
//	terminated       a pilot has won; Info has every pilot's score, outcome
//	                 and rank: Rookie Run score 100 * rings home - spaces to
//	                 go (from the best-placed starship to the next ring and
//	                 home, on the empty board), A New Life countdown points
//	truncated        after max_turns pilot turns (v1 default 80: four
//	                 heuristic pilots finish in 12 on average, random ones in
//	                 about 550; v2 default 600: four heuristic pilots finish
//	                 in a median of 51), ranked the same way;
//	                 MaxEpisodeSteps 80 * 214 (v1), 600 * 214 (v2) (a
//	                 generous per-turn bound)
//	parameters       max_turns     int     80 (v2 600) 1-100000
//	                 mode          string  rookie_run  rookie_run, a_new_life
//	                 shaping       float   0           0-0.1
//	                 caravans      int     12          0-30 (A6)
//	                 blokks        int     2           0-30, at most caravans (A6)
//	                 hideouts      bool    false       common scientist hideouts
//	                 rings_to_win  int     1           1-13, with hideouts
//	                 scientist_warp string card_sektor card_sektor, p2_cards (A10;
//	                                       v2 default p2_cards)
//	                 countdown     int     6           1-50, A New Life (A28)
//	                 route_points  int     4           1-8, A New Life (A27)
//	info             outcome, score, scores, outcomes, ranks (at the end),
//	                 turns, winner, rings_home, raids, teleports,
//	                 rekkonings, and the label mode
//	determinism      the deal, the first player, every die and every shuffle
//	                 derive from the reset seed through a PCG kept in the
//	                 state and serialized with it; chance happens inside the
//	                 step that leads to it
//	determinizer     Game implements env.Determinizer (determinize.go): the
//	                 hidden cards dealt uniformly from those the pilot has not
//	                 seen, so the generic mcts agent plays the game
//	hidden part      Game implements env.HiddenObserver (hidden.go), for
//	                 critics trained with the whole position: 433 uint8
//	                 bytes in the observer's frame, the other pilots' hands
//	                 (counts per kind, 5 relative seats, zero past the
//	                 pilots), a raid card laid face down and not the
//	                 observer's, and the order of the Gallaxia and Captain's
//	                 decks (position 0 the next card drawn); never the
//	                 generator
//	version history  v1: first release.
//	                 v2: a starship never hops between vortices
//	                 (the vortex is a Durriken's way; A2), scientist_warp
//	                 p2_cards by default (A10), max_turns 600; the landing
//	                 decision on every landing (A29); a flee never ends on
//	                 the moving piece's space or the last free space it
//	                 passed (A22), so no two pieces share a space; a
//	                 slide-off never lands on another pilot's BLOKK (A17);
//	                 no raid from inside a hangar (A30). Seats are fair in
//	                 heuristic self-play (docs/rules/pilots-of-gallaxia.md,
//	                 calibration; tools/pilotscalibrate)
//
// # Positions as text
//
// [ParsePosition] and [State.Position] read and write a compact, complete
// text form of a position (see notation.go), used by the rules tests and
// the JSON form of a state.
package pilotsofgallaxia
