package env

import "errors"

// HiddenObserver is implemented by a [Game] that can write, for a seat,
// the part of the position that seat's observation does not show: the
// other seats' hands, the order of every face-down deck or coin row, the
// numbers of unscanned planets. The seat's observation followed by its
// hidden part is the whole position as that seat's critic may see it
// during training: PerfectDou's perfect-information critic, an
// asymmetric actor-critic, Suphx's oracle. A policy must never read it:
// it exists for value networks trained offline from datasets (derived
// from any dataset by replay: `galaxygym dataset derive --hidden`,
// galaxygym.datasets.hidden, docs/datasets.md), and no server payload,
// web page or observation ever carries it.
//
// A chance outcome the rules draw later from the generator (rather than
// from a deck already shuffled) is not part of it: the hidden part holds
// what has been dealt, not what will be drawn.
type HiddenObserver interface {
	// HiddenLayout names every byte of the hidden part of an environment
	// of resolved parameters p: fields tiling [0, size) as an observation
	// layout does ([ObsLayout.Check]). The size may depend on p (the
	// number of players) and never on the position.
	HiddenLayout(p Params) ObsLayout
	// HiddenHigh returns the inclusive upper bound of every byte of the
	// hidden part (len size; the lower bound is 0).
	HiddenHigh(p Params) []uint8
}

// HiddenState is implemented by the [State] of a [HiddenObserver] game.
type HiddenState interface {
	// ObserveHidden writes player's hidden part (see [HiddenObserver])
	// into dst, len the layout's size: a pure function of the position
	// (the chance generator aside) and player. It allocates nothing.
	ObserveHidden(player int, dst []uint8)
}

// ErrNoHidden is returned by [Env.ObserveHidden] for a game that is not a
// [HiddenObserver].
var ErrNoHidden = errors.New("env: the game declares no hidden part")

// HiddenLayout returns the layout and the inclusive upper bounds of the
// Env's hidden part ([HiddenObserver]), or nil, nil when the game declares
// none.
func (e *Env) HiddenLayout() (ObsLayout, []uint8) {
	h, ok := e.game.(HiddenObserver)
	if !ok {
		return nil, nil
	}
	return h.HiddenLayout(e.params), h.HiddenHigh(e.params)
}

// HiddenSize returns the number of bytes of the Env's hidden part, 0 when
// the game declares none. The layout is read once per Env.
func (e *Env) HiddenSize() int {
	if !e.hiddenOK {
		if l, _ := e.HiddenLayout(); len(l) > 0 {
			e.hiddenN = l[len(l)-1].End()
		}
		e.hiddenOK = true
	}
	return e.hiddenN
}

// ObserveHidden writes player's hidden part ([HiddenObserver]) into dst
// (len [Env.HiddenSize]). For training critics only: never show it to a
// policy or a person. Errors: [ErrNoHidden], [*ShapeError],
// [*PlayerError], [ErrNotReset].
func (e *Env) ObserveHidden(player int, dst []uint8) error {
	if _, ok := e.game.(HiddenObserver); !ok {
		return ErrNoHidden
	}
	if n := e.HiddenSize(); len(dst) != n {
		return &ShapeError{"hidden part", len(dst), n}
	}
	if player < 0 || player >= e.spec.NumPlayers {
		return &PlayerError{player, e.spec.NumPlayers}
	}
	if e.state == nil {
		return ErrNotReset
	}
	hs, ok := e.state.(HiddenState)
	if !ok {
		return ErrNoHidden
	}
	hs.ObserveHidden(player, dst)
	return nil
}
