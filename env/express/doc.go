// Package express is Express (Darwin Bromley, Mayfair Games 1990; Steve
// Jackson Games and the Train Gamers Association 2024), the railroad card
// game, as the competitive environments express-v2 (current: V2(), IDv2)
// and express-v1 (the first release, Game{}, ID: kept registered and
// unchanged so that published numbers reproduce) for 2-6 players under
// the tournament rules.
//
// The full rules, in our own words, with every gap of the sources resolved
// and marked as an assumption (A1, A2, ...), are in docs/rules/express.md.
//
// # Rules in brief
//
// A deck of 93 cards (24 kinds, [CardKind]): five freight types, passenger
// cars and Diesels, Wilds, Cabooses, five Disasters, their five Way Cars,
// Turntables. Each hand, every player is dealt 12 cards (8 with 5-6
// players). A turn: draw two cards or take the top discard; meld (start trains behind face-down
// locomotives, add cars, swap a locomotive, play Way Cars); end the turn by
// discarding, by playing a Disaster on a player's train (or player), or a
// Turntable (another turn, direction reversed), with at most five cards
// left in hand. An attacked player holding the matching Way Car may block
// (express-v2 asks every attacked player who might hold it, A29).
// A player goes out with an empty hand and trains of 5+, 4+ and 3+ cars;
// the hand is then scored: trains (freight by value per car, passenger
// trains with doublings), Way Cars, the going-out bonus, minus the cards
// left in hand. The game ends after the hand in which a total reaches the
// target, or after max_hands hands; the highest total wins.
//
// # Spec
//
//	id               express-v2 (IDv2), express-v1 (ID) (Spec().Name
//	                 "Express"); the same action and observation spaces
//	players          2-6, the standard players parameter (default 4);
//	                 CurrentPlayer is the player to decide, the attacked
//	                 player during a block decision, env.Terminal at the end
//	actions          Discrete(648), one space for every phase; r is a seat
//	                 offset from the acting player (0 self, 1 next clockwise),
//	                 t and u train slots 0-5, k a card kind ([CardKind] order):
//	                   0        draw: two cards from the draw pile
//	                   1        take-discard: the top discard
//	                   2-25     start-K: card k face down as a new train's locomotive
//	                   26-97    add-tT-K: car k (BX..DS, CB) to own train t
//	                            (26 + t*12 + c, c 0-10 the kinds, 11 the Caboose)
//	                   98-139   wild-tT-X: a Wild to own train t (98 + t*7 + w):
//	                            w 0-4 as a freight type, 5 as a passenger car
//	                            (positions 1-2), 6 undeclared (position 3+)
//	                   140-283  swap-tT-K: train t's locomotive for card k (140 + t*24 + k)
//	                   284-288  way-K: play a Way Car (LC BM OF TR HC)
//	                   289-396  broken/steal/wreck-pR-tT (289 + h*36 + r*6 + t)
//	                   397-402  derail-pR
//	                   403-618  switch-pR-tT-ownU (403 + r*36 + t*6 + u)
//	                   619      turntable
//	                   620      end-meld: end the turn with an empty hand
//	                   621-644  discard-K: discard card k, ending the turn
//	                   645-646  block, let-it-happen (the attacked player)
//	                   647      stuck: set the hand aside and draw as many
//	                 The mask is exact: an action is legal iff the rules
//	                 allow it now (ending actions only with at most five
//	                 cards left; a new train's first car, and a first Wild's
//	                 second car, before anything else).
//	observation      Box(0, ObsHigh, shape [1058], uint8), flat, from the
//	                 observer's seat: a 24-byte header (phase, actor, direction,
//	                 round, hand, first-round flag, pile sizes, top discard,
//	                 disaster slot top, Turntables, rebuilds, turn flags,
//	                 pending Disaster, players, turn counters), own hand (24
//	                 counts), discard pile counts (24), the 8 newest discards,
//	                 disaster slot counts (24), set-aside counts (24), then 6
//	                 player blocks of 155 bytes, seat-relative (hand size,
//	                 score+32768 as uint16, skips, trains, Way Cars, blocked
//	                 Way Cars, cards known in hand, 6 trains of 19 bytes:
//	                 locomotive (the observer's own shows its kind), length,
//	                 flags, 16 car codes). See observe.go (Off*, P*, T*).
//	rewards          each player's score change when a hand is scored
//	                 (the return is the final total); zero_sum=true pays the
//	                 change minus the mean of the others'. RewardRange
//	                 [-1600, 1600] covers every parameter setting (a hand
//	                 scores -70 to 506 under the defaults); ReturnRange
//	                 [-840, 625] under the defaults (see game.go)
//	terminated       after the hand in which a total reaches target, after
//	                 max_hands hands, or after one hand with hand_only
//	truncated        after max_turns turns; the hand in progress is scored
//	                 as is (no going-out bonus), so returns still equal totals
//	info             scores (totals), outcomes and ranks by
//	                 env.Info.RankByScore (highest total wins; equal highest
//	                 totals draw; competition ranks 1, 1, 3), also at
//	                 truncation; stats hands, turns, went_out
//	parameters       players          int     4       2-6
//	                 target           int     120     1-10000 (100: Mayfair)
//	                 opening_hand     int     0       0-12; 0: 12 with 2-4 players, 8 with 5-6
//	                 max_hands        int     12      1-100
//	                 reshuffles       int     1       0-10
//	                 freight_scoring  string  plain   plain, progressive
//	                 passenger_wilds  string  specific  specific, generic (v2 only, A30)
//	                 hand_only        bool    false
//	                 zero_sum         bool    false
//	                 max_turns        int     3000    1-100000
//	determinism      every shuffle derives from the reset seed through a
//	                 PCG kept in the state and serialized with it
//	performance      random play, 4 players, one core: 2.0-2.4M steps/s;
//	                 Observe 0.13 µs, LegalMask 0.08 µs, no allocation
//	                 (docs/performance.md)
//	action names     Spec().ActionNames are the fixed, seat-relative names
//	                 ("broken-p1-t0": offset 1, the next seat clockwise);
//	                 on express-v2 State.ActionName (env.ActionNamer, used
//	                 by Env.ActionName) adds what the action does with
//	                 absolute seats: "broken-p1-t0 (Broken Car on player
//	                 2's train t0)" when player 1 acts (A31)
//	version history  v1: first release
//	                 v2: the block decision is asked whenever the public
//	                 table leaves it possible that the attacked player
//	                 holds the Way Car, "block" legal only with it in hand
//	                 (A29; v1 asked only a holder, which told every player
//	                 who held it); a Wild in a
//	                 passenger section scores as the passenger car that
//	                 scores best (passenger_wilds, A30); action names with
//	                 absolute seats (A31). Both versions: the notation
//	                 reads integers in their canonical spelling only and
//	                 checks card conservation of the position built.
//
// # Hidden information
//
// Observe shows a player the own hand and own locomotives, and of the
// others only what the table sees: hand sizes, the cards known to be in a
// hand (taken from the discard pile or stolen, A26), trains with face-down
// locomotives. [State.String] renders the public table only;
// [State.StringFor] adds one player's hand and locomotives; [State.Render]
// (env.Renderer, the rgb_array mode) draws the public table.
// [State.Position] is the complete text form (every hand, the draw pile's
// order, the generator) for tests and serialization; [ParsePosition] reads
// it.
//
// Both versions are an env.HiddenObserver: [State.ObserveHidden] writes,
// for critics trained with the whole state, the 328 bytes a player's
// observation leaves out (hidden.go): the other hands (counts per kind)
// and locomotives seat-relative, the draw pile in drawing order and the
// discard pile below its recent discards; the generator is not part of it.
package express
