package galaxyfighters

import (
	"math/rand/v2"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

// TestViewLoadMatchesDecodeObs checks View.Load (decodeView) against the
// game's own decoder on the positions of seeded random games (v1 and v2,
// two to four players, every mission, small districts and no backup ships
// so that ships are lost): at every command phase, Load rebuilds exactly
// the State decodeObs(0, obs, nil) does (ShipTiles reads its ships, every
// ShipyardModel is AstroWing), and along random command
// sequences of up to three commands (View.Play, each followed by an
// approach phase on a copy), View.Undo restores the View of Mark exactly.
// The search over a View (Probe) is tested with it, in
// agents/galaxyfighters/internal/search.
func TestViewLoadMatchesDecodeObs(t *testing.T) {
	games := 40
	if testing.Short() {
		games = 8
	}
	variants := []map[string]any{}
	for _, players := range []int{4, 3, 2} {
		for _, m := range []string{"rookie", "expert", "ace"} {
			variants = append(variants, map[string]any{"players": players, "mission": m})
		}
	}
	variants = append(variants,
		map[string]any{"mission": "ace", "invader_spaces": 6, "backup_ships": 0},
		map[string]any{"mission": "rookie", "invader_spaces": 6, "backup_ships": 1, "spawn_density": 4.0})
	var positions, played int
	for vi, params := range variants {
		for _, id := range []string{ID, IDv1} {
			if id == IDv1 {
				if _, ok := params["spawn_density"]; ok {
					continue
				}
			}
			e, err := env.Make(id, params)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(uint64(vi), 7))
			obs := make([]uint8, ObsSize)
			var v, ref View
			for g := 0; g < games; g++ {
				e.Reset(uint64(g))
				for !e.Done() {
					pl := e.CurrentPlayer()
					mask := e.Mask()
					if e.State().(*State).Phase() == PhaseCommand {
						if err := e.Observe(pl, obs); err != nil {
							t.Fatal(err)
						}
						positions++
						v.Load(obs)
						var w View
						w.cfg = v.cfg
						w.s = State{cfg: &w.cfg, spillSrc: -1, card: -1, started: true}
						if err := w.s.decodeObs(0, obs, nil); err != nil {
							t.Fatal(err)
						}
						ws := w.s
						ws.cfg = v.s.cfg
						if ws != v.s {
							t.Fatalf("%s %v game %d: View.Load differs from decodeObs", id, params, g)
						}
						for k := 0; k < NumSeats; k++ {
							x := &ws.ships[k]
							if c, d, t0, t1 := v.ShipTiles(k); c != int(x.cell) || d != int(x.drone) || t0 != int(x.sds[0]) || t1 != int(x.sds[1]) {
								t.Fatalf("%s %v game %d: ShipTiles(%d) = %d %d %d %d, ship %+v", id, params, g, k, c, d, t0, t1, *x)
							}
						}
						for i := 0; i < v.ShipyardLeft(); i++ {
							if v.ShipyardModel(i) != AstroWing {
								t.Fatalf("%s %v game %d: ShipyardModel(%d) = %d", id, params, g, i, v.ShipyardModel(i))
							}
						}
						var mark ViewMark
						v.Mark(&mark)
						if *mark.Heights() != *v.Heights() {
							t.Fatalf("%s %v game %d: ViewMark.Heights differs from View.Heights", id, params, g)
						}
						saved := v
						for depth := 0; depth < 4; depth++ {
							ref.CopyFrom(&v)
							ref.Approach()
							var legal []int
							for a := ActionFire; a < ActionEndTurn; a++ {
								if v.Legal(a) {
									legal = append(legal, a)
								}
							}
							if len(legal) == 0 {
								break
							}
							v.Play(legal[rng.IntN(len(legal))])
							played++
						}
						v.Undo(&mark)
						if v != saved {
							t.Fatalf("%s %v game %d: Undo did not restore the View", id, params, g)
						}
					}
					var legal []int
					for a, m := range mask {
						if m != 0 {
							legal = append(legal, a)
						}
					}
					if _, err := e.Step(legal[rng.IntN(len(legal))]); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
	t.Logf("%d positions, %d commands played and undone", positions, played)
	if played == 0 {
		t.Error("no command was played: Undo is not checked")
	}
}
