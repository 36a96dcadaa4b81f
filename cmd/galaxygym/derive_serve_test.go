//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/galaxygym/galaxygym/datasets"
	"github.com/galaxygym/galaxygym/env"
)

// TestDeriveServe: dataset derive --serve answers every request line in
// order; a valid one fills the arrays with the rows `dataset derive`
// streams (every observation and mask), again when asked again with
// other workers; a malformed line, arrays of the wrong size and a missing
// dataset get an error each, leave the arrays as they were, and the next
// request is served.
func TestDeriveServe(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	// datasets.Generate, not the command: its flags would stay set for the tests after this one.
	if _, err := datasets.Generate(context.Background(), datasets.Config{Env: "express-v1", Agent: "random", Episodes: 6,
		Workers: 1, Seed: 2, Observations: datasets.ObsNone, Out: dir}); err != nil {
		t.Fatalf("generate: %v", err)
	}
	var stream bytes.Buffer
	if err := datasets.Derive(context.Background(), dir, &stream, 2); err != nil {
		t.Fatal(err)
	}
	g, err := env.Make("express-v1", nil)
	if err != nil {
		t.Fatal(err)
	}
	obsSize, na := g.Spec().ObsSize(), g.Spec().NumActions()
	var wantObs, wantMasks []byte
	for b := stream.Bytes(); ; {
		n := int(binary.LittleEndian.Uint32(b))
		if n == 0 {
			break
		}
		b = b[4:]
		wantObs, b = append(wantObs, b[:n*obsSize]...), b[n*obsSize:]
		wantMasks, b = append(wantMasks, b[:n*na]...), b[n*na:]
	}
	obs, masks := make([]byte, len(wantObs)), make([]byte, len(wantMasks))
	obs2, masks2 := make([]byte, len(wantObs)), make([]byte, len(wantMasks))
	at := func(b []byte) string { return fmt.Sprintf("%d:%d", uintptr(unsafe.Pointer(&b[0])), len(b)) }
	small := make([]byte, 10)
	req := func(in string, workers int, o, m string) string {
		js, _ := json.Marshal(deriveRequest{In: in, Workers: workers, Obs: o, Masks: m})
		return string(js)
	}
	lines := []string{
		req(dir, 2, at(obs), at(masks)),
		`{"in": `,
		req(dir, 1, at(small), at(small)),
		req(filepath.Join(dir, "nothing"), 1, at(obs), at(masks)),
		req(dir, 1, at(obs2), at(masks2)),
	}
	var out bytes.Buffer
	in := strings.NewReader(strings.Join(lines, "\n") + "\n")
	if err := serveDerive(context.Background(), in, &out, os.Getpid()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(obs, wantObs) || !bytes.Equal(masks, wantMasks) || !bytes.Equal(obs2, wantObs) || !bytes.Equal(masks2, wantMasks) {
		t.Fatal("the arrays differ from the rows dataset derive streams")
	}
	var replies []deriveReply
	dec := json.NewDecoder(&out)
	for dec.More() {
		var r deriveReply
		if err := dec.Decode(&r); err != nil {
			t.Fatal(err)
		}
		replies = append(replies, r)
	}
	if len(replies) != len(lines) {
		t.Fatalf("%d replies to %d requests: %+v", len(replies), len(lines), replies)
	}
	for i, want := range []string{"", "one JSON object a line", "the reader's arrays hold 10 and 10 bytes", "nothing", ""} {
		r := replies[i]
		if want == "" && (!r.OK || r.Error != "") || want != "" && (r.OK || !strings.Contains(r.Error, want) || r.Refused) {
			t.Errorf("reply %d: %+v, want %q", i, r, want)
		}
	}
	if bytes.Count(small, []byte{0}) != len(small) {
		t.Errorf("arrays of the wrong size were written: %v", small)
	}
	// A line longer than any request ends the server with an error.
	long := strings.NewReader(strings.Repeat("x", maxDeriveRequest+1) + "\n")
	if err := serveDerive(context.Background(), long, &out, os.Getpid()); err == nil {
		t.Error("a line longer than maxDeriveRequest was served")
	}
}
