package play

import (
	"regexp"
	"strconv"
	"strings"
)

// Card is one card of a seat's own hand (or of its trains), for the page
// to draw as a card: its code in the game's notation, its name, its class
// (which colours it) and, where the game prints one, its value.
type Card struct {
	// Code is the card in the game's notation: Express "TK", Pilots "3.P1", "f4".
	Code string `json:"code"`
	// Name is the card as a player says it: "Tank Car", "planet 1 of sektor 3".
	Name string `json:"name"`
	// Class is the card's family: Express freight, passenger, wild, caboose,
	// disaster or way; Pilots planet, fuel, durriken, rekkoning or captain.
	Class string `json:"class"`
	// Value is the number printed on it (Express: a freight car's value;
	// Pilots: fuel and Durriken values, a planet card's sektor); 0 when none.
	Value int `json:"value,omitempty"`
}

// Train is one of the seat's own Express trains: its locomotive (face
// down to the others) and its cars in order.
type Train struct {
	N    int    `json:"n"`
	Loco Card   `json:"loco"`
	Cars []Card `json:"cars"`
}

// expressCodes are Express's card codes in kind order (the notation of
// its action names, docs/rules/express.md "Cards"), by family; the names
// are the game's own (expressKinds).
var expressCodes = []struct{ class, codes string }{
	{"freight", "BX TK CN RF AU"},
	{"passenger", "ML CO DM SL OB DS"},
	{"wild", "WD"},
	{"caboose", "CB"},
	{"disaster", "BR DR ST SW WR"},
	{"way", "LC BM OF TR HC TT"},
}

var expressClass = func() map[string]string {
	m := map[string]string{}
	for _, f := range expressCodes {
		for _, c := range strings.Fields(f.codes) {
			m[c] = f.class
		}
	}
	return m
}()

// expressFreightValue is what a freight car scores in a train, printed on
// the card: Box Car 1 .. Auto Carrier 5.
var expressFreightValue = map[string]int{"BX": 1, "TK": 2, "CN": 3, "RF": 4, "AU": 5}

// expressCard is the card of code c as Express writes it in a hand or a
// train: a kind code, or a Wild Car as a car (WD? open, WD> linked, WD=BX
// standing in as a Box Car).
func expressCard(c string) (Card, bool) {
	if strings.HasPrefix(c, "WD") && len(c) > 2 {
		wild := Card{Code: c, Name: "Wild Car", Class: "wild"}
		switch {
		case c == "WD?":
			wild.Name += " (open)"
		case c == "WD>":
			wild.Name += " (linked)"
		case strings.HasPrefix(c, "WD="):
			if n := expressKinds[c[3:]]; n != "" {
				wild.Name += " as " + n
			} else if c[3:] == "PS" {
				wild.Name += " as a passenger car"
			} else {
				wild.Name += " as " + c[3:]
			}
		}
		return wild, true
	}
	class, name := expressClass[c], expressKinds[c]
	if class == "" || name == "" {
		return Card{}, false
	}
	return Card{Code: c, Name: name, Class: class, Value: expressFreightValue[c]}, true
}

var (
	expressHandRE  = regexp.MustCompile(`^player \d+: score -?\d+, \d+ cards \[([A-Z,]*)\]`)
	expressTrainRE = regexp.MustCompile(`^\s+t(\d+) \[([A-Z?]{2})\] ?(.*)$`)
	pilotsHandRE   = regexp.MustCompile(`^your hand \(pilot \d+\): ?(.*)$`)
	pilotsPlanetRE = regexp.MustCompile(`^(\d+)\.P(\d+)$`)
)

// HandCards reads a seat's hand text (View.Hand: the lines only that seat
// sees) of environment id into cards: the hand, and for Express the seat's
// trains. It returns nils for a game whose hands it does not draw.
func HandCards(id, hand string) ([]Card, []Train) {
	switch {
	case strings.HasPrefix(id, "express-v"):
		return expressHand(hand)
	case strings.HasPrefix(id, "pilots-of-gallaxia-v"):
		return pilotsHand(hand), nil
	}
	return nil, nil
}

func expressHand(text string) ([]Card, []Train) {
	var cards []Card
	var trains []Train
	for _, l := range strings.Split(text, "\n") {
		if m := expressHandRE.FindStringSubmatch(l); m != nil {
			cards = []Card{}
			for _, c := range strings.Split(m[1], ",") {
				if card, ok := expressCard(c); ok {
					cards = append(cards, card)
				}
			}
			continue
		}
		if m := expressTrainRE.FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[1])
			tr := Train{N: n, Cars: []Card{}}
			if loco, ok := expressCard(m[2]); ok {
				tr.Loco = loco
			} else {
				tr.Loco = Card{Code: m[2], Name: "face down", Class: "back"}
			}
			for _, c := range strings.Split(strings.TrimSpace(m[3]), ",") {
				if card, ok := expressCard(c); ok {
					tr.Cars = append(tr.Cars, card)
				}
			}
			trains = append(trains, tr)
		}
	}
	return cards, trains
}

func pilotsHand(text string) []Card {
	for _, l := range strings.Split(text, "\n") {
		m := pilotsHandRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		cards := []Card{}
		for _, c := range strings.Fields(m[1]) {
			cards = append(cards, pilotsCard(c))
		}
		return cards
	}
	return nil
}

func pilotsCard(c string) Card {
	if m := pilotsPlanetRE.FindStringSubmatch(c); m != nil {
		s, _ := strconv.Atoi(m[1])
		return Card{Code: c, Name: "planet " + m[2] + " of sektor " + m[1], Class: "planet", Value: s}
	}
	if len(c) >= 2 && isDigits(c[1:]) {
		v, _ := strconv.Atoi(c[1:])
		switch c[0] {
		case 'f':
			return Card{Code: c, Name: "fuel " + c[1:], Class: "fuel", Value: v}
		case 'd':
			return Card{Code: c, Name: "Durriken " + c[1:], Class: "durriken", Value: v}
		}
	}
	if c == "R" {
		return Card{Code: c, Name: "the Rekkoning", Class: "rekkoning"}
	}
	return Card{Code: c, Name: strings.ToUpper(c[:1]) + c[1:], Class: "captain"}
}
