package galaxyexpress

import (
	"fmt"

	"github.com/galaxygym/galaxygym/env"
)

// ID is the registered environment id. Bump the version only when behaviour
// (rules, observation, rewards, action layout) changes.
const ID = "galaxy-express-v1"

// DefaultMaxTurns is the default truncation limit in turns (coins played).
const DefaultMaxTurns = 200

// Game is the Galaxy Express rules; the zero value is ready to use and is
// registered under [ID].
type Game struct{}

func init() { env.Register(Game{}) }

var spec = buildSpec()

func buildSpec() *env.Spec {
	names := make([]string, NumActions)
	for k := 0; k < numPlanets; k++ {
		names[ActionStart+k] = fmt.Sprintf("launch-planet-%d", k)
	}
	for suit := Thrust; suit <= Brake; suit++ {
		for v := 0; v < numValues; v++ {
			for d := 0; d < NumDirs; d++ {
				names[CoinAction(suit, v, d)] = fmt.Sprintf("%s-%d-%s", suit, v, dirNames[d])
			}
		}
	}
	names[ActionRefuel] = "refuel"
	names[ActionNoRefuel] = "no-refuel"
	return &env.Spec{
		ID:                ID,
		Name:              "Galaxy Express",
		NumPlayers:        1,
		ActionNames:       names,
		ObsShape:          []int{ObsSize},
		ObsDType:          "uint8",
		ObservationLayout: layout.Clone(),
		ObsHigh:           obsHigh(),
		MaxEpisodeSteps:   1 + 2*DefaultMaxTurns,
		RewardRange:       [2]float64{RefuelPenalty, DeliveryReward + 2*numValues},
		ReturnRange:       [2]float64{RefuelPenalty * DefaultMaxTurns, DeliveryReward*MaxDeliveries + 2*numValues},
		Params: []env.ParamSpec{
			{Name: env.MaxTurnsParam, Kind: env.Int, Default: DefaultMaxTurns, Min: 1, Max: 30000,
				Doc: "truncate the episode after this many turns (coins played)"},
			{Name: "scan_wrap", Kind: env.Bool, Default: false,
				Doc: "scanning adjacency wraps around the board edges like movement does (the seed does not say; default no)"},
		},
		Description: "Piecepack solitaire by Matt Worden (v1.3, 2003): fly a warp-drive Starship around an 8x6 " +
			"wrap-around Star Chart, scanning face-down planets and stopping exactly on each one in the order of " +
			"the Delivery Queue, using Thrust and Brake coins, refueling as little as possible.",
	}
}

// Spec returns the environment description.
func (Game) Spec() *env.Spec { return spec }

// NewState deals a new game from seed.
func (Game) NewState(p env.Params, seed uint64) env.State {
	return newState(configFor(p), seed)
}

// LoadState reads a state written by MarshalJSON; errors are
// *env.StateError (env.UnmarshalPosition).
func (Game) LoadState(p env.Params, data []byte) (env.State, error) {
	return env.UnmarshalPosition(ID, data, func(text string) (*State, error) { return ParsePosition(text, p.Bool("scan_wrap")) })
}
