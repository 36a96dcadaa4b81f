package server

import (
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"time"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/server/wsconn"
)

// Defaults of the [Config] limits, used where a field is zero.
const (
	DefaultMaxEnvs          = 4096
	DefaultMaxSessions      = 64
	DefaultReadLimit        = 4 << 20 // bytes
	DefaultIdleTimeout      = 10 * time.Minute
	DefaultPingInterval     = wsconn.DefaultPingInterval     // 20 s
	DefaultPongTimeout      = wsconn.DefaultPongTimeout      // 60 s
	DefaultWriteTimeout     = wsconn.DefaultWriteTimeout     // 10 s
	DefaultHandshakeTimeout = wsconn.DefaultHandshakeTimeout // 10 s
	DefaultMakeTimeout      = 30 * time.Second
	DefaultMaxSessionsAddr  = 16
	DefaultMaxReplyBytes    = 16 << 20  // bytes
	DefaultMaxSessionBytes  = 256 << 20 // bytes
	DefaultKeepAliveTimeout = 30 * time.Second
	DefaultMaxConnsPerAddr  = 64
)

// MinTokenLength is the shortest bearer token a [Config] accepts, in
// bytes: a token guards every session, and one a client could guess in a
// few million tries (8 lower-case letters are 2^38) guards nothing. A
// random token (galaxygym serve --token $(openssl rand -hex 16)) has 32.
const MinTokenLength = 16

// Config holds a server's settings. The zero value is usable: every zero
// limit takes its Default* value.
type Config struct {
	// MaxEnvs is the largest num_envs a make may ask for.
	MaxEnvs int
	// MaxSessions is the largest number of concurrent websocket sessions
	// (the /echo endpoint's included); one more is closed with 1013.
	MaxSessions int
	// ReadLimit is the largest client message in bytes; a larger one is
	// closed with 1009. It must hold a step request (12 + 4*MaxEnvs bytes).
	ReadLimit int64
	// IdleTimeout closes (1008) a session that did no work for this long:
	// only make, reset, step, render, info, get_state and observe count;
	// hello, list, pings and pongs do not.
	IdleTimeout time.Duration
	// MakeTimeout closes (1008) a session that has not made its
	// environments this long after the connection (the /echo endpoint
	// excepted), so that connections which only say hello cannot hold the
	// session slots.
	MakeTimeout time.Duration
	// MaxSessionsPerAddr is the largest number of concurrent sessions from
	// one client IP address; one more is refused like one over MaxSessions.
	// Loopback clients are exempt (they all share 127.0.0.1 or ::1) unless
	// LimitLoopback is set.
	MaxSessionsPerAddr int
	// LimitLoopback applies MaxSessionsPerAddr to loopback clients too.
	LimitLoopback bool
	// MaxReplyBytes bounds the replies whose size a client chooses
	// (render, info, get_state, observe); a request whose reply would be
	// larger gets CodeLimitExceeded. The fixed replies (hello, envs, made)
	// are not limited.
	MaxReplyBytes int
	// MaxSessionBytes bounds the memory one session may hold: a make whose
	// estimated footprint (the reply buffers, every environment's state
	// twice over for a reset from states, plus ReadLimit and MaxReplyBytes)
	// is larger gets CodeLimitExceeded. The server's total is at most
	// MaxSessions times this.
	MaxSessionBytes int64
	// PingInterval is how often the server pings each session.
	PingInterval time.Duration
	// PongTimeout closes a session from which nothing (a message or a pong)
	// arrived for this long: the liveness check.
	PongTimeout time.Duration
	// WriteTimeout bounds every write to a client.
	WriteTimeout time.Duration
	// HandshakeTimeout bounds the HTTP upgrade, and the reading of every
	// HTTP request's header (http.Server's ReadHeaderTimeout) and whole
	// request (ReadTimeout).
	HandshakeTimeout time.Duration
	// KeepAliveTimeout closes an HTTP keep-alive connection (/healthz,
	// /metrics, a refused upgrade) that waits this long for its next
	// request (http.Server's IdleTimeout); default 30 s.
	KeepAliveTimeout time.Duration
	// MaxConnsPerAddr bounds the open TCP connections from one client IP
	// address that [Server.Serve] accepts (sessions, keep-alive and
	// half-open ones alike): one more is closed at once. Loopback clients
	// are exempt unless LimitLoopback is set, as for MaxSessionsPerAddr.
	// Default 64; it must be at least MaxSessionsPerAddr.
	MaxConnsPerAddr int
	// Token, when not empty, is the bearer token every websocket and
	// /metrics request must carry: "Authorization: Bearer TOKEN", or the
	// query parameter token=TOKEN for browsers. /healthz needs none. A
	// token is at least [MinTokenLength] bytes of visible ASCII (0x21 to
	// 0x7E: no spaces, no control characters); anything else, a blank or
	// whitespace-only token included, is a [*ConfigError].
	Token string
	// AllowedHosts lists Host header names (without the port, or "*" for
	// any) accepted besides loopback ones (localhost, 127.0.0.0/8, ::1)
	// when Token is empty. Without a token every other Host is refused
	// (403), which defeats DNS rebinding: a web page whose name resolves to
	// 127.0.0.1 still sends its own name as Host.
	AllowedHosts []string
	// AllowRemoteWithoutToken lets [Server.Serve] listen on a non-loopback
	// address with no Token; without it that is a [*ConfigError].
	AllowRemoteWithoutToken bool
	// AllowedOrigins lists the browser origins (e.g. "https://example.org",
	// or "*" for any) allowed besides requests without an Origin header and
	// same-host origins.
	AllowedOrigins []string
	// Echo enables the /echo websocket endpoint that measures the transport
	// alone (see docs/protocol.md, "Echo").
	Echo bool
	// Workers is the number of goroutines a large batch's step is spread
	// over (default GOMAXPROCS). Results do not depend on it.
	Workers int
	// WeightsDir is the folder whose .npz files a make's policy opponents
	// may name ("policy@weights=NAME", NAME relative to it); "" serves
	// none. No other file of the machine can be named.
	WeightsDir string
	// MaxAgentSims caps the simulations of one mcts decision (option sims)
	// of the agents a client may ask for: a make's opponents, and the page's
	// agent seats and hints ([Config.AgentLimits]); default
	// agents.DefaultMaxMCTSSims (1024). A larger one is refused with
	// CodeLimitExceeded, the cap in the message.
	MaxAgentSims int
	// MaxAgentTime caps the search time of one mcts decision (option ms);
	// default agents.DefaultMaxMCTSTime (2 s).
	MaxAgentTime time.Duration
	// Logger receives session events; nil discards them.
	Logger *slog.Logger
}

// AgentLimits returns the limits every agent a client asks for is checked
// against (the opponents of a make; galaxygym serve gives the page the
// same): MaxAgentSims, MaxAgentTime and WeightsDir. Call it on a filled
// Config ([Server.Config]) to get the defaults.
func (c *Config) AgentLimits() agents.Limits {
	return agents.Limits{MaxMCTSSims: c.MaxAgentSims, MaxMCTSTime: c.MaxAgentTime, WeightsDir: c.WeightsDir}
}

func (c *Config) fill() error {
	if c.MaxEnvs == 0 {
		c.MaxEnvs = DefaultMaxEnvs
	}
	if c.MaxSessions == 0 {
		c.MaxSessions = DefaultMaxSessions
	}
	if c.ReadLimit == 0 {
		c.ReadLimit = DefaultReadLimit
	}
	if c.IdleTimeout == 0 {
		c.IdleTimeout = DefaultIdleTimeout
	}
	if c.PingInterval == 0 {
		c.PingInterval = DefaultPingInterval
	}
	if c.PongTimeout == 0 {
		c.PongTimeout = max(DefaultPongTimeout, 3*c.PingInterval)
	}
	if c.WriteTimeout == 0 {
		c.WriteTimeout = DefaultWriteTimeout
	}
	if c.HandshakeTimeout == 0 {
		c.HandshakeTimeout = DefaultHandshakeTimeout
	}
	if c.Workers == 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	if c.MakeTimeout == 0 {
		c.MakeTimeout = DefaultMakeTimeout
	}
	if c.MaxSessionsPerAddr == 0 {
		c.MaxSessionsPerAddr = min(DefaultMaxSessionsAddr, c.MaxSessions)
	}
	if c.KeepAliveTimeout == 0 {
		c.KeepAliveTimeout = DefaultKeepAliveTimeout
	}
	if c.MaxConnsPerAddr == 0 {
		c.MaxConnsPerAddr = max(DefaultMaxConnsPerAddr, c.MaxSessionsPerAddr)
	}
	if c.MaxReplyBytes == 0 {
		c.MaxReplyBytes = DefaultMaxReplyBytes
	}
	if c.MaxSessionBytes == 0 {
		c.MaxSessionBytes = DefaultMaxSessionBytes
	}
	if c.MaxAgentSims == 0 {
		c.MaxAgentSims = agents.DefaultMaxMCTSSims
	}
	if c.MaxAgentTime == 0 {
		c.MaxAgentTime = agents.DefaultMaxMCTSTime
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if err := CheckToken(c.Token); err != nil {
		return err
	}
	switch {
	case c.MaxConnsPerAddr < c.MaxSessionsPerAddr:
		return &ConfigError{fmt.Sprintf("max connections per address %d is under max sessions per address %d", c.MaxConnsPerAddr, c.MaxSessionsPerAddr)}
	case c.KeepAliveTimeout < 0:
		return &ConfigError{"the keep-alive timeout must be positive"}
	case c.MaxEnvs < 1, c.MaxSessions < 1, c.Workers < 1, c.MaxSessionsPerAddr < 1:
		return &ConfigError{"max envs, max sessions, max sessions per address and workers must be at least 1"}
	case c.MaxReplyBytes < 1<<10, c.MaxSessionBytes < 1<<20:
		return &ConfigError{"the reply limit must be at least 1 KiB and the session memory bound at least 1 MiB"}
	case c.MaxAgentSims < 0, c.MaxAgentTime < 0:
		return &ConfigError{"the agent limits (max agent sims, max agent time) must be positive"}
	case c.MakeTimeout < 0:
		return &ConfigError{"the make timeout must be positive"}
	case c.ReadLimit < int64(StepRequestSize(c.MaxEnvs)):
		return &ConfigError{fmt.Sprintf("read limit %d bytes cannot hold a step request for %d envs (%d bytes)",
			c.ReadLimit, c.MaxEnvs, StepRequestSize(c.MaxEnvs))}
	case c.IdleTimeout < 0, c.PingInterval < 0, c.PongTimeout <= c.PingInterval, c.WriteTimeout < 0:
		return &ConfigError{"timeouts must be positive and the pong timeout longer than the ping interval"}
	}
	return nil
}

// Websocket returns the websocket settings both faces of the port share
// (the training protocol's sessions and the page's connections): the ping
// interval, pong timeout, write timeout and handshake timeout of c. The
// read limit and buffer sizes are left zero: each face sets its own.
func (c Config) Websocket() wsconn.Settings {
	return wsconn.Settings{PingInterval: c.PingInterval, PongTimeout: c.PongTimeout,
		WriteTimeout: c.WriteTimeout, HandshakeTimeout: c.HandshakeTimeout}
}

// ConfigError reports an invalid [Config].
type ConfigError struct{ Reason string }

// Error returns "server: bad config: REASON".
func (e *ConfigError) Error() string { return "server: bad config: " + e.Reason }

// CheckToken returns a [*ConfigError] saying why tok cannot be a bearer
// token, or nil when it can (or is empty: no token). A token is at least
// [MinTokenLength] bytes, each visible ASCII (0x21 to 0x7E): a blank one
// would let a server bind a public address while anyone authenticates
// with "?token=%20", and surrounding spaces would be trimmed from the
// Authorization header, so that the token could never match.
func CheckToken(tok string) error {
	if tok == "" {
		return nil
	}
	if strings.TrimSpace(tok) == "" {
		return &ConfigError{fmt.Sprintf("the token is blank (%d whitespace bytes): a blank token authenticates anyone; "+
			"use a random one, e.g. --token $(openssl rand -hex 16), or none (loopback only)", len(tok))}
	}
	for i := 0; i < len(tok); i++ {
		if c := tok[i]; c < 0x21 || c > 0x7e {
			return &ConfigError{fmt.Sprintf("the token has byte %#02x at offset %d: a token is visible ASCII (0x21 to 0x7E), "+
				"without spaces or control characters, so that it travels unchanged in a header or a URL", c, i)}
		}
	}
	if len(tok) < MinTokenLength {
		return &ConfigError{fmt.Sprintf("the token is %d bytes; a token must be at least %d, or it can be guessed: "+
			"use a random one, e.g. --token $(openssl rand -hex 16)", len(tok), MinTokenLength)}
	}
	return nil
}
