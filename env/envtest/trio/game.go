package trio

import "github.com/galaxygym/galaxygym/env"

// ID is the environment id.
const ID = "envtest-trio-v1"

// Game is Trio's env.Game.
type Game struct{}

func init() { env.Register(Game{}) }

var spec = &env.Spec{
	ID:         ID,
	Name:       "Trio",
	NumPlayers: 3,
	MinPlayers: 2,
	MaxPlayers: MaxPlayers,
	ActionNames: []string{
		"take-0", "take-1", "take-2", "take-3", "take-4",
	},
	ObsShape:          []int{ObsSize},
	ObsDType:          "uint8",
	ObservationLayout: layout.Clone(),
	ObsHigh:           []uint8{9, 9, 9, 9, 9, Slots, 36, 36, 36, 36, Takes * MaxPlayers, MaxPlayers},
	MaxEpisodeSteps:   Takes * MaxPlayers,
	RewardRange:       [2]float64{0, MaxValue},
	ReturnRange:       [2]float64{0, Takes * MaxValue},
	Params: []env.ParamSpec{
		{Name: env.MaxTurnsParam, Kind: env.Int, Default: 0, Min: 0, Max: Takes * MaxPlayers,
			Doc: "truncate after this many takes (0: never)"},
	},
	Description: "A card-taking race for 2-4 players that ranks by score: the test game of the seats and per-player results.",
}

// Spec returns the environment description.
func (Game) Spec() *env.Spec { return spec }

// NewState deals a new game from seed.
func (Game) NewState(p env.Params, seed uint64) env.State {
	return newState(p.Int(env.PlayersParam), seed)
}

// LoadState reads a state written by MarshalJSON ({"position": notation});
// errors are *env.StateError.
func (Game) LoadState(p env.Params, data []byte) (env.State, error) {
	return env.UnmarshalPosition(ID, data, func(text string) (*State, error) {
		s, err := ParsePosition(text)
		if err == nil && s.players != p.Int(env.PlayersParam) {
			err = perr("%d players, the environment has %d", s.players, p.Int(env.PlayersParam))
		}
		return s, err
	})
}
