package trio

import (
	"fmt"
	"strconv"

	"github.com/galaxygym/galaxygym/env"
)

// Present returns seat's scene (env.Presenter) from seat's observation: the
// row as five slots, each holding its card (the locked slot marked), the
// seats' scores, and one move per legal take (click the card).
func (Game) Present(p env.Params, seat int, obs []uint8, legal []int) (*env.Scene, error) {
	n := p.Int(env.PlayersParam)
	if len(obs) != ObsSize || int(obs[11]) != n || seat < 0 || seat >= n {
		return nil, &env.SceneError{EnvID: ID, Reason: fmt.Sprintf("observation of %d bytes for seat %d of %d", len(obs), seat, n)}
	}
	const cell, gap = 60, 10
	sc := &env.Scene{Width: Slots*(cell+gap) + gap, Height: cell + 2*gap}
	locked := int(obs[5]) - 1
	for i := range Slots {
		id := "slot-" + strconv.Itoa(i)
		sp := env.Space{ID: id, X: gap + i*(cell+gap), Y: gap, W: cell, H: cell, Shape: "rect", Owner: -1,
			Title: fmt.Sprintf("slot %d", i)}
		if i == locked {
			sp.Color, sp.Title = "#9aa5b1", sp.Title+": locked for this player"
		}
		sc.Spaces = append(sc.Spaces, sp)
		sc.Pieces = append(sc.Pieces, env.Piece{ID: "card-" + strconv.Itoa(i), At: id, Shape: "square", Owner: -1,
			Label: strconv.Itoa(int(obs[i])), Title: fmt.Sprintf("a card worth %d", obs[i]), Color: "#f1c40f"})
	}
	for s := range n {
		score := obs[6+(s-seat+n)%n]
		sc.Seats = append(sc.Seats, env.SeatFacts{Name: "player " + strconv.Itoa(s), Score: fmt.Sprintf("%d points", score)})
	}
	taken := int(obs[10])
	if taken >= Takes*n {
		sc.Ended = fmt.Sprintf("every player has taken %d cards", Takes)
	} else {
		sc.Status = fmt.Sprintf("card %d of %d: player %d takes", taken+1, Takes*n, taken%n)
	}
	for _, a := range legal {
		sc.Moves = append(sc.Moves, env.Move{A: a, Name: spec.ActionNames[a],
			Words:  fmt.Sprintf("take the %d from slot %d", obs[a], a),
			Help:   fmt.Sprintf("score %d points; a new card fills the slot and the next player may not take it", obs[a]),
			Select: []string{"card-" + strconv.Itoa(a)}})
	}
	return sc, nil
}

// HowToPlay returns Trio's rules in plain words (env.Presenter).
func (Game) HowToPlay() string {
	return `Five cards lie face up in a row, each worth 1 to 9 points. In turn, starting with player 0, each player takes one card from the row and scores its value.

A new card, drawn at random from 1 to 9, fills the slot at once, and that slot is locked for the next player only: you may not take the card that was just dealt to replace your neighbour's choice.

When every player has taken four cards the game ends. The highest score wins; tied players share a place.`
}

// PublicWords returns the words every seat may read about player mover's
// take (env.PublicMover): everything in Trio but the chance generator is
// public, and the slot taken is the one locked after it, so the words name
// the slot (its value is on the table, not in the action).
func (Game) PublicWords(p env.Params, mover, action int) string {
	return fmt.Sprintf("player %d takes the card from slot %d", mover, action)
}
