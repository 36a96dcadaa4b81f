package server

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/galaxygym/galaxygym/env"
	_ "github.com/galaxygym/galaxygym/env/envtest/trio" // envtest-trio-v1: three players ranked by score
)

// TestPerPlayerResults plays the three-player test game in both autoreset
// modes and checks every reply's per-player arrays against a local env:
// zeros while an episode runs, the scores, ranks and outcome codes of
// env.Info once it is over (in the fixed part with next_step, in the final
// section with same_step).
func TestPerPlayerResults(t *testing.T) {
	const id, n, p = "envtest-trio-v1", 2, 3
	for _, mode := range []string{"next_step", "same_step"} {
		t.Run(mode, func(t *testing.T) {
			_, url := startServer(t, Config{})
			c := dial(t, url, nil)
			hello(t, c)
			sendJSON(t, c, map[string]any{"type": "make", "env": id, "num_envs": n, "autoreset_mode": mode})
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			_, data, err := c.ReadMessage()
			if err != nil {
				t.Fatal(err)
			}
			var m made
			if err := json.Unmarshal(data, &m); err != nil || m.Layout != NewLayout(n, 12, 5, p) {
				t.Fatalf("made %s (%v)", data, err)
			}
			if names := fmt.Sprint(m.Spec["outcome_names"]); names != "[ongoing win loss draw truncated]" {
				t.Fatalf("spec outcome_names %s", names)
			}
			seeds := []uint64{3, 4}
			r := decodeReply(t, resetSeeds(t, c, seeds...), m.Layout)
			local := make([]*env.Env, n)
			for i := range local {
				local[i], _ = env.Make(id, nil)
				local[i].Reset(seeds[i])
			}
			ended := 0
			for step := 0; step < 12; step++ {
				actions := firstLegal(r)
				c.WriteMessage(websocket.BinaryMessage, stepFrame(actions...))
				r = decodeReply(t, recvBinary(t, c), m.Layout)
				for i, e := range local {
					if _, err := e.Step(int(actions[i])); err != nil {
						t.Fatal(err)
					}
					info := e.Info()
					if mode == "same_step" && e.Done() {
						k := ended % n
						if r.k != n || r.finIndex[k] != int32(i) ||
							!playersMatch(&info, p, r.finScores[p*k:p*(k+1)], r.finRanks[p*k:p*(k+1)], r.finOutcomes[p*k:p*(k+1)]) {
							t.Fatalf("step %d env %d: final entry %d: %v %v %v, want %v %v %v", step, i, k,
								r.finScores, r.finRanks, r.finOutcomes, info.Scores, info.Ranks, info.Outcomes)
						}
						ended++
						info = env.Info{} // the env has been reset: its fixed arrays are zeros
					}
					if !playersMatch(&info, p, r.scores[p*i:p*(i+1)], r.ranks[p*i:p*(i+1)], r.outcomes[p*i:p*(i+1)]) {
						t.Fatalf("step %d env %d: %v %v %v, want %v %v %v", step, i, r.scores[p*i:p*(i+1)],
							r.ranks[p*i:p*(i+1)], r.outcomes[p*i:p*(i+1)], info.Scores, info.Ranks, info.Outcomes)
					}
					if mode == "next_step" && e.Done() && (len(info.Scores) != p || r.ranks[p*i] == 0) {
						t.Fatalf("step %d env %d: the episode is over but the reply shows no ranks", step, i)
					}
				}
			}
			if !local[0].Done() || (mode == "same_step" && ended != n) {
				t.Fatalf("the episodes did not end (%d ended)", ended)
			}
		})
	}
}
