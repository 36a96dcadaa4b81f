package server

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/galaxygym/galaxygym/agents"
	_ "github.com/galaxygym/galaxygym/agents/all"
	"github.com/galaxygym/galaxygym/env"
	_ "github.com/galaxygym/galaxygym/env/all"
	"github.com/galaxygym/galaxygym/rollout"
)

// makeMsg sends a make message and returns the made reply, or the error
// reply's code.
func makeMsg(tb testing.TB, c *websocket.Conn, msg map[string]any) (made, map[string]any) {
	tb.Helper()
	msg["type"] = "make"
	sendJSON(tb, c, msg)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, data, err := c.ReadMessage()
	if err != nil {
		tb.Fatal(err)
	}
	var raw map[string]any
	json.Unmarshal(data, &raw)
	var m made
	json.Unmarshal(data, &m)
	return m, raw
}

// TestOpponentsReturns plays every multi-player game with heuristic
// opponents (learner seat fixed, rotated, and every seat a learner) in each
// autoreset mode and checks the learner's view: every reply's current
// player is a learner seat, and over each episode every seat's rewards sum
// to its return (the info message's returns), the learner's included.
func TestOpponentsReturns(t *testing.T) {
	cases := []struct {
		id   string
		opts map[string]any
	}{
		{"express-v2", map[string]any{"opponents": "heuristic"}},
		{"express-v2", map[string]any{"opponents": []string{"random", "heuristic"}, "learner_seats": []int{1, 3}, "seat_rule": "rotate"}},
		{"galaxy-fighters-v2", map[string]any{"opponents": "heuristic", "learner_seats": []int{2}, "seat_rule": "rotate"}},
		{"pilots-of-gallaxia-v1", map[string]any{"opponents": "heuristic", "seat_rule": "rotate"}},
		{"pilots-of-gallaxia-v1", map[string]any{"learner_seats": "all"}},
		{"envtest-trio-v1", map[string]any{"opponents": "random"}},
	}
	for _, tc := range cases {
		for _, mode := range []string{"next_step", "disabled"} {
			t.Run(tc.id+"/"+mode, func(t *testing.T) {
				_, url := startServer(t, Config{})
				c := dial(t, url, nil)
				hello(t, c)
				const n = 3
				msg := map[string]any{"env": tc.id, "num_envs": n, "autoreset_mode": mode}
				for k, v := range tc.opts {
					msg[k] = v
				}
				m, raw := makeMsg(t, c, msg)
				if m.Type != MsgMade {
					t.Fatalf("make: %v", raw)
				}
				opp := raw["opponents"].(map[string]any)
				lineup := opp["lineup"].([]any)
				p := m.Layout.P
				r := decodeReply(t, resetSeeds(t, c, 11, 12, 13), m.Layout)
				sums := make([][]float64, n)
				for i := range sums {
					sums[i] = make([]float64, p)
				}
				seats := map[int32]bool{}
				x := uint64(5)
				episodes := 0
				for step := 0; step < 4000 && episodes < 4; step++ {
					for i := range n {
						cp := r.player[i]
						if cp < 0 {
							continue
						}
						seats[cp] = true
						rot := 0
						if opp["seat_rule"] == "rotate" {
							// the learner seat is a lineup learner position rotated
							ok := false
							for rot = 0; rot < p; rot++ {
								if lineup[(int(cp)+rot)%p] == "learner" {
									ok = true
								}
							}
							if !ok {
								t.Fatalf("seat %d is not a learner seat of any rotation", cp)
							}
						} else if lineup[cp] != "learner" {
							t.Fatalf("env %d: current player %d is an opponent's seat (lineup %v)", i, cp, lineup)
						}
					}
					actions := pickLegal(r, &x)
					c.WriteMessage(websocket.BinaryMessage, stepFrame(actions...))
					r = decodeReply(t, recvBinary(t, c), m.Layout)
					var done []int
					for i := range n {
						for k := range p {
							sums[i][k] += float64(r.rewards[p*i+k])
						}
						if r.term[i] == 1 || r.trunc[i] == 1 {
							done = append(done, i)
						}
					}
					if len(done) == 0 {
						continue
					}
					sendJSON(t, c, map[string]any{"type": "info", "indices": done})
					infos := recvJSON(t, c)["infos"].([]any)
					for j, i := range done {
						ret := infos[j].(map[string]any)["returns"].([]any)
						for k := range p {
							if d := sums[i][k] - ret[k].(float64); d > 1e-3 || d < -1e-3 {
								t.Fatalf("env %d seat %d: rewards sum to %v, return %v", i, k, sums[i][k], ret[k])
							}
						}
						clear(sums[i])
						episodes++
					}
					if mode == "disabled" {
						sendJSON(t, c, map[string]any{"type": "reset", "mask": maskOf(n, done)})
						r = decodeReply(t, recvBinary(t, c), m.Layout)
					}
				}
				if episodes < 4 {
					t.Fatalf("%d episodes ended", episodes)
				}
				if opp["seat_rule"] == "rotate" && len(seats) < 2 {
					t.Fatalf("rotate: the learner played only seats %v", seats)
				}
			})
		}
	}
}

func maskOf(n int, idx []int) []bool {
	m := make([]bool, n)
	for _, i := range idx {
		m[i] = true
	}
	return m
}

// TestOpponentsSameStepMatchesLocal checks the same_step replies against a
// local rollout.LearnerEnv with the documented seeds: the same learner
// seats, rewards and final scores.
func TestOpponentsSameStepMatchesLocal(t *testing.T) {
	_, url := startServer(t, Config{})
	c := dial(t, url, nil)
	hello(t, c)
	m, raw := makeMsg(t, c, map[string]any{"env": "express-v2", "num_envs": 1, "autoreset_mode": "same_step",
		"opponents": "heuristic", "seat_rule": "rotate"})
	if m.Type != MsgMade {
		t.Fatalf("make: %v", raw)
	}
	plan, perr := planLineup(&Opponents{Agents: json.RawMessage(`"heuristic"`), SeatRule: "rotate"}, mustSpec(t, "express-v2"), agents.Limits{})
	if perr != nil {
		t.Fatal(perr)
	}
	local := mustEnv(t, "express-v2")
	le, err := plan.learnerEnv(context.Background(), local)
	if err != nil {
		t.Fatal(err)
	}
	r := decodeReply(t, resetSeeds(t, c, 77), m.Layout)
	seed := uint64(77)
	if err := le.Reset(0, seed, OpponentSeed(seed)); err != nil {
		t.Fatal(err)
	}
	ep := uint64(0)
	p := m.Layout.P
	for step := 0; step < 3000 && ep < 2; step++ {
		if int(r.player[0]) != le.Player() {
			t.Fatalf("step %d: server's learner seat %d, local %d", step, r.player[0], le.Player())
		}
		a := pickLegal(r, &seed)[0]
		c.WriteMessage(websocket.BinaryMessage, stepFrame(a))
		r = decodeReply(t, recvBinary(t, c), m.Layout)
		res, err := le.Step(int(a))
		if err != nil {
			t.Fatal(err)
		}
		if res.Done() {
			fin := le.FinalRewards()
			for k := range p {
				if r.rewards[k] != float32(fin[k]) {
					t.Fatalf("final rewards %v, local %v", r.rewards, fin)
				}
			}
			info := local.Info()
			if r.k != 1 || r.finScores[0] != float32(info.Scores[0]) {
				t.Fatalf("final section %d %v, local scores %v", r.k, r.finScores, info.Scores)
			}
			ep++
			s := EpisodeSeed(77, ep)
			if err := le.Reset(int64(ep), s, OpponentSeed(s)); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want := float32(0)
		if !res.First {
			want = float32(res.Reward)
		}
		if r.rewards[res.Seat] != want {
			t.Fatalf("step %d: reward %v of seat %d, local %v", step, r.rewards, res.Seat, res.Reward)
		}
	}
	if ep < 2 {
		t.Fatal("the episodes did not end")
	}
	_ = rollout.SeatsRotate
}

// TestOpponentsRefused checks the make errors: bad lineups, and weights
// outside the served folder.
func TestOpponentsRefused(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "x.npz")
	os.WriteFile(outside, []byte("not npz"), 0o600)
	os.Symlink(outside, filepath.Join(dir, "link.npz"))
	_, url := startServer(t, Config{WeightsDir: dir})
	for _, tc := range []struct {
		msg  map[string]any
		code Code
	}{
		{map[string]any{"env": "galaxy-express-v1", "opponents": "random"}, CodeBadRequest},
		{map[string]any{"env": "express-v2", "opponents": []string{"random", "random"}}, CodeBadRequest},
		{map[string]any{"env": "express-v2", "opponents": "nosuchagent"}, CodeBadParam},
		{map[string]any{"env": "express-v2", "opponents": "mcts@sims"}, CodeBadRequest},
		{map[string]any{"env": "express-v2", "opponents": "random", "learner_seats": []int{4}}, CodeBadRequest},
		{map[string]any{"env": "express-v2", "opponents": "random", "learner_seats": []int{0, 0}}, CodeBadRequest},
		{map[string]any{"env": "express-v2", "opponents": "random", "learner_seats": "all"}, CodeBadRequest},
		{map[string]any{"env": "express-v2", "opponents": "random", "seat_rule": "shuffle"}, CodeBadRequest},
		{map[string]any{"env": "express-v2", "opponents": "policy@weights=../x.npz"}, CodeBadRequest},
		{map[string]any{"env": "express-v2", "opponents": "policy@weights=" + outside}, CodeBadRequest},
		{map[string]any{"env": "express-v2", "opponents": "policy@weights=link.npz"}, CodeBadRequest},
		{map[string]any{"env": "express-v2", "opponents": "policy@weights=missing.npz"}, CodeBadRequest},
	} {
		c := dial(t, url, nil)
		hello(t, c)
		m, raw := makeMsg(t, c, tc.msg)
		if m.Type == MsgMade || raw["code"] != string(tc.code) {
			t.Errorf("make %v: %v, want error %s", tc.msg, raw, tc.code)
		}
		c.Close()
	}
	// Without --weights no weights file can be named.
	_, url2 := startServer(t, Config{})
	c := dial(t, url2, nil)
	hello(t, c)
	if _, raw := makeMsg(t, c, map[string]any{"env": "express-v2", "opponents": "policy@weights=a.npz"}); raw["code"] != string(CodeBadRequest) {
		t.Errorf("weights without a served folder: %v", raw)
	}
}

func mustEnv(tb testing.TB, id string) *env.Env {
	tb.Helper()
	e, err := env.Make(id, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

func mustSpec(tb testing.TB, id string) *env.Spec { return mustEnv(tb, id).Spec() }

// TestLearnerSeatsAllOnOnePlayer: learner_seats "all" on a one-player game
// is a plain session (what the Python client asks by default).
func TestLearnerSeatsAllOnOnePlayer(t *testing.T) {
	_, url := startServer(t, Config{})
	c := dial(t, url, nil)
	hello(t, c)
	m, raw := makeMsg(t, c, map[string]any{"env": "galaxy-express-v1", "num_envs": 2, "learner_seats": "all"})
	if m.Type != MsgMade || raw["opponents"] != nil {
		t.Fatalf("make: %v", raw)
	}
	r := decodeReply(t, resetSeeds(t, c, 1, 2), m.Layout)
	c.WriteMessage(websocket.BinaryMessage, stepFrame(firstLegal(r)...))
	decodeReply(t, recvBinary(t, c), m.Layout)
}
