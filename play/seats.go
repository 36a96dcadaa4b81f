package play

import (
	crand "crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/rollout"
)

// Seats belong to people, not to connections (docs/security.md, "Who
// sees what"). Taking a human seat gives the person a seat secret, sent to
// that connection only; a connection that presents the secret (join with
// it) is that person, so a person reconnects from any page and another
// page of the same browser, without the secret, is a spectator. The person
// who starts a table gets a creator secret too, which lets them control a
// table at which nobody is seated.

// secretBytes is the size of a seat secret: 256 bits from crypto/rand,
// written as 64 hex digits.
const secretBytes = 32

// GraceClose is the [Config.GraceAgent] that closes a table when a seated
// person stays away longer than the grace period.
const GraceClose = "close"

// person is one who holds a human seat, or who started a table: known by
// a secret, present through the connections that presented it.
type person struct {
	secret string
	conns  map[*conn]struct{}
	away   *time.Timer // the grace period, running while no connection is open
}

func newPerson(c *conn) *person {
	var b [secretBytes]byte
	if _, err := crand.Read(b[:]); err != nil {
		panic("play: crypto/rand: " + err.Error()) // crypto/rand does not fail on supported systems
	}
	p := &person{secret: hex.EncodeToString(b[:]), conns: map[*conn]struct{}{}}
	if c != nil {
		p.conns[c] = struct{}{}
	}
	return p
}

// is reports whether c presented p's secret (nil: nobody).
func (p *person) is(c *conn) bool {
	if p == nil || c == nil {
		return false
	}
	_, ok := p.conns[c]
	return ok
}

// knows reports whether secret is p's, in constant time.
func (p *person) knows(secret string) bool {
	return p != nil && secret != "" && subtle.ConstantTimeCompare([]byte(secret), []byte(p.secret)) == 1
}

// attach makes c one of p's connections and ends a grace period.
func (p *person) attach(c *conn) {
	p.conns[c] = struct{}{}
	if p.away != nil {
		p.away.Stop()
		p.away = nil
	}
}

// secretMsg is the message that gives a connection a secret: of seat k,
// or the creator's when k is FaceUp.
func secretMsg(req, table string, k int, p *person) []byte {
	m := map[string]any{"op": "secret", "req": req, "table": table, "secret": p.secret}
	if k == FaceUp {
		m["creator"] = true
	} else {
		m["seat"] = k
	}
	return mustJSON(m)
}

// plays reports whether c is the person holding human seat k (and the seat
// was not handed to an agent).
func (t *table) plays(c *conn, k int) bool {
	return k >= 0 && k < len(t.holder) && t.heir[k] == "" && t.holder[k].is(c)
}

// hidden reports whether spectators get the public view only: a person
// plays (or played) at the table and the game is not over.
func (t *table) hidden() bool {
	return t.humans() && !(t.done && t.e.Done())
}

// mayControl reports whether c may pause the table, step it or change its
// speed: the people seated; where nobody is seated, the table's creator.
func (t *table) mayControl(c *conn) bool {
	someone := false
	for k, p := range t.holder {
		if p != nil && t.heir[k] == "" {
			someone = true
			if p.is(c) {
				return true
			}
		}
	}
	return !someone && t.creator.is(c)
}

// dropLocked forgets connection c (closed): a seat whose person has no
// connection left is kept for them for the grace period (Config.SeatGrace),
// then goes to the grace agent (or the table closes).
func (t *table) dropLocked(c *conn) bool {
	changed := false
	if t.creator != nil {
		delete(t.creator.conns, c)
	}
	for k, p := range t.holder {
		if !p.is(c) {
			continue
		}
		delete(p.conns, c)
		changed = true
		if len(p.conns) == 0 && p.away == nil && t.heir[k] == "" && !t.done {
			k, p := k, p
			p.away = time.AfterFunc(t.h.cfg.SeatGrace, func() { t.expire(k, p) })
		}
	}
	return changed
}

// expire ends person p's hold on seat k once the grace period ran out
// with no connection of theirs back: the grace agent takes the seat, or,
// with GraceClose or where that agent does not play the game, the table
// is closed. Never is the seat offered to whoever has the table's link.
func (t *table) expire(k int, p *person) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.holder[k] != p || len(p.conns) > 0 || t.heir[k] != "" || t.done || t.h.ctx.Err() != nil {
		return
	}
	p.away = nil
	spec := t.e.Spec()
	name := t.h.cfg.GraceAgent
	if name != GraceClose && agents.Plays(name, spec) {
		opts, err := t.h.agentOptions(spec, name, nil)
		var a agents.Agent
		if err == nil {
			a, err = agents.New(name, spec, opts)
		}
		if err == nil {
			// Seeded as the seat's own agent would have been.
			_, agentSeed := rollout.EpisodeSeeds(t.runSeed, 0)
			a.Reset(rollout.SeatSeed(agentSeed, k))
			t.seats[k], t.heir[k] = a, name
			t.last = time.Now()
			t.poke()
			t.broadcastLocked()
			return
		}
		t.h.cfg.Logger.Warn("play: the grace agent cannot take the seat", "table", t.id, "seat", k, "agent", name, "err", err)
	}
	t.err = fmt.Sprintf("the person at seat %d left more than %s ago: the game is closed", k, t.h.cfg.SeatGrace)
	t.done = true
	t.poke()
	t.broadcastLocked()
}

// claimLocked gives c human seat k: a free seat (a new person, whose
// secret it returns), or a held one whose secret c presents (that person
// reconnecting). Errors are *RequestError.
func (t *table) claimLocked(c *conn, k int, secret string) (*person, error) {
	n := len(t.holder)
	if k < 0 || k >= n {
		return nil, &RequestError{Code: "bad_seat", Message: fmt.Sprintf("seat %d does not exist (0..%d)", k, n-1)}
	}
	if t.lineup.Seats[k] != Human {
		return nil, &RequestError{Code: "bad_seat", Message: fmt.Sprintf("seat %d is played by %s", k, t.lineup.Seats[k])}
	}
	if t.heir[k] != "" {
		return nil, &RequestError{Code: "bad_seat", Message: fmt.Sprintf("seat %d is played by %s since its person left", k, t.heir[k])}
	}
	p := t.holder[k]
	switch {
	case p == nil:
		p = newPerson(c)
		t.holder[k] = p
		return p, nil
	case p.is(c):
	case p.knows(secret):
		p.attach(c)
	case secret != "":
		return nil, &RequestError{Code: "bad_secret", Message: fmt.Sprintf("that is not seat %d's secret", k)}
	case p.away != nil:
		return nil, &RequestError{Code: "seat_taken", Message: fmt.Sprintf("seat %d is taken; its person left and it is kept for them for %s", k, t.h.cfg.SeatGrace)}
	default:
		return nil, &RequestError{Code: "seat_taken", Message: fmt.Sprintf("seat %d is taken", k)}
	}
	return nil, nil
}
