// Command galaxygym is the galaxygym command line: it lists the registered
// environments and agents (envs), generates Parquet datasets of agent play
// (generate), measures rollout throughput (bench), compares agents over the
// same seeded episodes (eval) and serves environments over websockets
// (serve).
//
// Run `galaxygym help` for the subcommands and their flags.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	_ "github.com/galaxygym/galaxygym/agents/all"
	"github.com/galaxygym/galaxygym/datasets"
	_ "github.com/galaxygym/galaxygym/env/all"
	"github.com/galaxygym/galaxygym/version"
)

// exitCode is 2 for errors a retry cannot fix (bad settings, credentials
// refused, a missing bucket, an output holding another dataset, parts
// missing at merge), which a Kubernetes podFailurePolicy uses to fail an
// index at once (deploy/k8s); 1 otherwise.
func exitCode(err error) int {
	var ce *datasets.ConfigError
	var mp *datasets.MissingPartsError
	if errors.As(err, &ce) || errors.As(err, &mp) || errors.Is(err, datasets.ErrMismatch) {
		return 2
	}
	return 1
}

var rootCmd = &cobra.Command{
	Use:   "galaxygym",
	Short: "Reinforcement-learning environments for tabletop games",
	Long: "galaxygym turns tabletop games into fast reinforcement-learning environments: a\n" +
		"reset/step API with fixed-shape observations and legal-action masks, baseline agents,\n" +
		"and Parquet datasets of their play.",
	Version:       version.Full(),
	SilenceUsage:  true,
	SilenceErrors: true,
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := rootCmd.ExecuteContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "galaxygym:", err)
		if errors.Is(err, context.Canceled) {
			os.Exit(130)
		}
		os.Exit(exitCode(err))
	}
}
