package env

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
)

// Spec describes an environment: everything a trainer needs to build its
// spaces and networks before the first reset. A Spec is immutable once
// registered; the JSON form is what the websocket server sends.
type Spec struct {
	// ID is the versioned id, e.g. "galaxy-express-v1". The version is bumped
	// only when behaviour (rules, observation, rewards) changes.
	ID string `json:"id"`
	// Name is the game's human name, e.g. "Galaxy Express".
	Name string `json:"name"`
	// NumPlayers is the number of seats of this environment; players are
	// 0..NumPlayers-1. For a game played by a varying number of players it
	// is the value of the standard `players` parameter ([PlayersParam]); the
	// game's registered spec carries the default count.
	NumPlayers int `json:"num_players"`
	// MinPlayers and MaxPlayers bound the player counts the game supports
	// (both NumPlayers for a game of one count; [Register] fills them in
	// when left 0). When MaxPlayers > MinPlayers, the registered spec
	// declares the standard `players` parameter (Int in [MinPlayers,
	// MaxPlayers], default NumPlayers), added by [Register] if the game
	// did not, and an Env's spec follows it.
	MinPlayers int `json:"min_players"`
	MaxPlayers int `json:"max_players"`
	// OutcomeNames names the outcome codes ([Outcome]) that the server and
	// the Python client report as numbers: index = code. [Register] sets it
	// to a copy of [OutcomeNames]; the names are the same for every
	// environment.
	OutcomeNames []string `json:"outcome_names"`
	// ActionNames has one unique name per action; len(ActionNames) is the
	// size of the Discrete action space and of the action mask in bytes.
	ActionNames []string `json:"action_names"`
	// ObsShape is the observation tensor's shape; its product is the number
	// of bytes [Env.Observe] writes. The dtype is always uint8.
	ObsShape []int `json:"obs_shape"`
	// ObsDType is "uint8".
	ObsDType string `json:"obs_dtype"`
	// ObservationLayout names the parts of the observation (offset, shape,
	// meaning), tiling all ObsSize bytes; nil for a game that declares
	// none. Python reads it from the spec as observation_layout.
	ObservationLayout ObsLayout `json:"observation_layout,omitempty"`
	// ObsHigh holds the inclusive upper bound of every observation element
	// (the lower bound is 0): the true bounds of a Gymnasium Box.
	ObsHigh Bounds `json:"obs_high"`
	// MaxEpisodeSteps bounds the number of steps of an episode under the
	// default parameters (truncation included).
	MaxEpisodeSteps int `json:"max_episode_steps"`
	// RewardRange is the [min, max] of any single step's reward to a player.
	RewardRange [2]float64 `json:"reward_range"`
	// ReturnRange is the [min, max] of an episode's return to a player under
	// the default parameters, and of its return so far at every step of an
	// episode dealt at turn 0 ([Env.Load] checks ongoing snapshots against
	// it too).
	ReturnRange [2]float64 `json:"return_range"`
	// Params lists the parameters the game accepts, with defaults.
	Params []ParamSpec `json:"params"`
	// Description is a one-paragraph summary of the game.
	Description string `json:"description"`
}

// Param returns the declared parameter of that name, or nil.
func (s *Spec) Param(name string) *ParamSpec {
	for i := range s.Params {
		if s.Params[i].Name == name {
			return &s.Params[i]
		}
	}
	return nil
}

// forPlayers returns a copy of s with NumPlayers n (s itself when n is
// already its count). The copy shares s's slices, which are immutable.
func (s *Spec) forPlayers(n int) *Spec {
	if n == s.NumPlayers {
		return s
	}
	c := *s
	c.NumPlayers = n
	return &c
}

// NumActions is the size of the Discrete action space.
func (s *Spec) NumActions() int { return len(s.ActionNames) }

// ObsSize is the number of bytes of one observation: the product of ObsShape.
func (s *Spec) ObsSize() int {
	n := 1
	for _, d := range s.ObsShape {
		n *= d
	}
	return n
}

// ParamKind is the type of a parameter's value.
type ParamKind string

// The parameter kinds. Int values are int, Float values float64, Bool values
// bool and String values string once validated.
const (
	Int    ParamKind = "int"
	Float  ParamKind = "float"
	Bool   ParamKind = "bool"
	String ParamKind = "string"
)

// ParamSpec declares one parameter of a game.
type ParamSpec struct {
	Name    string    `json:"name"`
	Kind    ParamKind `json:"kind"`
	Default any       `json:"default"`
	// Min and Max bound Int and Float parameters (inclusive); ignored when
	// Min == Max == 0.
	Min float64 `json:"min,omitempty"`
	Max float64 `json:"max,omitempty"`
	// Choices, when set, lists the allowed values of a String parameter.
	Choices []string `json:"choices,omitempty"`
	Doc     string   `json:"doc"`
}

// Params maps parameter names to values. [Spec.Resolve] turns user input
// (strings from a command line, float64 from JSON) into a complete, typed
// Params holding every declared parameter.
type Params map[string]any

// Int returns the named Int parameter; it panics if Params was not resolved.
func (p Params) Int(name string) int { return p[name].(int) }

// Float returns the named Float parameter.
func (p Params) Float(name string) float64 { return p[name].(float64) }

// Bool returns the named Bool parameter.
func (p Params) Bool(name string) bool { return p[name].(bool) }

// Str returns the named String parameter.
func (p Params) Str(name string) string { return p[name].(string) }

// Resolve validates user-supplied parameters against the spec and fills in
// defaults. Accepted inputs: the kind's own Go type, a string (parsed), and
// for Int a float64 with an integral value (what encoding/json produces).
// It returns a [*ParamError] for an undeclared name, a wrong type or a value
// out of range.
func (s *Spec) Resolve(in map[string]any) (Params, error) {
	out := make(Params, len(s.Params))
	declared := make(map[string]*ParamSpec, len(s.Params))
	for i := range s.Params {
		ps := &s.Params[i]
		declared[ps.Name] = ps
		out[ps.Name] = ps.Default
	}
	for _, name := range slices.Sorted(maps.Keys(in)) {
		ps, ok := declared[name]
		if !ok {
			known := make([]string, 0, len(s.Params))
			for _, q := range s.Params {
				known = append(known, q.Name)
			}
			return nil, &ParamError{s.ID, name, fmt.Sprintf("not a parameter of this environment (parameters: %v)", known)}
		}
		v, err := ps.coerce(in[name])
		if err != nil {
			return nil, &ParamError{s.ID, name, err.Error()}
		}
		out[name] = v
	}
	return out, nil
}

func (ps *ParamSpec) coerce(v any) (any, error) {
	switch ps.Kind {
	case Int:
		var n int
		switch x := v.(type) {
		case int:
			n = x
		case int64:
			n = int(x)
		case float64:
			if x != math.Trunc(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("want an integer, got %v", x)
			}
			n = int(x)
		case string:
			i, err := strconv.Atoi(x)
			if err != nil {
				return nil, fmt.Errorf("want an integer, got %q", x)
			}
			n = i
		default:
			return nil, fmt.Errorf("want an integer, got %T", v)
		}
		if (ps.Min != 0 || ps.Max != 0) && (float64(n) < ps.Min || float64(n) > ps.Max) {
			return nil, fmt.Errorf("%d out of range [%v, %v]", n, ps.Min, ps.Max)
		}
		return n, nil
	case Float:
		var f float64
		switch x := v.(type) {
		case float64:
			f = x
		case int:
			f = float64(x)
		case string:
			g, err := strconv.ParseFloat(x, 64)
			if err != nil {
				return nil, fmt.Errorf("want a number, got %q", x)
			}
			f = g
		default:
			return nil, fmt.Errorf("want a number, got %T", v)
		}
		if math.IsNaN(f) || ((ps.Min != 0 || ps.Max != 0) && (f < ps.Min || f > ps.Max)) {
			return nil, fmt.Errorf("%v out of range [%v, %v]", f, ps.Min, ps.Max)
		}
		return f, nil
	case Bool:
		switch x := v.(type) {
		case bool:
			return x, nil
		case string:
			b, err := strconv.ParseBool(x)
			if err != nil {
				return nil, fmt.Errorf("want true or false, got %q", x)
			}
			return b, nil
		}
		return nil, fmt.Errorf("want a boolean, got %T", v)
	case String:
		x, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("want a string, got %T", v)
		}
		if len(ps.Choices) > 0 {
			for _, c := range ps.Choices {
				if c == x {
					return x, nil
				}
			}
			return nil, fmt.Errorf("%q is not one of %v", x, ps.Choices)
		}
		return x, nil
	}
	return nil, fmt.Errorf("parameter kind %q unknown", ps.Kind)
}

// Bounds are per-element inclusive bounds of a uint8 tensor, flat. In JSON
// they are an array of integers (not the base64 string encoding/json gives
// a []uint8), so that Python and JavaScript readers can use them directly.
type Bounds []uint8

// MarshalJSON writes the bounds as an array of integers 0..255.
func (b Bounds) MarshalJSON() ([]byte, error) {
	out := make([]byte, 0, 2+4*len(b))
	out = append(out, '[')
	for i, v := range b {
		if i > 0 {
			out = append(out, ',')
		}
		out = strconv.AppendUint(out, uint64(v), 10)
	}
	return append(out, ']'), nil
}

// UnmarshalJSON reads an array of integers 0..255; anything else is an
// error.
func (b *Bounds) UnmarshalJSON(data []byte) error {
	var ints []int
	if err := json.Unmarshal(data, &ints); err != nil {
		return fmt.Errorf("env: bounds: want an array of integers 0..255: %w", err)
	}
	v := make([]uint8, len(ints))
	for i, x := range ints {
		if x < 0 || x > 255 {
			return fmt.Errorf("env: bounds: element %d = %d is outside 0..255", i, x)
		}
		v[i] = uint8(x)
	}
	*b = v
	return nil
}
