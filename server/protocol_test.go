package server

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"testing"
)

func TestLayout(t *testing.T) {
	l := NewLayout(1024, 503, 56, 1)
	want := Layout{N: 1024, O: 503, A: 56, P: 1,
		Rewards: 24, CurrentPlayer: 24 + 4096, Score: 24 + 2*4096, Steps: 24 + 3*4096,
		Scores: 24 + 4*4096, Ranks: 24 + 5*4096,
		Terminated: 24 + 6*4096, Truncated: 24 + 6*4096 + 1024, Outcome: 24 + 6*4096 + 2048,
		Outcomes: 24 + 6*4096 + 3072, Obs: 24 + 6*4096 + 4096, Mask: 24 + 6*4096 + 4096 + 1024*503,
		FinalIndex: 24 + 6*4096 + 4096 + 1024*559, FixedSize: 24 + 6*4096 + 4096 + 1024*559}
	if l != want {
		t.Fatalf("layout\n%+v\nwant\n%+v", l, want)
	}
	for _, n := range []int{1, 3, 7} {
		l := NewLayout(n, 503, 56, 3)
		f := l.Final(2)
		for _, off := range []int{l.Rewards, l.CurrentPlayer, l.Score, l.Steps, l.Scores, l.Ranks, l.FinalIndex,
			f.Index, f.Score, f.Steps, f.Scores, f.Ranks} {
			if off%4 != 0 {
				t.Fatalf("N=%d: 4-byte array at offset %d", n, off)
			}
		}
		if f.Size != l.FixedSize+2*(13+9*3+503) || f.Outcomes != f.Outcome+2 || f.Obs != f.Outcomes+2*3 {
			t.Fatalf("final section %+v", f)
		}
	}
}

func TestStepRequestRoundTrip(t *testing.T) {
	actions := []int32{0, 55, -1, 1 << 30}
	msg := AppendStepRequest(nil, 0xdeadbeef, actions)
	if len(msg) != StepHeaderSize+16+4 || string(msg[:4]) != "GG\x03\x01" || binary.LittleEndian.Uint32(msg[4:]) != 4 {
		t.Fatalf("request % x", msg)
	}
	got := make([]int32, 4)
	id, err := DecodeStepRequest(msg, got)
	if err != nil {
		t.Fatal(err)
	}
	if id != 0xdeadbeef {
		t.Fatalf("request id %#x", id)
	}
	for i := range got {
		if got[i] != actions[i] {
			t.Fatalf("decoded %v", got)
		}
	}
}

func FuzzDecodeStepRequest(f *testing.F) {
	f.Add(AppendStepRequest(nil, 5, []int32{1, 2, 3}), 3)
	f.Add(AppendStepRequest(nil, 1<<31, []int32{7}), 1)
	f.Add([]byte("GG\x03\x01\xff\xff\xff\xff"), 2)
	f.Add([]byte("GG\x02\x01\x01\x00\x00\x00\x07\x00\x00\x00"), 1) // version 2: no id
	f.Add([]byte("GG"), 1)
	f.Add([]byte{}, 0)
	f.Fuzz(func(t *testing.T, msg []byte, n int) {
		if n < 0 || n > 1<<12 {
			return
		}
		actions := make([]int32, n)
		id, err := DecodeStepRequest(msg, actions)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %T is not *Error", err)
			}
			return
		}
		if len(msg) != StepRequestSize(n) {
			t.Fatalf("accepted %d bytes for N=%d", len(msg), n)
		}
		if !bytes.Equal(AppendStepRequest(nil, id, actions), msg) {
			t.Fatal("re-encoding differs")
		}
	})
}

func FuzzDecodeControl(f *testing.F) {
	for _, s := range []string{
		`{"type":"hello","version":1}`,
		`{"type":"make","env":"galaxy-express-v1","num_envs":4,"params":{"max_turns":3},"autoreset_mode":"same_step"}`,
		`{"type":"reset","seeds":[1,null,3],"mask":[true,false,true],"options":{"states":[null,{"position":"x"},null]}}`,
		`{"type":"reset","options":{"state":{"env":"galaxy-express-v1","state":{}}}}`,
		`{"type":"render","indices":[0,2]}`,
		`{"type":"get_state","index":1}`,
		`{"type":"observe","index":1,"player":0}`,
		`{"type":"close"}`,
		`{"type":1}`,
		`[]`,
		``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := DecodeControl(data)
		if err != nil {
			e, ok := err.(*Error)
			if !ok || (e.Code != CodeMalformed && e.Code != CodeUnknownMessage) {
				t.Fatalf("error %v", err)
			}
			return
		}
		switch c.Type {
		case MsgHello, MsgList, MsgMake, MsgReset, MsgRender, MsgGetState, MsgInfo, MsgObserve, MsgClose:
		default:
			t.Fatalf("accepted type %q", c.Type)
		}
		// What was accepted survives a round trip.
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		if _, err := DecodeControl(b); err != nil {
			t.Fatalf("re-decoding %s: %v", b, err)
		}
	})
}

// FuzzBatch drives a batch with arbitrary step requests and reset messages:
// it must never panic, and a refused message must leave every environment
// as it was.
func FuzzBatch(f *testing.F) {
	f.Add([]byte(`{"type":"reset","seeds":[1,2]}`), AppendStepRequest(nil, 1, []int32{3, 4}), uint8(0))
	f.Add([]byte(`{"type":"reset","mask":[true,false],"options":{"state":{"position":"?"}}}`), AppendStepRequest(nil, 2, []int32{0, 60}), uint8(1))
	f.Add([]byte(`{"type":"reset"}`), []byte("GG\x03\x01\x02\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00"), uint8(2))
	f.Fuzz(func(t *testing.T, resetMsg, stepMsg []byte, mode uint8) {
		b, perr := newBatch(testEnv, 2, map[string]any{"max_turns": 3}, AutoresetMode(mode%3), func() uint64 { return 9 }, 1, 1<<40)
		if perr != nil {
			t.Fatal(perr)
		}
		snap := func() string {
			var s []byte
			for _, e := range b.envs {
				j, _ := e.MarshalJSON()
				s = append(s, j...)
			}
			return string(s)
		}
		if c, err := DecodeControl(resetMsg); err == nil && c.Type == MsgReset {
			before := snap()
			if _, perr := b.reset(context.Background(), c); perr != nil && snap() != before {
				t.Fatalf("refused reset %s changed the batch", resetMsg)
			}
		}
		for i := 0; i < 3; i++ {
			if _, err := DecodeStepRequest(stepMsg, b.actions); err != nil {
				return
			}
			before := snap()
			if perr := b.validateStep(); perr != nil {
				if snap() != before {
					t.Fatal("refused step changed the batch")
				}
				return
			}
			b.step(nil)
		}
	})
}
