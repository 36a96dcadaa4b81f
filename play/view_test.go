package play

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/galaxygym/galaxygym/env"
	_ "github.com/galaxygym/galaxygym/env/all"
)

// TestSeatViewHidesWhatTheSeatCannotSee is the hidden-information proof of
// the page: for every registered game and player count, along random
// games, two positions that differ only in what a seat cannot see (the
// true one and a twin drawn by the game's determinizer from the seat's
// observation) give byte-identical views to that seat; the view names the
// true player to act (so the table's public status, which tells every
// seat who acts, reveals nothing the seat cannot see); and it offers
// exactly the true position's legal actions when the seat is to act.
func TestSeatViewHidesWhatTheSeatCannotSee(t *testing.T) {
	forEachSeatedGame(t, checkTwins)
}

// forEachSeatedGame runs check as a subtest for every registered game a
// person can sit at (it has a determinizer), at its fewest and its most
// players: the games and player counts the page's hidden-information
// proofs cover.
func forEachSeatedGame(t *testing.T, check func(t *testing.T, g env.Game, det env.Determinizer, params map[string]any)) {
	for _, id := range env.IDs() {
		g, err := env.Lookup(id)
		if err != nil {
			t.Fatal(err)
		}
		det, ok := g.(env.Determinizer)
		if !ok {
			t.Logf("%s: no determinizer; the page seats no person at it", id)
			continue
		}
		sp := g.Spec()
		counts := []int{sp.NumPlayers}
		if sp.MaxPlayers > sp.MinPlayers {
			counts = []int{sp.MinPlayers, sp.MaxPlayers}
		}
		for _, n := range counts {
			t.Run(id+"/"+string(rune('0'+n))+"p", func(t *testing.T) {
				var params map[string]any
				if sp.MaxPlayers > sp.MinPlayers {
					params = map[string]any{env.PlayersParam: n}
				}
				check(t, g, det, params)
			})
		}
	}
}

func checkTwins(t *testing.T, g env.Game, det env.Determinizer, params map[string]any) {
	e, err := env.New(g, params)
	if err != nil {
		t.Fatal(err)
	}
	sp := e.Spec()
	obs := make([]uint8, sp.ObsSize())
	twinObs := make([]uint8, sp.ObsSize())
	mask := make([]uint8, sp.NumActions())
	differ, checked := 0, 0
	every := 23 // positions apart; a solitaire game is short
	if sp.NumPlayers == 1 {
		every = 3
	}
	for seed := uint64(1); seed <= 2; seed++ {
		e.Reset(seed)
		rng := rand.New(rand.NewPCG(seed, 7))
		for step := 0; !e.Done() && step < 240; step++ {
			if step%every == 0 {
				for seat := range sp.NumPlayers {
					st := e.State()
					st.Observe(seat, obs)
					twin, err := det.Determinize(e.Params(), seat, obs, seed*1000+uint64(step), nil)
					if err != nil {
						t.Fatalf("seed %d step %d seat %d: determinize: %v", seed, step, seat, err)
					}
					twin.Observe(seat, twinObs)
					if !bytes.Equal(obs, twinObs) {
						t.Fatalf("seed %d step %d seat %d: the twin's observation differs (determinizer broken)", seed, step, seat)
					}
					a, b := marshal(t, sp, e.Params(), st, seat), marshal(t, sp, e.Params(), twin, seat)
					if !bytes.Equal(a, b) {
						t.Fatalf("seed %d step %d seat %d: the views of two positions the seat cannot tell apart differ:\n%s\n%s", seed, step, seat, a, b)
					}
					sj, _ := st.MarshalJSON()
					tj, _ := twin.MarshalJSON()
					if !bytes.Equal(sj, tj) {
						differ++
					}
					checked++
					var v View
					if err := json.Unmarshal(a, &v); err != nil {
						t.Fatal(err)
					}
					cur := e.CurrentPlayer()
					// Who is to act is told to every seat (the table's
					// status): it must follow from each seat's observation.
					if v.ToMove != cur {
						t.Fatalf("seed %d step %d seat %d: the seat's view says player %d is to act, the true position %d: who acts is hidden from it",
							seed, step, seat, v.ToMove, cur)
					}
					if (len(v.Actions) > 0) != (cur == seat) {
						t.Fatalf("seed %d step %d seat %d: %d actions offered, player %d is to act", seed, step, seat, len(v.Actions), cur)
					}
					if cur == seat {
						st.LegalMask(mask)
						var want []int
						for i, m := range mask {
							if m != 0 {
								want = append(want, i)
							}
						}
						var got []int
						for _, x := range v.Actions {
							got = append(got, x.A)
							if x.Name != sp.ActionNames[x.A] {
								t.Fatalf("action %d named %q, want %q", x.A, x.Name, sp.ActionNames[x.A])
							}
						}
						if !slices.Equal(got, want) {
							t.Fatalf("seed %d step %d seat %d: offered %v, legal %v", seed, step, seat, got, want)
						}
					}
				}
			}
			m := e.Mask()
			var legal []int
			for i, x := range m {
				if x != 0 {
					legal = append(legal, i)
				}
			}
			if _, err := e.Step(legal[rng.IntN(len(legal))]); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("%d positions x seats checked, %d twins with different hidden information", checked, differ)
	if differ == 0 {
		t.Logf("%s: no twin differed from the true position (the observation determines the position)", sp.ID)
	}
}

func marshal(t *testing.T, sp *env.Spec, params env.Params, st env.State, seat int) []byte {
	t.Helper()
	v, err := SeatView(sp, params, st, seat)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestFaceUpViewShowsHands checks that the face-up view (watching agents,
// replays) holds every player's hand where the game prints one.
func TestFaceUpViewShowsHands(t *testing.T) {
	e, err := env.Make("express-v1", map[string]any{env.PlayersParam: 3})
	if err != nil {
		t.Skip("express-v1 not registered")
	}
	e.Reset(4)
	v, err := FaceUpView(e.Spec(), e.Params(), e.State())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"player 0:", "player 1:", "player 2:"} {
		if !bytes.Contains([]byte(v.Text), []byte(p)) {
			t.Fatalf("face-up text lacks %q:\n%s", p, v.Text)
		}
	}
	if bytes.Count([]byte(v.Text), []byte("[")) < 3 {
		t.Fatalf("face-up text shows fewer than 3 hands:\n%s", v.Text)
	}
	if v.Image == "" || v.Width == 0 {
		t.Fatal("no picture")
	}
}
