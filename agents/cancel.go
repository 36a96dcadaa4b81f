package agents

import "context"

// Cancellable is implemented by agents whose Act can run long (mcts, and
// any agent that searches): a caller that may stop caring about the answer
// (a server session whose client dropped, a page that left) gives the
// agent a context first.
type Cancellable interface {
	// SetContext bounds the Act calls that follow: once ctx is done, Act
	// stops its work within about 10 ms and returns a legal action (its best
	// so far, or any legal one), which the caller is free to discard. A nil
	// ctx removes the bound.
	SetContext(ctx context.Context)
}

// SetContext gives a the context that bounds its following Act calls when
// a implements [Cancellable], and does nothing otherwise (every other
// agent's Act is short).
func SetContext(a Agent, ctx context.Context) {
	if c, ok := a.(Cancellable); ok {
		c.SetContext(ctx)
	}
}
