package play

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/datasets"
	"github.com/galaxygym/galaxygym/env"
)

// The human agent plays back the moves people made at a table of the page,
// so that a finished game is written by datasets.Generate itself (the same
// files, schema and manifest as `galaxygym generate`), with "human" in the
// seats' agents. It knows one option, game: the key under which the table
// left its moves (a recording in progress); it refuses anything else, and
// plays an environment only while a game of it is being recorded, so that
// `galaxygym envs` and eval never offer it.
func init() {
	agents.RegisterGeneric(Human, "plays back the moves people made on galaxygym serve's page, to record their game as a dataset; plays nothing else",
		func(spec *env.Spec) bool {
			recordings.Lock()
			defer recordings.Unlock()
			for _, r := range recordings.m {
				if r.env == spec.ID {
					return true
				}
			}
			return false
		},
		func(spec *env.Spec, opts agents.Options) (agents.Agent, error) {
			key := opts["game"]
			for k := range opts {
				if k != "game" {
					return nil, &agents.OptionError{Agent: Human, Key: k, Reason: "unknown option (known: game)"}
				}
			}
			recordings.Lock()
			r, ok := recordings.m[key]
			recordings.Unlock()
			if !ok || r.env != spec.ID {
				return nil, &agents.OptionError{Agent: Human, Key: "game",
					Reason: "plays back only a game being recorded by galaxygym serve's page; people play in the browser"}
			}
			return &humanAgent{moves: r.moves}, nil
		})
}

// recording is a finished game being written: its environment and moves.
type recording struct {
	env   string
	moves []step
}

var recordings = struct {
	sync.Mutex
	m map[string]recording
}{m: map[string]recording{}}

// humanAgent replays the recorded moves of the seats it is asked about.
type humanAgent struct {
	moves []step
	next  map[int]int // per player: index into moves of its next move
}

func (*humanAgent) Name() string { return Human }

func (a *humanAgent) Reset(uint64) { a.next = map[int]int{} }

// Act returns player's next recorded move; -1 (refused by the
// environment) when there is none, which fails the recording.
func (a *humanAgent) Act(player int, _, _ []uint8) int {
	for i := a.next[player]; i < len(a.moves); i++ {
		if a.moves[i].Player == player {
			a.next[player] = i + 1
			return a.moves[i].Action
		}
	}
	return -1
}

// IgnoresObservation: the recording needs no observation to play back.
func (*humanAgent) IgnoresObservation() bool { return true }

// record writes the finished table t as a dataset under RecordDir and
// checks that it holds exactly the moves played; it returns the dataset's
// name as the page knows it.
func (h *Handler) record(t *table) (string, error) {
	key := t.id
	recordings.Lock()
	recordings.m[key] = recording{t.e.Spec().ID, append([]step(nil), t.history...)}
	recordings.Unlock()
	defer func() {
		recordings.Lock()
		delete(recordings.m, key)
		recordings.Unlock()
	}()
	addr := ""
	if t.b.owner != nil {
		addr = t.b.owner.addr
	}
	if err := h.recordAllowed(addr, 0); err != nil {
		return "", err
	}
	base := fmt.Sprintf("%s-%s-%s", t.e.Spec().ID, time.Now().UTC().Format("20060102-150405"), t.id)
	// Written under a hidden name first, renamed once checked and within
	// the budgets: a dataset is served whole or not at all.
	final := filepath.Join(h.cfg.RecordDir, base)
	out := filepath.Join(h.cfg.RecordDir, tmpPrefix+base)
	defer os.RemoveAll(out)
	seatOpts := map[string]agents.Options{Human: {"game": key}}
	for _, name := range t.lineup.Seats {
		if name == Human {
			continue
		}
		opts, err := h.agentOptions(t.e.Spec(), name, t.lineup.AgentOpts[name])
		if err != nil {
			return "", err
		}
		if len(opts) > 0 {
			seatOpts[name] = opts
		}
	}
	cfg := datasets.Config{Env: t.e.Spec().ID, EnvParams: map[string]any(t.e.Params()), Seats: t.lineup.Seats,
		SeatOptions: seatOpts, Episodes: 1, Seed: t.runSeed, Workers: 1, Out: out, Author: "galaxygym serve (browser)",
		DatasetID:    "galaxygym/" + t.e.Spec().ID + "/human-v" + strconv.Itoa(datasets.SchemaVersion),
		Observations: h.cfg.RecordObservations}
	cfg.CommandLine = "galaxygym serve (a game played in the browser; seats " + strings.Join(t.lineup.Seats, ",") + ")"
	if _, err := datasets.Generate(context.Background(), cfg); err != nil {
		return "", fmt.Errorf("play: recording the game: %w", err)
	}
	// The agents replayed as they played: the dataset holds our moves.
	d, err := datasets.Open(out)
	if err == nil {
		i := 0
		for st, serr := range d.Steps() {
			if serr != nil {
				err = serr
				break
			}
			if st.Action < 0 {
				continue
			}
			if i >= len(t.history) || t.history[i].Player != st.Player || t.history[i].Action != st.Action {
				err = fmt.Errorf("step %d differs from the game played", i)
				break
			}
			i++
		}
		if err == nil && i != len(t.history) {
			err = fmt.Errorf("%d steps recorded of %d played", i, len(t.history))
		}
	}
	if err != nil {
		return "", fmt.Errorf("play: recording the game: %w", err)
	}
	size := dirSize(out)
	if err := h.recordAllowed(addr, size); err != nil {
		return "", err
	}
	if err := os.Rename(out, final); err != nil {
		h.unchargeRecord(addr, size)
		return "", fmt.Errorf("play: recording the game: %w", err)
	}
	return h.index.add(filepath.Base(filepath.Clean(h.cfg.RecordDir))+"/"+base, final), nil
}

// tmpPrefix begins the name of a recording being written; such folders
// are never served, and those left by a crash are removed at start.
const tmpPrefix = ".writing-"

// RecordError is a game that was not recorded because a recording budget
// ([Limits]) is spent; Reason names the limit.
type RecordError struct{ Reason string }

func (e *RecordError) Error() string { return "play: not recorded: " + e.Reason }

// recordAllowed checks the recording budgets of addr for a recording of
// size bytes and, when size > 0, charges it; size 0 only checks that
// another game may be recorded.
func (h *Handler) recordAllowed(addr string, size int64) error {
	lim := h.cfg.Limits
	b := h.budget
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	uses := b.rec[addr]
	for len(uses) > 0 && now.Sub(uses[0].at) > time.Hour {
		uses = uses[1:]
	}
	b.rec[addr] = uses
	var bytes int64
	for _, u := range uses {
		bytes += u.bytes
	}
	if lim.RecordGamesPerHour > 0 && len(uses) >= lim.RecordGamesPerHour {
		return &RecordError{Reason: fmt.Sprintf("%d games were recorded from %s in the last hour, the most one address may record", len(uses), addr)}
	}
	if lim.RecordBytesPerHour > 0 && bytes+size > lim.RecordBytesPerHour {
		return &RecordError{Reason: fmt.Sprintf("the recordings from %s in the last hour would pass %d bytes, the most one address may record in an hour", addr, lim.RecordBytesPerHour)}
	}
	if lim.RecordMaxBytes > 0 && b.recSize+size > lim.RecordMaxBytes {
		return &RecordError{Reason: fmt.Sprintf("the record folder is full: it would pass %d bytes (--record-max-bytes)", lim.RecordMaxBytes)}
	}
	if size > 0 {
		b.rec[addr] = append(uses, recUse{at: now, bytes: size})
		b.recSize += size
	}
	return nil
}

// unchargeRecord takes back the last recording charged to addr.
func (h *Handler) unchargeRecord(addr string, size int64) {
	b := h.budget
	b.mu.Lock()
	defer b.mu.Unlock()
	if u := b.rec[addr]; len(u) > 0 {
		b.rec[addr] = u[:len(u)-1]
	}
	b.recSize -= size
}
