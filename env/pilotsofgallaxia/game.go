package pilotsofgallaxia

import (
	"fmt"
	"slices"

	"github.com/galaxygym/galaxygym/env"
)

// ID is the registered id of the current version, pilots-of-gallaxia-v2:
// the landing decision offered on every landing (no hand leaks through the
// phase), no two pieces on one space after a flee, Teleprism slide-offs
// that respect BLOKKs, no raids from inside a hangar, and the calibrated
// defaults of docs/rules/pilots-of-gallaxia.md. IDv1 is the first
// release, kept registered and unchanged so that published numbers stay
// reproducible. Both take the standard `players` parameter (2-6, default
// 4) that env.Register adds.
const (
	ID   = "pilots-of-gallaxia-v2"
	IDv1 = "pilots-of-gallaxia-v1"
)

// IsID reports whether id is one of the Pilots of Gallaxia ids (any version).
func IsID(id string) bool { return id == ID || id == IDv1 }

// DefaultMaxTurns is v1's default truncation limit in pilot turns;
// DefaultMaxTurnsV2 is v2's, whose games last longer (heuristic self-play,
// 10,000 games at each count: a median of 28 pilot turns with 2 pilots,
// 51 with 4, 72 with 6; the longest 326, 342 and 389).
const (
	DefaultMaxTurns   = 80
	DefaultMaxTurnsV2 = 600
)

// stepsPerTurn bounds the steps of one pilot turn: two starship moves of at
// most 10 points (a step and a claim each, a raid of three steps, a
// landing, a slide-off, a stop), a Durriken move, a purchase, a hire, up
// to 12 Salvage plays, The Gambit's four decisions, and the discards of a
// Rekkoning (at most every card in play).
const stepsPerTurn = 2*(2+2*afterburnerPoints+3+3) + 12 + 2 + 1 + 12 + 1 + 4 + deckSize + captainSize

// MaxEpisodeSteps bounds a v1 episode under the default parameters,
// MaxEpisodeStepsV2 a v2 episode.
const (
	MaxEpisodeSteps   = DefaultMaxTurns * stepsPerTurn
	MaxEpisodeStepsV2 = DefaultMaxTurnsV2 * stepsPerTurn
)

const maxShaping = 0.1

// Game is the Pilots of Gallaxia rules. The zero value is the current
// version (ID); the legacy version (IDv1) is registered beside it.
type Game struct{ v1 bool }

func init() {
	env.Register(Game{v1: true})
	env.Register(Game{})
}

// actionNames lists the action names, index = action, in the acting
// pilot's frame (s0 its own sektor, s1 the next clockwise, ...); each Spec
// holds its own copy and [ActionNames] returns another.
var actionNames = func() []string {
	n := make([]string, NumActions)
	for sp := 0; sp < NumSpaces; sp++ {
		n[ActNode+sp] = fmt.Sprintf("to-s%d-%s", SektorOf(sp), theBoard.local[sp])
	}
	for k := 0; k < NumKinds; k++ {
		if k == KindRekkoning {
			continue
		}
		name := CardName(k)
		if k < KindFuel {
			name = fmt.Sprintf("s%d-P%d", k/8, k%8+1)
		}
		n[cardAction(k, 0)] = "card-" + name
	}
	n[ActShip], n[ActShip+1], n[ActDurriken] = "ship-1", "ship-2", "durriken"
	n[ActHire], n[ActEndMoves], n[ActBase], n[ActStop] = "hire", "end-moves", "base-move", "stop"
	n[ActClaim], n[ActClaimBlokk], n[ActNoClaim] = "claim", "claim-blokk", "no-claim"
	for r := 1; r < MaxPlayers; r++ {
		for k, pn := range []string{"ship-1", "ship-2", "durriken"} {
			n[ActRaid+3*(r-1)+k] = fmt.Sprintf("raid-r%d-%s", r, pn)
		}
	}
	n[ActNoCard], n[ActTakeCard], n[ActDrawCard] = "no-card", "take-card", "draw-card"
	n[ActTake], n[ActHigher], n[ActLower], n[ActCashIn], n[ActPass] = "take", "higher", "lower", "cash-in", "pass"
	return n
}()

// ActionNames returns a new slice of the action names, index = action
// (len NumActions), in the acting pilot's frame: the names
// Spec().ActionNames also holds.
func ActionNames() []string { return slices.Clone(actionNames) }

// specV1 and specV2 are the registered descriptions (4 players; env.New
// derives the spec of the other counts from the players parameter).
var specV1, specV2 = newSpec(true), newSpec(false)

func newSpec(v1 bool) *env.Spec {
	id, warp, desc := ID, "p2_cards", "; v2: vortex hops for Durriken only, no hidden information through the landing decision, "+
		"no shared spaces, BLOKKs respected by slide-offs, no raids from a hangar, fair seats"
	turns, steps := DefaultMaxTurnsV2, MaxEpisodeStepsV2
	if v1 {
		id, warp, desc = IDv1, "card_sektor", "; v1 (legacy)"
		turns, steps = DefaultMaxTurns, MaxEpisodeSteps
	}
	params := []env.ParamSpec{
		{Name: env.MaxTurnsParam, Kind: env.Int, Default: turns, Min: 1, Max: 100000,
			Doc: "truncate the episode after this many pilot turns"},
		{Name: "mode", Kind: env.String, Default: "rookie_run", Choices: slices.Clone(modeNames),
			Doc: "rookie_run: the first scientist home wins (+1/-1); a_new_life: countdown points, the first to `countdown` wins"},
		{Name: "shaping", Kind: env.Float, Default: 0.0, Min: 0, Max: maxShaping,
			Doc: "Rookie Run: extra reward to a pilot for each ring picked up, each ring brought home and each raid won"},
		{Name: "caravans", Kind: env.Int, Default: 12, Min: 0, Max: maxCaravans,
			Doc: "caravans in each pilot's supply (A6)"},
		{Name: "blokks", Kind: env.Int, Default: 2, Min: 0, Max: maxCaravans,
			Doc: "how many of the caravans may be placed as BLOKKs (A6); at most caravans"},
		{Name: "hideouts", Kind: env.Bool, Default: false,
			Doc: "common scientist hideouts: each scientist brought home places two yellow rings (L243-L245)"},
		{Name: "rings_to_win", Kind: env.Int, Default: 1, Min: 1, Max: 1 + 2*MaxPlayers,
			Doc: "with hideouts: rings a pilot must bring home to win (L239, L245)"},
		{Name: "scientist_warp", Kind: env.String, Default: warp, Choices: []string{"card_sektor", "p2_cards"},
			Doc: "a ship carrying a scientist warps with any planet card to P2 of the card's sektor (card_sektor), or only with #2 planet cards (p2_cards) (L105, A10)"},
		{Name: "countdown", Kind: env.Int, Default: 6, Min: 1, Max: 50,
			Doc: "A New Life: countdown points that win (A28)"},
		{Name: "route_points", Kind: env.Int, Default: 4, Min: 1, Max: 8,
			Doc: "A New Life: points of a completed trade route between planets in hand (L293, A27)"},
	}
	return &env.Spec{
		ID:                id,
		Name:              "Pilots of Gallaxia",
		NumPlayers:        4,
		MinPlayers:        2,
		MaxPlayers:        MaxPlayers,
		ActionNames:       slices.Clone(actionNames),
		ObsShape:          []int{ObsSize},
		ObsDType:          "uint8",
		ObservationLayout: layout.Clone(),
		ObsHigh:           obsHigh(),
		MaxEpisodeSteps:   steps,
		RewardRange:       [2]float64{-1, 8},
		ReturnRange:       [2]float64{-1, 1},
		Params:            params,
		Description: "Pilots of Gallaxia, a competitive space race for 2-6 pilots: fly two starships with fuel and planet " +
			"cards, Teleprisms and vortices to the opposite sektor, rescue your scientist and bring it home first; claim " +
			"caravans into quickroutes and BLOKKs, raid with hidden cards and dice, hire a Durriken mercenary, and end " +
			"every turn with The Gambit, a higher-or-lower push-your-luck draw" + desc + ".",
	}
}

// Spec returns the environment description (4 players by default).
func (g Game) Spec() *env.Spec {
	if g.v1 {
		return specV1
	}
	return specV2
}

// Config is a resolved parameter set, for ParsePosition.
type Config struct{ c *config }

// DefaultConfig returns the default parameters of pilots-of-gallaxia-v1
// for players (2-6); DefaultConfigOf gives either version's.
func DefaultConfig(players int) *Config { return DefaultConfigOf(IDv1, players) }

// DefaultConfigOf returns the default parameters of the environment id
// (ID or IDv1) for players (2-6); it panics on another id or count.
func DefaultConfigOf(id string, players int) *Config {
	spec := specV2
	switch id {
	case ID:
	case IDv1:
		spec = specV1
	default:
		panic(fmt.Sprintf("pilotsofgallaxia: DefaultConfigOf(%q)", id))
	}
	p, err := spec.Resolve(map[string]any{env.PlayersParam: players})
	if err != nil {
		panic(err)
	}
	c, err := NewConfigOf(id, p)
	if err != nil {
		panic(err)
	}
	return c
}

// NewConfigOf builds the configuration of the environment id (ID or IDv1;
// any other id is read as ID) from parameters p resolved by that id's
// spec; it returns an *env.ParamError when blokks exceeds caravans.
func NewConfigOf(id string, p env.Params) (*Config, error) {
	c := &config{id: IDv1, players: 4, shaping: p.Float("shaping"), caravans: p.Int("caravans"), blokks: p.Int("blokks"),
		hideouts: p.Bool("hideouts"), ringsToWin: p.Int("rings_to_win"), countdown: p.Int("countdown"),
		routePoints: p.Int("route_points"), p2Cards: p.Str("scientist_warp") == "p2_cards"}
	if n, ok := p[env.PlayersParam].(int); ok {
		c.players = n
	}
	if p.Str("mode") == "a_new_life" {
		c.mode = ModeANewLife
	}
	if id != IDv1 {
		c.v2, c.id = true, ID
	}
	if c.blokks > c.caravans {
		return nil, &env.ParamError{Env: c.id, Name: "blokks", Reason: fmt.Sprintf("%d BLOKKs out of %d caravans", c.blokks, c.caravans)}
	}
	return &Config{c}, nil
}

// NewState deals a new game from seed.
func (g Game) NewState(p env.Params, seed uint64) env.State {
	id := g.Spec().ID
	c, err := NewConfigOf(id, p)
	if err != nil {
		// blokks > caravans: play with every caravan a possible BLOKK.
		p2 := make(env.Params, len(p))
		for k, v := range p {
			p2[k] = v
		}
		p2["blokks"] = p.Int("caravans")
		c, _ = NewConfigOf(id, p2)
	}
	return newState(c.c, seed)
}

// LoadState reads a state written by MarshalJSON; errors are
// *env.StateError (env.UnmarshalPosition; "invalid parameters" when p does
// not make a configuration).
func (g Game) LoadState(p env.Params, data []byte) (env.State, error) {
	id := g.Spec().ID
	c, err := NewConfigOf(id, p)
	if err != nil {
		return nil, &env.StateError{Env: id, Reason: "invalid parameters", Err: err}
	}
	return env.UnmarshalPosition(id, data, func(text string) (*State, error) { return ParsePosition(text, c) })
}
