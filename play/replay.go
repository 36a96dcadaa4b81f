package play

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/galaxygym/galaxygym/datasets"
	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/rollout"
)

// DefaultDatasets is the dataset folder served when none is given:
// datasets/out (where `make run` writes) when it exists in the working
// directory, else none.
func DefaultDatasets() []string {
	if fi, err := os.Stat(filepath.Join("datasets", "out")); err == nil && fi.IsDir() {
		return []string{filepath.Join("datasets", "out")}
	}
	return nil
}

// datasetInfo describes a served dataset to the page.
type datasetInfo struct {
	Name       string   `json:"name"` // the name the page asks for it by
	Env        string   `json:"env"`
	Episodes   int64    `json:"episodes"`
	Seats      []string `json:"seats"`
	Replayable bool     `json:"replayable"`
	Reason     string   `json:"reason,omitempty"` // why not, in words
}

func seatsOf(m *datasets.Manifest) []string {
	if len(m.Seats) > 0 {
		return m.Seats
	}
	s := make([]string, m.NumPlayers)
	for i := range s {
		s[i] = m.Agent.Name
	}
	return s
}

// replayable checks that this build can replay m's episodes: the
// environment id is registered with the same actions and observation size.
func replayable(m *datasets.Manifest) error {
	g, err := env.Lookup(m.EnvID)
	if err != nil {
		return &RequestError{Code: "not_replayable", Message: fmt.Sprintf("%s is not an environment of this build (it has %v): the dataset was written by another version",
			m.EnvID, env.IDs())}
	}
	e, err := env.New(g, m.EnvParams)
	if err != nil {
		return &RequestError{Code: "not_replayable", Message: fmt.Sprintf("its parameters do not fit %s of this build: %v", m.EnvID, err)}
	}
	sp := e.Spec()
	if sp.NumActions() != len(m.ActionNames) || sp.NumPlayers != m.NumPlayers {
		return &RequestError{Code: "not_replayable", Message: fmt.Sprintf("%s of this build has %d actions and %d players, the dataset %d and %d: another version of the environment",
			m.EnvID, sp.NumActions(), sp.NumPlayers, len(m.ActionNames), m.NumPlayers)}
	}
	for i, n := range m.ActionNames {
		if sp.ActionNames[i] != n {
			return &RequestError{Code: "not_replayable", Message: fmt.Sprintf("action %d is %q in the dataset and %q in this build: another version of %s", i, n, sp.ActionNames[i], m.EnvID)}
		}
	}
	return nil
}

// episodeInfo is one episode in the page's list.
type episodeInfo struct {
	ID      int64     `json:"id"`
	Length  int       `json:"length"`
	Returns []float64 `json:"returns"`
	Outcome string    `json:"outcome"`
	Seats   []string  `json:"seats"`
}

// maxListed bounds the episodes listed to a page; any episode can still
// be opened by number.
const maxListed = 500

func (h *Handler) episodes(name string) ([]episodeInfo, error) {
	_, dir, err := h.openDataset(name)
	if err != nil {
		return nil, err
	}
	d, err := datasets.Open(dir)
	if err != nil {
		return nil, &RequestError{Code: "bad_dataset", Message: err.Error()}
	}
	var out []episodeInfo
	for ep, err := range d.Episodes() {
		if err != nil {
			return nil, &RequestError{Code: "bad_dataset", Message: err.Error()}
		}
		out = append(out, episodeInfo{ID: ep.ID, Length: ep.Length, Returns: ep.Returns, Outcome: ep.Outcome, Seats: ep.Seats})
		if len(out) >= maxListed {
			break
		}
	}
	return out, nil
}

// episode is one loaded episode: everything to replay it.
type episode struct {
	m       *datasets.Manifest
	seed    uint64
	players []int
	actions []int
}

type replayCache struct {
	mu sync.Mutex
	m  map[string]*episode
	// order of insertion, for a bounded cache
	keys []string
}

func newReplayCache() *replayCache { return &replayCache{m: map[string]*episode{}} }

const replayCacheSize = 16

// loadEpisode reads episode id of the named dataset and checks that this
// build replays it exactly: the environment made from the manifest's id
// and parameters, reset with the episode's seed and stepped with its
// actions, gives the stored observation at every step.
func (h *Handler) loadEpisode(name string, id int64) (*episode, error) {
	key := fmt.Sprintf("%s\x00%d", name, id)
	h.replays.mu.Lock()
	if ep, ok := h.replays.m[key]; ok {
		h.replays.mu.Unlock()
		return ep, nil
	}
	h.replays.mu.Unlock()
	m, dir, err := h.openDataset(name)
	if err != nil {
		return nil, err
	}
	ep, err := LoadEpisode(dir, m, id)
	if err != nil {
		return nil, err
	}
	h.replays.mu.Lock()
	h.replays.m[key] = ep
	h.replays.keys = append(h.replays.keys, key)
	if len(h.replays.keys) > replayCacheSize {
		delete(h.replays.m, h.replays.keys[0])
		h.replays.keys = h.replays.keys[1:]
	}
	h.replays.mu.Unlock()
	return ep, nil
}

// LoadEpisode reads episode id of the dataset in dir (manifest m) and
// checks that it replays exactly in this build (see [Replay]). Errors are
// *RequestError: unknown_episode, not_replayable, bad_dataset.
func LoadEpisode(dir string, m *datasets.Manifest, id int64) (*episode, error) {
	if err := replayable(m); err != nil {
		return nil, err
	}
	if id < 0 || id >= m.TotalEpisodes {
		return nil, &RequestError{Code: "unknown_episode", Message: fmt.Sprintf("episode %d is not in the dataset (0..%d)", id, m.TotalEpisodes-1)}
	}
	var part *datasets.PartInfo
	for i := range m.Parts {
		if id >= m.Parts[i].EpisodeStart && id < m.Parts[i].EpisodeEnd {
			part = &m.Parts[i]
		}
	}
	if part == nil || !filepath.IsLocal(filepath.FromSlash(part.Steps.Path)) {
		return nil, &RequestError{Code: "bad_dataset", Message: fmt.Sprintf("the manifest names no steps file for episode %d", id)}
	}
	envSeed, _ := rollout.EpisodeSeeds(m.Seed, id)
	e, err := env.Make(m.EnvID, m.EnvParams)
	if err != nil {
		return nil, &RequestError{Code: "not_replayable", Message: err.Error()}
	}
	// A compact dataset (no stored observations) is checked against its
	// environment's spec here and its rewards at every step below.
	compact := m.Compact()
	if compact {
		if _, err := datasets.CheckDerivable(m, dir); err != nil {
			return nil, &RequestError{Code: "not_replayable", Message: err.Error()}
		}
	}
	e.Reset(envSeed)
	obs := make([]uint8, e.Spec().ObsSize())
	ep := &episode{m: m, seed: envSeed}
	found := false
	for st, err := range datasets.ReadStepsFile(filepath.Join(dir, filepath.FromSlash(part.Steps.Path))) {
		if err != nil {
			return nil, &RequestError{Code: "bad_dataset", Message: err.Error()}
		}
		if st.EpisodeID < id {
			continue
		}
		if st.EpisodeID > id {
			break
		}
		found = true
		if err := e.Observe(st.Player, obs); err != nil || (!compact && !bytes.Equal(obs, st.Obs)) {
			return nil, &RequestError{Code: "not_replayable", Message: fmt.Sprintf("at step %d the observation of player %d differs from the dataset's: it was written by another version of %s",
				st.Step, st.Player, m.EnvID)}
		}
		if st.Action < 0 {
			break
		}
		if e.CurrentPlayer() != st.Player {
			return nil, &RequestError{Code: "not_replayable", Message: fmt.Sprintf("at step %d player %d acted in the dataset, player %d is to act here: another version of %s",
				st.Step, st.Player, e.CurrentPlayer(), m.EnvID)}
		}
		res, err := e.Step(st.Action)
		if err != nil {
			return nil, &RequestError{Code: "not_replayable", Message: fmt.Sprintf("at step %d: %v: another version of %s", st.Step, err, m.EnvID)}
		}
		if compact && !sameRewards(res.Rewards, st.Rewards) {
			return nil, &RequestError{Code: "not_replayable", Message: fmt.Sprintf("at step %d the rewards %v differ from the dataset's %v: it was written by another version of %s",
				st.Step, res.Rewards, st.Rewards, m.EnvID)}
		}
		ep.players = append(ep.players, st.Player)
		ep.actions = append(ep.actions, st.Action)
	}
	if !found {
		return nil, &RequestError{Code: "bad_dataset", Message: fmt.Sprintf("episode %d has no steps in %s", id, part.Steps.Path)}
	}
	if !e.Done() {
		return nil, &RequestError{Code: "not_replayable", Message: fmt.Sprintf("after the dataset's %d steps the episode is not over here: another version of %s", len(ep.actions), m.EnvID)}
	}
	return ep, nil
}

// Frame is one step of a replay as the page shows it.
type Frame struct {
	Dataset string   `json:"dataset"`
	Episode int64    `json:"episode"`
	Env     string   `json:"env"`
	Seats   []string `json:"seats"`
	Length  int      `json:"length"` // steps; positions are 0..Length
	Step    int      `json:"step"`
	View    *View    `json:"view"`
	// Player and Action are the move made at this step (absent at the end).
	Player *int    `json:"player,omitempty"`
	Action *Action `json:"action,omitempty"`
	// Legal are the legal actions at this step.
	Legal []Action `json:"legal"`
	// Rewards are the rewards of this step's move; Returns the sums of
	// the rewards of the steps before this position.
	Rewards []float64 `json:"rewards"`
	Returns []float64 `json:"returns"`
	Over    bool      `json:"over"`
	Result  *env.Info `json:"result,omitempty"` // at the last position
}

// Replay returns the frame of ep at position step (clamped to 0..T) seen
// from view (FaceUp, or a seat's view built from its observation).
func (ep *episode) Replay(name string, id int64, step, view int) (*Frame, error) {
	e, err := env.Make(ep.m.EnvID, ep.m.EnvParams)
	if err != nil {
		return nil, &RequestError{Code: "not_replayable", Message: err.Error()}
	}
	sp := e.Spec()
	if view < FaceUp || view >= sp.NumPlayers {
		return nil, &RequestError{Code: "bad_seat", Message: fmt.Sprintf("view %d does not exist (-1 face up, 0..%d)", view, sp.NumPlayers-1)}
	}
	step = max(0, min(step, len(ep.actions)))
	e.Reset(ep.seed)
	for _, a := range ep.actions[:step] {
		if _, err := e.Step(a); err != nil {
			return nil, &RequestError{Code: "not_replayable", Message: err.Error()}
		}
	}
	f := &Frame{Dataset: name, Episode: id, Env: sp.ID, Seats: seatsOf(ep.m), Length: len(ep.actions), Step: step,
		Returns: append([]float64(nil), e.Returns()...), Over: step == len(ep.actions)}
	if view == FaceUp {
		if f.View, err = FaceUpView(sp, e.Params(), e.State()); err != nil {
			return nil, &RequestError{Code: "no_view", Message: err.Error()}
		}
	} else if f.View, err = SeatView(sp, e.Params(), e.State(), view); err != nil {
		return nil, &RequestError{Code: "no_view", Message: err.Error()}
	}
	if !f.Over {
		f.Legal = legalActions(sp, e.State())
		p, a := ep.players[step], ep.actions[step]
		f.Player, f.Action = &p, &Action{A: a, Name: sp.ActionNames[a], Words: moveWords(sp, e.Params(), e.State(), p, a)}
		c := e.Clone()
		res, err := c.Step(a)
		if err == nil {
			f.Rewards = res.Rewards
		}
	} else {
		info := e.Info()
		f.Result = &info
	}
	return f, nil
}

func (h *Handler) replayFrame(name string, id int64, step, view int) (*Frame, error) {
	ep, err := h.loadEpisode(name, id)
	if err != nil {
		return nil, err
	}
	return ep.Replay(name, id, step, view)
}

// sameRewards reports whether a step's rewards are the ones a dataset
// stored (as 32-bit floats).
func sameRewards(got []float64, stored []float32) bool {
	if len(got) != len(stored) {
		return false
	}
	for i, r := range got {
		if float32(r) != stored[i] {
			return false
		}
	}
	return true
}
