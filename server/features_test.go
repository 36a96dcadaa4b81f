package server

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/galaxygym/galaxygym/env"
	"github.com/gorilla/websocket"
)

// TestActionFeatures: a make with action_features gives replies that
// carry, after the masks, each action's features of the observation beside
// them, exactly the game's env.ActionFeaturer of it (all 0 once the
// episode is over), with the final section moved past them; a game that
// declares none is refused, and without the field nothing changes.
func TestActionFeatures(t *testing.T) {
	_, url := startServer(t, Config{})
	c := dial(t, url, nil)
	hello(t, c)
	makeF := func(id string, n int, mode string, params map[string]any) (made, []string) {
		t.Helper()
		sendJSON(t, c, map[string]any{"type": "make", "env": id, "num_envs": n, "autoreset_mode": mode,
			"params": params, "action_features": true})
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, data, err := c.ReadMessage()
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			made
			Names []string `json:"action_feature_names"`
		}
		if err := json.Unmarshal(data, &m); err != nil || m.Type != MsgMade {
			t.Fatalf("make reply %s (%v)", data, err)
		}
		return m.made, m.Names
	}

	m, names := makeF(testEnv, 3, "same_step", nil)
	g, _ := env.Lookup(testEnv)
	feat := g.(env.ActionFeaturer)
	f := len(feat.ActionFeatureNames())
	if !slices.Equal(names, feat.ActionFeatureNames()) || m.Layout != NewLayout(3, 503, 56, 1).WithActionFeatures(f) {
		t.Fatalf("made: names %v, layout %+v", names, m.Layout)
	}
	l := m.Layout
	if l.ActionFeatures != l.Mask+3*56 || l.FinalIndex != align4(l.ActionFeatures+3*56*f) {
		t.Fatalf("layout %+v", l)
	}
	want := make([]byte, 56*f)
	check := func(b []byte) reply {
		t.Helper()
		r := decodeReply(t, b, l)
		for i := range 3 {
			got := b[l.ActionFeatures+56*f*i : l.ActionFeatures+56*f*(i+1)]
			clear(want)
			if r.player[i] >= 0 {
				feat.ActionFeatures(r.obs[i], want)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("env %d step %d: features %v, the game's %v", i, r.steps[i], got, want)
			}
		}
		return r
	}
	r := check(resetSeeds(t, c, 1, 2, 3))
	var x uint64 = 7
	ended, lit := 0, 0
	for step := 0; step < 400 && ended < 3; step++ {
		if err := c.WriteMessage(websocket.BinaryMessage, stepFrame(pickLegal(r, &x)...)); err != nil {
			t.Fatal(err)
		}
		b := recvBinary(t, c)
		r = check(b)
		ended += r.k
		lit += bytes.Count(b[l.ActionFeatures:l.ActionFeatures+3*56*f], []byte{1})
	}
	if ended < 3 || lit == 0 {
		t.Fatalf("%d episodes ended, %d feature bits set: the test saw too little", ended, lit)
	}

	if m, names := makeF("pilots-of-gallaxia-v2", 2, "", map[string]any{"players": 2}); len(names) == 0 || m.Layout.F != len(names) {
		t.Fatalf("pilots: names %v, layout %+v", names, m.Layout)
	}
	sendJSON(t, c, map[string]any{"type": "make", "env": "express-v2", "action_features": true})
	if e := expectError(t, c, CodeBadRequest); !bytes.Contains([]byte(e["message"].(string)), []byte("declares no action features")) {
		t.Fatalf("error %v", e)
	}
	if m := makeBatch(t, c, 2, "", nil); m.Layout.F != 0 || m.Layout.ActionFeatures != 0 {
		t.Fatalf("without action_features: %+v", m.Layout)
	}
}
