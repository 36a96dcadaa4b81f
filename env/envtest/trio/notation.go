package trio

import (
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/galaxygym/galaxygym/env"
)

// The position notation is the complete state in one line of key=value
// fields, the generator included:
//
//	row=3,7,1,9,2 locked=2 scores=10,4,7 taken=5 rng=HEX
//
// row holds the five values (1-9); locked is the locked slot (0-4) or "-";
// scores has one value per player (2-4 players); taken counts the cards
// taken (it fixes the player to move: taken mod players); rng is the
// chance generator (PCG MarshalBinary, hex).

// perr returns an *env.PositionError: "trio: position: REASON".
func perr(format string, a ...any) error { return env.PositionErrorf("trio", format, a...) }

// Position returns the notation of s.
func (s *State) Position() string {
	var b strings.Builder
	b.WriteString("row=")
	for i, v := range s.row {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(int(v)))
	}
	b.WriteString(" locked=")
	if s.locked < 0 {
		b.WriteByte('-')
	} else {
		b.WriteString(strconv.Itoa(int(s.locked)))
	}
	b.WriteString(" scores=")
	for p := range s.players {
		if p > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(int(s.scores[p])))
	}
	rb, _ := s.rng.MarshalBinary() // a PCG always marshals
	fmt.Fprintf(&b, " taken=%d rng=%s", s.taken, hex.EncodeToString(rb))
	return b.String()
}

// ParsePosition reads the notation; errors are *env.PositionError
// ("trio: position: ...").
func ParsePosition(text string) (*State, error) {
	s := &State{locked: -1, rng: rand.NewPCG(0, 0)}
	seen := map[string]bool{}
	for _, f := range strings.Fields(text) {
		k, v, ok := strings.Cut(f, "=")
		if !ok || seen[k] {
			return nil, perr("field %q: want key=value, each key once", f)
		}
		seen[k] = true
		var err error
		switch k {
		case "row":
			err = parseList(v, Slots, Slots, 1, MaxValue, s.row[:])
		case "locked":
			if v != "-" {
				var n int
				n, err = parseInt(v, 0, Slots-1)
				s.locked = int8(n)
			}
		case "scores":
			parts := strings.Split(v, ",")
			s.players = len(parts)
			err = parseList(v, 2, MaxPlayers, 0, Takes*MaxValue, s.scores[:])
		case "taken":
			var n int
			n, err = parseInt(v, 0, Takes*MaxPlayers)
			s.taken = uint8(n)
		case "rng":
			var raw []byte
			if raw, err = hex.DecodeString(v); err == nil {
				err = s.rng.UnmarshalBinary(raw)
			}
		default:
			return nil, perr("unknown field %q", k)
		}
		if err != nil {
			return nil, perr("%s: %v", k, err)
		}
	}
	for _, k := range []string{"row", "locked", "scores", "taken", "rng"} {
		if !seen[k] {
			return nil, perr("missing field %s", k)
		}
	}
	if int(s.taken) > Takes*s.players {
		return nil, perr("taken=%d, more than %d players take", s.taken, s.players)
	}
	if (s.taken == 0) != (s.locked < 0) {
		return nil, perr("locked=%d with taken=%d: a slot is locked exactly after the first take", s.locked, s.taken)
	}
	return s, nil
}

// parseList reads between lo and hi comma-separated integers in [min, max]
// into dst.
func parseList(v string, lo, hi, min, max int, dst []uint8) error {
	parts := strings.Split(v, ",")
	if len(parts) < lo || len(parts) > hi {
		return fmt.Errorf("%d values, want %d to %d", len(parts), lo, hi)
	}
	for i, p := range parts {
		n, err := parseInt(p, min, max)
		if err != nil {
			return err
		}
		dst[i] = uint8(n)
	}
	return nil
}

func parseInt(v string, min, max int) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < min || n > max {
		return 0, fmt.Errorf("%q is not an integer in [%d, %d]", v, min, max)
	}
	return n, nil
}
