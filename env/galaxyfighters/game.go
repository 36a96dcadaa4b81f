package galaxyfighters

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/galaxygym/galaxygym/env"
)

// ID is the registered id of the current version, galaxy-fighters-v2: six
// invader spaces, the calibrated spawn_density of each mission, the
// bonus_tiles rule, the frenzy fix (see the version history in doc.go).
// IDv1 is the first release, kept registered and unchanged so that
// published numbers stay reproducible. Both take the standard `players`
// parameter (2-4, default 4): 4 play one ship each, 3 pass the fourth ship
// round, 2 play two ships each.
const (
	ID   = "galaxy-fighters-v2"
	IDv1 = "galaxy-fighters-v1"
)

// IsID reports whether id is one of the Galaxy Fighters ids (any version).
func IsID(id string) bool { return id == ID || id == IDv1 }

// DefaultMaxTurns is the default truncation limit in ship turns.
const DefaultMaxTurns = 200

// MaxEpisodeSteps bounds an episode under the default parameters: twelve
// setup choices, at most seven steps a turn (a refit's two choices and five
// commands) and at most 40 spill-over choices (each fills an invader space).
const MaxEpisodeSteps = 3*NumSeats + 7*DefaultMaxTurns + NumSeats*maxInvaders

// Game is the Galaxy Fighters rules; the number of players is the
// standard `players` parameter (env.PlayersParam). The zero value is the
// current version (ID); the legacy version (IDv1) is registered beside it.
type Game struct{ v1 bool }

func init() {
	env.Register(Game{v1: true})
	env.Register(Game{})
}

// actionNames lists the action names, index = action (the spec's
// ActionNames).
var actionNames = func() []string {
	n := make([]string, NumActions)
	for w := 0; w < numWeapons; w++ {
		n[ActionWeapon+w] = "weapon-" + weaponNames[w]
	}
	for b := 0; b < numBonusTiles; b++ {
		n[ActionBonus+b] = "bonus-" + faceCodes[b]
	}
	for e := 0; e < numEngines; e++ {
		n[ActionEngine+e] = "engine-" + engineNames[e]
	}
	n[ActionFire] = "fire"
	for m := 0; m < 8; m++ {
		n[ActionMove+m] = "move-" + moveNames[m]
	}
	n[ActionUseWeapon] = "use-weapon"
	for z := 4; z <= 8; z++ {
		n[ActionMissile+z-4] = fmt.Sprintf("missile-zone-%d", z)
	}
	n[ActionSDS] = "shielded-defense"
	n[ActionDeflector] = "deflector"
	for z := 1; z <= 3; z++ {
		for c := 1; c <= 5; c++ {
			n[ActionWarp+(z-1)*5+c-1] = fmt.Sprintf("warp-zone-%d-col-%d", z, c)
		}
	}
	n[ActionEndTurn] = "end-turn"
	n[ActionSpill] = "spill-left"
	n[ActionSpill+1] = "spill-right"
	return n
}()

var missionNames = func() []string {
	n := make([]string, len(missions))
	for i, m := range missions {
		n[i] = m.name
	}
	return n
}()

// specs are the registered descriptions, v1 and v2 (4 players; env.New
// derives the spec of the other counts from the players parameter).
var specV1, specV2 = newSpec(true), newSpec(false)

func newSpec(v1 bool) *env.Spec {
	id, invaders, desc := ID, 6, "; v2: six invader spaces, calibrated spawn density per mission"
	if v1 {
		id, invaders, desc = IDv1, 10, "; v1 (legacy: its missions are too easy to separate strong play)"
	}
	params := []env.ParamSpec{
		{Name: env.PlayersParam, Kind: env.Int, Default: NumSeats, Min: 2, Max: NumSeats,
			Doc: "players: 4 fly one ship each, 3 take turns with the fourth ship, 2 fly two ships each (the four ships are always in play)"},
		{Name: env.MaxTurnsParam, Kind: env.Int, Default: DefaultMaxTurns, Min: 1, Max: 30000,
			Doc: "truncate the episode after this many ship turns"},
		{Name: "mission", Kind: env.String, Default: "expert", Choices: slices.Clone(missionNames),
			Doc: "difficulty: rookie (3 districts, 3 backup ships, 15 spawn cards), expert (2, 3, 20), ace (1, 2, 25)"},
		{Name: "districts_to_lose", Kind: env.Int, Default: 0, Min: 0, Max: 4,
			Doc: "custom mix: invaded districts that lose the game (0: the mission's)"},
		{Name: "backup_ships", Kind: env.Int, Default: -1, Min: -1, Max: maxBackup,
			Doc: "custom mix: ship cards in the shipyard (-1: the mission's)"},
		{Name: "spawn_deck", Kind: env.Int, Default: 0, Min: 0, Max: maxDeckSize,
			Doc: "custom mix: spawn deck size (0: the mission's)"},
		{Name: "invader_spaces", Kind: env.Int, Default: invaders, Min: 6, Max: maxInvaders,
			Doc: "invader spaces beside each district (the seed says 10, and later 6)"},
		{Name: "win_on", Kind: env.String, Default: "clear", Choices: []string{"clear", "last_card"},
			Doc: "win once the spawn deck is exhausted and no alien is left (clear), or at the end of the turn that drew the last card (last_card)"},
		{Name: "shaping", Kind: env.Float, Default: 0.0, Min: 0, Max: 0.1,
			Doc: "dense reward to every player per step: shaping * (aliens destroyed - aliens invading), clipped to [-0.5, 0.5]"},
	}
	if !v1 {
		params = append(params,
			env.ParamSpec{Name: "spawn_density", Kind: env.Float, Default: 0.0, Min: 0, Max: maxDensity,
				Doc: "spawn cards laid per spawn phase, on average: the drawn card, then reinforcement cards (floor(d)-1 and one more with probability d-floor(d)); 0: the mission's calibrated density (rookie " +
					strconv.FormatFloat(missions[0].density, 'g', -1, 64) + ", expert " +
					strconv.FormatFloat(missions[1].density, 'g', -1, 64) + ", ace " +
					strconv.FormatFloat(missions[2].density, 'g', -1, 64) + ")"},
			env.ParamSpec{Name: "bonus_tiles", Kind: env.String, Default: "any", Choices: slices.Clone(bonusRuleNames[:]),
				Doc: "who may take which bonus command tile: any (every ship any symbol) or two_each (a supply of two tiles of each symbol)"})
	}
	return &env.Spec{
		ID:                id,
		Name:              "Galaxy Fighters",
		NumPlayers:        NumSeats,
		MinPlayers:        2,
		MaxPlayers:        NumSeats,
		ActionNames:       slices.Clone(actionNames),
		ObsShape:          []int{ObsSize},
		ObsDType:          "uint8",
		ObservationLayout: layout.Clone(),
		ObsHigh:           obsHigh(),
		MaxEpisodeSteps:   MaxEpisodeSteps,
		RewardRange:       [2]float64{-1 - maxShaping, 1 + maxShaping},
		ReturnRange:       [2]float64{-1, 1},
		Params:            params,
		Description: "Galaxy Fighters (Gamey, 2024), cooperative, 2-4 players: four hero ships defend the four " +
			"districts of Galaxy City against waves of Exovon aliens spawned from a deck of cards; roll command dice to " +
			"fire, move and use weapon systems and ship specials; win by outlasting the spawn deck" + desc + ".",
	}
}

// maxDensity bounds spawn_density.
const maxDensity = 4.0

// Bonus tile rules (the bonus_tiles parameter, assumption A7).
const (
	bonusAny     = 0 // every ship may take any symbol
	bonusTwoEach = 1 // a supply of two tiles of each symbol
)

var bonusRuleNames = [...]string{"any", "two_each"}

// Config is a resolved parameter set, for ParsePosition.
type Config struct{ c *config }

// DefaultConfig returns the default parameters of the environment id (ID
// or IDv1) for players (2-4); it panics on another id or count.
func DefaultConfig(id string, players int) *Config {
	g, err := env.Lookup(id)
	if err != nil || !IsID(id) {
		panic(fmt.Sprintf("galaxyfighters: DefaultConfig(%q)", id))
	}
	p, err := g.Spec().Resolve(map[string]any{env.PlayersParam: players})
	if err != nil {
		panic(err)
	}
	return NewConfig(p)
}

// NewConfig resolves the game parameters p, as resolved by the spec of
// either version (every parameter present, the players parameter
// included); the v2-only spawn_density parameter tells the versions apart.
func NewConfig(p env.Params) *Config {
	c := newConfig(p)
	return &Config{&c}
}

// newConfig resolves p into a config value (see NewConfig).
func newConfig(p env.Params) config {
	m := missions[1]
	for _, x := range missions {
		if x.name == p.Str("mission") {
			m = x
		}
	}
	c := config{players: p.Int(env.PlayersParam), mission: m.name, districtsToLose: m.districtsToLose,
		backup: m.backupShips, deckSize: m.spawnDeck, invaderCap: p.Int("invader_spaces"),
		winOnClear: p.Str("win_on") == "clear", shaping: p.Float("shaping"), density: 1}
	if v := p.Int("districts_to_lose"); v > 0 {
		c.districtsToLose = v
	}
	if v := p.Int("backup_ships"); v >= 0 {
		c.backup = v
	}
	if v := p.Int("spawn_deck"); v > 0 {
		c.deckSize = v
	}
	if d, ok := p["spawn_density"].(float64); ok {
		c.v2 = true
		c.density = m.density
		if d > 0 {
			c.density = d
		}
		if p.Str("bonus_tiles") == bonusRuleNames[bonusTwoEach] {
			c.bonusRule = bonusTwoEach
		}
	}
	return c
}

// Spec returns the environment description (4 players; env.New gives an
// environment the spec of its players parameter).
func (g Game) Spec() *env.Spec {
	if g.v1 {
		return specV1
	}
	return specV2
}

// NewState deals a new game from seed.
func (Game) NewState(p env.Params, seed uint64) env.State {
	return newState(NewConfig(p).c, seed)
}

// LoadState reads a state written by MarshalJSON; errors are
// *env.StateError (env.UnmarshalPosition).
func (g Game) LoadState(p env.Params, data []byte) (env.State, error) {
	return env.UnmarshalPosition(g.Spec().ID, data, func(text string) (*State, error) { return ParsePosition(text, NewConfig(p)) })
}
