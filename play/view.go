package play

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"strings"

	"github.com/galaxygym/galaxygym/env"
)

// viewSeed is the fixed seed of the determinization that a seat's view is
// drawn from: the view depends on the seat's observation alone.
const viewSeed = 0x5eed_0f_7ab1e

// FaceUp is the seat number of the view that shows every card face up.
const FaceUp = -1

// View is what a page shows of one position: the picture, the text board,
// whose turn it is and, for the seat to act, the legal actions by name.
//
// A seat's view ([SeatView]) is built from that seat's observation only:
// the position is rebuilt from the observation with the game's
// [env.Determinizer] (a fixed seed), the picture is the game's public
// render of the rebuilt position, the text is its public text plus the
// seat's own hand, and the actions are those of the rebuilt position, which
// the determinizer guarantees are the true position's. Two positions that
// differ only in what the seat cannot see therefore give the same bytes.
type View struct {
	Env     string `json:"env"`
	Seat    int    `json:"seat"` // the seat whose view this is; FaceUp (-1) for every card face up, Public (-2) for the public view
	Players int    `json:"players"`
	Turn    int    `json:"turn"`    // turns completed (State.Turn)
	ToMove  int    `json:"to_move"` // the player to act; -1 once the game is over
	Over    bool   `json:"over"`    // the position is terminal by the rules
	// Image is the picture as a data: URL (PNG), Width x Height pixels.
	Image  string `json:"image"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	// Text is the text board: public information, then the seat's own
	// hidden cards (every seat's, face up).
	Text string `json:"text"`
	// Hand is the seat's own hidden cards, the lines of Text that only
	// that seat sees ("" in a face-up view, or for a game without them).
	Hand string `json:"hand,omitempty"`
	// Scene is the position as the game presents it ([env.Presenter]) to
	// the view's seat: the board the page draws and clicks. A face-up view
	// draws every seat's hand in it; the public view has the public part
	// of the scene (env.PublicScene), with every hand face down; nil for a
	// game that does not present itself (the page shows Image and Text).
	Scene *env.Scene `json:"scene,omitempty"`
	// Actions are the legal actions of the decision when the view's seat
	// is to act (every legal action in a face-up view), in action order.
	Actions []Action `json:"actions"`
}

// Action is one legal action: its index in the action space and its name
// (Spec.ActionNames) and its words. P, V and N are an agent's thoughts
// about it, when shown: a policy's probability, a value (a heuristic's
// action value, an mcts's mean return), and an mcts's simulations.
type Action struct {
	A    int    `json:"a"`
	Name string `json:"name"`
	// Words is the name as a player of the game would say it (the
	// scene's Move.Words where the game presents itself, else Describe);
	// Help is what the move does, for a tooltip ("" for none).
	Words string   `json:"words"`
	Help  string   `json:"help,omitempty"`
	P     *float64 `json:"p,omitempty"`
	V     *float64 `json:"v,omitempty"`
	N     *int     `json:"n,omitempty"`
}

// handTexter is implemented by the games whose states can print one
// player's own hidden cards (the hand) besides the public position.
type handTexter interface {
	StringFor(player int) string
}

// SeatView returns seat's view of the position st of the environment with
// spec and params: it reads nothing of st but seat's observation (see
// [View]). It returns a *ViewError when the game has no determinizer.
//
// Once the game is over every card is open and a seat's view is the
// face-up view (with Seat seat): a determinizer may refuse a finished
// game's observation, and the final position must still appear.
func SeatView(spec *env.Spec, params env.Params, st env.State, seat int) (*View, error) {
	if st.Terminal() {
		v, err := FaceUpView(spec, params, st)
		if v != nil {
			v.Seat = seat
		}
		return v, err
	}
	obs := make([]uint8, spec.ObsSize())
	st.Observe(seat, obs)
	return seatViewFromObs(spec, params, seat, obs)
}

// seatViewFromObs is SeatView from the seat's observation.
func seatViewFromObs(spec *env.Spec, params env.Params, seat int, obs []uint8) (*View, error) {
	d, err := determinize(spec, params, seat, obs)
	if err != nil {
		return nil, err
	}
	v := &View{Env: spec.ID, Seat: seat, Players: spec.NumPlayers, Turn: d.Turn(), ToMove: d.CurrentPlayer(), Over: d.Terminal()}
	if v.Over {
		v.ToMove = env.Terminal
	}
	v.Image, v.Width, v.Height = picture(d)
	if h, ok := d.(handTexter); ok {
		v.Text = h.StringFor(seat)
		v.Hand = strings.TrimSpace(extraLines(d.String(), v.Text))
	} else {
		v.Text = d.String()
	}
	if v.ToMove == seat {
		v.Actions = legalActions(spec, d)
	}
	if v.Scene, err = present(spec, params, seat, obs, v.Actions); err != nil {
		return nil, err
	}
	return v, nil
}

// present returns the game's scene for seat from its observation obs and
// its legal actions acts (whose Words and Help it sets from the scene's
// moves); nil, nil for a game that does not present itself.
func present(spec *env.Spec, params env.Params, seat int, obs []uint8, acts []Action) (*env.Scene, error) {
	p, ok := presenterFor(spec.ID)
	if !ok {
		return nil, nil
	}
	var legal []int
	if len(acts) > 0 {
		legal = make([]int, len(acts))
		for i, a := range acts {
			legal[i] = a.A
		}
	}
	sc, err := p.Present(params, seat, obs, legal)
	if err != nil {
		return nil, &ViewError{Env: spec.ID, Reason: err.Error()}
	}
	if err := env.CheckScene(spec, seat, legal, sc); err != nil {
		return nil, &ViewError{Env: spec.ID, Reason: err.Error()}
	}
	for i := range acts {
		acts[i].Words, acts[i].Help = sc.Moves[i].Words, sc.Moves[i].Help
	}
	return sc, nil
}

// presenterFor returns the registered game id's presenter; false for a
// game that does not present itself (a variable for the tests).
var presenterFor = func(id string) (env.Presenter, bool) {
	g, err := env.Lookup(id)
	if err != nil {
		return nil, false
	}
	p, ok := g.(env.Presenter)
	return p, ok
}

// stateScene presents st to seat from seat's observation (present).
func stateScene(spec *env.Spec, params env.Params, st env.State, seat int, acts []Action) (*env.Scene, error) {
	obs := make([]uint8, spec.ObsSize())
	st.Observe(seat, obs)
	return present(spec, params, seat, obs, acts)
}

// faceUpScene is the scene with every hand drawn: the scene of the seat to
// act (seat 0 once the game is over), with acts as its moves, in which
// each seat's private zones are replaced by (or, where the acting seat's
// scene lacks them, joined by) those of that seat's own scene, same zone
// ids. Only for views that show every card anyway (FaceUpView).
func faceUpScene(spec *env.Spec, params env.Params, st env.State, acts []Action) (*env.Scene, error) {
	base := max(st.CurrentPlayer(), 0)
	sc, err := stateScene(spec, params, st, base, acts)
	if sc == nil || err != nil {
		return sc, err
	}
	at := map[string]int{}
	for i, z := range sc.Zones {
		at[z.ID] = i
	}
	for s := range spec.NumPlayers {
		if s == base {
			continue
		}
		o, err := stateScene(spec, params, st, s, nil)
		if err != nil {
			return nil, err
		}
		for _, z := range o.Zones {
			if !z.Private {
				continue
			}
			if i, ok := at[z.ID]; ok {
				sc.Zones[i] = z
			} else {
				at[z.ID] = len(sc.Zones)
				sc.Zones = append(sc.Zones, z)
			}
		}
	}
	return sc, nil
}

// determinize rebuilds a position from seat's observation obs with the
// game's determinizer and the fixed viewSeed.
func determinize(spec *env.Spec, params env.Params, seat int, obs []uint8) (env.State, error) {
	g, err := env.Lookup(spec.ID)
	if err != nil {
		return nil, err
	}
	det, ok := g.(env.Determinizer)
	if !ok {
		return nil, &ViewError{Env: spec.ID, Reason: "the game has no determinizer, so a view cannot be drawn from an observation alone"}
	}
	d, err := det.Determinize(params, seat, obs, viewSeed, nil)
	if err != nil {
		return nil, &ViewError{Env: spec.ID, Reason: err.Error()}
	}
	return d, nil
}

// FaceUpView returns the view of st with every card face up: the true
// position's picture, its text and every player's hand, and the scene with
// every hand drawn (faceUpScene). Only for tables with no human seated,
// for finished games and for replays. It returns a *ViewError when the
// game's presenter fails.
func FaceUpView(spec *env.Spec, params env.Params, st env.State) (*View, error) {
	v := &View{Env: spec.ID, Seat: FaceUp, Players: spec.NumPlayers, Turn: st.Turn(), ToMove: st.CurrentPlayer(), Over: st.Terminal()}
	if v.Over {
		v.ToMove = env.Terminal
	}
	v.Image, v.Width, v.Height = picture(st)
	v.Text = st.String()
	if h, ok := st.(handTexter); ok {
		var b strings.Builder
		for p := range spec.NumPlayers {
			// StringFor repeats the public part; keep only the lines it adds.
			b.WriteString(extraLines(st.String(), h.StringFor(p)))
		}
		v.Text += b.String()
	}
	if !v.Over {
		v.Actions = legalActions(spec, st)
	}
	var err error
	if v.Scene, err = faceUpScene(spec, params, st, v.Actions); err != nil {
		return nil, err
	}
	return v, nil
}

// extraLines returns the lines of full that public lacks.
func extraLines(public, full string) string {
	have := map[string]bool{}
	for _, l := range strings.Split(public, "\n") {
		have[l] = true
	}
	var b strings.Builder
	for _, l := range strings.Split(full, "\n") {
		if !have[l] {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func legalActions(spec *env.Spec, st env.State) []Action {
	mask := make([]uint8, spec.NumActions())
	st.LegalMask(mask)
	var out []Action
	for a, m := range mask {
		if m != 0 {
			out = append(out, Action{A: a, Name: spec.ActionNames[a], Words: Describe(spec.ActionNames[a])})
		}
	}
	return out
}

// picture renders st (public information only, env.Renderer) as a PNG data
// URL; "" for a game without a renderer.
func picture(st env.State) (string, int, int) {
	r, ok := st.(env.Renderer)
	if !ok {
		return "", 0, 0
	}
	w, h := r.RenderSize()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	r.Render(img)
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, img); err != nil {
		return "", 0, 0 // a bytes.Buffer write does not fail
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes()), w, h
}

// Public is the seat number of the public view ([PublicView]): what a
// spectator sees while a person is seated and the game is not over.
const Public = -2

// PublicView returns the view of st that every player shares: who is to
// act, the game's picture (env.Renderer draws public information only),
// its text board without any hand (State.String, which every game writes
// without hidden information) and, for a game that presents itself, the
// public part of the scene (env.PublicScene of seat 0's scene: no private
// zone or card, no moves, Rotate 0); no hand, no actions. Like a
// seat's view it is drawn from a position rebuilt from one seat's (seat
// 0's) observation with the game's determinizer and a fixed seed, so that
// the order in which a game happens to hold what is hidden cannot show:
// two positions that differ only in hidden cards, anyone's, give the same
// bytes (TestPublicViewHidesEveryHand). It returns a *ViewError when the
// game has no determinizer.
func PublicView(spec *env.Spec, params env.Params, st env.State) (*View, error) {
	obs := make([]uint8, spec.ObsSize())
	st.Observe(0, obs)
	d, err := determinize(spec, params, 0, obs)
	if err != nil {
		return nil, err
	}
	v := &View{Env: spec.ID, Seat: Public, Players: spec.NumPlayers, Turn: d.Turn(), ToMove: d.CurrentPlayer(), Over: d.Terminal()}
	if v.Over {
		v.ToMove = env.Terminal
	}
	v.Image, v.Width, v.Height = picture(d)
	v.Text = d.String()
	// The scene: the public part of seat 0's (env.PublicScene), which by
	// the env.Presenter contract is every seat's public part (the suite
	// checks it at every step), so it holds nobody's hidden cards.
	d.Observe(0, obs)
	sc, err := present(spec, params, 0, obs, nil)
	if err != nil {
		return nil, err
	}
	v.Scene = env.PublicScene(sc)
	return v, nil
}

// compass spells out the compass points of action names (Describe).
var compass = map[string]string{"n": "north", "ne": "north-east", "e": "east", "se": "south-east",
	"s": "south", "sw": "south-west", "w": "west", "nw": "north-west"}

// Describe returns an action name in words without knowing the game:
// dashes as spaces, compass points spelled out ("move-ne" reads "move
// north-east"). A game that presents itself words its legal moves in its
// scene (Move.Words), which the views use instead.
func Describe(name string) string {
	tokens := strings.Split(name, "-")
	for i, t := range tokens {
		if c, ok := compass[t]; ok {
			tokens[i] = c
		}
	}
	return strings.Join(tokens, " ")
}

// moveWords returns action (legal for player, who is to act in st) in the
// words of player's scene, which only player's observation makes; the
// action's Describe words for a game that does not present itself. The
// words are shown to others only where the move itself is (status.Moves).
func moveWords(spec *env.Spec, params env.Params, st env.State, player, action int) string {
	acts := []Action{{A: action, Name: spec.ActionNames[action], Words: Describe(spec.ActionNames[action])}}
	if _, err := stateScene(spec, params, st, player, acts); err != nil {
		return Describe(spec.ActionNames[action])
	}
	return acts[0].Words
}
