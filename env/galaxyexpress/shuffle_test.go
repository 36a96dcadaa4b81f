package galaxyexpress

import (
	"math/rand/v2"
	"testing"
)

// TestShuffleUniform checks that every ordering of four elements comes up
// about equally often (a fixed seed, so the test is deterministic).
func TestShuffleUniform(t *testing.T) {
	s := &State{rng: *rand.NewPCG(7, 8)}
	counts := map[[4]int8]int{}
	const draws = 240000
	for i := 0; i < draws; i++ {
		a := [4]int8{0, 1, 2, 3}
		s.shuffle8(a[:])
		counts[a]++
	}
	if len(counts) != 24 {
		t.Fatalf("%d distinct orderings, want 24", len(counts))
	}
	want := draws / 24
	for perm, c := range counts {
		if c < want*95/100 || c > want*105/100 {
			t.Errorf("ordering %v drawn %d times, want about %d", perm, c, want)
		}
	}
}

func TestFactorial(t *testing.T) {
	if factorial[12] != 479001600 || factorial[20] != 2432902008176640000 {
		t.Fatalf("factorial table wrong: 12! = %d, 20! = %d", factorial[12], factorial[20])
	}
}
