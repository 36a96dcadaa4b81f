package envtest

import (
	"bytes"
	"encoding/json"

	"github.com/galaxygym/galaxygym/env"
)

// defaultSceneEpisodes is how many playouts of a Run check every seat's
// scene at every step, for a game that is an [env.Presenter].
const defaultSceneEpisodes = 1

// SceneEpisodes sets how many playouts of a Run check every seat's scene
// at every step (default 1; 0: none, for a sweep over games whose own
// conformance tests check their scenes).
func SceneEpisodes(n int) Option { return func(c *config) { c.sceneEpisodes = n } }

// checkScenes checks, for a game that is an env.Presenter, every seat's
// scene of the position: Present succeeds from the seat's observation and
// the legal actions (the acting seat's only), the scene is well formed
// (env.CheckScene), the same twice, survives a JSON round trip, and is over
// exactly when the episode is; and HowToPlay says something.
func (p *playout) checkScenes(e *env.Env) {
	t := p.t
	t.Helper()
	g, err := env.Lookup(p.id)
	if err != nil {
		t.Fatal(err)
	}
	pr, ok := g.(env.Presenter)
	if !ok {
		return
	}
	if len(pr.HowToPlay()) < 200 {
		t.Fatalf("HowToPlay is %d bytes: a person cannot learn the game from it", len(pr.HowToPlay()))
	}
	var legal []int
	for a, m := range e.Mask() {
		if m != 0 {
			legal = append(legal, a)
		}
	}
	for seat := range p.spec.NumPlayers {
		e.State().Observe(seat, p.obs)
		var mine []int
		if seat == e.CurrentPlayer() && !e.Done() {
			mine = legal
		}
		sc, err := pr.Present(e.Params(), seat, p.obs, mine)
		if err != nil {
			t.Fatalf("step %d: Present(seat %d): %v", e.Steps(), seat, err)
		}
		if err := env.CheckScene(p.spec, seat, mine, sc); err != nil {
			t.Fatalf("step %d, seat %d: %v", e.Steps(), seat, err)
		}
		if (sc.Ended != "") != e.State().Terminal() {
			t.Fatalf("step %d, seat %d: scene's Ended %q, Terminal %v", e.Steps(), seat, sc.Ended, e.State().Terminal())
		}
		a, _ := json.Marshal(sc)
		again, err := pr.Present(e.Params(), seat, p.obs, mine)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(again)
		if !bytes.Equal(a, b) {
			t.Fatalf("step %d, seat %d: two scenes of one observation differ", e.Steps(), seat)
		}
		var back env.Scene
		if err := json.Unmarshal(a, &back); err != nil {
			t.Fatalf("step %d, seat %d: scene JSON: %v", e.Steps(), seat, err)
		}
		if c, _ := json.Marshal(&back); !bytes.Equal(a, c) {
			t.Fatalf("step %d, seat %d: scene JSON does not round-trip", e.Steps(), seat)
		}
	}
}
