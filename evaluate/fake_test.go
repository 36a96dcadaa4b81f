package evaluate_test

import (
	"encoding/json"
	"fmt"

	"github.com/galaxygym/galaxygym/env"
)

// fakeID is a two-player counting game with a declared label: players
// alternate adding 0 or 1 to their own tally for four moves; the episode is
// a win when the tallies add up to 3 or more, and its grade is "A" (4), "B"
// (3), "C" (2) or "D" (less). The game declares the grades in that order,
// plus "E", which never occurs.
const fakeID = "evaluate-fake-v1"

type fakeGame struct{}

func init() { env.Register(fakeGame{}) }

var fakeSpec = &env.Spec{
	ID:              fakeID,
	Name:            "evaluate fake",
	NumPlayers:      2,
	ActionNames:     []string{"add-0", "add-1"},
	ObsShape:        []int{2},
	ObsDType:        "uint8",
	ObsHigh:         []uint8{4, 2},
	MaxEpisodeSteps: 4,
	RewardRange:     [2]float64{0, 1},
	ReturnRange:     [2]float64{0, 2},
	Params: []env.ParamSpec{
		{Name: env.MaxTurnsParam, Kind: env.Int, Default: 0, Doc: "truncation (0: none)"},
	},
	Description: "A counting game for testing evaluate.",
}

func (fakeGame) Spec() *env.Spec { return fakeSpec }

func (fakeGame) NewState(env.Params, uint64) env.State { return &fakeState{} }

func (fakeGame) LoadState(_ env.Params, data []byte) (env.State, error) {
	var s fakeState
	if err := json.Unmarshal(data, &s.Tally); err != nil {
		return nil, &env.StateError{Env: fakeID, Reason: "bad", Err: err}
	}
	return &s, nil
}

// LabelValues implements evaluate.LabelValuer.
func (fakeGame) LabelValues(label string) []string {
	if label == "grade" {
		return []string{"A", "B", "C", "D", "E"}
	}
	return nil
}

type fakeState struct {
	N     int
	Tally [2]int
}

func (s *fakeState) CurrentPlayer() int {
	if s.Terminal() {
		return env.Terminal
	}
	return s.N % 2
}

func (s *fakeState) LegalMask(dst []uint8) int {
	if s.Terminal() {
		clear(dst)
		return 0
	}
	dst[0], dst[1] = 1, 1
	return 2
}

func (s *fakeState) Apply(action int, rewards []float64) {
	p := s.N % 2
	s.Tally[p] += action
	rewards[p] += float64(action)
	s.N++
}

func (s *fakeState) Terminal() bool               { return s.N >= 4 }
func (s *fakeState) Turn() int                    { return s.N }
func (s *fakeState) Truncate([]float64)           {}
func (s *fakeState) Clone() env.State             { c := *s; return &c }
func (s *fakeState) String() string               { return fmt.Sprint(s.Tally) }
func (s *fakeState) MarshalJSON() ([]byte, error) { return json.Marshal(s.Tally) }

func (s *fakeState) Observe(_ int, dst []uint8) {
	dst[0], dst[1] = uint8(s.N), uint8(s.N%2)
}

func (s *fakeState) Info(dst *env.Info) {
	total := s.Tally[0] + s.Tally[1]
	switch {
	case !s.Terminal():
		dst.Outcome = env.OutcomeOngoing
	case total >= 3:
		dst.Outcome = env.OutcomeWin
	default:
		dst.Outcome = env.OutcomeLoss
	}
	dst.Score = float64(total)
	grade := "D"
	switch total {
	case 4:
		grade = "A"
	case 3:
		grade = "B"
	case 2:
		grade = "C"
	}
	dst.Stats = append(dst.Stats, env.Stat{Name: "total", Value: float64(total)},
		env.Stat{Name: "first player", Value: float64(s.Tally[0])})
	dst.Labels = append(dst.Labels, env.Label{Name: "grade", Value: grade})
}
