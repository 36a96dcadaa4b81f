package agents

import (
	"encoding/binary"
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
// uniform k), or -1 when the mask has no legal action. The mask is read
// eight bytes at a time; every mask byte must be 0 or 1.
func (r *Random) Act(_ int, _, mask []uint8) int {
	n := 0
	i := 0
	for ; i+8 <= len(mask); i += 8 {
		n += byteSum(binary.LittleEndian.Uint64(mask[i:]))
	}
	for _, m := range mask[i:] {
		n += int(m)
	}
	if n == 0 {
		return -1
	}
	k := int((r.rng.Uint64() >> 32) * uint64(n) >> 32)
	i = 0
	for ; i+8 <= len(mask); i += 8 {
		w := binary.LittleEndian.Uint64(mask[i:])
		if c := byteSum(w); k >= c {
			k -= c
			continue
		}
		for ; ; w >>= 8 {
			if w&1 != 0 {
				if k == 0 {
					return i
				}
				k--
			}
			i++
		}
	}
	for a, m := range mask[i:] {
		if m != 0 {
			if k == 0 {
				return i + a
			}
			k--
		}
	}
	return -1
}

// byteSum adds the eight bytes of w, each 0 or 1.
func byteSum(w uint64) int { return int(w * 0x0101010101010101 >> 56) }
