package env

import (
	"fmt"
	"sort"
	"sync"
)

var (
	regMu    sync.RWMutex
	registry = map[string]Game{}
)

// Register makes a game available by its Spec().ID. Game packages call it
// from init. It panics on an empty or duplicate id, both programming errors.
func Register(g Game) {
	id := g.Spec().ID
	regMu.Lock()
	defer regMu.Unlock()
	if id == "" {
		panic("env: Register with empty id")
	}
	if _, dup := registry[id]; dup {
		panic(fmt.Sprintf("env: Register called twice for %q", id))
	}
	registry[id] = g
}

// Lookup returns the registered game with the given id, or an
// [*UnknownEnvError].
func Lookup(id string) (Game, error) {
	regMu.RLock()
	g, ok := registry[id]
	regMu.RUnlock()
	if !ok {
		return nil, &UnknownEnvError{ID: id, Known: IDs()}
	}
	return g, nil
}

// IDs returns the registered ids, sorted.
func IDs() []string {
	regMu.RLock()
	defer regMu.RUnlock()
	ids := make([]string, 0, len(registry))
	for id := range registry {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

func sortStrings(s []string) { sort.Strings(s) }
