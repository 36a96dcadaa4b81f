package search

import (
	"math/rand/v2"
	"testing"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/env/envtest"
	gf "github.com/galaxygym/galaxygym/env/galaxyfighters"
)

// probeBoard is a board as Probe or View shows it: per cell, the aliens
// bottom first as type*4+facing.
type probeBoard [gf.Cells][]int

func viewBoard(v *View) (b probeBoard) {
	for c := 0; c < gf.Cells; c++ {
		for i := 0; i < v.Height(c); i++ {
			typ, dir := v.Alien(c, i)
			b[c] = append(b[c], typ*4+dir)
		}
	}
	return b
}

func probeBoardOf(p *Probe) (b probeBoard) {
	seen := cellSet{}
	for c := p.Next(-1); c >= 0; c = p.Next(c) {
		seen.add(c)
		stayed, landed := p.Stack(c)
		if len(stayed)+len(landed) != p.Height(c) {
			panic("Stack and Height disagree")
		}
		for i := 0; i < p.Height(c); i++ {
			typ, dir := p.Alien(c, i)
			if k := gf.AlienKind(append(stayed[:len(stayed):len(stayed)], landed...)[i]); k != typ*4+dir {
				panic("AlienKind and Alien disagree")
			}
			b[c] = append(b[c], typ*4+dir)
		}
	}
	for c := 0; c < gf.Cells; c++ {
		if !seen.has(c) && p.Height(c) != 0 {
			panic("Next skips an occupied cell")
		}
	}
	return b
}

func firstBoardDiff(a, b *probeBoard) int {
	for c := 0; c < gf.Cells; c++ {
		if len(a[c]) != len(b[c]) {
			return c
		}
		for i := range a[c] {
			if a[c][i] != b[c][i] {
				return c
			}
		}
	}
	return gf.Cells
}

// commandObservations plays games random games of environment id under
// params (envtest.RandomGames with rng) and calls visit with the game's
// index and the acting player's observation at every command decision.
func commandObservations(t *testing.T, id string, params map[string]any, games int, rng *rand.Rand, visit func(g int, obs []uint8)) {
	t.Helper()
	obs := make([]uint8, gf.ObsSize)
	g := -1
	envtest.RandomGames(t, id, params, games, rng, func(e *env.Env) {
		if e.Steps() == 0 {
			g++
		}
		if e.State().(*gf.State).Phase() != gf.PhaseCommand {
			return
		}
		if err := e.Observe(e.CurrentPlayer(), obs); err != nil {
			t.Fatal(err)
		}
		visit(g, obs)
	})
}

// TestProbeMatchesViewApproach checks the search helpers against the
// game's own code on the positions of seeded random games (v1 and v2, two
// to four players, every mission, small districts and no backup ships so
// that ships are lost and games end by crashes): at every command phase
//
//   - along random command sequences of up to three commands, Probe's
//     approach phase reports what View.Approach (gf.State.Approach on a copy)
//     does, and leaves the same board, invaders and shipyard, while the
//     View itself does not change;
//   - Probe.Diff finds the first cell where two boards after an approach
//     differ (or an earlier one where they differ in what stayed and what
//     landed only);
//   - View.Undo restores the View of Mark exactly.
func TestProbeMatchesViewApproach(t *testing.T) {
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
	var positions, approaches, lost, noShip, crashes, diffExact int
	for vi, params := range variants {
		for _, id := range []string{gf.ID, gf.IDv1} {
			if id == gf.IDv1 {
				if _, ok := params["spawn_density"]; ok {
					continue
				}
			}
			rng := rand.New(rand.NewPCG(uint64(vi), 7))
			var v, ref View
			var p Probe
			var pb ProbeBoard
			commandObservations(t, id, params, games, rng, func(g int, obs []uint8) {
				positions++
				v.Load(obs)
				p.Begin(&v)
				var mark ViewMark
				v.Mark(&mark)
				saved := v
				var last probeBoard
				haveLast := false
				for depth := 0; depth < 4; depth++ {
					before := v
					ref.CopyFrom(&v)
					want := ref.Approach()
					got := p.Approach()
					approaches++
					if want.ShipsLost > 0 {
						lost++
					}
					if want.NoShip {
						noShip++
					}
					if want.Crashes > 0 {
						crashes++
					}
					if got != want {
						t.Fatalf("%s %v game %d depth %d: Probe.Approach %+v, View.Approach %+v", id, params, g, depth, got, want)
					}
					if before != v {
						t.Fatalf("%s %v game %d depth %d: Probe.Approach changed the View", id, params, g, depth)
					}
					wb, gb := viewBoard(&ref), probeBoardOf(&p)
					if d := firstBoardDiff(&wb, &gb); d != gf.Cells {
						t.Fatalf("%s %v game %d depth %d: boards after the approach differ on %s: %v vs %v", id, params, g, depth, gf.CellName(d), wb[d], gb[d])
					}
					for k := 0; k < gf.NumSeats; k++ {
						if p.Invaders(k) != ref.Invaders(k) {
							t.Fatalf("%s %v game %d depth %d: invaders of %d: %d, want %d", id, params, g, depth, k, p.Invaders(k), ref.Invaders(k))
						}
					}
					if p.Invaded() != ref.Invaded() || p.ShipyardLeft() != ref.ShipyardLeft() {
						t.Fatalf("%s %v game %d depth %d: invaded %d shipyard %d, want %d %d", id, params, g, depth, p.Invaded(), p.ShipyardLeft(), ref.Invaded(), ref.ShipyardLeft())
					}
					if haveLast {
						// Diff may stop early where the same aliens stayed on one
						// board and landed on the other, never late.
						d, want := p.Diff(&pb), firstBoardDiff(&last, &gb)
						if d > want || (d < want && d < gf.Cells && p.now.pushN[d] == pb.pushN[d]) {
							t.Fatalf("%s %v game %d depth %d: Diff %d, want %d", id, params, g, depth, d, want)
						}
						if d == want {
							diffExact++
						}
					}
					p.Save(&pb)
					last, haveLast = gb, true
					// One more random command, if any is legal.
					var legal []int
					for a := gf.ActionFire; a < gf.ActionEndTurn; a++ {
						if v.Legal(a) {
							legal = append(legal, a)
						}
					}
					if len(legal) == 0 {
						break
					}
					v.Play(legal[rng.IntN(len(legal))])
				}
				v.Undo(&mark)
				if v != saved {
					t.Fatalf("%s %v game %d: Undo did not restore the View", id, params, g)
				}
			})
		}
	}
	t.Logf("%d positions, %d approaches compared (%d with crashes, %d with ships lost, %d with no ship left); Diff exact %d times", positions, approaches, crashes, lost, noShip, diffExact)
	if lost == 0 || noShip == 0 || crashes == lost {
		t.Errorf("the positions never lose a ship (%d), never run out of ships (%d) or never crash into a shield (%d crashes): the crash paths are not checked", lost, noShip, crashes-lost)
	}
}

// TestSameApproach plays, from positions of random games and from one
// random command after them, every legal command that only takes aliens off
// stacks (Fire, the weapon, a Missile Command) and checks that whenever
// Probe.SameApproach says the approach phase is the earlier one's, it is:
// the same result, and the board after it is the earlier board with the
// stacks cut to the View's heights (ProbeBoard.StackAfter), the same below
// the first cell it returns.
func TestSameApproach(t *testing.T) {
	games := 30
	if testing.Short() {
		games = 6
	}
	var same, differ, withCrash int
	for vi, params := range []map[string]any{
		{"players": 4, "mission": "expert"}, {"players": 2, "mission": "ace"}, {"players": 3, "mission": "rookie"},
		{"mission": "ace", "invader_spaces": 6, "backup_ships": 1, "spawn_density": 4.0},
	} {
		rng := rand.New(rand.NewPCG(uint64(vi), 11))
		var v View
		var p Probe
		var pb ProbeBoard
		var m0, m1 ViewMark
		commandObservations(t, gf.ID, params, games, rng, func(g int, obs []uint8) {
			v.Load(obs)
			p.Begin(&v)
			v.Mark(&m0)
			for depth := 0; depth < 2; depth++ {
				r := p.Approach()
				if r.NoShip {
					break
				}
				p.Save(&pb)
				v.Mark(&m1)
				var legal []int
				for a := gf.ActionFire; a < gf.ActionEndTurn; a++ {
					if !v.Legal(a) {
						continue
					}
					legal = append(legal, a)
					if a != gf.ActionFire && (a < gf.ActionUseWeapon || a >= gf.ActionSDS) {
						continue
					}
					v.Play(a)
					first, ok := p.SameApproach(&pb, &m1)
					got := p.Approach()
					if ok {
						same++
						if r.Crashes > 0 {
							withCrash++
						}
						if got != r {
							t.Fatalf("%v game %d: SameApproach after %d, but the approach gives %+v, not %+v", params, g, a, got, r)
						}
						for c := 0; c < gf.Cells; c++ {
							stayed, landed := pb.StackAfter(&v, c)
							s2, l2 := p.Stack(c)
							want := append(append([]uint8{}, s2...), l2...)
							have := append(append([]uint8{}, stayed...), landed...)
							if string(want) != string(have) {
								t.Fatalf("%v game %d: SameApproach after %d, but %s holds %v after the approach, not %v", params, g, a, gf.CellName(c), want, have)
							}
							if c < first && v.Height(c) != int(m1.Heights()[c]) {
								t.Fatalf("%v game %d: first %d, but %s is lower", params, g, first, gf.CellName(c))
							}
						}
					} else {
						differ++
					}
					v.Undo(&m1)
				}
				if len(legal) == 0 {
					break
				}
				v.Play(legal[rng.IntN(len(legal))])
			}
			v.Undo(&m0)
		})
	}
	t.Logf("%d commands kept the approach (%d of them with crashes), %d did not", same, withCrash, differ)
	if same == 0 || differ == 0 || withCrash == 0 {
		t.Errorf("SameApproach never held (%d), never failed (%d) or never held with a crash (%d): its cases are not all checked", same, differ, withCrash)
	}
}
