package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/datasets"
	"github.com/galaxygym/galaxygym/play"
	"github.com/galaxygym/galaxygym/server"
)

func init() {
	var (
		addr            string
		cfg             server.Config
		shutdownTimeout time.Duration
		verbose         bool
		stdinLifetime   bool
		pageCfg         play.Config // the browser page (docs/play.md)
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the environments over websockets (protocol: docs/protocol.md)",
		Long: "serve runs the galaxygym websocket server: one connection is one session holding a batch\n" +
			"of environments that the client resets and steps (JSON control messages, binary steps;\n" +
			"the byte-for-byte protocol is docs/protocol.md). It also serves /healthz and Prometheus\n" +
			"/metrics, and /echo with --echo. Once listening it prints \"listening on HOST:PORT\" on\n" +
			"stdout (use --addr 127.0.0.1:0 for a free port). SIGINT or SIGTERM stops accepting,\n" +
			"finishes the steps in flight and closes every session with code 1001 (going away).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cfg.Token == "" {
				cfg.Token = os.Getenv("GALAXYGYM_TOKEN")
			}
			level := slog.LevelWarn
			if verbose {
				level = slog.LevelInfo
			}
			cfg.Logger = slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: level}))
			srv, err := server.New(cfg)
			if err != nil {
				return err
			}
			if !cmd.Flags().Changed("datasets") {
				pageCfg.Datasets = play.DefaultDatasets()
			}
			pageCfg.WeightsDir = cfg.WeightsDir
			// One set of agent limits for both faces: the opponents of a
			// make and the page's agent seats and hints.
			pageCfg.MaxAgentSims, pageCfg.MaxAgentTime = cfg.MaxAgentSims, cfg.MaxAgentTime
			if pageCfg.WeightsDir == "" {
				if st, err := os.Stat("notebooks/weights"); err == nil && st.IsDir() {
					pageCfg.WeightsDir = "notebooks/weights"
				}
			}
			pageCfg.Token, pageCfg.AllowedHosts, pageCfg.AllowedOrigins, pageCfg.Logger = cfg.Token, cfg.AllowedHosts, cfg.AllowedOrigins, cfg.Logger
			pageCfg.Websocket = srv.Config().Websocket() // one set of websocket timeouts for both faces
			pageCfg.Training = srv                       // pages watch training sessions with their keys (render_mode="human")
			page, err := play.New(pageCfg)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			if stdinLifetime {
				// The Python client's private server: it lives as long as
				// the pipe its parent holds on stdin, so that it stops when
				// that process exits however it exits (even SIGKILL).
				var cancel context.CancelFunc
				ctx, cancel = context.WithCancel(ctx)
				defer cancel()
				go func() {
					_, _ = io.Copy(io.Discard, cmd.InOrStdin())
					cancel()
				}()
			}
			errc := make(chan error, 1)
			go func() {
				errc <- page.ListenAndServe(srv, addr, func(a net.Addr) {
					fmt.Fprintf(cmd.OutOrStdout(), "listening on %s\n", a)
					fmt.Fprintf(cmd.ErrOrStderr(), "play in a browser: http://%s/\n", a)
				})
			}()
			select {
			case err := <-errc:
				return err
			case <-ctx.Done():
			}
			sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
			defer cancel()
			_ = page.Shutdown(sctx)
			if err := srv.Shutdown(sctx); err != nil {
				return fmt.Errorf("shutdown: %w", err)
			}
			if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:8765", "TCP address to listen on (port 0 picks a free port)")
	f.StringVar(&cfg.Token, "token", "", "bearer token clients must send: at least 16 visible ASCII bytes, e.g. $(openssl rand -hex 16) (default $GALAXYGYM_TOKEN; empty: no token, loopback only)")
	f.StringSliceVar(&cfg.AllowedOrigins, "allow-origin", nil, "browser origin allowed besides same-host ones (repeatable; * allows any)")
	f.IntVar(&cfg.MaxEnvs, "max-envs", server.DefaultMaxEnvs, "most environments per session")
	f.IntVar(&cfg.MaxSessions, "max-sessions", server.DefaultMaxSessions, "most concurrent sessions")
	f.Int64Var(&cfg.ReadLimit, "read-limit", server.DefaultReadLimit, "largest client message in bytes (larger: close 1009)")
	f.StringSliceVar(&cfg.AllowedHosts, "allow-host", nil, "without a token, a Host name accepted besides localhost, 127.0.0.1 and ::1 (repeatable; * allows any)")
	f.BoolVar(&cfg.AllowRemoteWithoutToken, "allow-remote-without-token", false, "listen on a non-loopback --addr without a token (anyone who reaches the port gets sessions)")
	f.DurationVar(&cfg.IdleTimeout, "idle-timeout", server.DefaultIdleTimeout, "close a session that did no work (make, reset, step, render, info, get_state, observe) this long (close 1008)")
	f.DurationVar(&cfg.MakeTimeout, "make-timeout", server.DefaultMakeTimeout, "close a session that has not made its environments this long after connecting (close 1008)")
	f.IntVar(&cfg.MaxSessionsPerAddr, "max-sessions-per-addr", server.DefaultMaxSessionsAddr, "most concurrent sessions from one client IP (loopback exempt unless --limit-loopback)")
	f.BoolVar(&cfg.LimitLoopback, "limit-loopback", false, "apply --max-sessions-per-addr to loopback clients too")
	f.IntVar(&cfg.MaxReplyBytes, "max-reply-bytes", server.DefaultMaxReplyBytes, "largest JSON reply (render, info, get_state, observe); larger: limit_exceeded")
	f.Int64Var(&cfg.MaxSessionBytes, "max-session-bytes", server.DefaultMaxSessionBytes, "memory bound of one session (a make over it: limit_exceeded)")
	f.DurationVar(&cfg.PingInterval, "ping-interval", server.DefaultPingInterval, "ping every session and page this often")
	f.DurationVar(&cfg.PongTimeout, "pong-timeout", server.DefaultPongTimeout, "drop a session or page silent this long (no message, no pong)")
	f.DurationVar(&cfg.WriteTimeout, "write-timeout", server.DefaultWriteTimeout, "deadline of every write to a client")
	f.DurationVar(&cfg.HandshakeTimeout, "handshake-timeout", server.DefaultHandshakeTimeout, "deadline of an HTTP request's header and body, and of the websocket upgrade")
	f.DurationVar(&cfg.KeepAliveTimeout, "keepalive-timeout", server.DefaultKeepAliveTimeout, "close an HTTP keep-alive connection (/healthz, /metrics, the page) idle this long")
	f.IntVar(&cfg.MaxConnsPerAddr, "max-conns-per-addr", 0, "most open TCP connections from one client IP (0: the larger of 64 and --max-sessions-per-addr; loopback exempt unless --limit-loopback)")
	f.IntVar(&cfg.Workers, "workers", 0, "goroutines a large batch step is spread over (0: GOMAXPROCS)")
	f.StringVar(&cfg.WeightsDir, "weights", "", "folder of .npz policy weights that make's opponents may name (policy@weights=NAME) and the browser page offers for its policy seats (default: none for opponents; the page offers notebooks/weights where it exists)")
	f.IntVar(&cfg.MaxAgentSims, "max-agent-sims", agents.DefaultMaxMCTSSims, "most simulations of one mcts decision that a client may ask for: make's opponents (sims), the page's agent seats and hints (larger: refused, the cap in the error)")
	f.DurationVar(&cfg.MaxAgentTime, "max-agent-time", agents.DefaultMaxMCTSTime, "most search time of one mcts decision that make's opponents may ask for (option ms; larger: refused)")
	f.BoolVar(&cfg.Echo, "echo", false, "serve the /echo transport benchmark endpoint")
	f.DurationVar(&shutdownTimeout, "shutdown-timeout", 10*time.Second, "on SIGTERM, how long to wait for sessions to close")
	f.BoolVar(&stdinLifetime, "stdin-lifetime", false, "shut down when stdin reaches end of file (the parent process closed it or exited)")
	f.BoolVarP(&verbose, "verbose", "v", false, "log session events")
	f.StringSliceVar(&pageCfg.Datasets, "datasets", nil, "dataset folder (or folder of datasets) the browser page may replay, read-only (repeatable; default datasets/out where it exists)")
	f.StringVar(&pageCfg.RecordDir, "record", "", "folder where the page writes the games people play, as datasets (empty: not recorded)")
	f.Var(&obsFlag{&pageCfg.RecordObservations}, "record-observations", "stored (the default) or none: record games as compact datasets "+
		"(seeds and moves; observations derived on read, docs/datasets.md)")
	f.DurationVar(&pageCfg.SeatGrace, "seat-grace", play.DefaultSeatGrace, "how long the page keeps a seat for a person whose page dropped (the game waits; they come back with the seat's secret)")
	f.StringVar(&pageCfg.GraceAgent, "seat-grace-agent", play.DefaultGraceAgent, "the agent that takes a seat whose person stayed away longer than --seat-grace (\"close\": close the game instead)")
	lim := &pageCfg.Limits
	f.IntVar(&pageCfg.MaxTables, "page-max-tables", play.DefaultMaxTables, "most live games on the browser page in all")
	f.IntVar(&pageCfg.MaxConns, "page-max-conns", play.DefaultMaxConns, "most browser page connections in all (more: HTTP 503)")
	f.IntVar(&lim.MaxTablesPerClient, "page-tables-per-client", play.DefaultMaxTablesPerClient, "most live games one page connection may open (more: limit_exceeded)")
	f.IntVar(&lim.MaxTablesPerAddr, "page-tables-per-addr", play.DefaultMaxTablesPerAddr, "most live games opened from one client IP, loopback included (more: limit_exceeded)")
	f.IntVar(&lim.MaxConnsPerAddr, "page-conns-per-addr", play.DefaultMaxConnsPerAddr, "most browser page connections from one client IP, loopback included (more: HTTP 429)")
	f.IntVar(&lim.MaxHintsPerClient, "page-hints-per-client", play.DefaultMaxHintsPerClient, "most hints one page connection may have in flight (more: limit_exceeded)")
	f.IntVar(&lim.MaxHints, "page-max-hints", play.DefaultMaxHints, "most hints in flight in all, queued or worked out (more: limit_exceeded)")
	f.DurationVar(&lim.HintTimeout, "page-hint-timeout", play.DefaultHintTimeout, "longest search of one hint (a cancellable agent answers with its best so far)")
	f.IntVar(&lim.Workers, "page-workers", 0, "goroutines that work out the page's agent moves and views (as many again for hints; 0: GOMAXPROCS/4, at least 1)")
	f.Float64Var(&lim.CPUShare, "page-cpu-share", play.DefaultCPUShare, "share of the machine's cores (GOMAXPROCS) the page's work may use, within (0, 1]")
	f.DurationVar(&lim.Linger, "page-linger", play.DefaultLinger, "how long a game nobody watches and nobody sits at is kept (its agents stopped) before it ends")
	f.IntVar(&lim.RecordGamesPerHour, "record-games-per-hour", play.DefaultRecordGamesPerHour, "most games recorded from one client IP in any hour (negative: no limit)")
	f.Int64Var(&lim.RecordBytesPerHour, "record-bytes-per-hour", play.DefaultRecordBytesPerHour, "most bytes recorded from one client IP in any hour (negative: no limit)")
	f.Int64Var(&lim.RecordMaxBytes, "record-max-bytes", play.DefaultRecordMaxBytes, "most bytes under --record in all; when full, games are not recorded (negative: no limit)")
	rootCmd.AddCommand(cmd)
}

// obsFlag is a flag of a datasets.Observations: stored or none.
type obsFlag struct{ v *datasets.Observations }

func (f *obsFlag) String() string {
	if f.v == nil || *f.v == "" {
		return string(datasets.ObsStored)
	}
	return string(*f.v)
}

func (f *obsFlag) Set(s string) error {
	switch datasets.Observations(s) {
	case datasets.ObsStored, datasets.ObsNone:
		*f.v = datasets.Observations(s)
		return nil
	}
	return fmt.Errorf("%q: want stored or none", s)
}

func (f *obsFlag) Type() string { return "stored|none" }
