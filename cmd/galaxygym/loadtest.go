package main

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/server/loadtest"
)

func init() {
	cfg := loadtest.Config{}
	pagePlayers := 2
	cmd := &cobra.Command{
		Use:   "loadtest",
		Short: "Drive a running server with many sessions; report errors, step latency and server RSS",
		Long: "loadtest opens --sessions concurrent sessions to a running `galaxygym serve` (on this\n" +
			"machine only: the URL must resolve to loopback), each making --envs environments that it\n" +
			"steps with random legal actions for --duration. A --slow fraction of the sessions read some\n" +
			"replies late, a --drop fraction drop their connection abruptly now and then and reconnect.\n" +
			"It prints the errors, the p50/p99/p99.9 step latency (request written to reply read) and\n" +
			"the server's resident memory from its /metrics, and exits 1 if any error occurred.\n" +
			"--page-tables and --page-watchers load the browser page of the same server at the same\n" +
			"time (games of agents at delay 0 and their watchers), to measure what it costs training.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cfg.Token == "" {
				cfg.Token = os.Getenv("GALAXYGYM_TOKEN")
			}
			cfg.Page.Params = map[string]any{"players": pagePlayers}
			rep, err := loadtest.Run(cmd.Context(), cfg)
			if err != nil {
				return err
			}
			fmt.Fprint(cmd.OutOrStdout(), rep.String())
			if rep.Errors > 0 {
				return fmt.Errorf("loadtest: %d errors", rep.Errors)
			}
			if rep.Page != nil && rep.Page.Errors > 0 {
				return fmt.Errorf("loadtest: %d page errors", rep.Page.Errors)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.URL, "url", "ws://127.0.0.1:8765/", "the server's websocket URL (loopback only)")
	f.StringVar(&cfg.Token, "token", "", "the server's bearer token (default $GALAXYGYM_TOKEN)")
	f.StringSliceVar(&cfg.EnvIDs, "env", env.IDs(), "environment ids; session i makes the (i mod len)-th")
	f.IntVar(&cfg.Sessions, "sessions", 64, "concurrent sessions (N)")
	f.IntVar(&cfg.Envs, "envs", 16, "environments per session (M)")
	f.DurationVar(&cfg.Duration, "duration", 60*time.Second, "how long the sessions step (T)")
	f.Float64Var(&cfg.SlowFraction, "slow", 0.1, "fraction of sessions that read one reply in 16 late")
	f.DurationVar(&cfg.SlowDelay, "slow-delay", 20*time.Millisecond, "how late a slow reader reads")
	f.Float64Var(&cfg.DropFraction, "drop", 0.1, "fraction of sessions that drop their connection abruptly and reconnect")
	f.IntVar(&cfg.DropEvery, "drop-every", 200, "a dropping session drops once within this many step requests of each connection")
	f.Uint64Var(&cfg.Seed, "seed", 0, "seed of the behaviour mix and the actions")
	f.StringVar(&cfg.MetricsURL, "metrics-url", "", "where to read process_resident_memory_bytes (default: the server's /metrics)")
	f.IntVar(&cfg.Page.Tables, "page-tables", 0, "also open this many games of agents at delay 0 on the browser page (/play/ws), each on its own connection")
	f.IntVar(&cfg.Page.Watchers, "page-watchers", 0, "and this many page connections watching them, every card face up")
	f.StringVar(&cfg.Page.Env, "page-env", "express-v2", "the page games' environment")
	f.StringVar(&cfg.Page.Agent, "page-agent", "heuristic", "the agent at every seat of the page games")
	f.IntVar(&pagePlayers, "page-players", 2, "the page games' players")
	rootCmd.AddCommand(cmd)
}
