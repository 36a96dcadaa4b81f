package play

import (
	"bytes"
	"encoding/base64"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/rollout"
)

// obsOf decodes a table message's observation (nil when absent).
func obsOf(t *testing.T, m map[string]any) (seat int, obs, mask []byte, ok bool) {
	t.Helper()
	o, ok := m["observation"].(map[string]any)
	if !ok {
		return 0, nil, nil, false
	}
	var err error
	if obs, err = base64.StdEncoding.DecodeString(o["obs"].(string)); err != nil {
		t.Fatal(err)
	}
	if s, has := o["mask"].(string); has {
		if mask, err = base64.StdEncoding.DecodeString(s); err != nil {
			t.Fatal(err)
		}
	}
	return int(o["seat"].(float64)), obs, mask, true
}

// TestSeatObservationOnlyToItsPerson plays a two-person game of Express
// to the end over the page's protocol, each person choosing from the
// legal mask its table messages carry: every table message of a seat's
// person carries that seat's observation, byte for byte an env.Env's
// observation of the seat after status.steps moves of the same deal, and
// the mask exactly when the seat is to act; a spectator's messages and a
// second tab's without the secret never carry an observation or a mask.
func TestSeatObservationOnlyToItsPerson(t *testing.T) {
	const seed = 11
	params := map[string]any{"players": 2, "hand_only": true}
	p := newPage(t, Config{})
	a := p.dial(t, "")
	a.send(map[string]any{"op": "new", "take": []int{0}, "lineup": map[string]any{"env": "express-v1", "params": params,
		"seats": []string{"human", "human"}, "seed": seed}})
	secrets, st, _ := a.secrets()
	if secrets[0] == "" {
		t.Fatal("no secret for seat 0")
	}
	id := st["table"].(string)
	b := p.dial(t, "")
	b.send(map[string]any{"op": "join", "table": id, "seat": 1})
	spec := p.dial(t, "")
	spec.send(map[string]any{"op": "watch", "table": id})
	tab := p.dial(t, "") // another tab of seat 0's person, without the secret
	tab.send(map[string]any{"op": "join", "table": id, "seat": 0})
	if code := tab.next("error")["code"]; code != "seat_taken" {
		t.Fatalf("joining a held seat without its secret: %v", code)
	}
	tab.send(map[string]any{"op": "watch", "table": id})

	// The same deal in an env.Env of its own.
	g, err := env.Lookup("express-v1")
	if err != nil {
		t.Fatal(err)
	}
	shadow, err := env.New(g, env.Params(params))
	if err != nil {
		t.Fatal(err)
	}
	envSeed, _ := rollout.EpisodeSeeds(seed, 0)
	shadow.Reset(envSeed)
	want := make([]byte, shadow.Spec().ObsSize())
	people := []*client{a, b}
	rng := rand.New(rand.NewPCG(seed, 1))
	checked := 0
	// check reads c's table messages up to the one for the position after
	// steps moves and checks each; it returns that one's mask.
	check := func(c *client, seat, steps int, over bool) []byte {
		t.Helper()
		for {
			m, raw := c.read()
			if m["op"] != "table" {
				if m["op"] == "error" {
					t.Fatalf("seat %d: error %v: %v", seat, m["code"], m["message"])
				}
				continue
			}
			s := m["status"].(map[string]any)
			k, obs, mask, ok := obsOf(t, m)
			if seat < 0 {
				if ok || bytes.Contains(raw, []byte(`"observation"`)) || bytes.Contains(raw, []byte(`"mask"`)) {
					t.Fatalf("a spectator got an observation: %.200s", raw)
				}
			} else if !ok || k != seat {
				t.Fatalf("seat %d's person got no observation of its seat (got %v, seat %d): %.200s", seat, ok, k, raw)
			}
			at := int(s["steps"].(float64))
			if at != steps || (over && s["over"] != true) {
				if at > steps {
					t.Fatalf("seat %d: passed step %d (at %d)", seat, steps, at)
				}
				continue
			}
			if seat >= 0 {
				if err := shadow.Observe(seat, want); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(obs, want) {
					t.Fatalf("step %d: seat %d's observation differs from env.Env's", steps, seat)
				}
				toAct := !shadow.Done() && shadow.CurrentPlayer() == seat
				if toAct != (mask != nil) || toAct && !slices.Equal(mask, shadow.Mask()) {
					t.Fatalf("step %d: seat %d's mask %v, to act %v", steps, seat, mask != nil, toAct)
				}
				checked++
			}
			return mask
		}
	}
	for steps := 0; ; steps++ {
		if steps > 5000 {
			t.Fatal("the game did not end in 5000 moves")
		}
		over := shadow.Done()
		masks := make([][]byte, len(people))
		for k, c := range people {
			masks[k] = check(c, k, steps, over)
		}
		check(spec, -1, steps, over)
		check(tab, -1, steps, over)
		if over {
			break
		}
		k := shadow.CurrentPlayer()
		var legal []int
		for i, m := range masks[k] {
			if m != 0 {
				legal = append(legal, i)
			}
		}
		act := legal[rng.IntN(len(legal))]
		people[k].send(map[string]any{"op": "act", "table": id, "seat": k, "action": act, "steps": steps})
		if _, err := shadow.Step(act); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d observations checked", checked)
	if checked < 20 {
		t.Fatalf("only %d observations checked", checked)
	}
}
