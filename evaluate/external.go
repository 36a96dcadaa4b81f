package evaluate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"unicode"
)

// ExternalGame is one game played outside the league (a Python policy
// through the server, galaxygym.league) to merge into its fit and
// head-to-head matrix ([LeagueConfig.External]). One JSON object per line
// of a games file ([ReadExternalGames]):
//
//	{"seats": ["python", "heuristic"], "scores": [31, 24], "ranks": [1, 2], "deal": 0}
type ExternalGame struct {
	// Seats are the agent labels by seat (len = the game's players): a
	// pool label, or another label, which joins the league as a new agent.
	// A label is not empty and holds no control character (ESC and the
	// other C0 and C1 codes, DEL, line separators, bidirectional
	// overrides): reports print labels as they are.
	Seats []string `json:"seats"`
	// Scores are the seats' final scores (finite), Ranks their ranks (1 =
	// best, equal ranks a tie; 1..players): the fit uses the ranks, the
	// report's mean_score the scores. A seat wins when it alone ranks 1.
	Scores []float64 `json:"scores"`
	Ranks  []int32   `json:"ranks"`
	// Deal is the deal key, 0 <= Deal < LeagueConfig.Deals: the bootstrap
	// resamples this game together with the league's deal of that index.
	Deal int64 `json:"deal"`
	// Lineup, Rotation and Seed are optional and play no part in the fit:
	// a league's games record ([LeagueReport.WriteGames]) writes its
	// lineup (pool labels by position; seat k holds position
	// (k+Rotation) mod players), the rotation and the deal's environment
	// seed (rollout.EpisodeSeeds(run seed, Deal)); absent, they are empty
	// and 0.
	Lineup   []string `json:"lineup,omitempty"`
	Rotation int      `json:"rotation,omitempty"`
	Seed     uint64   `json:"seed,omitempty"`
	// Line is the game's line in its file (1-based; 0 when not read from a
	// file), for error messages.
	Line int `json:"-"`
}

// ExternalGameError reports an invalid external game: a malformed line of
// a games file, or a game that does not fit the league (seat count, ranks,
// scores, deal).
type ExternalGameError struct {
	Line   int // 1-based line in the games file (0: not from a file)
	Game   int // index of the game among the external games (-1 when unparsed)
	Reason string
}

func (e *ExternalGameError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("evaluate: games file line %d: %s", e.Line, e.Reason)
	}
	return fmt.Sprintf("evaluate: external game %d: %s", e.Game, e.Reason)
}

// ReadExternalGames reads a games file: JSON lines of [ExternalGame]
// (blank lines skipped). Unknown fields, missing fields, trailing data and
// non-numbers (NaN, Infinity) are errors (*[ExternalGameError]); the games'
// fit with the league is checked by [RunLeague]. An I/O error is returned
// as is.
func ReadExternalGames(r io.Reader) ([]ExternalGame, error) {
	var out []ExternalGame
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var raw map[string]json.RawMessage
		fail := func(reason string) error {
			return &ExternalGameError{Line: line, Game: -1, Reason: reason}
		}
		if err := json.Unmarshal(b, &raw); err != nil {
			if s := string(b); strings.Contains(s, "NaN") || strings.Contains(s, "Infinity") {
				return nil, fail("non-finite score (NaN and Infinity are not JSON numbers)")
			}
			return nil, fail("not a JSON object: " + err.Error())
		}
		for _, k := range []string{"seats", "scores", "ranks", "deal"} {
			if _, ok := raw[k]; !ok {
				return nil, fail(fmt.Sprintf("missing field %q", k))
			}
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		var g ExternalGame
		if err := dec.Decode(&g); err != nil {
			return nil, fail(err.Error())
		}
		g.Line = line
		out = append(out, g)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &ExternalGameError{Line: line + 1, Game: -1, Reason: "line longer than 16 MiB"}
		}
		return nil, err
	}
	return out, nil
}

// check validates game i against a league of n players and deals deals.
func (g *ExternalGame) check(i, n int, deals int64) error {
	fail := func(format string, a ...any) error {
		return &ExternalGameError{Line: g.Line, Game: i, Reason: fmt.Sprintf(format, a...)}
	}
	if len(g.Seats) != n {
		return fail("%d seats for a %d-player game", len(g.Seats), n)
	}
	if len(g.Scores) != n || len(g.Ranks) != n {
		return fail("%d scores and %d ranks for %d seats", len(g.Scores), len(g.Ranks), n)
	}
	for k := range n {
		if g.Seats[k] == "" {
			return fail("seat %d has an empty label", k)
		}
		if r, ok := unprintable(g.Seats[k]); ok {
			return fail("seat %d: label %q holds the control character %U; labels are printed as they are in every report format, so they may hold none", k, g.Seats[k], r)
		}
		if math.IsNaN(g.Scores[k]) || math.IsInf(g.Scores[k], 0) {
			return fail("seat %d: non-finite score %v", k, g.Scores[k])
		}
		if g.Ranks[k] < 1 || int(g.Ranks[k]) > n {
			return fail("seat %d: rank %d outside 1..%d", k, g.Ranks[k], n)
		}
	}
	if g.Deal < 0 || g.Deal >= deals {
		return fail("deal %d outside 0..%d (the league's deals)", g.Deal, deals-1)
	}
	return nil
}

// unprintable returns the first rune of label that would act on a
// terminal or a document rather than show (a control character: C0, DEL
// or C1, such as ESC; a line or paragraph separator; a bidirectional
// override or isolate), and whether there is one.
func unprintable(label string) (rune, bool) {
	for _, r := range label {
		switch {
		case unicode.IsControl(r), r == '\u2028', r == '\u2029',
			r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069':
			return r, true
		}
	}
	return 0, false
}
