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
	cmd := &cobra.Command{
		Use:   "loadtest",
		Short: "Drive a running server with many sessions; report errors, step latency and server RSS",
		Long: "loadtest opens --sessions concurrent sessions to a running `galaxygym serve` (on this\n" +
			"machine only: the URL must resolve to loopback), each making --envs environments that it\n" +
			"steps with random legal actions for --duration. A --slow fraction of the sessions read some\n" +
			"replies late, a --drop fraction drop their connection abruptly now and then and reconnect.\n" +
			"It prints the errors, the p50/p99/p99.9 step latency (request written to reply read) and\n" +
			"the server's resident memory from its /metrics, and exits 1 if any error occurred.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cfg.Token == "" {
				cfg.Token = os.Getenv("GALAXYGYM_TOKEN")
			}
			rep, err := loadtest.Run(cmd.Context(), cfg)
			if err != nil {
				return err
			}
			fmt.Fprint(cmd.OutOrStdout(), rep.String())
			if rep.Errors > 0 {
				return fmt.Errorf("loadtest: %d errors", rep.Errors)
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
	rootCmd.AddCommand(cmd)
}
