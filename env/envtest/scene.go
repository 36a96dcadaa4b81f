package envtest

import (
	"bytes"
	"encoding/json"
	"fmt"

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
// exactly when the episode is; the public parts (env.PublicScene) of all
// seats' scenes are the same bytes as JSON (the env.Presenter contract: a
// seat's scene shows nothing of its own hidden cards outside what it marks
// private, and words nothing relative to its observer); and HowToPlay says
// something.
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
	var public []byte // seat 0's public part
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
		pub, _ := json.Marshal(env.PublicScene(sc))
		if seat == 0 {
			public = pub
		} else if !bytes.Equal(pub, public) {
			t.Fatalf("step %d: the public part (env.PublicScene) of seat %d's scene differs from seat 0's (a card "+
				"or a word only the observer may see outside its private marks, or an observer-relative word): %s\n"+
				"seat 0: %s\nseat %d: %s", e.Steps(), seat, firstDiff(public, pub), public, seat, pub)
		}
	}
}

// firstDiff names where two JSON texts first differ, with some context.
func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-80)
	return fmt.Sprintf("at byte %d: ...%s... vs ...%s...", i, a[from:min(len(a), i+60)], b[from:min(len(b), i+60)])
}

// publicScenes returns, for a game that is an env.Presenter, the public
// part (env.PublicScene, as JSON) of every seat's scene of s, each from
// that seat's observation (and the legal actions, for the seat to act);
// nil for a game that is not. obs is a buffer of the observation's size.
func publicScenes(pr env.Presenter, spec *env.Spec, params env.Params, s env.State, obs []uint8) ([]string, error) {
	var legal []int
	if !s.Terminal() {
		mask := make([]uint8, spec.NumActions())
		s.LegalMask(mask)
		for a, m := range mask {
			if m != 0 {
				legal = append(legal, a)
			}
		}
	}
	out := make([]string, spec.NumPlayers)
	for seat := range spec.NumPlayers {
		s.Observe(seat, obs)
		var mine []int
		if seat == s.CurrentPlayer() {
			mine = legal
		}
		sc, err := pr.Present(params, seat, obs, mine)
		if err != nil {
			return nil, fmt.Errorf("Present(seat %d): %w", seat, err)
		}
		j, _ := json.Marshal(env.PublicScene(sc))
		out[seat] = string(j)
	}
	return out, nil
}
