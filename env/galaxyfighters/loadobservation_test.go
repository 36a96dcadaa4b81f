package galaxyfighters

import (
	"math/rand/v2"
	"testing"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/env/envtest"
)

// TestLoadObservationMatchesDecodeObs checks LoadObservation (decodeView)
// against the game's own decoder on the positions of seeded random games
// (v1 and v2, two to four players, every mission, small districts and no
// backup ships so that ships are lost): at every command phase,
// LoadObservation rebuilds exactly the State decodeObs(0, obs, nil) does
// (ShipTiles reads its ships, every ShipyardModel is AstroWing), and along
// random command sequences of up to three commands (Command, each
// followed by an approach phase on a copy), UndoCommands restores the
// State of MarkCommands exactly. The search over such a State (View,
// Probe) is tested with it, in agents/galaxyfighters/internal/search.
func TestLoadObservationMatchesDecodeObs(t *testing.T) {
	games := 40
	if testing.Short() {
		games = 8
	}
	var positions, played int
	for vi, x := range loadTestGames {
		for _, id := range x.ids {
			rng := rand.New(rand.NewPCG(uint64(vi), 7))
			obs := make([]uint8, ObsSize)
			var v, ref State
			g := -1
			envtest.RandomGames(t, id, x.params, games, rng, func(e *env.Env) {
				if e.Steps() == 0 {
					g++
				}
				if e.State().(*State).Phase() != PhaseCommand {
					return
				}
				if err := e.Observe(e.CurrentPlayer(), obs); err != nil {
					t.Fatal(err)
				}
				positions++
				cfg := v.cfg
				v.LoadObservation(obs)
				if cfg != nil && *cfg == *v.cfg && cfg != v.cfg {
					t.Fatalf("%s %v game %d: LoadObservation did not keep the same parameters", id, x.params, g)
				}
				ws := State{cfg: v.cfg, spillSrc: -1, card: -1, started: true}
				if err := ws.decodeObs(0, obs, nil); err != nil {
					t.Fatal(err)
				}
				if ws != v {
					t.Fatalf("%s %v game %d: LoadObservation differs from decodeObs", id, x.params, g)
				}
				for k := 0; k < NumSeats; k++ {
					s := &ws.ships[k]
					if c, d, t0, t1 := v.ShipTiles(k); c != int(s.cell) || d != int(s.drone) || t0 != int(s.sds[0]) || t1 != int(s.sds[1]) {
						t.Fatalf("%s %v game %d: ShipTiles(%d) = %d %d %d %d, ship %+v", id, x.params, g, k, c, d, t0, t1, *s)
					}
				}
				for i := 0; i < v.ShipyardLeft(); i++ {
					if v.ShipyardModel(i) != AstroWing {
						t.Fatalf("%s %v game %d: ShipyardModel(%d) = %d", id, x.params, g, i, v.ShipyardModel(i))
					}
				}
				var mark CommandMark
				v.MarkCommands(&mark)
				if *mark.Heights() != *v.Heights() {
					t.Fatalf("%s %v game %d: CommandMark.Heights differs from State.Heights", id, x.params, g)
				}
				saved := v
				for depth := 0; depth < 4; depth++ {
					ref = v
					ref.Approach()
					var legal []int
					for a := ActionFire; a < ActionEndTurn; a++ {
						if v.CommandLegal(a) {
							legal = append(legal, a)
						}
					}
					if len(legal) == 0 {
						break
					}
					v.Command(legal[rng.IntN(len(legal))])
					played++
				}
				v.UndoCommands(&mark)
				if v != saved {
					t.Fatalf("%s %v game %d: UndoCommands did not restore the State", id, x.params, g)
				}
			})
		}
	}
	t.Logf("%d positions, %d commands played and undone", positions, played)
	if played == 0 {
		t.Error("no command was played: UndoCommands is not checked")
	}
}

// loadTestGames are the environments TestLoadObservationMatchesDecodeObs
// plays: two to four players, every mission, small districts and no
// backup ships so that ships are lost, v2's dense spawning.
var loadTestGames = []struct {
	ids    []string
	params map[string]any
}{
	{[]string{ID, IDv1}, map[string]any{"players": 4, "mission": "rookie"}},
	{[]string{ID, IDv1}, map[string]any{"players": 4, "mission": "expert"}},
	{[]string{ID, IDv1}, map[string]any{"players": 4, "mission": "ace"}},
	{[]string{ID, IDv1}, map[string]any{"players": 3, "mission": "rookie"}},
	{[]string{ID, IDv1}, map[string]any{"players": 3, "mission": "expert"}},
	{[]string{ID, IDv1}, map[string]any{"players": 3, "mission": "ace"}},
	{[]string{ID, IDv1}, map[string]any{"players": 2, "mission": "rookie"}},
	{[]string{ID, IDv1}, map[string]any{"players": 2, "mission": "expert"}},
	{[]string{ID, IDv1}, map[string]any{"players": 2, "mission": "ace"}},
	{[]string{ID, IDv1}, map[string]any{"mission": "ace", "invader_spaces": 6, "backup_ships": 0}},
	{[]string{ID}, map[string]any{"mission": "rookie", "invader_spaces": 6, "backup_ships": 1, "spawn_density": 4.0}},
}

// TestLoadObservationSharesItsParameters checks that LoadObservation
// allocates nothing for the observations of environments under different
// parameters, that States loaded under the same parameters share them and
// that loading another observation never changes those a copy holds.
func TestLoadObservationSharesItsParameters(t *testing.T) {
	observe := func(params map[string]any) []uint8 {
		e, err := env.Make(ID, params)
		if err != nil {
			t.Fatal(err)
		}
		e.Reset(1)
		obs := make([]uint8, ObsSize)
		if err := e.Observe(e.CurrentPlayer(), obs); err != nil {
			t.Fatal(err)
		}
		return obs
	}
	expert, ace := observe(map[string]any{"mission": "expert"}), observe(map[string]any{"mission": "ace", "invader_spaces": 6, "win_on": "last_card"})
	var v, w State
	if n := testing.AllocsPerRun(20, func() { v.LoadObservation(expert); w.LoadObservation(ace) }); n != 0 {
		t.Errorf("LoadObservation allocates %v times", n)
	}
	v.LoadObservation(expert)
	x := v // a copy shares v's parameters
	shared := *x.cfg
	w.LoadObservation(expert)
	if w.cfg != v.cfg {
		t.Error("two States loaded from the same observation hold parameters of their own")
	}
	v.LoadObservation(ace)
	if v.InvaderCap() != 6 || v.cfg.winOnClear || !x.cfg.winOnClear || v.DistrictsToLose() == x.DistrictsToLose() || v.cfg == x.cfg {
		t.Errorf("LoadObservation under other parameters: invader spaces %d, win on clear %v, districts to lose %d (the copy's %d)",
			v.InvaderCap(), v.cfg.winOnClear, v.DistrictsToLose(), x.DistrictsToLose())
	}
	if *x.cfg != shared {
		t.Error("LoadObservation changed the parameters a copy holds")
	}
	// Counters no environment writes get parameters of their own.
	ace[OffInvaderCap], ace[OffToLose] = 200, 9
	v.LoadObservation(ace)
	if v.InvaderCap() != 200 || v.DistrictsToLose() != 9 || *x.cfg != shared {
		t.Errorf("out of range: invader spaces %d, districts to lose %d", v.InvaderCap(), v.DistrictsToLose())
	}
}
