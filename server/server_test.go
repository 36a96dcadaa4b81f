package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/version"
)

func TestHandshake(t *testing.T) {
	_, url := startServer(t, Config{})
	c := dial(t, url, nil)
	sendJSON(t, c, map[string]any{"type": "hello", "version": Version, "client": "test"})
	m := recvJSON(t, c)
	if m["type"] != "hello" || m["version"] != float64(Version) || m["server_version"] != version.Version {
		t.Fatalf("hello reply %v", m)
	}
	limits := m["limits"].(map[string]any)
	if limits["max_envs"] != float64(DefaultMaxEnvs) {
		t.Errorf("limits %v", limits)
	}
	sendJSON(t, c, map[string]any{"type": "list"})
	m = recvJSON(t, c)
	var spec map[string]any
	for _, s := range m["specs"].([]any) {
		if s.(map[string]any)["id"] == testEnv {
			spec = s.(map[string]any)
		}
	}
	if spec == nil || len(spec["obs_high"].([]any)) != 503 || len(spec["action_names"].([]any)) != 56 {
		t.Errorf("list reply: %s missing or wrong: %v", testEnv, spec)
	}
}

func TestHandshakeVersionMismatch(t *testing.T) {
	_, url := startServer(t, Config{})
	for _, v := range []int{99, 1} { // 1: a client of the protocol before per-player results
		c := dial(t, url, nil)
		sendJSON(t, c, map[string]any{"type": "hello", "version": v})
		e := expectError(t, c, CodeVersionMismatch)
		if !strings.Contains(e["message"].(string), fmt.Sprintf("version %d", v)) {
			t.Errorf("message %q does not name the client's version", e["message"])
		}
		expectClose(t, c, websocket.CloseProtocolError)
	}
}

func TestHandshakeRequired(t *testing.T) {
	_, url := startServer(t, Config{})
	c := dial(t, url, nil)
	sendJSON(t, c, map[string]any{"type": "list"})
	expectError(t, c, CodeHandshakeRequired)
	expectClose(t, c, websocket.CloseProtocolError)

	c = dial(t, url, nil)
	c.WriteMessage(websocket.BinaryMessage, stepFrame(0))
	expectError(t, c, CodeHandshakeRequired)
	expectClose(t, c, websocket.CloseProtocolError)
}

// localBatch mirrors a server batch with env.Make, the reference the
// server's replies must match byte for byte.
type localBatch struct {
	envs    []*env.Env
	base    []uint64
	episode []uint64
	obs     []byte
	mask    []byte
}

func newLocal(t testing.TB, n int, params map[string]any, seeds []uint64) *localBatch {
	l := &localBatch{base: seeds, episode: make([]uint64, n), obs: make([]byte, 503), mask: make([]byte, 56)}
	for i := 0; i < n; i++ {
		e, err := env.Make(testEnv, params)
		if err != nil {
			t.Fatal(err)
		}
		e.Reset(seeds[i])
		l.envs = append(l.envs, e)
	}
	return l
}

// check compares env i of reply r with the local env e.
func (l *localBatch) check(t testing.TB, r reply, i int, what string) {
	t.Helper()
	e := l.envs[i]
	p := e.CurrentPlayer()
	if p < 0 {
		p = 0
	}
	if err := e.Observe(p, l.obs); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(r.obs[i], l.obs) {
		t.Fatalf("%s: env %d observation differs from env.Make's", what, i)
	}
	e.LegalMask(l.mask)
	if !bytes.Equal(r.mask[i], l.mask) {
		t.Fatalf("%s: env %d mask differs", what, i)
	}
	info := e.Info()
	if r.player[i] != int32(e.CurrentPlayer()) || r.score[i] != float32(info.Score) ||
		r.steps[i] != int32(e.Steps()) || env.Outcome(r.outcome[i]) != info.Outcome {
		t.Fatalf("%s: env %d player %d score %v steps %d outcome %d; want %d %v %d %q", what, i,
			r.player[i], r.score[i], r.steps[i], r.outcome[i], e.CurrentPlayer(), info.Score, e.Steps(), info.Outcome)
	}
	np := e.Spec().NumPlayers
	if !playersMatch(&info, np, r.scores[np*i:np*(i+1)], r.ranks[np*i:np*(i+1)], r.outcomes[np*i:np*(i+1)]) {
		t.Fatalf("%s: env %d per-player results %v %v %v; want %v %v %v", what, i, r.scores[np*i:np*(i+1)],
			r.ranks[np*i:np*(i+1)], r.outcomes[np*i:np*(i+1)], info.Scores, info.Ranks, info.Outcomes)
	}
}

// playersMatch reports whether a reply's per-player arrays of one env hold
// info's per-player results (zeros while the episode runs).
func playersMatch(info *env.Info, p int, scores []float32, ranks []int32, outcomes []uint8) bool {
	for q := range p {
		var s float32
		var r int32
		var o uint8
		if len(info.Scores) > 0 {
			s, r, o = float32(info.Scores[q]), int32(info.Ranks[q]), uint8(info.Outcomes[q])
		}
		if scores[q] != s || ranks[q] != r || outcomes[q] != o {
			return false
		}
	}
	return true
}

func TestRoundTripMatchesLocal(t *testing.T) {
	_, url := startServer(t, Config{})
	const n = 3
	params := map[string]any{"max_turns": 12}
	c := dial(t, url, nil)
	hello(t, c)
	m := makeBatch(t, c, n, "next_step", params)
	if m.AutoresetMode != "next_step" || m.Spec["autoreset_mode"] != "next_step" || m.StepBytes != 8+4*n+4 {
		t.Fatalf("made %+v", m)
	}
	seeds := []uint64{7, 1 << 40, 12345678901234567890}
	r := decodeReply(t, resetSeeds(t, c, seeds...), m.Layout)
	if r.kind != KindResetReply {
		t.Fatalf("reset reply kind %d", r.kind)
	}
	local := newLocal(t, n, params, seeds)
	for i := 0; i < n; i++ {
		local.check(t, r, i, "reset")
	}
	x := uint64(1)
	dones := 0
	for step := 0; step < 200; step++ {
		actions := pickLegal(r, &x)
		c.WriteMessage(websocket.BinaryMessage, stepFrame(actions...))
		r = decodeReply(t, recvBinary(t, c), m.Layout)
		if r.kind != KindStepReply || r.k != 0 {
			t.Fatalf("step reply kind %d k %d", r.kind, r.k)
		}
		for i, e := range local.envs {
			var rew float64
			term, trunc := false, false
			if e.Done() {
				local.episode[i]++
				e.Reset(EpisodeSeed(local.base[i], local.episode[i]))
			} else {
				res, err := e.Step(int(actions[i]))
				if err != nil {
					t.Fatal(err)
				}
				rew, term, trunc = res.Rewards[0], res.Terminated, res.Truncated
			}
			if r.rewards[i] != float32(rew) || (r.term[i] == 1) != term || (r.trunc[i] == 1) != trunc {
				t.Fatalf("step %d env %d: reward %v term %d trunc %d; want %v %v %v", step, i, r.rewards[i], r.term[i], r.trunc[i], rew, term, trunc)
			}
			if term || trunc {
				dones++
			}
			local.check(t, r, i, "step")
		}
	}
	if dones < 3 {
		t.Errorf("only %d episodes ended in 200 steps; the test wants autoresets", dones)
	}
}

// playUntilDone steps with legal actions until some env's episode ends and
// returns the reply of that step and the actions of every step.
func playUntilDone(t *testing.T, c *websocket.Conn, r reply, l Layout) (reply, [][]int32) {
	t.Helper()
	x := uint64(3)
	var hist [][]int32
	for i := 0; i < 100; i++ {
		actions := pickLegal(r, &x)
		hist = append(hist, actions)
		c.WriteMessage(websocket.BinaryMessage, stepFrame(actions...))
		r = decodeReply(t, recvBinary(t, c), l)
		for j := range r.term {
			if r.term[j] == 1 || r.trunc[j] == 1 {
				return r, hist
			}
		}
	}
	t.Fatal("no episode ended")
	return r, nil
}

func TestAutoresetNextStep(t *testing.T) {
	_, url := startServer(t, Config{})
	c := dial(t, url, nil)
	hello(t, c)
	m := makeBatch(t, c, 2, "", map[string]any{"max_turns": 2})
	if m.AutoresetMode != "next_step" {
		t.Fatalf("default autoreset mode %q", m.AutoresetMode)
	}
	r, _ := playUntilDone(t, c, decodeReply(t, resetSeeds(t, c, 5, 6), m.Layout), m.Layout)
	done := 0
	if r.term[0] == 0 && r.trunc[0] == 0 {
		done = 1
	}
	if r.player[done] != -1 || bytes.Count(r.mask[done], []byte{1}) != 0 {
		t.Fatalf("done env: player %d, mask has legal actions", r.player[done])
	}
	// The next step ignores the done env's action, even an out-of-range one.
	actions := firstLegal(r)
	actions[done] = 9999
	c.WriteMessage(websocket.BinaryMessage, stepFrame(actions...))
	r2 := decodeReply(t, recvBinary(t, c), m.Layout)
	if r2.term[done] != 0 || r2.trunc[done] != 0 || r2.rewards[done] != 0 || r2.steps[done] != 0 {
		t.Fatalf("autoreset step: term %d trunc %d reward %v steps %d", r2.term[done], r2.trunc[done], r2.rewards[done], r2.steps[done])
	}
	ref, _ := env.Make(testEnv, map[string]any{"max_turns": 2})
	ref.Reset(EpisodeSeed(uint64(5+done), 1))
	obs := make([]byte, 503)
	ref.Observe(0, obs)
	if !bytes.Equal(r2.obs[done], obs) {
		t.Fatal("autoreset observation is not that of episode 1 of the env's seed chain")
	}
}

func TestAutoresetSameStep(t *testing.T) {
	_, url := startServer(t, Config{})
	c := dial(t, url, nil)
	hello(t, c)
	params := map[string]any{"max_turns": 2}
	m := makeBatch(t, c, 2, "same_step", params)
	seeds := []uint64{11, 12}
	r := decodeReply(t, resetSeeds(t, c, seeds...), m.Layout)
	local := newLocal(t, 2, params, seeds)
	x := uint64(3)
	for step := 0; step < 100; step++ {
		actions := pickLegal(r, &x)
		c.WriteMessage(websocket.BinaryMessage, stepFrame(actions...))
		r = decodeReply(t, recvBinary(t, c), m.Layout)
		var finals []int32
		for i, e := range local.envs {
			res, err := e.Step(int(actions[i]))
			if err != nil {
				t.Fatalf("step %d env %d: %v", step, i, err)
			}
			if r.rewards[i] != float32(res.Rewards[0]) || (r.term[i] == 1) != res.Terminated || (r.trunc[i] == 1) != res.Truncated {
				t.Fatalf("step %d env %d flags", step, i)
			}
			if e.Done() {
				k := len(finals)
				finals = append(finals, int32(i))
				obs := make([]byte, 503)
				e.Observe(0, obs)
				info := e.Info()
				if r.k <= k || r.finIndex[k] != int32(i) || !bytes.Equal(r.finObs[k], obs) ||
					r.finScore[k] != float32(info.Score) || r.finSteps[k] != int32(e.Steps()) ||
					env.Outcome(r.finOutcome[k]) != info.Outcome ||
					!playersMatch(&info, 1, r.finScores[k:k+1], r.finRanks[k:k+1], r.finOutcomes[k:k+1]) {
					t.Fatalf("step %d: final entry %d of %d wrong for env %d", step, k, r.k, i)
				}
				local.episode[i]++
				e.Reset(EpisodeSeed(local.base[i], local.episode[i]))
			}
			local.check(t, r, i, "same_step")
		}
		if r.k != len(finals) {
			t.Fatalf("step %d: K = %d, want %d", step, r.k, len(finals))
		}
		if len(finals) > 0 && step > 10 {
			return
		}
	}
}

func TestAutoresetDisabled(t *testing.T) {
	_, url := startServer(t, Config{})
	c := dial(t, url, nil)
	hello(t, c)
	m := makeBatch(t, c, 2, "disabled", map[string]any{"max_turns": 2})
	r, _ := playUntilDone(t, c, decodeReply(t, resetSeeds(t, c, 5, 6), m.Layout), m.Layout)
	done := 0
	if r.term[0] == 0 && r.trunc[0] == 0 {
		done = 1
	}
	c.WriteMessage(websocket.BinaryMessage, stepFrame(firstLegal(r)...))
	e := expectError(t, c, CodeEpisodeOver)
	if e["index"] != float64(done) {
		t.Fatalf("episode_over index %v, want %d", e["index"], done)
	}
	// A masked reset resets only the done env; the other keeps its state.
	other := 1 - done
	mask := []bool{false, false}
	mask[done] = true
	sendJSON(t, c, map[string]any{"type": "reset", "mask": mask, "seeds": []any{nil, nil}})
	r2 := decodeReply(t, recvBinary(t, c), m.Layout)
	if !bytes.Equal(r2.obs[other], r.obs[other]) || r2.steps[other] != r.steps[other] {
		t.Fatal("masked reset changed an env it did not select")
	}
	if r2.steps[done] != 0 || r2.term[done] != 0 || r2.trunc[done] != 0 {
		t.Fatal("masked reset did not reset the selected env")
	}
	ref, _ := env.Make(testEnv, map[string]any{"max_turns": 2})
	ref.Reset(EpisodeSeed(uint64(5+done), 1)) // null seed: next episode of the chain
	obs := make([]byte, 503)
	ref.Observe(0, obs)
	if !bytes.Equal(r2.obs[done], obs) {
		t.Fatal("null-seed reset is not episode 1 of the env's seed chain")
	}
}

func getState(t *testing.T, c *websocket.Conn, i int) string {
	t.Helper()
	sendJSON(t, c, map[string]any{"type": "get_state", "index": i})
	m := recvJSON(t, c)
	if m["type"] != MsgState {
		t.Fatalf("get_state reply %v", m)
	}
	b, _ := json.Marshal(m["state"])
	return string(b)
}

func TestObserveAnswersAPlayersView(t *testing.T) {
	_, url := startServer(t, Config{})
	c, m := openSession(t, url, 2, "")
	r := decodeReply(t, resetSeeds(t, c, 4, 5), m.Layout)
	for i := 0; i < 2; i++ {
		sendJSON(t, c, map[string]any{"type": "observe", "index": i, "player": 0})
		msg := recvJSON(t, c)
		if msg["type"] != MsgObs || msg["index"] != float64(i) || msg["player"] != 0.0 {
			t.Fatalf("observe reply %v", msg)
		}
		got := msg["obs"].([]any)
		if len(got) != len(r.obs[i]) {
			t.Fatalf("observe: %d bytes, want %d", len(got), len(r.obs[i]))
		}
		for k, v := range got {
			if uint8(v.(float64)) != r.obs[i][k] {
				t.Fatalf("env %d: observe byte %d = %v, the step reply has %d", i, k, v, r.obs[i][k])
			}
		}
	}
}

func TestIllegalActionLeavesStateUnchanged(t *testing.T) {
	_, url := startServer(t, Config{})
	c, m := openSession(t, url, 3, "")
	r := decodeReply(t, resetSeeds(t, c, 1, 2, 3), m.Layout)
	x := uint64(9)
	for i := 0; i < 3; i++ { // leave the launch phase
		c.WriteMessage(websocket.BinaryMessage, stepFrame(pickLegal(r, &x)...))
		r = decodeReply(t, recvBinary(t, c), m.Layout)
	}
	before := []string{getState(t, c, 0), getState(t, c, 1), getState(t, c, 2)}
	for _, bad := range []int32{-1, 56, 1 << 30, illegalIn(r.mask[1])} {
		actions := firstLegal(r)
		actions[1] = bad
		c.WriteMessage(websocket.BinaryMessage, stepFrame(actions...))
		e := expectError(t, c, CodeIllegalAction)
		if e["index"] != float64(1) || e["action"] != float64(bad) {
			t.Fatalf("illegal action error %v", e)
		}
	}
	for i := range before {
		if got := getState(t, c, i); got != before[i] {
			t.Fatalf("env %d changed after a refused step:\n%s\n%s", i, before[i], got)
		}
	}
	// The batch goes on as if nothing happened.
	local := make([]*env.Env, 3)
	for i := range local {
		local[i], _ = env.Make(testEnv, nil)
		if err := local[i].Load([]byte(before[i])); err != nil {
			t.Fatal(err)
		}
	}
	actions := firstLegal(r)
	c.WriteMessage(websocket.BinaryMessage, stepFrame(actions...))
	r = decodeReply(t, recvBinary(t, c), m.Layout)
	obs := make([]byte, 503)
	for i, e := range local {
		e.Step(int(actions[i]))
		e.Observe(0, obs)
		if !bytes.Equal(r.obs[i], obs) {
			t.Fatalf("env %d diverged after the refused step", i)
		}
	}
}

func illegalIn(mask []byte) int32 {
	for a, v := range mask {
		if v == 0 {
			return int32(a)
		}
	}
	return -1
}

func TestResetFromState(t *testing.T) {
	_, url := startServer(t, Config{})
	c, m := openSession(t, url, 2, "")
	r := decodeReply(t, resetSeeds(t, c, 21, 22), m.Layout)
	x := uint64(5)
	for i := 0; i < 4; i++ {
		c.WriteMessage(websocket.BinaryMessage, stepFrame(pickLegal(r, &x)...))
		r = decodeReply(t, recvBinary(t, c), m.Layout)
	}
	snap := getState(t, c, 0)
	// Load env 0's snapshot into env 1 only (states), then compare both.
	sendJSON(t, c, map[string]any{"type": "reset", "mask": []bool{false, true},
		"options": map[string]any{"states": []any{nil, json.RawMessage(snap)}}})
	r2 := decodeReply(t, recvBinary(t, c), m.Layout)
	if !bytes.Equal(r2.obs[0], r2.obs[1]) || !bytes.Equal(r2.mask[0], r2.mask[1]) || r2.steps[1] != r.steps[0] {
		t.Fatal("env 1 loaded from env 0's snapshot differs from env 0")
	}
	// The game's own state JSON (no "env" key) loads as a fresh episode.
	var full struct {
		State json.RawMessage `json:"state"`
	}
	json.Unmarshal([]byte(snap), &full)
	sendJSON(t, c, map[string]any{"type": "reset", "seeds": []any{nil, 99},
		"options": map[string]any{"state": full.State}})
	r3 := decodeReply(t, recvBinary(t, c), m.Layout)
	if !bytes.Equal(r3.obs[0], r.obs[0]) || !bytes.Equal(r3.obs[1], r.obs[0]) || r3.steps[1] != 0 {
		t.Fatal("game state load differs")
	}
	// A bad state is refused and changes nothing.
	before := getState(t, c, 1)
	for _, bad := range []string{`{"position":"nonsense"}`, `[1,2]`, `{"env":"other-v1","state":{}}`} {
		sendJSON(t, c, map[string]any{"type": "reset", "options": map[string]any{"state": json.RawMessage(bad)}})
		expectError(t, c, CodeBadState)
	}
	if getState(t, c, 1) != before {
		t.Fatal("a refused reset changed the env")
	}
}

func TestBadMessages(t *testing.T) {
	_, url := startServer(t, Config{MaxEnvs: 8})
	c := dial(t, url, nil)
	hello(t, c)
	c.WriteMessage(websocket.BinaryMessage, stepFrame(0))
	expectError(t, c, CodeNotMade)
	for _, tc := range []struct {
		msg  string
		code Code
	}{
		{`{"type":"reset"}`, CodeNotMade},
		{`{"type":"render"}`, CodeNotMade},
		{`not json`, CodeMalformed},
		{`{"type":"make","env":"galaxy-express-v1"} trailing`, CodeMalformed},
		{`{"type":"fly"}`, CodeUnknownMessage},
		{`{}`, CodeMalformed},
		{`{"type":"make","env":"galaxy-express-v1","bogus":1}`, CodeMalformed},
		{`{"type":"make","env":"galaxy-express-v1","num_envs":"3"}`, CodeMalformed},
		{`{"type":"make","env":"nope-v1"}`, CodeUnknownEnv},
		{`{"type":"make","env":"galaxy-express-v1","params":{"max_turns":0}}`, CodeBadParam},
		{`{"type":"make","env":"galaxy-express-v1","params":{"speed":3}}`, CodeBadParam},
		{`{"type":"make","env":"galaxy-express-v1","num_envs":0}`, CodeBadRequest},
		{`{"type":"make","env":"galaxy-express-v1","num_envs":9}`, CodeTooManyEnvs},
		{`{"type":"make","env":"galaxy-express-v1","autoreset_mode":"sometimes"}`, CodeBadRequest},
	} {
		sendRaw(t, c, tc.msg)
		expectError(t, c, tc.code)
	}
	m := makeBatch(t, c, 2, "", nil)
	c.WriteMessage(websocket.BinaryMessage, stepFrame(0, 0))
	expectError(t, c, CodeNotReset)
	resetSeeds(t, c, 1, 2)
	for _, tc := range []struct {
		msg  string
		code Code
	}{
		{`{"type":"reset","seeds":[1]}`, CodeBadRequest},
		{`{"type":"reset","seeds":[-1,2]}`, CodeMalformed},
		{`{"type":"reset","mask":[true]}`, CodeBadRequest},
		{`{"type":"reset","options":{"states":[null]}}`, CodeBadRequest},
		{`{"type":"reset","options":{"seed":3}}`, CodeMalformed},
		{`{"type":"render","indices":[2]}`, CodeBadRequest},
		{`{"type":"get_state"}`, CodeBadRequest},
		{`{"type":"get_state","index":-1}`, CodeBadRequest},
		{`{"type":"observe","index":0}`, CodeBadRequest},
		{`{"type":"observe","index":2,"player":0}`, CodeBadRequest},
		{`{"type":"observe","index":0,"player":1}`, CodeBadRequest},
	} {
		sendRaw(t, c, tc.msg)
		expectError(t, c, tc.code)
	}
	for _, frame := range [][]byte{
		stepFrame(0),         // N = 1, the session holds 2
		stepFrame(0, 0, 0),   // N = 3
		stepFrame(0, 0)[:12], // truncated
		append(stepFrame(0, 0), 0),
		{'G', 'G', Version, KindStep},
	} {
		c.WriteMessage(websocket.BinaryMessage, frame)
		expectError(t, c, CodeMalformed)
	}
	// Render and info still work, and the batch still steps.
	sendJSON(t, c, map[string]any{"type": "render", "indices": []int{1}})
	if fr := recvJSON(t, c)["frames"].([]any); len(fr) != 1 || !strings.Contains(fr[0].(string), "Galaxy Express") {
		t.Fatalf("render %v", fr)
	}
	sendJSON(t, c, map[string]any{"type": "info"})
	if infos := recvJSON(t, c)["infos"].([]any); len(infos) != 2 || infos[0].(map[string]any)["rating"] == nil {
		t.Fatalf("info %v", infos)
	}
	c.WriteMessage(websocket.BinaryMessage, stepFrame(0, 0))
	recvBinary(t, c)
	_ = m
	// A binary frame that is not a step request closes with 1003.
	c.WriteMessage(websocket.BinaryMessage, []byte("PNG\x00\x01\x02\x03\x04"))
	expectError(t, c, CodeUnsupportedFrame)
	expectClose(t, c, websocket.CloseUnsupportedData)

	// A step request of another protocol version closes with 1002.
	c2, _ := openSession(t, url, 1, "")
	resetSeeds(t, c2, 1)
	f := stepFrame(0)
	f[2] = 7
	c2.WriteMessage(websocket.BinaryMessage, f)
	expectError(t, c2, CodeVersionMismatch)
	expectClose(t, c2, websocket.CloseProtocolError)
}

func TestCloseMessage(t *testing.T) {
	srv, url := startServer(t, Config{})
	c, _ := openSession(t, url, 1, "")
	sendJSON(t, c, map[string]any{"type": "close"})
	if m := recvJSON(t, c); m["type"] != MsgClosed {
		t.Fatalf("close reply %v", m)
	}
	// The slot is free before the client hears "closed", not some time
	// after its connection ends.
	if n := srv.Sessions(); n != 0 {
		t.Fatalf("%d sessions after the closed reply", n)
	}
	expectClose(t, c, websocket.CloseNormalClosure)
}

// TestReconnectAfterClose: with one session allowed, a client that closes
// and reconnects at once is never refused for the slot it just gave back
// (a Python make_vec refused for too many envs, then retried, hit this).
func TestReconnectAfterClose(t *testing.T) {
	_, url := startServer(t, Config{MaxSessions: 1})
	for i := range 50 {
		c, _ := openSession(t, url, 1, "")
		sendJSON(t, c, map[string]any{"type": "close"})
		if m := recvJSON(t, c); m["type"] != MsgClosed {
			t.Fatalf("round %d: close reply %v", i, m)
		}
		expectClose(t, c, websocket.CloseNormalClosure)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestReadLimit(t *testing.T) {
	_, url := startServer(t, Config{MaxEnvs: 4, ReadLimit: 1024})
	c := dial(t, url, nil)
	hello(t, c)
	sendRaw(t, c, `{"type":"list","pad":"`+strings.Repeat("x", 2000)+`"}`)
	expectClose(t, c, websocket.CloseMessageTooBig)
}

func TestMaxSessions(t *testing.T) {
	srv, url := startServer(t, Config{MaxSessions: 2})
	dial(t, url, nil)
	dial(t, url, nil)
	waitFor(t, func() bool { return srv.Sessions() == 2 })
	c := dial(t, url, nil)
	expectError(t, c, CodeTooManySessions)
	expectClose(t, c, websocket.CloseTryAgainLater)
}

func TestIdleTimeout(t *testing.T) {
	_, url := startServer(t, Config{IdleTimeout: 150 * time.Millisecond, PingInterval: 50 * time.Millisecond, PongTimeout: time.Second})
	c := dial(t, url, nil)
	hello(t, c)
	start := time.Now()
	expectClose(t, c, websocket.ClosePolicyViolation)
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("idle session closed after %v", d)
	}
}

func TestPingPongLiveness(t *testing.T) {
	// Timeouts of a second: a shorter one failed on a machine shared by a
	// dozen jobs, whose goroutines could stall for a third of a second.
	srv, url := startServer(t, Config{PingInterval: 100 * time.Millisecond, PongTimeout: time.Second})
	// A client that reads answers pings (gorilla replies while reading) and
	// stays connected past the pong timeout.
	alive := dial(t, url, nil)
	hello(t, alive)
	pings := make(chan struct{}, 100)
	alive.SetPingHandler(func(data string) error {
		pings <- struct{}{}
		return alive.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(time.Second))
	})
	go func() {
		for {
			if _, _, err := alive.ReadMessage(); err != nil {
				return
			}
		}
	}()
	// A client that never reads never answers: the server drops it.
	dead := dial(t, url, nil)
	hello(t, dead)
	waitFor(t, func() bool { return srv.Sessions() == 2 })
	time.Sleep(2500 * time.Millisecond) // the pong timeout with room for a loaded machine
	if got := srv.Sessions(); got != 1 {
		t.Fatalf("%d sessions after the pong timeout, want 1 (the live one)", got)
	}
	if len(pings) < 3 {
		t.Fatalf("the live client saw %d pings", len(pings))
	}
	// Unsolicited pongs keep an idle client alive too (the Python client's
	// keepalive).
	quiet := dial(t, url, nil)
	hello(t, quiet)
	for i := 0; i < 20; i++ { // twice the pong timeout
		quiet.WriteControl(websocket.PongMessage, nil, time.Now().Add(time.Second))
		time.Sleep(100 * time.Millisecond)
	}
	if got := srv.Sessions(); got != 2 {
		t.Fatalf("%d sessions, want the live and the quiet one", got)
	}
}

func TestToken(t *testing.T) {
	_, url := startServer(t, Config{Token: "s3cret-token-0123456789"})
	for _, h := range []http.Header{nil, {"Authorization": {"Bearer wrong"}}, {"Authorization": {"Basic s3cret-token-0123456789"}}} {
		_, resp, err := websocket.DefaultDialer.Dial(wsURL(url, "/"), h)
		if err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("header %v: err %v resp %v, want 401", h, err, resp)
		}
	}
	c := dial(t, url, http.Header{"Authorization": {"Bearer s3cret-token-0123456789"}})
	hello(t, c)
	c2, _, err := websocket.DefaultDialer.Dial(wsURL(url, "/?token=s3cret-token-0123456789"), nil)
	if err != nil {
		t.Fatalf("query token: %v", err)
	}
	c2.Close()
	if resp, _ := http.Get(url + "/metrics"); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("/metrics without token: %d", resp.StatusCode)
	}
	if resp, _ := http.Get(url + "/healthz"); resp.StatusCode != http.StatusOK {
		t.Fatalf("/healthz: %d", resp.StatusCode)
	}
}

func TestOrigin(t *testing.T) {
	_, url := startServer(t, Config{AllowedOrigins: []string{"https://lab.example"}})
	host := strings.TrimPrefix(url, "http://")
	for origin, ok := range map[string]bool{
		"https://evil.example": false,
		"https://lab.example":  true,
		"http://" + host:       true,
	} {
		c, resp, err := websocket.DefaultDialer.Dial(wsURL(url, "/"), http.Header{"Origin": {origin}})
		if ok != (err == nil) {
			t.Fatalf("origin %s: err %v", origin, err)
		}
		if !ok && resp.StatusCode != http.StatusForbidden {
			t.Fatalf("origin %s: status %d", origin, resp.StatusCode)
		}
		if c != nil {
			c.Close()
		}
	}
}

func TestHealthzAndMetrics(t *testing.T) {
	_, url := startServer(t, Config{})
	resp, err := http.Get(url + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	var h map[string]any
	json.NewDecoder(resp.Body).Decode(&h)
	resp.Body.Close()
	if h["status"] != "ok" || h["version"] != float64(Version) {
		t.Fatalf("healthz %v", h)
	}
	if resp, _ := http.Get(url + "/"); resp.StatusCode != http.StatusUpgradeRequired {
		t.Fatalf("GET / without upgrade: %d", resp.StatusCode)
	}
	c, m := openSession(t, url, 4, "")
	r := decodeReply(t, resetSeeds(t, c, 1, 2, 3, 4), m.Layout)
	for i := 0; i < 5; i++ {
		c.WriteMessage(websocket.BinaryMessage, stepFrame(firstLegal(r)...))
		r = decodeReply(t, recvBinary(t, c), m.Layout)
	}
	c.WriteMessage(websocket.BinaryMessage, stepFrame(-1, 0, 0, 0))
	expectError(t, c, CodeIllegalAction)
	resp, err = http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`galaxygym_sessions 1`,
		`galaxygym_sessions_total 1`,
		`galaxygym_env_steps_total{env="galaxy-express-v1"} 20`,
		`galaxygym_step_requests_total{env="galaxy-express-v1"} 5`,
		`galaxygym_step_duration_seconds_count 5`,
		`galaxygym_errors_total{code="illegal_action"} 1`,
		`galaxygym_resets_total{env="galaxy-express-v1"} 1`,
		`go_goroutines`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

func TestGracefulShutdown(t *testing.T) {
	srv, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	inStep := make(chan struct{})
	release := make(chan struct{})
	var held atomic.Bool
	srv.stepHook = func() {
		// Hold the first step (a blocking send: the test may not be
		// waiting yet); later steps pass.
		if held.CompareAndSwap(false, true) {
			inStep <- struct{}{}
			<-release
		}
	}
	errc := make(chan error, 1)
	addrc := make(chan string, 1)
	go func() {
		errc <- srv.ListenAndServe("127.0.0.1:0", func(a net.Addr) { addrc <- a.String() })
	}()
	url := "http://" + <-addrc
	c, m := openSession(t, url, 2, "")
	r := decodeReply(t, resetSeeds(t, c, 1, 2), m.Layout)
	idle, _ := openSession(t, url, 1, "")

	c.WriteMessage(websocket.BinaryMessage, stepFrame(firstLegal(r)...))
	<-inStep // the step is in flight
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		done <- srv.Shutdown(ctx)
	}()
	// New connections are refused while the step is still in flight.
	waitFor(t, func() bool {
		_, _, err := websocket.DefaultDialer.Dial(wsURL(url, "/"), nil)
		return err != nil
	})
	select {
	case err := <-done:
		t.Fatalf("Shutdown returned (%v) with a step in flight", err)
	default:
	}
	close(release)
	// The in-flight step's reply arrives, then the going-away close.
	decodeReply(t, recvBinary(t, c), m.Layout)
	expectClose(t, c, websocket.CloseGoingAway)
	expectClose(t, idle, websocket.CloseGoingAway)
	if err := <-done; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		t.Fatalf("ListenAndServe returned %v", err)
	}
	if srv.Sessions() != 0 {
		t.Fatalf("%d sessions after Shutdown", srv.Sessions())
	}
}

func TestEcho(t *testing.T) {
	_, url := startServer(t, Config{Echo: true})
	c, _, err := websocket.DefaultDialer.Dial(wsURL(url, "/echo"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.WriteMessage(websocket.BinaryMessage, []byte("hello"))
	if _, b, _ := c.ReadMessage(); string(b) != "hello" {
		t.Fatalf("echo %q", b)
	}
	c.WriteMessage(websocket.BinaryMessage, []byte("ECHO\x00\x10\x00\x00rest"))
	if _, b, _ := c.ReadMessage(); len(b) != 4096 || string(b[:12]) != "ECHO\x00\x10\x00\x00rest" {
		t.Fatalf("sized echo of %d bytes", len(b))
	}
	_, url2 := startServer(t, Config{})
	if _, resp, err := websocket.DefaultDialer.Dial(wsURL(url2, "/echo"), nil); err == nil || resp.StatusCode != http.StatusNotFound {
		t.Fatal("/echo is served without Config.Echo")
	}
}

func TestConfigErrors(t *testing.T) {
	for _, cfg := range []Config{
		{MaxEnvs: -1},
		{MaxEnvs: 100, ReadLimit: 100},
		{PingInterval: time.Second, PongTimeout: time.Second},
	} {
		if _, err := New(cfg); err == nil || !strings.HasPrefix(err.Error(), "server: ") {
			t.Errorf("New(%+v) = %v, want a server: error", cfg, err)
		}
	}
}

func TestEpisodeSeed(t *testing.T) {
	if EpisodeSeed(42, 0) != 42 {
		t.Fatal("episode 0 must use the base seed")
	}
	// Reference values (also in docs/protocol.md and the Python tests).
	if got := EpisodeSeed(0, 1); got != 0xe220a8397b1dcdaf {
		t.Fatalf("EpisodeSeed(0, 1) = %#x", got)
	}
	seen := map[uint64]bool{}
	for k := uint64(0); k < 1000; k++ {
		s := EpisodeSeed(7, k)
		if seen[s] {
			t.Fatal("repeated episode seed")
		}
		seen[s] = true
	}
}
