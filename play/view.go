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
	// Cards is Hand's cards, and Trains the seat's own Express trains, for
	// the page to draw as cards ([HandCards]); absent for a game whose hands
	// the page does not draw.
	Cards  []Card  `json:"cards,omitempty"`
	Trains []Train `json:"trains,omitempty"`
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
	// Words is the name as a player of the game would say it (Describe).
	Words string   `json:"words"`
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
func SeatView(spec *env.Spec, params env.Params, st env.State, seat int) (*View, error) {
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
		v.Cards, v.Trains = HandCards(spec.ID, v.Hand)
		if l := Legend(spec.ID, v.Hand); l != "" {
			v.Hand += "\n" + l
		}
	} else {
		v.Text = d.String()
	}
	if v.ToMove == seat {
		v.Actions = legalActions(spec, d)
	}
	return v, nil
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
// position's picture, its text and every player's hand. Only for tables
// with no human seated and for replays.
func FaceUpView(spec *env.Spec, st env.State) *View {
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
	return v
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
			out = append(out, Action{A: a, Name: spec.ActionNames[a], Words: Describe(spec.ID, spec.ActionNames[a])})
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
// act, the game's picture (env.Renderer draws public information only) and
// its text board without any hand (State.String, which every game writes
// without hidden information); no hand, no cards, no actions. Like a
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
	return v, nil
}
