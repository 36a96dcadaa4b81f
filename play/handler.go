package play

import (
	"context"
	crand "crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/datasets"
	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/server/wsconn"
)

//go:embed static
var staticFiles embed.FS

// Defaults of [Config].
const (
	DefaultReadLimit   = 64 << 10
	DefaultIdleTimeout = 30 * time.Minute
	DefaultMaxTables   = 64
	DefaultMaxConns    = 256
	// DefaultSeatGrace is how long a seat whose person dropped stays
	// theirs; DefaultGraceAgent is the agent that then takes it.
	DefaultSeatGrace  = 2 * time.Minute
	DefaultGraceAgent = "heuristic"
)

// Config is the page backend's configuration. The protections mirror the
// training protocol's (docs/security.md): Token, AllowedHosts and
// AllowedOrigins mean what they mean in server.Config.
type Config struct {
	// Datasets are the dataset folders served read-only for replays: each
	// is a dataset (it holds manifest.json) or a folder of datasets (one
	// level down). No other file is ever read.
	Datasets []string
	// RecordDir, when set, is where games with a person seated are written
	// as datasets (one folder per game); it is served for replays too.
	RecordDir string
	// RecordObservations is how recordings store observations: "" or
	// datasets.ObsStored (the default) with them, datasets.ObsNone as
	// compact datasets (docs/datasets.md, "Compact datasets"), which the
	// page replays as well.
	RecordObservations datasets.Observations
	// WeightsDir holds the policy weights offered for the policy agent:
	// files named <env id>-*.npz play that environment (resolved as the
	// training protocol resolves its opponents' weights:
	// [agents.Limits.ResolveWeights]; a link leaving the folder is not
	// offered).
	WeightsDir string
	// MaxAgentSims and MaxAgentTime cap mcts in agent seats and hints
	// ([agents.Limits]; galaxygym serve --max-agent-sims, --max-agent-time,
	// shared with the training protocol's opponents); defaults
	// agents.DefaultMaxMCTSSims (1024) and agents.DefaultMaxMCTSTime (2 s).
	MaxAgentSims int
	MaxAgentTime time.Duration
	// Token, when set, must be given as the websocket's token query
	// parameter (the page asks for it once).
	Token string
	// AllowedHosts: without a token, Host names accepted besides loopback.
	AllowedHosts []string
	// AllowedOrigins: browser origins accepted besides the same host.
	AllowedOrigins []string
	// ReadLimit is the largest message from a page, in bytes (default
	// 64 KiB); a larger one is closed with 1009.
	ReadLimit int64
	// Websocket holds the page's websocket timeouts: ping interval, pong
	// timeout (a page silent this long, no message and no pong, is
	// dropped), write timeout and handshake timeout. They are the training
	// protocol's: serve sets them to server.Config.Websocket, and
	// [Handler.ListenAndServe] refuses a server whose settings differ.
	// Zero fields take wsconn's defaults, which are server.Config's; its
	// ReadLimit and buffer sizes are ignored (ReadLimit above is the
	// page's).
	Websocket wsconn.Settings
	// IdleTimeout closes a connection that sent nothing this long, and
	// ends a table at which nothing happened this long.
	IdleTimeout time.Duration
	// MaxTables and MaxConns bound the live games and the connections.
	MaxTables int
	MaxConns  int
	// SeatGrace is how long a human seat whose person has no connection
	// open stays theirs (the game waits for their moves; they come back
	// by joining with the seat's secret); default DefaultSeatGrace.
	SeatGrace time.Duration
	// GraceAgent takes a seat whose person stayed away longer than
	// SeatGrace: an agent name (default DefaultGraceAgent, the game's
	// heuristic), or GraceClose to close the table instead, as it is
	// closed where the agent does not play the game. The seat is never
	// offered to another person.
	GraceAgent string
	// Limits are the budgets of each page and address, and of the page's
	// work as a whole ([Limits]; zero fields take their defaults).
	Limits Limits
	// Logger receives events; nil discards them.
	Logger *slog.Logger
	// Training is the training server served beside the page, whose
	// sessions a page may watch with their watch keys (op
	// watch_training); nil: none ([server.Server] is one).
	Training Training
}

// Handler serves the page at / (requests that are not websocket upgrades),
// its files under /play/static/ and its websocket at /play/ws. Create it
// with [New]; mount it with [Mount].
type Handler struct {
	cfg      Config
	ws       wsconn.Settings // the page's websocket settings (cfg's, defaults filled)
	upgrader websocket.Upgrader
	static   http.Handler
	weights  map[string][]string // env id -> the weights files offered ([agents.Limits.WeightsFor])

	mu     sync.Mutex
	tables map[string]*table
	conns  map[*conn]struct{}
	closed bool
	ctx    context.Context
	cancel context.CancelFunc
	seq    int

	replays *replayCache
	budget  *budget
	pool    *pool
	index   *datasetIndex
}

// New returns a page backend with cfg (zero fields take their defaults),
// or a *ConfigError when a dataset or record folder is unusable.
func New(cfg Config) (*Handler, error) {
	if cfg.ReadLimit <= 0 {
		cfg.ReadLimit = DefaultReadLimit
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.MaxTables <= 0 {
		cfg.MaxTables = DefaultMaxTables
	}
	if cfg.MaxConns <= 0 {
		cfg.MaxConns = DefaultMaxConns
	}
	if cfg.MaxAgentSims <= 0 {
		cfg.MaxAgentSims = agents.DefaultMaxMCTSSims
	}
	if cfg.MaxAgentTime <= 0 {
		cfg.MaxAgentTime = agents.DefaultMaxMCTSTime
	}
	if cfg.SeatGrace <= 0 {
		cfg.SeatGrace = DefaultSeatGrace
	}
	if cfg.GraceAgent == "" {
		cfg.GraceAgent = DefaultGraceAgent
	}
	if cfg.GraceAgent != GraceClose && (cfg.GraceAgent == Human || !slices.Contains(agents.Names(), cfg.GraceAgent)) {
		return nil, &ConfigError{Reason: fmt.Sprintf("--seat-grace-agent %q is not an agent (%v) nor %q", cfg.GraceAgent, agents.Names(), GraceClose)}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if err := cfg.Limits.setDefaults(); err != nil {
		return nil, err
	}
	for _, d := range cfg.Datasets {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			return nil, &ConfigError{Reason: fmt.Sprintf("--datasets %s is not a folder", d)}
		}
	}
	if cfg.RecordDir != "" {
		if err := os.MkdirAll(cfg.RecordDir, 0o755); err != nil {
			return nil, &ConfigError{Reason: fmt.Sprintf("--record %s: %v", cfg.RecordDir, err)}
		}
	}
	sub, _ := fs.Sub(staticFiles, "static")
	h := &Handler{cfg: cfg, static: http.StripPrefix("/play/static/", http.FileServerFS(sub)),
		tables: map[string]*table{}, conns: map[*conn]struct{}{}, weights: map[string][]string{},
		replays: newReplayCache(), budget: newBudget()}
	h.ctx, h.cancel = context.WithCancel(context.Background())
	h.pool = newPool(h.ctx, cfg.Limits.Workers, cfg.Limits.CPUShare)
	h.index = h.buildIndex()
	h.ws = wsconn.Settings{ReadLimit: cfg.ReadLimit, PingInterval: cfg.Websocket.PingInterval, PongTimeout: cfg.Websocket.PongTimeout,
		WriteTimeout: cfg.Websocket.WriteTimeout, HandshakeTimeout: cfg.Websocket.HandshakeTimeout}.WithDefaults()
	h.upgrader = wsconn.Upgrader(h.ws, h.checkOrigin, nil)
	for _, id := range env.IDs() {
		h.weights[id] = h.limits().WeightsFor(id)
	}
	go h.reap()
	return h, nil
}

// Mount returns the handler of the shared port: websocket upgrades at /
// and everything else but the page's paths go to training (the training
// protocol's handler); GET / without an upgrade and /play/... go to page.
func Mount(training http.Handler, page *Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" && !websocket.IsWebSocketUpgrade(r) || strings.HasPrefix(r.URL.Path, "/play/") {
			page.ServeHTTP(w, r)
			return
		}
		training.ServeHTTP(w, r)
	})
}

// Close ends every table and connection.
func (h *Handler) Close() {
	h.mu.Lock()
	h.closed = true
	conns := make([]*conn, 0, len(h.conns))
	for c := range h.conns {
		conns = append(conns, c)
	}
	h.mu.Unlock()
	h.cancel()
	for _, c := range conns {
		c.close(websocket.CloseGoingAway, "play: shutting down")
	}
}

// ServeHTTP serves the page, its files and its websocket after the Host
// check.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.hostAllowed(r) {
		http.Error(w, fmt.Sprintf("play: Host %q is not a loopback name; a server without a token answers only "+
			"localhost, 127.0.0.1 and ::1 (and the names given with --allow-host)", r.Host), http.StatusForbidden)
		return
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "no-referrer")
	switch {
	case r.URL.Path == "/" || r.URL.Path == "/play/":
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.Error(w, "play: GET only", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; connect-src 'self' ws: wss:; frame-ancestors 'none'")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		b, _ := staticFiles.ReadFile("static/index.html")
		_, _ = w.Write(b)
	case r.URL.Path == "/play/ws":
		h.serveWS(w, r)
	case strings.HasPrefix(r.URL.Path, "/play/static/"):
		h.static.ServeHTTP(w, r)
	default:
		http.NotFound(w, r)
	}
}

func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// hostAllowed is the training protocol's rule: any Host with a token;
// otherwise loopback names and AllowedHosts.
func (h *Handler) hostAllowed(r *http.Request) bool {
	if h.cfg.Token != "" {
		return true
	}
	host := r.Host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		host = hh
	}
	if loopbackHost(host) {
		return true
	}
	for _, a := range h.cfg.AllowedHosts {
		if a == "*" || strings.EqualFold(a, host) {
			return true
		}
	}
	return false
}

// checkOrigin allows no Origin, a same-host one, and AllowedOrigins.
func (h *Handler) checkOrigin(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	for _, o := range h.cfg.AllowedOrigins {
		if o == "*" || strings.EqualFold(o, origin) {
			return true
		}
	}
	u, err := url.Parse(origin)
	return err == nil && strings.EqualFold(u.Host, r.Host)
}

func (h *Handler) authorized(r *http.Request) bool {
	if h.cfg.Token == "" {
		return true
	}
	got := r.URL.Query().Get("token")
	return subtle.ConstantTimeCompare([]byte(got), []byte(h.cfg.Token)) == 1
}

func (h *Handler) newSeed() uint64 {
	var b [8]byte
	_, _ = crand.Read(b[:])
	s := binary.LittleEndian.Uint64(b[:]) >> 1
	if s == 0 {
		s = 1
	}
	return s
}

// reap ends connections that sent nothing for IdleTimeout, tables at
// which no person did anything for IdleTimeout (agents' moves do not
// count), tables nobody watched or sat at for Linger, and finished tables
// nobody watches.
func (h *Handler) reap() {
	tick := time.NewTicker(max(min(h.cfg.IdleTimeout/4, h.cfg.Limits.Linger/4, time.Minute), 10*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-h.ctx.Done():
			return
		case <-tick.C:
		}
		now := time.Now()
		h.mu.Lock()
		var idle []*conn
		for c := range h.conns {
			if now.Sub(c.lastSeen()) > h.cfg.IdleTimeout {
				idle = append(idle, c)
			}
		}
		var stale []*table
		for _, t := range h.tables {
			if h.staleAt(t, now) {
				stale = append(stale, t)
			}
		}
		h.mu.Unlock()
		for _, t := range stale {
			// An agent that cannot be cancelled may take a while to
			// stop: the other tables are not kept waiting.
			h.mu.Lock()
			delete(h.tables, t.id)
			h.mu.Unlock()
			go h.endTable(t)
		}
		for _, c := range idle {
			c.close(websocket.ClosePolicyViolation, "play: idle timeout")
		}
	}
}

// staleAt reports whether t should end at now (see reap).
func (h *Handler) staleAt(t *table, now time.Time) bool {
	if now.Sub(time.Unix(0, t.b.active.Load())) > h.cfg.IdleTimeout {
		return true
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.abandonedLocked() {
		t.b.abandoned.Store(0)
		return false
	}
	since := t.b.abandoned.Load()
	if since == 0 {
		t.b.abandoned.Store(now.UnixNano())
		return t.done
	}
	return t.done || now.Sub(time.Unix(0, since)) > h.cfg.Limits.Linger
}

// envInfo describes an environment to the page.
type envInfo struct {
	ID          string           `json:"id"`
	Description string           `json:"description"`
	MinPlayers  int              `json:"min_players"`
	MaxPlayers  int              `json:"max_players"`
	Params      []*env.ParamSpec `json:"params"`
	Agents      []string         `json:"agents"`
	Weights     []string         `json:"weights"`
	Humans      bool             `json:"humans"` // a person may take a seat (the game has a determinizer)
	// Hints are the agents that can give a seated person hints (Lineup.Hint):
	// every agent but random and policy (which needs a weights file); those
	// that show their thoughts ([agents.Explainer]) give numbers too.
	Hints []string `json:"hints"`
	// HowToPlay is the game's rules in plain words (env.Presenter), for the
	// page's rules panel; "" for a game that does not present itself.
	HowToPlay string `json:"how_to_play,omitempty"`
	// Presents says the game presents itself: the page draws its board
	// from the views' scenes (View.Scene).
	Presents bool `json:"presents"`
}

func (h *Handler) envList() []envInfo {
	var out []envInfo
	for _, id := range env.IDs() {
		g, err := env.Lookup(id)
		if err != nil {
			continue
		}
		sp := g.Spec()
		_, det := g.(env.Determinizer)
		in := envInfo{ID: id, Description: sp.Description, MinPlayers: max(sp.MinPlayers, 1), MaxPlayers: max(sp.MaxPlayers, sp.NumPlayers),
			Humans: det, Weights: h.weightNames(id)}
		if p, ok := g.(env.Presenter); ok {
			in.HowToPlay, in.Presents = p.HowToPlay(), true
		}
		if in.MinPlayers == 0 || sp.MinPlayers == 0 {
			in.MinPlayers = sp.NumPlayers
		}
		for i := range sp.Params {
			in.Params = append(in.Params, &sp.Params[i])
		}
		for _, name := range agents.Names() {
			if name == Human || !agents.Plays(name, sp) {
				continue
			}
			if name == "policy" && len(in.Weights) == 0 {
				continue
			}
			in.Agents = append(in.Agents, name)
			if det && name != "policy" && name != "random" {
				in.Hints = append(in.Hints, name)
			}
		}
		out = append(out, in)
	}
	return out
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// addTable registers t, opened by c, under a fresh id and starts its
// agents; it refuses a table over c's or its address's budget, or over
// MaxTables.
func (h *Handler) addTable(c *conn, t *table) error {
	cl := h.clientOf(c)
	if cl == nil {
		return &RequestError{Code: "shutting_down", Message: "the connection is closing"}
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return &RequestError{Code: "shutting_down", Message: "the server is shutting down"}
	}
	var done []*table
	if len(h.tables) >= h.cfg.MaxTables {
		// Finished tables make room first (their watchers have seen the
		// end).
		for _, o := range h.tables {
			o.mu.Lock()
			gone := o.done
			o.mu.Unlock()
			if gone {
				done = append(done, o)
			}
		}
	}
	h.mu.Unlock()
	for _, o := range done {
		h.endTable(o)
	}
	h.mu.Lock()
	full := len(h.tables) >= h.cfg.MaxTables
	h.mu.Unlock()
	if full {
		h.evictAbandoned("") // a table nobody is at makes room next
	}
	if err := h.chargeTable(cl); err != nil {
		// The address's own tables that nobody is at make room for it.
		if !h.evictAbandoned(cl.addr) {
			return err
		}
		if err := h.chargeTable(cl); err != nil {
			return err
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.tables) >= h.cfg.MaxTables || h.closed {
		h.unchargeTable(cl)
		if h.closed {
			return &RequestError{Code: "shutting_down", Message: "the server is shutting down"}
		}
		return &RequestError{Code: "limit_exceeded", Message: fmt.Sprintf("%d games are running, the most this server holds", h.cfg.MaxTables)}
	}
	h.seq++
	var b [6]byte
	_, _ = crand.Read(b[:])
	t.id = strconv.Itoa(h.seq) + "-" + fmt.Sprintf("%x", b)
	var ctx context.Context
	ctx, t.cancel = context.WithCancel(h.ctx)
	t.b.owner = cl
	t.b.touch()
	t.b.stopped = make(chan struct{})
	h.tables[t.id] = t
	go func() {
		defer close(t.b.stopped)
		t.run(ctx)
		// A finished game no longer counts against its owner's budget.
		t.b.ended.Do(func() { h.unchargeTable(cl) })
	}()
	return nil
}

func (h *Handler) table(id string) (*table, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	t, ok := h.tables[id]
	if !ok {
		return nil, &RequestError{Code: "unknown_table", Message: fmt.Sprintf("no game %q on this server (it ended, or the server restarted)", id)}
	}
	t.b.touch() // a person's request about the table: it is not idle
	return t, nil
}

func (h *Handler) serveWS(w http.ResponseWriter, r *http.Request) {
	if !websocket.IsWebSocketUpgrade(r) {
		http.Error(w, "play: connect with a websocket", http.StatusUpgradeRequired)
		return
	}
	if !h.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="galaxygym"`)
		http.Error(w, "play: missing or wrong token", http.StatusUnauthorized)
		return
	}
	h.mu.Lock()
	full := len(h.conns) >= h.cfg.MaxConns || h.closed
	h.mu.Unlock()
	if full {
		http.Error(w, "play: too many connections", http.StatusServiceUnavailable)
		return
	}
	addr := remoteAddr(r)
	if err := h.admit(addr); err != nil {
		http.Error(w, err.Error(), http.StatusTooManyRequests)
		return
	}
	// The address's place is given back only once the connection's work
	// (its hints, the moves of the tables only it was at) has stopped.
	defer h.release(addr)
	ws, err := h.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	c := newConn(h, ws)
	cl := &pageClient{addr: addr}
	cl.ctx, cl.cancel = context.WithCancel(h.ctx)
	h.budget.mu.Lock()
	h.budget.clients[c] = cl
	h.budget.mu.Unlock()
	h.mu.Lock()
	h.conns[c] = struct{}{}
	h.mu.Unlock()
	c.serve()
	cl.cancel() // its hints stop
	h.mu.Lock()
	delete(h.conns, c)
	tables := make([]*table, 0, len(h.tables))
	for _, t := range h.tables {
		tables = append(tables, t)
	}
	h.mu.Unlock()
	for _, t := range tables {
		t.leave(c)
		h.settle(t)
	}
	cl.work.Wait()
	h.budget.mu.Lock()
	delete(h.budget.clients, c)
	h.budget.mu.Unlock()
}

// leave stops c's watching and forgets it as a person's connection: a
// seat it held stays its person's for the grace period (dropLocked).
func (t *table) leave(c *conn) {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, watching := t.watch[c]
	delete(t.watch, c)
	if t.dropLocked(c) || watching {
		t.broadcastLocked()
	}
}

// ---- errors

// ConfigError reports an unusable configuration.
type ConfigError struct{ Reason string }

func (e *ConfigError) Error() string { return "play: bad config: " + e.Reason }

// RequestError is a refused request from a page: Code is stable
// (docs/protocol.md, "The page's protocol"), Message says why in words.
type RequestError struct {
	Code    string
	Message string
}

func (e *RequestError) Error() string { return "play: " + e.Code + ": " + e.Message }

// ViewError reports a view that cannot be drawn.
type ViewError struct{ Env, Reason string }

func (e *ViewError) Error() string { return "play: view of " + e.Env + ": " + e.Reason }
