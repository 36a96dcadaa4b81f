package agents

import (
	"math/rand/v2"

	"github.com/galaxygym/galaxygym/env"
)

func init() {
	Register("random", "uniform over the legal actions, seeded; plays every environment",
		func(spec *env.Spec, _ Options) (Agent, error) { return NewRandom(), nil })
}

// Random picks uniformly among the legal actions. Its choices derive only
// from the seed given to Reset.
type Random struct {
	rng rand.PCG
}

// NewRandom returns a random agent; call Reset before Act.
func NewRandom() *Random { return &Random{} }

// Name returns "random".
func (*Random) Name() string { return "random" }

// Reset seeds the agent for an episode.
func (r *Random) Reset(seed uint64) { r.rng.Seed(seed, 0x72616e646f6d) }

// IgnoresObservation reports true: the random agent reads only the mask.
func (*Random) IgnoresObservation() bool { return true }

// Act returns a uniformly chosen legal action (the k-th legal one for a
// uniform k), or -1 when the mask has no legal action.
func (r *Random) Act(_ int, _, mask []uint8) int {
	n := 0
	for _, m := range mask {
		n += int(m)
	}
	if n == 0 {
		return -1
	}
	k := int((r.rng.Uint64() >> 32) * uint64(n) >> 32)
	for a, m := range mask {
		if m != 0 {
			if k == 0 {
				return a
			}
			k--
		}
	}
	return -1
}
