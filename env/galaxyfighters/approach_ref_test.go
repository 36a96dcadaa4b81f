package galaxyfighters

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/env/envtest"
)

// TestApproachMatchesReference checks that approach leaves the state
// exactly as the former implementation (approachRef, which cleared the
// moved marks of every stack, not only of the cells aliens landed on) does,
// from the command-phase positions of random games of both versions.
func TestApproachMatchesReference(t *testing.T) {
	checked := 0
	for _, id := range []string{IDv1, ID} {
		for _, params := range []map[string]any{nil, {"players": 2}, {"mission": "ace"}} {
			envtest.RandomGames(t, id, params, 30, rand.New(rand.NewPCG(4, 0)), func(e *env.Env) {
				s := e.State().(*State)
				if s.phase != PhaseCommand {
					return
				}
				got, want := s.Clone().(*State), s.Clone().(*State)
				got.approach()
				approachRef(want)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s %v: approach leaves %+v, want %+v", id, params, got, want)
				}
				checked++
			})
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d positions checked", checked)
	}
}

// approachRef is the former approach, kept as the reference.
func approachRef(s *State) {
	seat := int(s.cur)
	var buf [maxStack]uint8
	for lr := Side - 1; lr >= 0 && !s.noShip; lr-- {
		for lc := 0; lc < Side && !s.noShip; lc++ {
			g := Global(seat, lr*Side+lc)
			h := int(s.h[g])
			if h == 0 {
				continue
			}
			top := s.st[g][h-1]
			if top&movedBit != 0 || FacedSeat(alienDir(top)) != seat {
				continue
			}
			n := 0
			for s.h[g] > 0 && s.st[g][s.h[g]-1]&movedBit == 0 {
				s.h[g]--
				s.aliens--
				buf[n] = s.st[g][s.h[g]]
				n++
			}
			for i := 0; i < n && !s.noShip; i++ {
				s.moveAlien(buf[i], g)
				if s.noShip && s.cfg.v2 {
					for j := n - 1; j > i; j-- {
						s.push(g, buf[j])
					}
				}
			}
		}
	}
	for g := range s.h {
		for i := 0; i < int(s.h[g]); i++ {
			s.st[g][i] &^= movedBit
		}
	}
}
