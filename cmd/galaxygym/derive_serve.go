package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/galaxygym/galaxygym/datasets"
)

// deriveRequest is one line of `dataset derive --serve`'s input: derive
// the compact dataset In (a directory or a bucket URL) into the uint8
// arrays at Obs and Masks (each "ADDR:LEN", decimal) of the process that
// started the server, as `dataset derive IN --into-pid PPID --into-obs
// Obs --into-masks Masks [--workers Workers] [--no-obs]` does.
type deriveRequest struct {
	In      string `json:"in"`
	Workers int    `json:"workers"`
	NoObs   bool   `json:"no_obs"`
	Obs     string `json:"obs"`
	Masks   string `json:"masks"`
}

// deriveReply is the line `dataset derive --serve` answers each request
// with, once every row is written or the derive failed: OK, or Error (the
// error's text, as `dataset derive` prints it) with Refused when the
// system does not let the server write into its parent (the reader then
// reads a pipe instead).
type deriveReply struct {
	OK      bool   `json:"ok,omitempty"`
	Error   string `json:"error,omitempty"`
	Refused bool   `json:"refused,omitempty"`
}

// maxDeriveRequest bounds a request line (bytes): a path or URL and two
// numbers.
const maxDeriveRequest = 64 << 10

// serveDerive is `dataset derive --serve`: it reads requests (one JSON
// deriveRequest a line) from in until it ends, derives each into the
// arrays of process parent, one at a time, and writes a deriveReply line
// to out after each. A malformed request is answered with its error and
// the next one is served. The reader (galaxygym.datasets) starts one
// server and sends it every load of a compact dataset, so that a load
// costs the replay, not a process start (docs/performance.md). It ends,
// without error, when in ends (the reader closed it or exited); an error
// only when out cannot be written or a line is longer than
// maxDeriveRequest.
func serveDerive(ctx context.Context, in io.Reader, out io.Writer, parent int) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 4096), maxDeriveRequest)
	enc := json.NewEncoder(out)
	for sc.Scan() {
		if err := enc.Encode(deriveOne(ctx, sc.Bytes(), parent)); err != nil {
			return fmt.Errorf("dataset derive --serve: answering: %w", err)
		}
		debug.FreeOSMemory() // a server waiting between loads holds no replay's memory
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("dataset derive --serve: reading a request: %w", err)
	}
	return nil
}

// deriveOne serves one request line.
func deriveOne(ctx context.Context, line []byte, parent int) deriveReply {
	var r deriveRequest
	if err := json.Unmarshal(line, &r); err != nil {
		return deriveReply{Error: fmt.Sprintf("dataset derive --serve: a request is one JSON object a line: %v", err)}
	}
	if r.In == "" {
		return deriveReply{Error: "dataset derive --serve: the request names no dataset (in)"}
	}
	if r.Workers < 0 {
		return deriveReply{Error: fmt.Sprintf("dataset derive --serve: workers %d: want 0 (every core) or more", r.Workers)}
	}
	obs, obsLen, err := parseAddrLen("obs", r.Obs)
	if err != nil {
		return deriveReply{Error: err.Error()}
	}
	masks, masksLen, err := parseAddrLen("masks", r.Masks)
	if err != nil {
		return deriveReply{Error: err.Error()}
	}
	w, err := newIntoProcess(parent, obs, obsLen, masks, masksLen)
	if err == nil {
		err = datasets.DeriveTo(ctx, datasets.DeriveConfig{In: r.In, Workers: r.Workers, NoObs: r.NoObs, Rows: w})
	}
	if err != nil {
		return deriveReply{Error: err.Error(), Refused: errors.Is(err, errIntoRefused)}
	}
	return deriveReply{OK: true}
}
