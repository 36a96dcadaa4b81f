package env_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

// sceneSpec is a two-seat spec with three actions for CheckScene's tests.
var sceneSpec = &env.Spec{ID: "scene-test-v1", NumPlayers: 2, ActionNames: []string{"a", "b", "c"}}

// goodScene is a well-formed scene of seat 0 with legal actions 0 and 2.
func goodScene() *env.Scene {
	return &env.Scene{
		Width: 100, Height: 50,
		Spaces: []env.Space{{ID: "s1", X: 0, Y: 0, W: 50, H: 50, Shape: "rect", Owner: -1}, {ID: "s2", X: 50, Y: 0, W: 50, H: 50, Shape: "disc", Owner: 1}},
		Pieces: []env.Piece{{ID: "p1", At: "s1", Shape: "disc", Owner: 0}},
		Zones: []env.Zone{
			{ID: "hand-0", Name: "your hand", Owner: 0, Private: true, Cards: []env.Card{{ID: "c1", Code: "X", Name: "ex"}}},
			{ID: "hand-1", Name: "hand", Owner: 1, Count: 3, Cards: []env.Card{}},
		},
		Seats: []env.SeatFacts{{Name: "seat 0"}, {Name: "seat 1"}},
		Moves: []env.Move{{A: 0, Name: "a", Words: "move a", Select: []string{"p1"}, Target: []string{"s2"}}, {A: 2, Name: "c", Words: "play c", Select: []string{"c1"}}},
	}
}

func TestCheckScene(t *testing.T) {
	tests := []struct {
		name  string
		seat  int
		legal []int
		edit  func(*env.Scene)
		want  string // "" for a good scene; else a part of the error
	}{
		{"a well-formed scene", 0, []int{0, 2}, func(*env.Scene) {}, ""},
		{"a piece on no space", 0, []int{0, 2}, func(s *env.Scene) { s.Pieces[0].At = "s9" }, "which is no space"},
		{"an id used twice", 0, []int{0, 2}, func(s *env.Scene) { s.Zones[0].Cards[0].ID = "p1" }, "used twice"},
		{"a space off the board", 0, []int{0, 2}, func(s *env.Scene) { s.Spaces[1].X = 60 }, "not inside"},
		{"another seat's hand shown", 1, nil, func(s *env.Scene) { s.Moves = nil }, "private to seat 0"},
		{"a move missing", 0, []int{0, 1, 2}, func(*env.Scene) {}, "3 legal actions"},
		{"a move out of order", 0, []int{2, 0}, func(*env.Scene) {}, "move 0 is action 0"},
		{"a move misnamed", 0, []int{0, 2}, func(s *env.Scene) { s.Moves[1].Name = "b" }, "named"},
		{"a move without words", 0, []int{0, 2}, func(s *env.Scene) { s.Moves[0].Words = "" }, "no words"},
		{"a target not shown", 0, []int{0, 2}, func(s *env.Scene) { s.Moves[0].Target = []string{"s3"} }, `involves "s3"`},
		{"a seat missing", 0, []int{0, 2}, func(s *env.Scene) { s.Seats = s.Seats[:1] }, "1 seats' facts"},
		{"an owner out of range", 0, []int{0, 2}, func(s *env.Scene) { s.Pieces[0].Owner = 2 }, "owner 2"},
		{"an unknown shape", 0, []int{0, 2}, func(s *env.Scene) { s.Spaces[0].Shape = "star" }, "shape"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := goodScene()
			tc.edit(s)
			err := env.CheckScene(sceneSpec, tc.seat, tc.legal, s)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("CheckScene: %v", err)
				}
				return
			}
			var se *env.SceneError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("CheckScene = %v, want a *env.SceneError with %q", err, tc.want)
			}
		})
	}
}

func TestSceneIds(t *testing.T) {
	ids := goodScene().Ids()
	for _, id := range []string{"s1", "s2", "p1", "hand-0", "hand-1", "c1"} {
		if !ids[id] {
			t.Errorf("Ids() lacks %q", id)
		}
	}
	if len(ids) != 6 {
		t.Errorf("Ids() has %d ids, want 6", len(ids))
	}
}
