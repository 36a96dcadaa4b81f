package play

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/galaxygym/galaxygym/env/express"
)

// describers turn an action name of a game into the words a player of the
// game would use, by the id's family (the id without its version). A
// family without one reads its names with dashes as spaces and compass
// points spelled out. They work token by token, so a later version of a
// game keeps whatever tokens they do not know as they are.
var describers = map[string]func(tokens []string) []string{
	"express":            expressWords,
	"pilots-of-gallaxia": pilotsWords,
	"galaxy-express":     galaxyExpressWords,
}

var compass = map[string]string{"n": "north", "ne": "north-east", "e": "east", "se": "south-east",
	"s": "south", "sw": "south-west", "w": "west", "nw": "north-west"}

// Describe returns the words for action name of environment id.
func Describe(id, name string) string {
	family := id
	if i := strings.LastIndex(id, "-v"); i > 0 {
		family = id[:i]
	}
	tokens := strings.Split(name, "-")
	if d, ok := describers[family]; ok {
		tokens = d(tokens)
	}
	for i, t := range tokens {
		if c, ok := compass[t]; ok {
			tokens[i] = c
		}
	}
	return strings.Join(tokens, " ")
}

var expressKinds = func() map[string]string {
	m := map[string]string{}
	for i := range express.NumKinds {
		k := express.CardKind(i)
		m[k.Code] = k.Name
	}
	return m
}()

// expressWords: card codes by their names, tN as "train N".
func expressWords(tok []string) []string {
	if len(tok) == 3 && len(tok[1]) == 2 && tok[1][0] == 't' && expressKinds[tok[2]] != "" {
		switch tok[0] {
		case "add":
			return []string{"add", expressKinds[tok[2]], "to train", tok[1][1:]}
		case "swap":
			return []string{"swap", expressKinds[tok[2]], "into train", tok[1][1:]}
		}
	}
	if len(tok) == 3 && tok[0] == "wild" && len(tok[1]) == 2 && tok[1][0] == 't' {
		as := tok[2]
		if n := expressKinds[as]; n != "" {
			as = n
		}
		return []string{"Wild Car to train", tok[1][1:], "as", as}
	}
	out := make([]string, 0, len(tok)+2)
	for i, t := range tok {
		switch {
		case i == 0 && t == "take" && len(tok) == 2 && tok[1] == "discard":
			return []string{"take the top discard"}
		case i == 0 && t == "draw" && len(tok) == 1:
			return []string{"draw a card"}
		case i == 0 && t == "start":
			out = append(out, "start a train with")
		case i == 0 && t == "add":
			out = append(out, "add")
		case i == 0 && t == "way":
			out = append(out, "play Way Car")
		case len(t) == 2 && t[0] == 't' && t[1] >= '0' && t[1] <= '9':
			out = append(out, "to train "+t[1:])
		case expressKinds[t] != "":
			out = append(out, expressKinds[t])
		default:
			out = append(out, t)
		}
	}
	return out
}

var pilotsPlaces = map[string]string{"H": "hangar", "L": "lair", "T": "Teleprism", "V": "vortex"}

// pilotsWords: the acting pilot's frame in words: s0 your sektor, sN the
// Nth sektor clockwise; planets, hangars, lairs; fuel and Durriken cards.
func pilotsWords(tok []string) []string {
	out := make([]string, 0, len(tok)+2)
	for i, t := range tok {
		switch {
		case i == 0 && t == "to":
			out = append(out, "fly to")
		case i == 0 && t == "card":
			out = append(out, "play card")
		case i == 0 && t == "raid":
			out = append(out, "raid")
		case len(t) == 2 && t[0] == 's' && t[1] >= '0' && t[1] <= '9':
			if t == "s0" {
				out = append(out, "your sektor,")
			} else {
				out = append(out, "sektor +"+t[1:]+",")
			}
		case len(t) == 2 && t[0] == 'r' && t[1] >= '1' && t[1] <= '9':
			out = append(out, "the pilot +"+t[1:]+"'s")
		case pilotsPlaces[t] != "":
			out = append(out, pilotsPlaces[t])
		case len(t) >= 2 && t[0] == 'P' && isDigits(t[1:]):
			out = append(out, "planet "+t[1:])
		case len(t) >= 2 && t[0] == 'f' && isDigits(t[1:]):
			out = append(out, "fuel "+t[1:])
		case len(t) >= 2 && t[0] == 'd' && isDigits(t[1:]):
			out = append(out, "Durriken "+t[1:])
		case t == "ship" && i+1 < len(tok) && isDigits(tok[i+1]):
			out = append(out, "ship")
		default:
			out = append(out, t)
		}
	}
	return out
}

// galaxyExpressWords: thrust-0-north reads "thrust coin 0 north".
func galaxyExpressWords(tok []string) []string {
	if len(tok) == 3 && (tok[0] == "thrust" || tok[0] == "brake") && isDigits(tok[1]) {
		return []string{tok[0], "coin", tok[1], tok[2]}
	}
	return tok
}

func isDigits(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil && s != ""
}

var codeRE = regexp.MustCompile(`\b[A-Z]{2}\b`)

// Legend returns, for a text of environment id that writes cards by code
// (Express's hands), one line naming each code it uses in order of first
// appearance: "TK Tank Car · CN Container Car"; "" when none.
func Legend(id, text string) string {
	if !strings.HasPrefix(id, "express-v") {
		return ""
	}
	var parts []string
	seen := map[string]bool{}
	for _, c := range codeRE.FindAllString(text, -1) {
		if n := expressKinds[c]; n != "" && !seen[c] {
			seen[c] = true
			parts = append(parts, c+" "+n)
		}
	}
	return strings.Join(parts, " · ")
}
