// Package galaxyfighters is Galaxy Fighters (Gamey LLC, 2024), a
// cooperative arcade game for 2-4 players, as the environments
// galaxy-fighters-v2 (current) and galaxy-fighters-v1 (legacy: kept
// unchanged for reproducibility, its missions too easy to separate strong
// play), each with the standard players parameter (2-4, default 4).
//
// The full rules, in our own words, with every gap of the seed text
// resolved and marked as an assumption (A1, A2, ...), are in
// docs/rules/galaxy-fighters.md.
//
// # Rules in brief
//
// The board is an 11x11 cross: 5x5 deep space in the centre and on each
// side a 5x3 atmosphere above a district of Galaxy City (seat 0 Rocketown
// at the bottom, then clockwise as the turn passes left: 1 Atomville, 2
// Novaport, 3 Astrofield). Four hero ships, one per district, always play;
// the players control them (4: one each; 3: one each, the fourth ship
// passing round in turn; 2: two each, seats 0 and 2 to player 0). At setup
// each ship (a random ship card: Astro Wing, Phalanx or Gladius) chooses a
// weapon system, a bonus command tile and an engine modification. A turn
// is: spawn (the spawn deck's top card, read from the acting seat's side,
// lays Exovons in deep space), command (four command dice plus the bonus
// tile: Fire, Move, Special, Fire-or-Special; at least one used), approach
// (every alien whose top-of-stack faces the acting seat moves 1, 2 or 3
// spaces by type; a stack whose top faces the seat frenzies). Aliens that
// leave the board past a district's zone 1 invade it; a full district
// spills over to a neighbour. The team wins when the spawn deck is
// exhausted and the board clear (win_on=clear) and loses when the
// mission's number of districts is invaded or a destroyed ship cannot be
// replaced from the shipyard. v2 adds reinforcement spawn cards at a
// density calibrated per mission, so that the heuristic wins about 94% of
// Rookie, 64% of Expert and 30% of Ace games (docs/rules/galaxy-fighters.md,
// "Calibration").
//
// # Spec
//
//	id               galaxy-fighters-v2 (ID), galaxy-fighters-v1 (IDv1);
//	                 Spec().Name "Galaxy Fighters"
//	players          2-4, the standard players parameter (default 4;
//	                 Env.Spec().NumPlayers follows it); CurrentPlayer is
//	                 the player controlling the ship whose turn (or setup)
//	                 it is, env.Terminal at the end
//	actions          Discrete(44), one space for every phase:
//	                   0-2    weapon-wide-beam, weapon-laser-beam,
//	                          weapon-spread-shot (setup and refit)
//	                   3-5    bonus-fire, bonus-move, bonus-special (setup)
//	                   6-8    engine-thrusters, engine-deflector,
//	                          engine-warp-drive (the ship card's two)
//	                   9      fire: the closest alien straight ahead
//	                   10-17  move-n, -ne, -e, -se, -s, -sw, -w, -nw (the
//	                          acting player's view, n toward the centre)
//	                   18     use-weapon: the weapon system (1 Special)
//	                   19-23  missile-zone-4..8: Astro Wing (2 Specials)
//	                   24     shielded-defense: Phalanx tile ahead (1 Special)
//	                   25     deflector: engine (1 Special)
//	                   26-40  warp-zone-Z-col-C: engine (2 Specials), Z 1-3,
//	                          C 1-5 from the player's left
//	                   41     end-turn: end the command phase
//	                   42-43  spill-left, spill-right
//	                 A command spends Fire (or Fire-or-Special when no Fire
//	                 is left), Move (or, with Thrusters, Special then
//	                 Fire-or-Special), Special (then Fire-or-Special).
//	                 Commands without effect are not legal; end-turn is
//	                 legal once a command was used or when none is legal.
//	observation      Box(0, ObsHigh, shape [4092], uint8), flat; 33 board
//	                 planes of 121 over the board turned to the observer's
//	                 side (player p at seat p), then per-seat, dice, phase
//	                 and counter bytes: see observe.go (Off* constants).
//	                 Only counts of the spawn deck and the shipyard show.
//	rewards          cooperative: every player gets +1 on the winning step,
//	                 -1 on the losing step; with shaping > 0 also
//	                 shaping*(aliens destroyed - aliens invading) each step,
//	                 clipped to [-0.5, 0.5]. RewardRange [-1.5, 1.5];
//	                 ReturnRange [-1, 1] under the defaults.
//	terminated       win (outcome "win") or loss ("loss")
//	truncated        after max_turns ship turns; outcome "truncated";
//	                 MaxEpisodeSteps 1452 (12 setup choices, 7 steps a turn,
//	                 40 spill-over choices)
//	parameters       max_turns          int     200      1-30000
//	                 mission            string  expert   rookie, expert, ace
//	                 districts_to_lose  int     0        custom mix, 0 = mission's
//	                 backup_ships       int     -1       custom mix, -1 = mission's
//	                 spawn_deck         int     0        custom mix, 0 = mission's
//	                 invader_spaces     int     6 (v1 10) 6-10 (the seed says 10 and 6)
//	                 win_on             string  clear    clear, last_card
//	                 shaping            float   0        0-0.1
//	                 spawn_density      float   0        v2: 0-4, spawn cards laid per
//	                                                     spawn phase on average; 0 =
//	                                                     the mission's (rookie 2.7,
//	                                                     expert 2.65, ace 2.5)
//	                 bonus_tiles        string  any      v2: any, two_each (at most
//	                                                     two ships per symbol)
//	info             outcome, score (+1 win, -1 loss, 0 otherwise),
//	                 aliens_destroyed, crashes, invasions, districts_invaded,
//	                 ships_lost, turns, spawn_left, shipyard_left,
//	                 aliens_on_board, and the label mission
//	determinism      the ship-card deal, the shipyard, the spawn deck and
//	                 every dice roll (and v2's reinforcement cards) derive
//	                 from the reset seed through a PCG kept in the state
//	                 and serialized with it; chance happens inside the
//	                 step that leads to it
//	hidden part      Game implements env.HiddenObserver (hidden.go), for
//	                 critics only: 31 bytes for every player count, the
//	                 spawn deck and the shipyard in draw order and, with 3
//	                 players, the fourth ship's controller (relative seat);
//	                 not the generator, nor the public stack order the
//	                 observation leaves out
//	search           Game implements env.Determinizer (Determinize): the
//	                 spawn deck, shipyard, order under stack tops and the
//	                 chance generator sampled from one observation
//	version history  v1: first release (legacy).
//	                 v2: invader_spaces 6 by default, spawn_density
//	                 (reinforcement cards, calibrated per mission),
//	                 bonus_tiles, the frenzy fix (a game lost mid-frenzy
//	                 keeps the stack's unmoved aliens); same actions,
//	                 observation and notation
//
// # Positions as text
//
// [ParsePosition] and [State.Position] read and write a compact, complete
// text form of a position (see notation.go), used by the rules tests and
// the JSON form of a state.
package galaxyfighters
