package play

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of [Limits] (docs/security.md lists them with their reasons).
const (
	// DefaultMaxTablesPerClient is the live games one page connection may
	// have opened: a person plays one or two, and watches a few.
	DefaultMaxTablesPerClient = 4
	// DefaultMaxTablesPerAddr is the live games opened from one IP address.
	DefaultMaxTablesPerAddr = 16
	// DefaultMaxConnsPerAddr is the page connections from one IP address,
	// loopback included: more tabs than a person keeps open, and 8
	// addresses are needed to fill DefaultMaxConns.
	DefaultMaxConnsPerAddr = 32
	// DefaultMaxHintsPerClient is the hints one connection may have in
	// flight (queued or being worked out).
	DefaultMaxHintsPerClient = 1
	// DefaultMaxHints is the hints in flight in all, queued or being
	// worked out: beyond it a hint is refused (limit_exceeded).
	DefaultMaxHints = 8
	// DefaultHintTimeout bounds one hint's search: an agent that can be
	// cancelled ([agents.Cancellable]) answers with its best so far.
	DefaultHintTimeout = 10 * time.Second
	// DefaultCPUShare is the share of the machine (GOMAXPROCS cores) that
	// page work (agent moves, hints, views, recordings) may use.
	DefaultCPUShare = 0.15
	// DefaultLinger is how long a table nobody watches and nobody sits at
	// is kept (its agents stopped) for a page that reloads, before it ends.
	DefaultLinger = time.Minute
	// DefaultRecordGamesPerHour and DefaultRecordBytesPerHour bound the
	// recordings of the games opened from one IP address in any hour.
	DefaultRecordGamesPerHour = 60
	DefaultRecordBytesPerHour = 64 << 20
	// DefaultRecordMaxBytes bounds the size of everything under --record.
	DefaultRecordMaxBytes = 1 << 30
)

// DefaultWorkers is the default of [Limits.Workers]: a quarter of
// GOMAXPROCS, at least 1.
func DefaultWorkers() int { return max(1, runtime.GOMAXPROCS(0)/4) }

// Limits are the budgets that no page can exceed, whatever it sends (zero
// fields take their defaults; a negative Record field means no limit). A
// refused request gets the error code limit_exceeded with the limit in its
// message; a connection over MaxConnsPerAddr gets HTTP 429; a game over a
// recording budget is not recorded ([RecordError] in its status).
type Limits struct {
	// MaxTablesPerClient and MaxTablesPerAddr bound the live games opened
	// by one connection and from one IP address (loopback included).
	MaxTablesPerClient int
	MaxTablesPerAddr   int
	// MaxConnsPerAddr bounds the page connections from one IP address,
	// loopback included (Config.MaxConns bounds them in all).
	MaxConnsPerAddr int
	// MaxHintsPerClient and MaxHints bound the hints in flight, per
	// connection and in all (queued or being worked out).
	MaxHintsPerClient int
	MaxHints          int
	// HintTimeout bounds one hint's search.
	HintTimeout time.Duration
	// Workers is the number of goroutines that run page work: agent moves
	// with the views they draw, and recordings; as many again work out
	// hints. Default DefaultWorkers().
	Workers int
	// CPUShare is the share of the machine (0 < CPUShare <= 1 of GOMAXPROCS
	// cores) that page work may use, measured over the work's wall time:
	// when it used more, the next piece of work waits. It keeps the page
	// from taking the cores the training protocol needs.
	CPUShare float64
	// Linger is how long a table nobody watches and nobody sits at stays
	// (its agents stopped) before it ends.
	Linger time.Duration
	// RecordGamesPerHour and RecordBytesPerHour bound the recordings of
	// the games opened from one IP address in the last hour;
	// RecordMaxBytes bounds everything under Config.RecordDir. A game
	// over a limit is not recorded (its status says why).
	RecordGamesPerHour int
	RecordBytesPerHour int64
	RecordMaxBytes     int64
}

// setDefaults fills the zero fields; it returns a *ConfigError for a
// CPUShare outside [0, 1].
func (l *Limits) setDefaults() error {
	if l.CPUShare < 0 || l.CPUShare > 1 {
		return &ConfigError{Reason: fmt.Sprintf("--page-cpu-share %g is not within (0, 1]", l.CPUShare)}
	}
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.MaxTablesPerClient, DefaultMaxTablesPerClient)
	def(&l.MaxTablesPerAddr, DefaultMaxTablesPerAddr)
	def(&l.MaxConnsPerAddr, DefaultMaxConnsPerAddr)
	def(&l.MaxHintsPerClient, DefaultMaxHintsPerClient)
	def(&l.MaxHints, DefaultMaxHints)
	def(&l.Workers, DefaultWorkers())
	if l.HintTimeout <= 0 {
		l.HintTimeout = DefaultHintTimeout
	}
	if l.CPUShare == 0 {
		l.CPUShare = DefaultCPUShare
	}
	if l.RecordGamesPerHour == 0 {
		l.RecordGamesPerHour = DefaultRecordGamesPerHour
	}
	if l.Linger <= 0 {
		l.Linger = DefaultLinger
	}
	if l.RecordBytesPerHour == 0 {
		l.RecordBytesPerHour = DefaultRecordBytesPerHour
	}
	if l.RecordMaxBytes == 0 {
		l.RecordMaxBytes = DefaultRecordMaxBytes
	}
	return nil
}

// pageClient is what the handler keeps about one page connection: its
// address, the work it started and the budget it uses.
type pageClient struct {
	addr   string
	ctx    context.Context // done once the connection dropped
	cancel context.CancelFunc
	work   sync.WaitGroup // its hints in flight
	tables int            // live tables it opened (budget.mu)
	hints  int            // hints in flight (budget.mu)
}

// budget counts what each client and address uses.
type budget struct {
	mu      sync.Mutex
	clients map[*conn]*pageClient
	conns   map[string]int // open page connections per address
	tables  map[string]int // live tables per address
	hints   int            // hints in flight in all
	rec     map[string][]recUse
	recSize int64 // bytes under RecordDir
}

// recUse is one recording charged to an address.
type recUse struct {
	at    time.Time
	bytes int64
}

func newBudget() *budget {
	return &budget{clients: map[*conn]*pageClient{}, conns: map[string]int{}, tables: map[string]int{}, rec: map[string][]recUse{}}
}

// remoteAddr is the IP address of r's client.
func remoteAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// admit counts a new connection from addr, or says why it is refused.
func (h *Handler) admit(addr string) error {
	b := h.budget
	b.mu.Lock()
	defer b.mu.Unlock()
	if n := b.conns[addr]; n >= h.cfg.Limits.MaxConnsPerAddr {
		return &RequestError{Code: "limit_exceeded", Message: fmt.Sprintf("%d page connections are open from %s, the most one address may open", n, addr)}
	}
	b.conns[addr]++
	return nil
}

// release uncounts a connection from addr.
func (h *Handler) release(addr string) {
	b := h.budget
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.conns[addr]--; b.conns[addr] <= 0 {
		delete(b.conns, addr)
	}
}

func (h *Handler) clientOf(c *conn) *pageClient {
	b := h.budget
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.clients[c]
}

// chargeTable counts a new table of cl, or says which limit it exceeds.
func (h *Handler) chargeTable(cl *pageClient) error {
	b := h.budget
	b.mu.Lock()
	defer b.mu.Unlock()
	lim := h.cfg.Limits
	if cl.tables >= lim.MaxTablesPerClient {
		return &RequestError{Code: "limit_exceeded", Message: fmt.Sprintf("this page has %d games open, the most one connection may open: close one (leave it) first", cl.tables)}
	}
	if n := b.tables[cl.addr]; n >= lim.MaxTablesPerAddr {
		return &RequestError{Code: "limit_exceeded", Message: fmt.Sprintf("%d games are open from %s, the most one address may open", n, cl.addr)}
	}
	cl.tables++
	b.tables[cl.addr]++
	return nil
}

// unchargeTable gives back a table's place in cl's budget.
func (h *Handler) unchargeTable(cl *pageClient) {
	b := h.budget
	b.mu.Lock()
	defer b.mu.Unlock()
	cl.tables--
	if b.tables[cl.addr]--; b.tables[cl.addr] <= 0 {
		delete(b.tables, cl.addr)
	}
}

// tableBudget is a table's part of the budgets: who opened it, when a
// person last did something there, and the agent move in progress.
type tableBudget struct {
	owner     *pageClient
	active    atomic.Int64 // unix nanoseconds of a person's last request about the table
	abandoned atomic.Int64 // unix nanoseconds since which nobody watches or sits; 0 while someone does
	stopped   chan struct{}
	ended     sync.Once

	mu         sync.Mutex
	moveCancel context.CancelFunc // cancels the agent move in progress
	moveDone   chan struct{}      // closed when it is over
	// The views of the position after viewsAt moves, by seat (t.mu).
	views     map[int][]byte
	viewsAt   int
	viewsDone bool
}

// viewsDrawn counts the views drawn (the tests read it).
var viewsDrawn atomic.Int64

func (b *tableBudget) touch() { b.active.Store(time.Now().UnixNano()) }

// abandonedLocked reports whether nobody watches the table and nobody sits
// at it (t.mu held).
func (t *table) abandonedLocked() bool {
	if len(t.watch) > 0 {
		return false
	}
	for _, p := range t.holder {
		// A person counts while connected or within the grace period;
		// once an agent took the seat after the grace, the seat alone keeps
		// no work going.
		if p != nil && (len(p.conns) > 0 || p.away != nil) {
			return false
		}
	}
	return true
}

// stopMove cancels the agent move in progress, if any, and waits until
// it is over.
func (t *table) stopMove() {
	t.b.mu.Lock()
	cancel, done := t.b.moveCancel, t.b.moveDone
	t.b.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

// settle is called for every table once a connection left it: a table
// that nobody watches and nobody sits at stops its agents at once (the
// move in progress is cancelled and waited for) and ends after Linger, or
// at once when it is over.
func (h *Handler) settle(t *table) {
	t.mu.Lock()
	gone := t.abandonedLocked()
	if gone && t.b.abandoned.Load() == 0 {
		t.b.abandoned.Store(time.Now().UnixNano())
	}
	over := t.done
	t.mu.Unlock()
	if !gone {
		return
	}
	t.stopMove()
	if over {
		h.endTable(t)
	}
}

// endTable stops t, waits for its goroutine and forgets it, freeing its
// place in its owner's budget.
func (h *Handler) endTable(t *table) {
	h.mu.Lock()
	if h.tables[t.id] == t {
		delete(h.tables, t.id)
	}
	h.mu.Unlock()
	if t.cancel != nil {
		t.cancel()
	}
	if t.b.stopped != nil {
		<-t.b.stopped
	}
	t.b.ended.Do(func() {
		if t.b.owner != nil {
			h.unchargeTable(t.b.owner)
		}
	})
}

// evictAbandoned ends the table that nobody has watched or sat at for
// the longest (its agents are stopped: it only waits for a page that
// reloads), among those opened from addr ("" any); it reports whether
// there was one.
func (h *Handler) evictAbandoned(addr string) bool {
	var oldest *table
	var since int64
	h.mu.Lock()
	for _, t := range h.tables {
		if addr != "" && (t.b.owner == nil || t.b.owner.addr != addr) {
			continue
		}
		t.mu.Lock()
		at := t.b.abandoned.Load()
		if at != 0 && t.abandonedLocked() && (oldest == nil || at < since) {
			oldest, since = t, at
		}
		t.mu.Unlock()
	}
	if oldest != nil {
		delete(h.tables, oldest.id) // no other request picks it too
	}
	h.mu.Unlock()
	if oldest == nil {
		return false
	}
	h.endTable(oldest)
	return true
}

// startHint counts a hint of cl in flight, or says which limit it exceeds.
func (h *Handler) startHint(cl *pageClient) error {
	b := h.budget
	b.mu.Lock()
	defer b.mu.Unlock()
	lim := h.cfg.Limits
	if cl.hints >= lim.MaxHintsPerClient {
		return &RequestError{Code: "limit_exceeded", Message: fmt.Sprintf("%d hint(s) of this page are being worked out, the most one connection may ask at once: wait for the answer", cl.hints)}
	}
	if b.hints >= lim.MaxHints {
		return &RequestError{Code: "limit_exceeded", Message: fmt.Sprintf("%d hints are being worked out, the most this server queues: try again shortly", b.hints)}
	}
	cl.hints++
	b.hints++
	cl.work.Add(1)
	return nil
}

func (h *Handler) endHint(cl *pageClient) {
	b := h.budget
	b.mu.Lock()
	cl.hints--
	b.hints--
	b.mu.Unlock()
	cl.work.Done()
}
