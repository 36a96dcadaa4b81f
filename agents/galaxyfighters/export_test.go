package galaxyfighters

// LeafCounts returns the leaves h searched so far: scored with their own
// approach phase, inherited from their parent (an inert command), and
// scored on their parent's approach (localValue).
func LeafCounts(h *Heuristic) (scored, inherited, local uint64) {
	return h.counts[leafScored], h.counts[leafInherited], h.counts[leafLocal]
}
