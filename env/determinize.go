package env

// Determinizer is implemented by a [Game] that can sample its hidden
// information from what one player sees: search agents (information-set
// Monte Carlo tree search, determinized rollouts) plan on such samples
// without reading the true state. It is optional; agents that need it
// refuse games without it. The conformance suite (package envtest) builds
// the twins of its information-set test with it: a sample must be a
// position the game's notation accepts, and the player must not be able
// to tell it from the true position, then or after the same actions,
// until the rules reveal something (see envtest.Revealer).
type Determinizer interface {
	// Determinize returns a complete state (hidden information and chance
	// generator included) drawn from those consistent with obs, the
	// observation of player written by State.Observe under params. The
	// draw depends on params, player, obs and seed only, and follows the
	// posterior of the hidden information given everything the player has
	// seen (for a game whose observation is a complete information state,
	// as Galaxy Express's is). Observe(player) of the result writes obs
	// again, and its legal mask is that of the true position.
	//
	// reuse may be nil, or a state an earlier call returned: the game may
	// then overwrite it and return it instead of allocating a new one, so
	// that a search samples without garbage. It returns an error (the
	// game's own type, its message prefixed with the game's package name)
	// when obs is not the observation of a valid position.
	Determinize(params Params, player int, obs []uint8, seed uint64, reuse State) (State, error)
}
