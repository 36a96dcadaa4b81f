package play

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/env/envtest/trio"
)

// mustFaceUp is FaceUpView of e's position, failing the test on an error.
func mustFaceUp(t *testing.T, e *env.Env) *View {
	t.Helper()
	v, err := FaceUpView(e.Spec(), e.Params(), e.State())
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestPlayImportsNoGame: the page knows no game; `go list -deps ./play`
// names no package under env/ but env itself (and the registry of games,
// which the server links in, is not play's business).
func TestPlayImportsNoGame(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool on PATH")
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "github.com/galaxygym/galaxygym/env/") {
			t.Errorf("play imports %s: the page must learn about games only through env.Presenter", p)
		}
	}
}

// TestPlayNamesNoGame: no game's id or name in play's Go code (tests
// aside) or in the page's files: a new game needs no change here.
func TestPlayNamesNoGame(t *testing.T) {
	names := []string{"express", "gallaxia", "pilots", "fighters", "galaxy-", "trio", "sektor", "durriken", "rekkoning"}
	files, _ := filepath.Glob("*.go")
	static, _ := filepath.Glob("static/*")
	for _, f := range append(files, static...) {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		low := strings.ToLower(string(b))
		for _, n := range names {
			if strings.Contains(low, n) {
				t.Errorf("%s names a game (%q)", f, n)
			}
		}
	}
}

// TestViewsCarryScenes: with Trio (which presents itself) a seat's view
// carries its scene with one move per legal action, the actions take the
// scene's words and help, the public view carries the scene without moves,
// and the face-up view at the end of the game is a seat's view too.
func TestViewsCarryScenes(t *testing.T) {
	e, err := env.New(trio.Game{}, map[string]any{env.PlayersParam: 2})
	if err != nil {
		t.Fatal(err)
	}
	e.Reset(3)
	for !e.Done() {
		seat := e.CurrentPlayer()
		v, err := SeatView(e.Spec(), e.Params(), e.State(), seat)
		if err != nil {
			t.Fatal(err)
		}
		if v.Scene == nil || len(v.Scene.Moves) != len(v.Actions) || len(v.Actions) == 0 {
			t.Fatalf("seat %d: scene %+v for %d actions", seat, v.Scene, len(v.Actions))
		}
		for i, a := range v.Actions {
			if a.Words != v.Scene.Moves[i].Words || a.Help == "" || !strings.HasPrefix(a.Words, "take the") {
				t.Fatalf("action %+v, move %+v", a, v.Scene.Moves[i])
			}
		}
		other, err := SeatView(e.Spec(), e.Params(), e.State(), 1-seat)
		if err != nil || other.Scene == nil || len(other.Scene.Moves) != 0 {
			t.Fatalf("the other seat's view: %+v, %v", other, err)
		}
		pub, err := PublicView(e.Spec(), e.Params(), e.State())
		if err != nil || pub.Scene == nil || len(pub.Scene.Moves) != 0 || len(pub.Scene.Pieces) != len(v.Scene.Pieces) {
			t.Fatalf("public view: %+v, %v", pub, err)
		}
		words := moveWords(e.Spec(), e.Params(), e.State(), seat, v.Actions[0].A)
		if words != v.Actions[0].Words {
			t.Fatalf("moveWords = %q, the view says %q", words, v.Actions[0].Words)
		}
		if _, err := e.Step(v.Actions[0].A); err != nil {
			t.Fatal(err)
		}
	}
	v, err := SeatView(e.Spec(), e.Params(), e.State(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if !v.Over || v.Seat != 1 || v.Scene == nil || v.Scene.Ended == "" {
		t.Fatalf("the final view: over %v seat %d scene %+v", v.Over, v.Seat, v.Scene)
	}
}

// TestSceneMerges: the face-up scene takes each seat's private zones from
// that seat's own scene, and the public view's scene has every hand face
// down, seat 0's included (on hand-made scenes).
func TestSceneMerges(t *testing.T) {
	e, err := env.New(handGame{trio.Game{}}, map[string]any{env.PlayersParam: 3})
	if err != nil {
		t.Fatal(err)
	}
	e.Reset(1)
	old := presenterFor
	presenterFor = func(string) (env.Presenter, bool) { return handGame{trio.Game{}}, true }
	t.Cleanup(func() { presenterFor = old })
	fu, err := faceUpScene(e.Spec(), e.Params(), e.State(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, z := range fu.Zones {
		if z.Private {
			got[z.ID] = true
		}
	}
	if len(got) != 3 || !got["hand-0"] || !got["hand-1"] || !got["hand-2"] {
		t.Fatalf("face-up zones: %+v", fu.Zones)
	}
	pv, err := PublicView(e.Spec(), e.Params(), e.State())
	if err != nil {
		t.Fatal(err)
	}
	pub := pv.Scene
	if len(pub.Zones) != 3 {
		t.Fatalf("public zones: %+v", pub.Zones)
	}
	for _, z := range pub.Zones {
		if z.Private || len(z.Cards) != 0 || z.Count != 2 {
			t.Fatalf("public zone %+v shows a hand", z)
		}
	}
}

// handGame is Trio presenting a made-up hand of two cards per seat: the
// seat's own face up (private), the others' face down.
type handGame struct{ trio.Game }

func (g handGame) Present(p env.Params, seat int, obs []uint8, legal []int) (*env.Scene, error) {
	sc, err := g.Game.Present(p, seat, obs, legal)
	if err != nil {
		return nil, err
	}
	for s := range len(sc.Seats) {
		z := env.Zone{ID: "hand-" + string(rune('0'+s)), Name: "seat " + string(rune('0'+s)) + "'s hand", Owner: s}
		if s == seat {
			z.Private = true
			z.Cards = []env.Card{{ID: z.ID + "-a", Code: "A"}, {ID: z.ID + "-b", Code: "B"}}
		} else {
			z.Cards, z.Count = []env.Card{}, 2
		}
		sc.Zones = append(sc.Zones, z)
	}
	return sc, nil
}
