package main

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/galaxygym/galaxygym/datasets"
)

func init() {
	var (
		f       runFlags
		observe bool
	)
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure rollout throughput (no files)",
		Long: "bench plays --episodes episodes of --agent on --env with --workers goroutines, with the\n" +
			"generate command's runner but writing nothing. Observations are encoded only when the agent\n" +
			"reads them or --obs is set. The last line of output reads \"<n> steps/s <n> episodes/s\".",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := f.config()
			if err != nil {
				return err
			}
			cfg.Observe = observe
			stderr := cmd.ErrOrStderr()
			var done func(bool)
			if isTerminal(stderr) {
				cfg.Progress, done = progressBar(stderr, "bench")
			}
			res, err := datasets.Bench(cmd.Context(), cfg)
			if done != nil {
				done(err == nil)
			}
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "%s, agent %s, workers %d, observations %s: %d episodes, %d steps in %.3fs\n",
				cfg.Env, cmp.Or(cfg.Agent, strings.Join(cfg.Seats, ",")), cfg.NumWorkers(), onOff(observe), res.Episodes, res.Steps, res.Elapsed.Seconds())
			fmt.Fprintf(out, "%.0f steps/s %.0f episodes/s\n", res.StepsPerSecond(), res.EpisodesPerSecond())
			return nil
		},
	}
	f.register(cmd, "random", 100000)
	cmd.Flags().BoolVar(&observe, "obs", false, "encode every observation even if the agent does not read them")
	rootCmd.AddCommand(cmd)
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off (unless the agent reads them)"
}
