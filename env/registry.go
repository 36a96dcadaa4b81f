package env

import (
	"fmt"
	"maps"
	"slices"

	"sync"
)

// PlayersParam is the standard parameter that picks the number of players
// of a game played by 2 or more counts (Spec.MinPlayers < Spec.MaxPlayers).
// [Register] declares it for such a game; [New] resolves it and gives the
// Env a spec whose NumPlayers is its value. A game reads it in NewState as
// params.Int(PlayersParam).
const PlayersParam = "players"

// entry is a registered game: its normalized spec and the spec of every
// player count (index = count; nil outside [MinPlayers, MaxPlayers]).
type entry struct {
	game    Game
	spec    *Spec
	players []*Spec
	// completed holds, for a ParamSpecer, the completed copy of each spec
	// its SpecFor returned (see complete).
	completed map[*Spec]*Spec
}

var (
	regMu    sync.RWMutex
	registry = map[string]*entry{}
)

// Register makes a game available by its Spec().ID. Game packages call it
// from init. It completes the spec in place, once: MinPlayers and
// MaxPlayers default to NumPlayers, and a game of several player counts
// gets the standard `players` parameter ([PlayersParam]) when it does not
// declare it. It panics on an empty or duplicate id, on inconsistent player
// counts, and on a declared `players` parameter whose range or default
// disagrees with the spec: all programming errors.
func Register(g Game) {
	s := g.Spec()
	id := s.ID
	regMu.Lock()
	defer regMu.Unlock()
	if id == "" {
		panic("env: Register with empty id")
	}
	if _, dup := registry[id]; dup {
		panic(fmt.Sprintf("env: Register called twice for %q", id))
	}
	if s.MinPlayers == 0 && s.MaxPlayers == 0 {
		s.MinPlayers, s.MaxPlayers = s.NumPlayers, s.NumPlayers
	}
	if s.MinPlayers < 1 || s.MinPlayers > s.NumPlayers || s.NumPlayers > s.MaxPlayers {
		panic(fmt.Sprintf("env: %s: players %d outside [MinPlayers %d, MaxPlayers %d]", id, s.NumPlayers, s.MinPlayers, s.MaxPlayers))
	}
	s.OutcomeNames = OutcomeNames()
	if s.MaxPlayers > s.MinPlayers {
		if ps := s.Param(PlayersParam); ps != nil {
			if ps.Kind != Int || ps.Default != s.NumPlayers || int(ps.Min) != s.MinPlayers || int(ps.Max) != s.MaxPlayers {
				panic(fmt.Sprintf("env: %s: the %q parameter must be Int in [%d, %d] with default %d", id, PlayersParam, s.MinPlayers, s.MaxPlayers, s.NumPlayers))
			}
		} else {
			s.Params = append([]ParamSpec{{Name: PlayersParam, Kind: Int, Default: s.NumPlayers,
				Min: float64(s.MinPlayers), Max: float64(s.MaxPlayers),
				Doc: fmt.Sprintf("number of players, %d-%d", s.MinPlayers, s.MaxPlayers)}}, s.Params...)
		}
	}
	e := &entry{game: g, spec: s, players: make([]*Spec, s.MaxPlayers+1)}
	for n := s.MinPlayers; n <= s.MaxPlayers; n++ {
		e.players[n] = s.forPlayers(n)
	}
	registry[id] = e
}

// Lookup returns the registered game with the given id, or an
// [*UnknownEnvError].
func Lookup(id string) (Game, error) {
	regMu.RLock()
	e, ok := registry[id]
	regMu.RUnlock()
	if !ok {
		return nil, &UnknownEnvError{ID: id, Known: IDs()}
	}
	return e.game, nil
}

// specFor returns the spec of an environment of game g under resolved
// parameters p: the game's own [ParamSpecer] answer when it has one,
// otherwise the registered spec for the `players` count.
func specFor(g Game, p Params) *Spec {
	if ps, ok := g.(ParamSpecer); ok {
		return complete(g, ps.SpecFor(p))
	}
	s := g.Spec()
	n, ok := p[PlayersParam].(int)
	if !ok || n == s.NumPlayers {
		return s
	}
	regMu.RLock()
	e := registry[s.ID]
	regMu.RUnlock()
	if e != nil && e.game == g && n < len(e.players) && e.players[n] != nil {
		return e.players[n]
	}
	return s.forPlayers(n)
}

// complete returns s, a spec a ParamSpecer's SpecFor returned, with what
// Register fills into a registered spec (OutcomeNames, MinPlayers and
// MaxPlayers): s itself when it has them, else a copy made once per spec
// and kept, so that every Env's spec names its outcome codes.
func complete(g Game, s *Spec) *Spec {
	if s.OutcomeNames != nil && s.MinPlayers != 0 {
		return s
	}
	reg := g.Spec()
	regMu.Lock()
	defer regMu.Unlock()
	e := registry[reg.ID]
	if e != nil {
		if c, ok := e.completed[s]; ok {
			return c
		}
	}
	c := *s
	c.OutcomeNames = OutcomeNames()
	if c.MinPlayers == 0 {
		c.MinPlayers, c.MaxPlayers = reg.MinPlayers, reg.MaxPlayers
	}
	if e != nil {
		if e.completed == nil {
			e.completed = map[*Spec]*Spec{}
		}
		e.completed[s] = &c
	}
	return &c
}

// IDs returns the registered ids, sorted.
func IDs() []string {
	regMu.RLock()
	defer regMu.RUnlock()
	return slices.Sorted(maps.Keys(registry))
}
