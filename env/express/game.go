package express

import (
	"fmt"
	"slices"
	"strings"

	"github.com/galaxygym/galaxygym/env"
)

// ID is the registered id of the first release, express-v1, kept
// registered and unchanged so that published numbers reproduce. IDv2 is
// the current version, express-v2: the attacked player is asked to block
// whenever the public table leaves it possible that he holds the Way Car
// (A29), a Wild in a passenger section counts as the passenger car that
// scores best (parameter passenger_wilds, A30), and Env.ActionName names
// the targeted player by absolute seat (A31); see the version history in
// doc.go.
const (
	ID   = "express-v1"
	IDv2 = "express-v2"
)

// IsID reports whether id is one of the Express ids (any version).
func IsID(id string) bool { return id == ID || id == IDv2 }

// Defaults of the parameters.
const (
	DefaultPlayers  = 4
	DefaultTarget   = 120
	DefaultMaxTurns = 3000
	DefaultMaxHands = 12
	maxReshuffles   = 10
	// maxTurnSteps bounds the steps of one turn: the draw, at most two
	// steps per card placed (a hand holds at most 14 cards after the draw,
	// and a stuck redraw replaces them), a swap, a stuck decision per
	// replacement, the end and the block decision.
	maxTurnSteps = 40
)

// MaxEpisodeSteps bounds an episode under the default parameters.
const MaxEpisodeSteps = maxTurnSteps * DefaultMaxTurns

// Game is the Express rules. The zero value is express-v1 (ID); V2 is
// express-v2 (IDv2). Both are registered.
type Game struct{ v2 bool }

// V2 returns the express-v2 game.
func V2() Game { return Game{v2: true} }

func init() {
	env.Register(Game{})
	env.Register(V2())
}

var (
	spec   = buildSpec()
	specV2 = buildSpecV2()
)

// actionNames lists the action names, index = action; each Spec holds its
// own copy and [ActionNames] returns another, so that no importer changes
// them.
var actionNames = func() []string {
	n := make([]string, NumActions)
	n[ActDraw] = "draw"
	n[ActTake] = "take-discard"
	for k := 0; k < NumKinds; k++ {
		n[ActStart+k] = "start-" + kinds[k].Code
		n[ActDiscard+k] = "discard-" + kinds[k].Code
	}
	for t := 0; t < MaxTrains; t++ {
		for c := 0; c < addKinds; c++ {
			n[ActAdd+t*addKinds+c] = fmt.Sprintf("add-t%d-%s", t, kinds[addKind(c)].Code)
		}
		for w := 0; w < numTypes; w++ {
			n[ActWild+t*wildRoles+w] = fmt.Sprintf("wild-t%d-%s", t, typeCodes[w])
		}
		n[ActWild+t*wildRoles+wildOpen] = fmt.Sprintf("wild-t%d-undeclared", t)
		for k := 0; k < NumKinds; k++ {
			n[ActSwap+t*NumKinds+k] = fmt.Sprintf("swap-t%d-%s", t, kinds[k].Code)
		}
	}
	for w := 0; w < numWayKinds; w++ {
		n[ActWay+w] = "way-" + kinds[LightCrane+w].Code
	}
	hitNames := [3]string{"broken", "steal", "wreck"}
	for h := range hitNames {
		for r := 0; r < MaxPlayers; r++ {
			for t := 0; t < MaxTrains; t++ {
				n[ActHit+h*36+r*6+t] = fmt.Sprintf("%s-p%d-t%d", hitNames[h], r, t)
			}
		}
	}
	for r := 0; r < MaxPlayers; r++ {
		n[ActDerail+r] = fmt.Sprintf("derail-p%d", r)
		for t := 0; t < MaxTrains; t++ {
			for u := 0; u < MaxTrains; u++ {
				n[ActSwitch+r*36+t*6+u] = fmt.Sprintf("switch-p%d-t%d-own%d", r, t, u)
			}
		}
	}
	n[ActTurntable] = "turntable"
	n[ActEndMeld] = "end-meld"
	n[ActBlock] = "block"
	n[ActLet] = "let-it-happen"
	n[ActStuck] = "stuck"
	return n
}()

// ActionNames returns a new slice of the action names, index = action
// (len NumActions): the names Spec().ActionNames also holds.
func ActionNames() []string { return slices.Clone(actionNames) }

func buildSpec() *env.Spec {
	return &env.Spec{
		ID:                ID,
		Name:              "Express",
		NumPlayers:        DefaultPlayers,
		MinPlayers:        2,
		MaxPlayers:        MaxPlayers,
		ActionNames:       ActionNames(),
		ObsShape:          []int{ObsSize},
		ObsDType:          "uint8",
		ObservationLayout: layout.Clone(),
		ObsHigh:           obsHigh(),
		MaxEpisodeSteps:   MaxEpisodeSteps,
		RewardRange:       [2]float64{-maxHandSwing, maxHandSwing},
		ReturnRange:       [2]float64{-maxHandPenalty * DefaultMaxHands, DefaultTarget - 1 + maxHandPlain},
		Params: []env.ParamSpec{
			{Name: "target", Kind: env.Int, Default: DefaultTarget, Min: 1, Max: 10000,
				Doc: "the game ends after the hand in which a player's total reaches this score (120 tournament, 100 Mayfair)"},
			{Name: "opening_hand", Kind: env.Int, Default: 0, Min: 0, Max: 12,
				Doc: "cards dealt to each player at the start of a hand; 0: 12 with 2-4 players, 8 with 5-6 (the sources say 12 and 8)"},
			{Name: "max_hands", Kind: env.Int, Default: DefaultMaxHands, Min: 1, Max: 100,
				Doc: "the game ends after this many hands (the tournament's time slot)"},
			{Name: "reshuffles", Kind: env.Int, Default: 1, Min: 0, Max: maxReshuffles,
				Doc: "times the draw pile may be rebuilt from the discards in a hand; the hand ends, scored as is, when a card must be drawn and none can be"},
			{Name: "freight_scoring", Kind: env.String, Default: "plain", Choices: []string{"plain", "progressive"},
				Doc: "plain: every freight car scores its value; progressive: the n-th car of a section scores value*max(1, n-2)"},
			{Name: "hand_only", Kind: env.Bool, Default: false,
				Doc: "an episode is one hand"},
			{Name: "zero_sum", Kind: env.Bool, Default: false,
				Doc: "pay each player's hand score minus the mean of the others' (returns sum to zero)"},
			{Name: env.MaxTurnsParam, Kind: env.Int, Default: DefaultMaxTurns, Min: 1, Max: 100000,
				Doc: "truncate the episode after this many turns (the hand in progress is scored as is)"},
		},
		Description: "Express (Darwin Bromley, Mayfair 1990; SJ Games/TGA 2024), the railroad card game, tournament rules, " +
			"2-6 players: build trains of cars behind face-down locomotives, attack other trains with Disasters, protect " +
			"yours with Way Cars, reverse play with Turntables, go out with long trains; first to the target score wins.",
	}
}

// Bounds of one hand's score change to a player. A hand ends with at most
// 14 cards in a hand (an opening hand and a draw, or a stuck redraw), each
// costing at most 5: maxHandPenalty. With plain scoring a hand scores at
// most every freight car at its value (140), every passenger car, Wild and
// Caboose in one passenger section with all four doublings (21 x 16), the
// ten Way Cars (20) and the bonus (10): maxHandPlain. maxHandSwing also
// covers the progressive reading (each freight type with the five Wilds
// and Cabooses, 16 cars at most: 1,146, plus the rest) and zero-sum
// payments (one's change minus the mean of the others').
const (
	maxHandPenalty = 14 * 5
	maxHandPlain   = 140 + 21*16 + 20 + 10
	maxHandSwing   = 1600
)

// Spec returns the environment description (4 players; env.New gives an
// Env the spec of its `players` parameter).
func (g Game) Spec() *env.Spec {
	if g.v2 {
		return specV2
	}
	return spec
}

// ID returns the game's registered id (ID or IDv2).
func (g Game) ID() string {
	if g.v2 {
		return IDv2
	}
	return ID
}

// buildSpecV2 is express-v2's spec: v1's with the passenger_wilds
// parameter.
func buildSpecV2() *env.Spec {
	s := buildSpec()
	s.ID = IDv2
	s.Params = append(s.Params[:len(s.Params):len(s.Params)], env.ParamSpec{
		Name: "passenger_wilds", Kind: env.String, Default: "specific", Choices: []string{"specific", "generic"},
		Doc: "specific: a Wild in a passenger section scores as the passenger car (Mail/Baggage, Coach, Dome, Sleeper, " +
			"Observation or Diesel) that scores best (A30); generic: as a passenger car that counts for no doubling (express-v1)"})
	s.Description += " v2: the block decision is asked whenever the attacked player might hold the Way Car, " +
		"Wilds stand for a specific passenger car, action names name absolute seats."
	return s
}

// Config is a resolved parameter set, for ParsePosition.
type Config struct{ c *config }

// NewConfig resolves express-v1's parameters; p must be resolved by
// Spec().Resolve (every parameter present).
func NewConfig(p env.Params) *Config {
	c := configOf(p, false)
	return &Config{&c}
}

// NewConfigV2 resolves express-v2's parameters; p must be resolved by
// V2().Spec().Resolve (every parameter present, passenger_wilds included).
func NewConfigV2(p env.Params) *Config {
	c := configOf(p, true)
	return &Config{&c}
}

// config returns g's resolved parameters.
func (g Game) config(p env.Params) *Config {
	if g.v2 {
		return NewConfigV2(p)
	}
	return NewConfig(p)
}

// configOf resolves the parameters into a config value (v2: express-v2's).
func configOf(p env.Params, v2 bool) config {
	return config{
		v2:          v2,
		wildAny:     v2 && p.Str("passenger_wilds") == "specific",
		players:     p.Int(env.PlayersParam),
		target:      p.Int("target"),
		openingHand: OpeningHand(p.Int(env.PlayersParam), p.Int("opening_hand")),
		maxHands:    p.Int("max_hands"),
		reshuffles:  p.Int("reshuffles"),
		progressive: p.Str("freight_scoring") == "progressive",
		handOnly:    p.Bool("hand_only"),
		zeroSum:     p.Bool("zero_sum"),
	}
}

// OpeningHand returns the cards dealt to each player: param when it is not
// 0, else 12 with 2-4 players and 8 with 5-6 (A8: with 12 cards each, six
// players leave a draw pile of 21 and nine hands in ten end with the pile
// exhausted instead of a player going out).
func OpeningHand(players, param int) int {
	switch {
	case param > 0:
		return param
	case players >= 5:
		return 8
	}
	return 12
}

// DefaultConfig returns express-v1's default parameters for players (2-6).
func DefaultConfig(players int) *Config {
	p, err := spec.Resolve(map[string]any{env.PlayersParam: players})
	if err != nil {
		panic(err)
	}
	return NewConfig(p)
}

// DefaultConfigV2 returns express-v2's default parameters for players
// (2-6).
func DefaultConfigV2(players int) *Config {
	p, err := specV2.Resolve(map[string]any{env.PlayersParam: players})
	if err != nil {
		panic(err)
	}
	return NewConfigV2(p)
}

// NewState deals a new game from seed.
func (g Game) NewState(p env.Params, seed uint64) env.State {
	return newState(g.config(p).c, seed)
}

// LoadState reads a state written by MarshalJSON; errors are
// *env.StateError (env.UnmarshalPosition).
func (g Game) LoadState(p env.Params, data []byte) (env.State, error) {
	c := g.config(p)
	return env.UnmarshalPosition(g.ID(), data, func(text string) (*State, error) { return ParsePosition(text, c) })
}

// StringFor renders the table as player sees it: String plus that
// player's hand and locomotives.
func (s *State) StringFor(player int) string { return s.render(player) }

func (s *State) render(viewer int) string {
	var b strings.Builder
	dir := "clockwise"
	if s.dir < 0 {
		dir = "counterclockwise"
	}
	fmt.Fprintf(&b, "Express, hand %d, round %d, %s, %s", s.hand+1, s.hturns/s.n+1, phaseNames[s.phase], dir)
	if s.phase != PhaseOver {
		fmt.Fprintf(&b, ", player %d to act", s.CurrentPlayer())
	}
	fmt.Fprintf(&b, "\ndraw pile %d, discard pile %d", s.deckN, s.discN)
	if s.discN > 0 {
		fmt.Fprintf(&b, " (top %s)", kinds[s.disc[s.discN-1]].Code)
	}
	if s.top >= 0 {
		fmt.Fprintf(&b, ", disaster slot %s", kinds[s.top].Code)
	}
	if s.asN > 0 {
		fmt.Fprintf(&b, ", set aside %s", countsText(&s.aside))
	}
	if s.pend.kind >= 0 {
		fmt.Fprintf(&b, "\n%s by player %d on player %d%s: block?", kinds[BrokenCar+int(s.pend.kind)].Name, s.pend.by, s.pend.on, s.pendTarget())
	}
	b.WriteByte('\n')
	for i := 0; i < s.n; i++ {
		p := &s.pl[i]
		fmt.Fprintf(&b, "player %d: score %d, %d cards", i, p.score, p.handN)
		if i == viewer {
			fmt.Fprintf(&b, " [%s]", countsText(&p.hand))
		} else if k := countsText(&p.known); k != "" {
			fmt.Fprintf(&b, " (known %s)", k)
		}
		for w := 0; w < numWayKinds; w++ {
			for c := 0; c < int(p.way[w]); c++ {
				b.WriteString(" " + kinds[LightCrane+w].Code)
				if p.perm&(1<<w) != 0 {
					b.WriteByte('!')
				}
			}
		}
		if p.derail > 0 {
			fmt.Fprintf(&b, ", derailed %d", p.derail)
		}
		b.WriteByte('\n')
		for t := range p.trains {
			tr := &p.trains[t]
			if tr.loco < 0 {
				continue
			}
			loco := "??"
			if i == viewer {
				loco = kinds[tr.loco].Code
			}
			fmt.Fprintf(&b, "  t%d [%s] %s\n", t, loco, carsText(tr))
		}
	}
	return b.String()
}
