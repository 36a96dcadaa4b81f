package trio

import "github.com/galaxygym/galaxygym/env"

// CurrentPlayer returns the player to take a card, or env.Terminal.
func (s *State) CurrentPlayer() int {
	if s.Terminal() {
		return env.Terminal
	}
	return int(s.taken) % s.players
}

// Terminal reports whether every player has taken Takes cards.
func (s *State) Terminal() bool { return int(s.taken) >= Takes*s.players }

// Turn returns the number of cards taken.
func (s *State) Turn() int { return int(s.taken) }

// LegalMask marks every slot but the locked one.
func (s *State) LegalMask(dst []uint8) int {
	clear(dst)
	if s.Terminal() {
		return 0
	}
	n := 0
	for i := range Slots {
		if i != int(s.locked) {
			dst[i] = 1
			n++
		}
	}
	return n
}

// Apply takes the card of slot a for the current player, who scores its
// value, refills the slot and locks it.
func (s *State) Apply(a int, rewards []float64) {
	p := s.CurrentPlayer()
	v := s.row[a]
	s.scores[p] += v
	rewards[p] += float64(v)
	s.row[a] = s.draw()
	s.locked = int8(a)
	s.taken++
}

// Truncate pays nothing: the scores are the returns already.
func (s *State) Truncate([]float64) {}

// Info reports the per-player results once the game is over (ranked by
// score) and the number of cards taken.
func (s *State) Info(dst *env.Info) {
	if s.Terminal() {
		var scores [MaxPlayers]float64
		for i := range s.players {
			scores[i] = float64(s.scores[i])
		}
		dst.RankByScore(scores[:s.players])
	}
	dst.Stats = append(dst.Stats, env.Stat{Name: "cards", Value: float64(s.taken)})
}
