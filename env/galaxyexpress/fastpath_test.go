package galaxyexpress

import (
	"math/rand/v2"
	"testing"
)

// canStopNaive is the Lost in Space test written the slow, obvious way: try
// every coin and every direction, one position at a time, remembering the
// positions already settled.
func canStopNaive(ship, speed int, coins uint16, planets uint64) bool {
	return naiveSearch{planets, map[[3]int]bool{}}.can(ship, speed, coins)
}

type naiveSearch struct {
	planets uint64
	memo    map[[3]int]bool
}

func (n naiveSearch) can(ship, speed int, coins uint16) bool {
	key := [3]int{ship, speed, int(coins)}
	if v, ok := n.memo[key]; ok {
		return v
	}
	ok := false
	for i := 0; i < 2*numValues && !ok; i++ {
		if coins&(1<<i) == 0 {
			continue
		}
		ns := coinSpeed(speed, i)
		rest := coins &^ (1 << i)
		if ns == 0 {
			ok = n.planets&(1<<ship) != 0 || n.can(ship, 0, rest)
			continue
		}
		for d := 0; d < NumDirs && !ok; d++ {
			ok = n.can(slideSquare(ship, d, ns), ns, rest)
		}
	}
	n.memo[key] = ok
	return ok
}

func TestCanStopMatchesNaiveSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 3000
	if testing.Short() {
		n = 300
	}
	for k := 0; k < n; k++ {
		var coins uint16
		for c := 1 + rng.IntN(12); c > 0; c-- {
			coins |= 1 << rng.IntN(12)
		}
		var planets uint64
		for p := 1 + rng.IntN(6); p > 0; p-- {
			planets |= 1 << rng.IntN(Squares)
		}
		ship, speed := rng.IntN(Squares), rng.IntN(maxSpeed+1)
		if got, want := CanStop(ship, speed, coins, planets), canStopNaive(ship, speed, coins, planets); got != want {
			t.Fatalf("CanStop(ship %s, speed %d, coins %012b, planets %012x) = %v, naive search says %v",
				squareName(ship), speed, coins, planets, got, want)
		}
	}
}

func TestStopSquaresRules(t *testing.T) {
	a1 := 0
	// No coins: nowhere to stop (at least one coin must be played).
	if got := StopSquares(a1, 0, 0); got != 0 {
		t.Errorf("no coins: %x, want none", got)
	}
	// A null Thrust at speed 0 stops in place.
	if got := StopSquares(a1, 0, 1<<0); got != 1 {
		t.Errorf("null thrust at rest: %x, want a1 only", got)
	}
	// Thrust 2 then Brake 2: two squares in any direction, wrapping:
	// c1, a3, g1 (a1 west by 2) and a5 (a1 north by 2); or the Brake first at
	// speed 0, which stops in place at a1.
	want := uint64(1) | 1<<2 | 1<<16 | 1<<6 | 1<<32
	if got := StopSquares(a1, 0, 1<<2|1<<(numValues+2)); got != want {
		t.Errorf("thrust 2, brake 2: %012x, want %012x", got, want)
	}
	// Brakes cannot cancel speed 10 with 5+4: nowhere.
	if got := StopSquares(a1, 10, 1<<(numValues+5)|1<<(numValues+4)); got != 0 {
		t.Errorf("speed 10, brakes 5+4: %x, want none", got)
	}
}

// legalMaskNaive is LegalMask for the coin phase written directly from the
// dedupe rule, one direction at a time.
func legalMaskNaive(s *State, dst []uint8) {
	clear(dst)
	for suit := Thrust; suit <= Brake; suit++ {
		for v := 0; v < numValues; v++ {
			if s.up[suit]&(1<<v) == 0 {
				continue
			}
			ns := newSpeed(int(s.speed), suit, v)
			for d := 0; d < NumDirs; d++ {
				if (ns == 0 && d == North) || (ns > 0 && !duplicateDir(d, ns)) {
					dst[CoinAction(suit, v, d)] = 1
				}
			}
		}
	}
}

func TestLegalMaskMatchesNaive(t *testing.T) {
	mask, want := make([]uint8, NumActions), make([]uint8, NumActions)
	randomPlayouts(300, 5, func(s *State) {
		if s.phase != PhaseCoin {
			return
		}
		s.LegalMask(mask)
		legalMaskNaive(s, want)
		if string(mask) != string(want) {
			t.Fatalf("mask %v, want %v\n%s", mask, want, s)
		}
	})
}

// randomPlayouts plays games from seeds 0..games-1 with uniformly random
// legal actions (generator seeded with rngSeed), calling visit on every
// position, the final one included.
func randomPlayouts(games int, rngSeed uint64, visit func(*State)) {
	rng := rand.New(rand.NewPCG(rngSeed, rngSeed))
	mask := make([]uint8, NumActions)
	rewards := make([]float64, 1)
	for seed := uint64(0); seed < uint64(games); seed++ {
		s := newState(&configs[0], seed)
		for {
			visit(s)
			if s.Terminal() {
				break
			}
			k := rng.IntN(s.LegalMask(mask))
			for a, m := range mask {
				if m == 1 {
					if k == 0 {
						s.Apply(a, rewards)
						break
					}
					k--
				}
			}
		}
	}
}

// TestObserveCoinFields checks the word-at-a-time coin fields of Observe
// against byte-by-byte writes, and that the bytes around them survive.
func TestObserveCoinFields(t *testing.T) {
	obs := make([]uint8, ObsSize)
	randomPlayouts(200, 9, func(s *State) {
		s.Observe(0, obs)
		for suit := 0; suit < 2; suit++ {
			down := allValues &^ s.spent[suit] &^ s.up[suit]
			for v := 0; v < numValues; v++ {
				i := suit*numValues + v
				if obs[OffUp+i] != s.up[suit]>>v&1 || obs[OffSpent+i] != s.spent[suit]>>v&1 || obs[OffDown+i] != down>>v&1 {
					t.Fatalf("coin fields wrong for suit %d value %d:\n%s", suit, v, s)
				}
			}
		}
		if s.phase < PhaseOver && obs[OffPhase+int(s.phase)] != 1 {
			t.Fatalf("phase byte lost:\n%s", s)
		}
	})
}
