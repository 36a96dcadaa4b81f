package env

// ActionFeaturer is implemented by a Game that declares a few features of
// every action, computed from an observation alone: what the rules make of
// the action one step ahead, as a player at the table works it out (Galaxy
// Express: whether the coin ends the game Lost in Space, whether it brings
// the ship to rest on a planet; Pilots of Gallaxia: how far each space
// leaves the moving starship from its goal). A learned policy may read them beside the
// observation (docs/policy-format.md, "Action features (version 5)").
//
// Because the features are a function of one seat's observation, they hold
// nothing that observation does not: they cannot leak hidden information.
type ActionFeaturer interface {
	// ActionFeatureNames names the F features of an action (F >= 1), in
	// order; the slice is shared and must not be modified.
	ActionFeatureNames() []string
	// ActionFeatures writes the features of every action for the
	// observation obs (len ObsSize, as Observe writes it) into dst, uint8
	// (NumActions, F) row-major: dst[a*F+f] is feature f of action a, 0 to
	// 255. Actions the observation does not make legal may get any value
	// (the mask decides what is played; Galaxy Express writes 0). It reads
	// nothing but obs and allocates nothing.
	ActionFeatures(obs []uint8, dst []uint8)
}

// ActionFeaturesOf returns the registered game id's [ActionFeaturer], or
// nil when the game declares no action features (or id is not registered).
func ActionFeaturesOf(id string) ActionFeaturer {
	g, err := Lookup(id)
	if err != nil {
		return nil
	}
	f, _ := g.(ActionFeaturer)
	return f
}
