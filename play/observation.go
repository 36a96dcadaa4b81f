package play

import "slices"

// SeatObservation is a seat's own observation and legal mask, as
// env.Env gives them to an agent playing that seat: what a program
// needs to play the seat itself (galaxygym.play.connect in Python). It
// rides in the table messages of the connections of the person who holds
// the seat, and of nobody else: not other seats, not spectators, not a
// face-up view (docs/play.md, "Your own agent at the table").
type SeatObservation struct {
	// Seat is the seat observed (the view's seat).
	Seat int `json:"seat"`
	// Shape is the observation's shape (Spec.ObsShape); Obs holds its
	// Spec.ObsSize() uint8 bytes, row-major, base64 in JSON: the bytes of
	// State.Observe(Seat) for the position after status.steps moves.
	Shape []int  `json:"shape"`
	Obs   []byte `json:"obs"`
	// Mask is the legal mask (Spec.NumActions() bytes, 1 legal, base64 in
	// JSON) when Seat is to act and the game is not over; absent otherwise.
	Mask []byte `json:"mask,omitempty"`
}

// seatObservationLocked returns seat's observation for connection c when
// c plays that seat (its person's connection), else nil. t.mu held.
func (t *table) seatObservationLocked(c *conn, seat int) *SeatObservation {
	if seat < 0 || !t.plays(c, seat) {
		return nil
	}
	spec := t.e.Spec()
	o := &SeatObservation{Seat: seat, Shape: spec.ObsShape, Obs: make([]byte, spec.ObsSize())}
	if err := t.e.Observe(seat, o.Obs); err != nil {
		return nil // a checked seat of this env: does not happen
	}
	if !t.done && !t.e.Done() && t.e.CurrentPlayer() == seat {
		o.Mask = slices.Clone(t.e.Mask())
	}
	return o
}
