package env

import (
	"fmt"
	"slices"
)

// Presenter is the optional interface of a [Game] that presents a position
// as one seat sees it: a [Scene] of named spaces, pieces and cards that a
// page draws as a board and that a person clicks to act. It is the only way
// a page learns about a game: the page knows no game, reads no render back
// and parses no notation.
//
// A presenter reads nothing but what it is given: the seat's observation
// (so nothing the seat cannot see can reach a scene) and the legal actions
// of that seat's decision (which the game's masks already keep free of
// hidden information). Two positions a seat cannot tell apart therefore get
// the same scene, byte for byte, as JSON. A game implements it on its Game
// value, usually in present.go beside render.go.
//
// The public part. A scene marks what only its observer sees: private
// zones ([Zone.Private]: the observer's hidden cards, face down to the
// others), private cards ([Card.Private]: the observer's own cards lying
// face down in a public zone, such as a locomotive), zones of the
// observer's alone ([Zone.ObserverOnly]: a place only the observer's moves
// use, or a hidden card whose very existence the others do not know), the
// board's turn for the observer ([Scene.Rotate]) and the moves.
// [PublicScene] strips them; what is left is the public part, and the
// contract is: the public parts of every seat's scenes of one position are
// the same, byte for byte, as JSON. A spectator is shown the public part of
// any seat's scene. So a scene names everything absolutely ("pilot 2's
// hand", "player 1 draws", never "your hand", "your turn" or "you"), shows
// another seat's private card as [FaceDown] of the same id, and gives
// cards ids by position or slot ("train-2-0-loco"), never by a hidden kind;
// the page personalises it (a zone whose Owner is the viewer's seat is the
// viewer's own). Move words and help, which only the seat to act sees, may
// say "you". The conformance suite (env/envtest) checks the contract at
// every step of a playout, and that the public part of a seat's scene
// tells twins apart no better than the seat's observation does.
type Presenter interface {
	// Present returns seat's scene from seat's observation obs (len
	// ObsSize) of an environment with params, and the legal actions legal
	// (indices in increasing order; nil when seat is not to act). The
	// scene has one [Move] per legal action, in legal's order. It returns
	// a *SceneError when obs is not an observation of the game.
	Present(params Params, seat int, obs []uint8, legal []int) (*Scene, error)
	// HowToPlay returns the rules as a person new to the game reads them:
	// a few short paragraphs in plain words (separated by blank lines),
	// every assumption of docs/rules/<game>.md that a player meets
	// included and marked as one. The page shows it in its rules panel.
	HowToPlay() string
}

// Scene is one seat's picture of a position as named things: a board of
// spaces with pieces on them, zones of cards, each seat's public facts, and
// the legal moves of the seat's decision, each naming the things it
// involves. Ids (of spaces, pieces, cards and zones) are stable for the
// whole episode and the same in every seat's scene, so that a page can
// animate a piece from one position to the next and draw every hand of a
// face-up view by taking each seat's own zones from that seat's scene.
//
// Seat numbers are absolute (the table's), never relative to the observer.
// Coordinates are in board units: the board is Width x Height units, x to
// the right, y down (an SVG viewBox), in a frame that is the same for every
// observer (Rotate turns it for one).
type Scene struct {
	// Width and Height are the board's size in board units; 0 for a game
	// without a board (cards only).
	Width  int `json:"width"`
	Height int `json:"height"`
	// Rotate is how far, in degrees clockwise (0, 90, 180 or 270), the page
	// turns the board about its centre for the observer (a game drawn
	// round a table puts the observer's side at the bottom); 0 in the
	// public part. Labels stay upright.
	Rotate int `json:"rotate,omitempty"`
	// Spaces are the board's spaces (cells, planets, track squares).
	Spaces []Space `json:"spaces"`
	// Pieces are the things standing on the board (ships, coins, tokens).
	Pieces []Piece `json:"pieces"`
	// Zones are rows of cards: hands, trains, piles, markets.
	Zones []Zone `json:"zones"`
	// Seats are the seats' public facts, Seats[s] for seat s.
	Seats []SeatFacts `json:"seats"`
	// Status is one line about the position: the phase, the round, what
	// is being decided ("" for none).
	Status string `json:"status,omitempty"`
	// Ended says how the game ended, in words, once it is over ("the
	// Rekkoning was drawn: pilot 2 is furthest"); "" while it goes on.
	Ended string `json:"ended,omitempty"`
	// Moves are the legal moves of seat's decision, one per legal action
	// given to Present, in that order.
	Moves []Move `json:"moves"`
}

// Space is one space of a board: a rectangle (or the disc or hexagon
// inside it) at X, Y (its top-left corner) of W x H board units.
type Space struct {
	ID    string `json:"id"`
	X     int    `json:"x"`
	Y     int    `json:"y"`
	W     int    `json:"w"`
	H     int    `json:"h"`
	Shape string `json:"shape"` // "rect", "disc" or "hex"
	// Label is drawn inside the space ("" for none); Title is the words a
	// tooltip shows ("sektor 3, planet 2: Teleprism").
	Label string `json:"label,omitempty"`
	Title string `json:"title,omitempty"`
	// Color is the fill as a CSS colour ("#1d3557"); "" for the page's.
	Color string `json:"color,omitempty"`
	// Owner is the seat the space belongs to (a home, a hangar), -1 for none.
	Owner int `json:"owner"`
}

// Piece is one thing on the board: on space At (several pieces on one space
// are drawn side by side, in scene order), or at X, Y when At is "".
type Piece struct {
	ID    string `json:"id"`
	At    string `json:"at,omitempty"`
	X     int    `json:"x,omitempty"`
	Y     int    `json:"y,omitempty"`
	Shape string `json:"shape"` // "disc", "square", "triangle" or "diamond"
	// Rotate turns the piece clockwise, in degrees (a ship's heading).
	Rotate int    `json:"rotate,omitempty"`
	Label  string `json:"label,omitempty"`
	Title  string `json:"title,omitempty"`
	Color  string `json:"color,omitempty"` // "" for the owner's seat colour
	// Owner is the seat the piece belongs to, -1 for none.
	Owner int `json:"owner"`
}

// Zone is a row of cards: a seat's hand or trains, a pile, a market.
type Zone struct {
	ID string `json:"id"`
	// Name names the zone absolutely ("player 2's hand", "discard pile"),
	// the same in every seat's scene.
	Name string `json:"name"`
	// Owner is the seat the zone belongs to, -1 for the table's.
	Owner int `json:"owner"`
	// Private marks the owner's hidden cards: the zone is face up in the
	// owner's scene only; the other seats' scenes have its face-down form
	// (same ID, Name and Owner, no Cards, Count the number of cards), which
	// is what [PublicScene] makes of it.
	Private bool `json:"private,omitempty"`
	// ObserverOnly marks a zone of the observer's alone (Owner the
	// observer), in no other seat's scene: a place only the observer's
	// moves use (an empty new train), or hidden cards whose very existence
	// the others cannot know (a raid card chosen in secret). [PublicScene]
	// leaves it out.
	ObserverOnly bool `json:"observer_only,omitempty"`
	// Cards are the cards seen, in order; Count the number of cards when
	// they are not all shown (a face-down hand, a draw pile), else 0.
	Cards []Card `json:"cards"`
	Count int    `json:"count,omitempty"`
}

// Card is one card shown face up (or face down: [FaceDown], Code and Name
// "").
type Card struct {
	// ID is stable while the card exists in the episode; two copies of a
	// kind have different ids. An id never names a kind the other seats
	// cannot see: a card face down to anyone has an id by its place.
	ID    string `json:"id"`
	Code  string `json:"code"`  // the card in the game's notation ("TK", "3.P1")
	Name  string `json:"name"`  // as a player says it ("Tank Car")
	Class string `json:"class"` // its family, for the page's legend ("freight")
	Value int    `json:"value,omitempty"`
	Color string `json:"color,omitempty"` // CSS colour of its family; "" for the page's
	// Private marks a card of a public zone shown face up to the observer
	// only (the observer's own locomotive): the other seats' scenes show
	// FaceDown(ID) in its place, which is what [PublicScene] makes of it.
	Private bool `json:"private,omitempty"`
}

// FaceDownClass is the Class of a face-down card ([FaceDown]).
const FaceDownClass = "back"

// FaceDown returns the face-down card with id: only the id and the class
// "back", nothing of what the card is. A scene shows a card hidden from its
// observer so, and [PublicScene] turns a private card into it.
func FaceDown(id string) Card { return Card{ID: id, Class: FaceDownClass} }

// SeatFacts are one seat's public facts.
type SeatFacts struct {
	// Name is the seat as the game calls it ("pilot 2", "Novaport").
	Name string `json:"name"`
	// Score is the seat's score so far in the game's words ("38 points");
	// "" for a game without a running score.
	Score string `json:"score,omitempty"`
	// Facts are short public facts ("fuel 3", "5 cards in hand").
	Facts []string `json:"facts,omitempty"`
}

// Move is one legal action as the things it involves: click one of Select
// (a piece or card), then one of Target (a space, piece, card or zone), to
// play it. A move without Select is played by clicking a Target; one with
// neither is a button ("pass", "draw a card").
type Move struct {
	A     int    `json:"a"`     // the action index
	Name  string `json:"name"`  // Spec.ActionNames[A]
	Words string `json:"words"` // the name as a player says it ("add Tank Car to train 2")
	// Help says what the move does and why one might play it, for a
	// tooltip ("a freight car scores its value at the end of the round").
	Help   string   `json:"help,omitempty"`
	Select []string `json:"select,omitempty"`
	Target []string `json:"target,omitempty"`
}

// SceneError reports an observation a presenter cannot read, or (from
// [CheckScene]) a scene that breaks the rules of [Scene].
type SceneError struct {
	EnvID  string
	Reason string
}

func (e *SceneError) Error() string { return fmt.Sprintf("env: scene of %s: %s", e.EnvID, e.Reason) }

// PublicScene returns the public part of sc (see [Presenter]), a new scene
// sharing nothing with sc that it changes: private zones become their
// face-down form (same ID, Name and Owner, no cards, Count the number of
// cards), private cards become [FaceDown] of the same id, zones of the
// observer's alone are left out, Rotate is 0 and there are no moves. Nil
// slices of sc come out empty, so that the JSON of the public part does
// not depend on how a presenter built its lists. PublicScene(nil) is nil.
func PublicScene(sc *Scene) *Scene {
	if sc == nil {
		return nil
	}
	p := *sc
	p.Rotate = 0
	p.Moves = []Move{}
	p.Spaces = slices.Clone(sc.Spaces)
	if p.Spaces == nil {
		p.Spaces = []Space{}
	}
	p.Pieces = slices.Clone(sc.Pieces)
	if p.Pieces == nil {
		p.Pieces = []Piece{}
	}
	p.Seats = make([]SeatFacts, len(sc.Seats))
	for i, f := range sc.Seats {
		f.Facts = slices.Clone(f.Facts)
		p.Seats[i] = f
	}
	p.Zones = make([]Zone, 0, len(sc.Zones))
	for _, z := range sc.Zones {
		switch {
		case z.ObserverOnly:
			continue
		case z.Private:
			z = Zone{ID: z.ID, Name: z.Name, Owner: z.Owner, Cards: []Card{}, Count: max(z.Count, len(z.Cards))}
		default:
			cards := make([]Card, len(z.Cards))
			for i, c := range z.Cards {
				if c.Private {
					c = FaceDown(c.ID)
				}
				cards[i] = c
			}
			z.Cards = cards
		}
		p.Zones = append(p.Zones, z)
	}
	return &p
}

// Ids returns every id the scene defines (spaces, pieces, zones and cards).
func (s *Scene) Ids() map[string]bool {
	ids := make(map[string]bool, len(s.Spaces)+len(s.Pieces)+len(s.Zones)*4)
	for _, sp := range s.Spaces {
		ids[sp.ID] = true
	}
	for _, p := range s.Pieces {
		ids[p.ID] = true
	}
	for _, z := range s.Zones {
		ids[z.ID] = true
		for _, c := range z.Cards {
			ids[c.ID] = true
		}
	}
	return ids
}

// CheckScene returns a *SceneError unless scene is a well-formed scene of
// the environment with spec for seat with legal actions legal: ids
// non-empty and unique; every piece's At a space; every Select and Target
// an id of the scene; one move per legal action in legal's order, named as
// the spec names it and with words; owners seats of the environment or
// -1; private zones, zones of the observer's alone and private cards only
// the observer's (in zones it owns); Rotate a quarter turn; one SeatFacts
// per seat; spaces and pieces inside the board.
func CheckScene(spec *Spec, seat int, legal []int, scene *Scene) error {
	bad := func(format string, args ...any) error {
		return &SceneError{EnvID: spec.ID, Reason: fmt.Sprintf(format, args...)}
	}
	n := spec.NumPlayers
	owner := func(o int) bool { return o >= -1 && o < n }
	ids := map[string]bool{}
	add := func(kind, id string) error {
		if id == "" {
			return bad("a %s without an id", kind)
		}
		if ids[id] {
			return bad("id %q used twice", id)
		}
		ids[id] = true
		return nil
	}
	spaces := map[string]bool{}
	for _, sp := range scene.Spaces {
		if err := add("space", sp.ID); err != nil {
			return err
		}
		spaces[sp.ID] = true
		if !slices.Contains([]string{"rect", "disc", "hex"}, sp.Shape) {
			return bad("space %q has shape %q", sp.ID, sp.Shape)
		}
		if sp.W <= 0 || sp.H <= 0 || sp.X < 0 || sp.Y < 0 || sp.X+sp.W > scene.Width || sp.Y+sp.H > scene.Height {
			return bad("space %q (%d,%d %dx%d) is not inside the %dx%d board", sp.ID, sp.X, sp.Y, sp.W, sp.H, scene.Width, scene.Height)
		}
		if !owner(sp.Owner) {
			return bad("space %q has owner %d", sp.ID, sp.Owner)
		}
	}
	for _, p := range scene.Pieces {
		if err := add("piece", p.ID); err != nil {
			return err
		}
		if !slices.Contains([]string{"disc", "square", "triangle", "diamond"}, p.Shape) {
			return bad("piece %q has shape %q", p.ID, p.Shape)
		}
		if p.At != "" && !spaces[p.At] {
			return bad("piece %q stands on %q, which is no space", p.ID, p.At)
		}
		if p.At == "" && (p.X < 0 || p.Y < 0 || p.X > scene.Width || p.Y > scene.Height) {
			return bad("piece %q at (%d,%d) is off the %dx%d board", p.ID, p.X, p.Y, scene.Width, scene.Height)
		}
		if !owner(p.Owner) {
			return bad("piece %q has owner %d", p.ID, p.Owner)
		}
	}
	for _, z := range scene.Zones {
		if err := add("zone", z.ID); err != nil {
			return err
		}
		if !owner(z.Owner) {
			return bad("zone %q has owner %d", z.ID, z.Owner)
		}
		if z.Private && z.Owner != seat {
			return bad("zone %q is private to seat %d but is in seat %d's scene", z.ID, z.Owner, seat)
		}
		if z.ObserverOnly && z.Owner != seat {
			return bad("zone %q is seat %d's alone but is in seat %d's scene", z.ID, z.Owner, seat)
		}
		if z.Count < 0 {
			return bad("zone %q counts %d cards", z.ID, z.Count)
		}
		for _, c := range z.Cards {
			if err := add("card", c.ID); err != nil {
				return err
			}
			if c.Private && z.Owner != seat {
				return bad("card %q is private to seat %d's eyes but lies in zone %q of owner %d", c.ID, seat, z.ID, z.Owner)
			}
		}
	}
	if scene.Rotate%90 != 0 || scene.Rotate < 0 || scene.Rotate >= 360 {
		return bad("the board turns %d degrees, not a quarter turn", scene.Rotate)
	}
	if len(scene.Seats) != n {
		return bad("%d seats' facts, the environment has %d seats", len(scene.Seats), n)
	}
	if len(scene.Moves) != len(legal) {
		return bad("%d moves for %d legal actions", len(scene.Moves), len(legal))
	}
	for i, m := range scene.Moves {
		if m.A != legal[i] {
			return bad("move %d is action %d, legal action %d is %d", i, m.A, i, legal[i])
		}
		if m.A < 0 || m.A >= spec.NumActions() || m.Name != spec.ActionNames[m.A] {
			return bad("move %d (action %d) is named %q", i, m.A, m.Name)
		}
		if m.Words == "" {
			return bad("move %q has no words", m.Name)
		}
		for _, id := range append(slices.Clone(m.Select), m.Target...) {
			if !ids[id] {
				return bad("move %q involves %q, which the scene does not show", m.Name, id)
			}
		}
	}
	return nil
}

// PublicMover is the optional interface of a [Game] that says which part of
// a move is public: the words every seat may read about a seat's move,
// which a move log shows the other seats and spectators (the mover itself
// reads its own move words, [Move.Words]).
//
// The contract: two legal actions of one decision that the other seats
// cannot tell apart (every other seat's observation after the move is the
// same, byte for byte, whichever of the two is played) get the same words,
// so that the words tell the others nothing their observations do not.
// A hidden part is worded generically ("player 1 starts a new train
// (locomotive face down)"). The words name seats absolutely ("player 2",
// never "you") and are never empty. A game whose every move is public may
// return the mover's words with the seat named. The conformance suite
// (env/envtest) checks the contract on sampled decisions of a playout.
type PublicMover interface {
	// PublicWords returns the words every seat may read about seat
	// mover's move action (an action index legal for mover) in an
	// environment with params.
	PublicWords(params Params, mover, action int) string
}
