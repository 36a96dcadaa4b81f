package env_test

import (
	"bytes"
	"encoding/json"
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
			{ID: "hand-0", Name: "seat 0's hand", Owner: 0, Private: true, Cards: []env.Card{{ID: "c1", Code: "X", Name: "ex"}}},
			{ID: "hand-1", Name: "seat 1's hand", Owner: 1, Count: 3, Cards: []env.Card{}},
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
		{"another seat's zone of its own", 0, []int{0, 2}, func(s *env.Scene) { s.Zones[1].ObserverOnly = true }, "seat 1's alone"},
		{"a private card in another's zone", 0, []int{0, 2}, func(s *env.Scene) {
			s.Zones[1].Cards = []env.Card{{ID: "c2", Code: "Y", Private: true}}
		}, "private to seat 0's eyes"},
		{"a board turned 45 degrees", 0, []int{0, 2}, func(s *env.Scene) { s.Rotate = 45 }, "quarter turn"},
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

// TestPublicScene checks what PublicScene strips: a private zone becomes
// its face-down form, a private card FaceDown, a zone of the observer's
// alone goes, moves and Rotate go; the rest and sc itself are untouched;
// and the public part of seat 0's scene equals that of seat 1's, which
// shows the same position from the other side.
func TestPublicScene(t *testing.T) {
	sc := goodScene()
	sc.Rotate = 90
	sc.Zones = append(sc.Zones,
		env.Zone{ID: "train-0", Name: "seat 0's train", Owner: 0, Cards: []env.Card{
			{ID: "train-0-loco", Code: "L", Name: "loco", Class: "freight", Value: 3, Color: "#fff", Private: true},
			{ID: "train-0-c0", Code: "T", Name: "tank", Class: "freight"}}},
		env.Zone{ID: "new-train-0", Name: "seat 0's new train", Owner: 0, ObserverOnly: true, Cards: []env.Card{}})
	before, _ := json.Marshal(sc)
	p := env.PublicScene(sc)
	if after, _ := json.Marshal(sc); !bytes.Equal(before, after) {
		t.Fatalf("PublicScene changed its argument:\n%s\n%s", before, after)
	}
	if len(p.Moves) != 0 || p.Moves == nil || p.Rotate != 0 {
		t.Fatalf("public part: moves %v, rotate %d", p.Moves, p.Rotate)
	}
	if len(p.Zones) != 3 {
		t.Fatalf("public part has %d zones, want 3 (the zone of seat 0's alone left out): %+v", len(p.Zones), p.Zones)
	}
	if z := p.Zones[0]; z.Private || len(z.Cards) != 0 || z.Cards == nil || z.Count != 1 || z.Name != "seat 0's hand" || z.ID != "hand-0" {
		t.Fatalf("seat 0's hand in public: %+v", z)
	}
	if c := p.Zones[2].Cards[0]; c != env.FaceDown("train-0-loco") || c.Class != "back" {
		t.Fatalf("the private locomotive in public: %+v", c)
	}
	if c := p.Zones[2].Cards[1]; c.Code != "T" {
		t.Fatalf("a public card changed: %+v", c)
	}
	// Seat 1's scene of the same position: seat 0's hand face down, seat
	// 0's locomotive face down, its own hand private, no moves.
	other := goodScene()
	other.Zones[0] = env.Zone{ID: "hand-0", Name: "seat 0's hand", Owner: 0, Count: 1, Cards: []env.Card{}}
	other.Zones[1] = env.Zone{ID: "hand-1", Name: "seat 1's hand", Owner: 1, Private: true,
		Cards: []env.Card{{ID: "h1a", Code: "A"}, {ID: "h1b", Code: "B"}, {ID: "h1c", Code: "C"}}}
	other.Zones = append(other.Zones, env.Zone{ID: "train-0", Name: "seat 0's train", Owner: 0, Cards: []env.Card{
		env.FaceDown("train-0-loco"), {ID: "train-0-c0", Code: "T", Name: "tank", Class: "freight"}}})
	other.Moves = nil
	if err := env.CheckScene(sceneSpec, 1, nil, other); err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(p)
	b, _ := json.Marshal(env.PublicScene(other))
	if !bytes.Equal(a, b) {
		t.Fatalf("the public parts of two seats' scenes differ:\n%s\n%s", a, b)
	}
	if env.PublicScene(nil) != nil {
		t.Fatal("PublicScene(nil) is not nil")
	}
}
