package server

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/gorilla/websocket"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/server/wsconn"
)

// Server serves the galaxygym websocket protocol (docs/protocol.md) on "/",
// plus /healthz, /metrics and optionally /echo. Create it with [New]; it is
// safe for concurrent use.
type Server struct {
	cfg      Config
	ws       wsconn.Settings // the sessions' websocket settings (cfg's)
	upgrader websocket.Upgrader
	handler  http.Handler
	reg      *prometheus.Registry
	m        *metrics
	pool     *pool

	mu       sync.Mutex
	sessions map[*session]struct{}
	perAddr  map[string]int // sessions per client IP (limited ones only)
	// watchable maps a session's watch id to it, from its first watch_key
	// until it ends (watch.go).
	watchable map[string]*session
	closing   bool
	http      *http.Server
	wg        sync.WaitGroup // session goroutines
	running   atomic.Int64   // sessions whose handler has not returned (wg's count)
	inFlight  atomic.Int64   // messages being handled (galaxygym_requests_in_flight)

	seedMu sync.Mutex
	seeds  *mrand.ChaCha8

	// stepHook, set by tests before any session starts, runs in every
	// step while the session lock is held (the step is in flight).
	stepHook func()
}

// New returns a server with cfg (zero fields take their defaults), or a
// [*ConfigError].
func New(cfg Config) (*Server, error) {
	if err := cfg.fill(); err != nil {
		return nil, err
	}
	var key [32]byte
	_, _ = rand.Read(key[:])
	s := &Server{
		cfg:      cfg,
		reg:      prometheus.NewRegistry(),
		sessions: map[*session]struct{}{},
		perAddr:  map[string]int{},
		seeds:    mrand.NewChaCha8(key),
		pool:     newPool(cfg.Workers - 1),
	}
	s.m = newMetrics(s.reg)
	s.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "galaxygym_requests_in_flight",
		Help: "Messages being handled (a step with opponents may search), sessions whose client has left included.",
	}, func() float64 { return float64(s.inFlight.Load()) }))
	s.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	ws := cfg.Websocket()
	ws.ReadLimit, ws.ReadBufferSize, ws.WriteBufferSize = cfg.ReadLimit, 16<<10, 64<<10
	s.ws = ws.WithDefaults()
	s.upgrader = wsconn.Upgrader(s.ws, s.checkOrigin, func(w http.ResponseWriter, r *http.Request, status int, reason error) {
		s.m.errors.WithLabelValues("upgrade").Inc()
		http.Error(w, "server: "+reason.Error(), status)
	})
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", s.serveWS)
	mux.HandleFunc("/healthz", s.serveHealth)
	mux.Handle("/metrics", s.auth(promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{Registry: s.reg})))
	if cfg.Echo {
		mux.HandleFunc("/echo", s.serveEcho)
	}
	s.handler = s.checkHost(mux)
	return s, nil
}

// Config returns the server's configuration with defaults filled in.
func (s *Server) Config() Config { return s.cfg }

// Handler returns the server's HTTP handler, for use with an http.Server or
// httptest; [Server.Shutdown] still closes its sessions.
func (s *Server) Handler() http.Handler { return s.handler }

// Registry returns the Prometheus registry /metrics serves.
func (s *Server) Registry() *prometheus.Registry { return s.reg }

// ListenAndServe listens on the TCP address addr and serves until
// [Server.Shutdown]; it then returns http.ErrServerClosed. ready, when not
// nil, is called with the bound address once listening (addr may use port
// 0).
func (s *Server) ListenAndServe(addr string, ready func(net.Addr)) error {
	return s.ListenAndServeHandler(addr, s.handler, ready)
}

// ListenAndServeHandler is [Server.ListenAndServe] serving h instead of
// the server's own handler, with the same HTTP limits (see
// [Server.ServeHandler]): h is the server's handler with other paths
// mounted beside it (play.Mount). It refuses a non-loopback addr without a
// token as [Server.Serve] does, before calling ready.
func (s *Server) ListenAndServeHandler(addr string, h http.Handler, ready func(net.Addr)) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("server: listen: %w", err)
	}
	if err := s.checkListener(l); err != nil {
		return err
	}
	if ready != nil {
		ready(l.Addr())
	}
	return s.ServeHandler(l, h)
}

// checkListener refuses (closing l) a TCP listener on a non-loopback
// address when the server has no token and AllowRemoteWithoutToken is not
// set.
func (s *Server) checkListener(l net.Listener) error {
	if a, ok := l.Addr().(*net.TCPAddr); ok && !a.IP.IsLoopback() && s.cfg.Token == "" && !s.cfg.AllowRemoteWithoutToken {
		l.Close()
		return &ConfigError{fmt.Sprintf("refusing to listen on %s, which is not a loopback address, without a token: "+
			"set a token (--token or $GALAXYGYM_TOKEN), or say --allow-remote-without-token to serve anyone who can reach it", a)}
	}
	return nil
}

// Serve serves the server's handler on connections accepted from l until
// [Server.Shutdown]: [Server.ServeHandler] with [Server.Handler].
func (s *Server) Serve(l net.Listener) error { return s.ServeHandler(l, s.handler) }

// ServeHandler serves h on connections accepted from l until
// [Server.Shutdown], through the one HTTP server configuration of the
// module, which every face of the port gets (the training protocol, the
// page): at most MaxConnsPerAddr open connections per client IP (one more
// is closed as soon as it is accepted; loopback exempt unless
// LimitLoopback), HandshakeTimeout to read a request's header and the
// whole request, WriteTimeout to write a response, KeepAliveTimeout
// between two requests of a keep-alive connection, and errors logged to
// the config's Logger at level warn. A connection upgraded to a websocket
// leaves these timeouts behind: its [wsconn.Conn] sets its own deadlines.
// ServeHandler refuses ([*ConfigError], l closed) a TCP listener on a
// non-loopback address when the server has no Token, unless
// AllowRemoteWithoutToken is set; after Shutdown it returns
// http.ErrServerClosed.
func (s *Server) ServeHandler(l net.Listener, h http.Handler) error {
	if err := s.checkListener(l); err != nil {
		return err
	}
	hs := s.httpServer(h)
	l = s.limitConns(l)
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		l.Close()
		return http.ErrServerClosed
	}
	s.http = hs
	s.mu.Unlock()
	return hs.Serve(l)
}

// httpServer returns the HTTP server of h with the config's timeouts.
// They bound what an HTTP connection can hold before it is a websocket
// (which sets its own deadlines once upgraded): its request header and
// request, a response, and a keep-alive wait between requests (/healthz
// and the page need no token, so without IdleTimeout anyone could hold
// idle connections forever).
func (s *Server) httpServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: s.cfg.HandshakeTimeout,
		ReadTimeout:       s.cfg.HandshakeTimeout,
		WriteTimeout:      s.cfg.WriteTimeout,
		IdleTimeout:       s.cfg.KeepAliveTimeout,
		ErrorLog:          slog.NewLogLogger(s.cfg.Logger.Handler(), slog.LevelWarn),
	}
}

// Shutdown stops accepting connections, lets every step in flight finish
// and its reply go out (a step with opponents is cancelled instead: its
// searches stop and it answers [CodeCancelled]), then closes every session
// with 1001 (going away) and waits for them to end, or until ctx is done,
// when it drops the rest. It returns ctx's error in that case.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closing = true
	hs := s.http
	list := make([]*session, 0, len(s.sessions))
	for ss := range s.sessions {
		list = append(list, ss)
	}
	s.mu.Unlock()
	var herr error
	if hs != nil {
		herr = hs.Shutdown(ctx)
	}
	for _, ss := range list {
		go ss.goAway(websocket.CloseGoingAway, "server: shutting down")
	}
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = ctx.Err()
		s.mu.Lock()
		for ss := range s.sessions {
			ss.ws.Close()
		}
		s.mu.Unlock()
	}
	s.pool.stop()
	if err == nil && herr != nil && !errors.Is(herr, http.ErrServerClosed) {
		err = herr
	}
	return err
}

// Sessions returns the number of open sessions.
func (s *Server) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions)
}

func (s *Server) newSeed() uint64 {
	s.seedMu.Lock()
	defer s.seedMu.Unlock()
	return s.seeds.Uint64()
}

func (s *Server) serveHealth(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	closing, n := s.closing, len(s.sessions)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	status := "ok"
	if closing {
		status = "shutting_down"
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	w.Write(append(mustJSON(health{status, Version, n, env.IDs()}), '\n'))
}

// health is /healthz's reply.
type health struct {
	Status   string   `json:"status"`
	Version  int      `json:"version"`
	Sessions int      `json:"sessions"`
	Envs     []string `json:"envs"`
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// upgrade runs the checks every websocket endpoint shares and upgrades; it
// returns nil when it has already answered the request.
func (s *Server) upgrade(w http.ResponseWriter, r *http.Request) *websocket.Conn {
	if !websocket.IsWebSocketUpgrade(r) {
		w.Header().Set("Upgrade", "websocket")
		http.Error(w, fmt.Sprintf("galaxygym websocket server, protocol version %d: connect with a websocket client (see docs/protocol.md)", Version),
			http.StatusUpgradeRequired)
		return nil
	}
	if !s.authorized(r) {
		s.unauthorized(w)
		return nil
	}
	s.mu.Lock()
	closing := s.closing
	s.mu.Unlock()
	if closing {
		http.Error(w, "server: shutting down", http.StatusServiceUnavailable)
		return nil
	}
	conn, err := s.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return nil // the upgrader has answered
	}
	nc := conn.NetConn()
	if lc, ok := nc.(*limitedConn); ok {
		nc = lc.Conn
	}
	if tc, ok := nc.(*net.TCPConn); ok {
		// Large replies go out in one write instead of waiting on the
		// client to drain a small socket buffer.
		_ = tc.SetWriteBuffer(sendBuffer)
		_ = tc.SetNoDelay(true)
	}
	return conn
}

// register adds a session, or refuses it (too many sessions or shutting
// down) with an error frame and close code 1013 or 1001.
func (s *Server) register(ss *session) bool {
	s.mu.Lock()
	full := len(s.sessions) >= s.cfg.MaxSessions
	addrFull := ss.addr != "" && s.perAddr[ss.addr] >= s.cfg.MaxSessionsPerAddr
	closing := s.closing
	if !full && !addrFull && !closing {
		s.sessions[ss] = struct{}{}
		ss.registered = true
		if ss.addr != "" {
			s.perAddr[ss.addr]++
		}
		s.wg.Add(1)
		s.running.Add(1)
	}
	s.mu.Unlock()
	switch {
	case closing:
		ss.refuse(websocket.CloseGoingAway, errorf(CodeInternal, "shutting down"))
		return false
	case full:
		ss.refuse(websocket.CloseTryAgainLater,
			errorf(CodeTooManySessions, "the server holds its maximum of %d sessions", s.cfg.MaxSessions))
		return false
	case addrFull:
		ss.refuse(websocket.CloseTryAgainLater,
			errorf(CodeTooManySessions, "the server holds its maximum of %d sessions from %s", s.cfg.MaxSessionsPerAddr, ss.addr))
		return false
	}
	s.m.sessions.Inc()
	s.m.sessionsTotal.Inc()
	return true
}

// unregister ends a registered session: its slot (if run has not already
// released it) and its count in Shutdown's wait.
func (s *Server) unregister(ss *session) {
	ss.release()
	s.running.Add(-1)
	s.wg.Done()
}

// releaseSlot removes ss from the sessions counted against MaxSessions and
// MaxSessionsPerAddr; session.release calls it once.
func (s *Server) releaseSlot(ss *session) {
	s.mu.Lock()
	delete(s.sessions, ss)
	if ss.addr != "" {
		if s.perAddr[ss.addr]--; s.perAddr[ss.addr] <= 0 {
			delete(s.perAddr, ss.addr)
		}
	}
	s.mu.Unlock()
	s.m.sessions.Dec()
}

// accept upgrades the request and registers its session; it returns nil
// when the upgrade or the session limit refused it (the client has been
// answered). The caller must unregister a session it gets.
func (s *Server) accept(w http.ResponseWriter, r *http.Request) *session {
	conn := s.upgrade(w, r)
	if conn == nil {
		return nil
	}
	ss := newSession(s, conn, r.RemoteAddr)
	ss.addr = s.limitedAddr(r.RemoteAddr)
	if !s.register(ss) {
		return nil
	}
	return ss
}

// limitedAddr returns the client IP that MaxSessionsPerAddr counts for
// remote (host:port), or "" for a client it does not limit.
func (s *Server) limitedAddr(remote string) string {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	ip := net.ParseIP(host)
	if ip != nil && ip.IsLoopback() && !s.cfg.LimitLoopback {
		return ""
	}
	return host
}

func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	ss := s.accept(w, r)
	if ss == nil {
		return
	}
	defer s.unregister(ss)
	ss.makeDeadline = true
	log := s.cfg.Logger.With("remote", r.RemoteAddr)
	log.Info("session opened")
	ss.run(ss.handle)
	log.Info("session closed", "env", ss.id)
}

// serveEcho is the transport benchmark endpoint: see docs/protocol.md.
func (s *Server) serveEcho(w http.ResponseWriter, r *http.Request) {
	ss := s.accept(w, r)
	if ss == nil {
		return
	}
	defer s.unregister(ss)
	var out []byte
	ss.run(func(mt int, msg []byte) bool {
		ss.touch()
		reply := msg
		if len(msg) >= 8 && string(msg[:4]) == "ECHO" {
			n := int(uint32(msg[4]) | uint32(msg[5])<<8 | uint32(msg[6])<<16 | uint32(msg[7])<<24)
			if n > 64<<20 {
				ss.sendError(errorf(CodeBadRequest, "echo reply of %d bytes is over 64 MiB", n))
				return true
			}
			if cap(out) < n {
				out = make([]byte, n)
			}
			out = out[:n]
			copy(out, msg)
			reply = out
		}
		return ss.write(mt, reply) == nil
	})
}

// sendBuffer is the socket send buffer of a session: a reply to 1024
// environments is about 600 KB.
const sendBuffer = 4 << 20

// wgCount returns the number of sessions whose handler has not returned.
func (s *Server) wgCount() int64 { return s.running.Load() }
