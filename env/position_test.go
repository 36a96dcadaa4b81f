package env_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

// posState is a State whose whole position is a string, for the codec.
type posState struct {
	env.State
	text string
}

func parsePos(text string) (*posState, error) {
	if text == "" {
		return nil, env.PositionErrorf("postest", "empty (want %d token)", 1)
	}
	return &posState{text: text}, nil
}

func TestPositionCodec(t *testing.T) {
	data, err := env.MarshalPosition(`a "quoted" position`)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"position":"a \"quoted\" position"}`; string(data) != want {
		t.Fatalf("MarshalPosition = %s, want %s", data, want)
	}
	s, err := env.UnmarshalPosition("postest-v1", data, parsePos)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.(*posState).text; got != `a "quoted" position` {
		t.Fatalf("read back %q", got)
	}

	_, err = env.UnmarshalPosition("postest-v1", []byte(`{"position":`), parsePos)
	var se *env.StateError
	var syn *json.SyntaxError
	if !errors.As(err, &se) || se.Reason != "malformed state" || se.Env != "postest-v1" || !errors.As(err, &syn) {
		t.Fatalf("truncated JSON: err = %v, want a *StateError (malformed state) wrapping the decoder's error", err)
	}
	_, err = env.UnmarshalPosition("postest-v1", []byte(`{"position":""}`), parsePos)
	var pe *env.PositionError
	if !errors.As(err, &se) || se.Reason != "invalid position" || !errors.As(err, &pe) || pe.Pkg != "postest" {
		t.Fatalf("bad notation: err = %v, want a *StateError (invalid position) wrapping a *PositionError", err)
	}
	if want := "env: postest-v1: bad state: invalid position: postest: position: empty (want 1 token)"; err.Error() != want {
		t.Fatalf("err = %q, want %q", err, want)
	}
}
