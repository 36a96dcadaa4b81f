package main

import (
	"bufio"
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/galaxygym/galaxygym/datasets"
)

func init() {
	cmd := &cobra.Command{
		Use:   "dataset",
		Short: "Finish and check datasets (merge the shards of a sharded run, verify every part)",
	}
	merge := &cobra.Command{
		Use:   "merge OUT",
		Short: "Write the manifest of a sharded run (generate --shards N) once every shard is done",
		Long: "merge reads OUT/job.json (written by every shard of generate --shards N), checks every part\n" +
			"(footer, rows, the SHA-256 recorded when it was written) and writes OUT/manifest.json: the\n" +
			"dataset one generate of the same parameters writes, byte for byte. OUT is a directory or a\n" +
			"bucket URL (s3://, gs://, azblob://, file://). Missing parts are reported with the shards to\n" +
			"run again, and no manifest is written. Merging a merged dataset does nothing.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			res, err := datasets.Merge(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			m := res.Manifest
			var bytes int64
			for _, p := range m.Parts {
				bytes += p.Steps.Bytes + p.Episodes.Bytes
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%d parts, %d episodes, %d steps, %d bytes -> %s/%s\n",
				len(m.Parts), m.TotalEpisodes, m.TotalSteps, bytes, args[0], datasets.ManifestFile)
			return nil
		},
	}
	verify := &cobra.Command{
		Use:   "verify OUT",
		Short: "Check every part of a finished dataset against its manifest (sizes, SHA-256, rows, ranges)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := datasets.OpenURL(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			defer d.Close()
			if err := d.Verify(); err != nil {
				return err
			}
			m := d.Manifest
			fmt.Fprintf(cmd.OutOrStdout(), "ok: %d parts, %d episodes, %d steps in %s\n",
				len(m.Parts), m.TotalEpisodes, m.TotalSteps, args[0])
			return nil
		},
	}
	var workers int
	materialize := &cobra.Command{
		Use:   "materialize IN OUT",
		Short: "Write the full dataset (observations and masks) of a compact one (generate --observations none)",
		Long: "materialize replays every episode of the compact dataset IN (its seed and actions) and writes the\n" +
			"full dataset to OUT: the files generate --observations stored writes with the same arguments, byte\n" +
			"for byte, for DuckDB, polars and every other Parquet reader. Each step is checked against IN\n" +
			"(player, rewards, flags, the episodes table); a dataset this build cannot replay (another\n" +
			"environment version or parameters, an illegal action) is refused. IN and OUT are directories or\n" +
			"bucket URLs; running it again resumes. docs/datasets.md, \"Compact datasets\".",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			mc := datasets.MaterializeConfig{In: args[0], Out: args[1], Workers: workers}
			stderr := cmd.ErrOrStderr()
			var done func(bool)
			if isTerminal(stderr) {
				mc.Progress, done = progressBar(stderr, "materialize")
			}
			res, err := datasets.Materialize(cmd.Context(), mc)
			if done != nil {
				done(err == nil)
			}
			if err != nil {
				return err
			}
			m := res.Manifest
			fmt.Fprintf(cmd.OutOrStdout(), "%d episodes, %d steps, %d bytes, %.0f steps/s (%d replayed in %.2fs, %d parts kept) -> %s\n",
				m.TotalEpisodes, m.TotalSteps, res.Bytes, res.StepsPerSecond(), res.Episodes, res.Elapsed.Seconds(), res.PartsKept, args[1])
			return nil
		},
	}
	materialize.Flags().IntVar(&workers, "workers", runtime.NumCPU(), "goroutines replaying parts (the output does not depend on it)")
	var deriveWorkers int
	derive := &cobra.Command{
		Use:   "derive IN",
		Short: "Stream the observations and masks of a compact dataset to stdout (what galaxygym.datasets.load reads)",
		Long: "derive replays every episode of the compact dataset IN and writes its steps table's observations\n" +
			"and action masks to stdout, in row order, in batches: a little-endian uint32 row count n, n\n" +
			"observations (ObsSize bytes each), n masks (NumActions bytes each); a batch of 0 rows ends it.\n" +
			"Every step is checked against IN as by materialize; a dataset this build cannot replay is\n" +
			"refused. docs/datasets.md, \"Compact datasets\".",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			if isTerminal(out) {
				return fmt.Errorf("dataset derive writes binary data: redirect stdout (or use galaxygym dataset materialize)")
			}
			w := bufio.NewWriterSize(out, 1<<20)
			if err := datasets.Derive(cmd.Context(), args[0], w, deriveWorkers); err != nil {
				w.Flush()
				return err
			}
			return w.Flush()
		},
	}
	derive.Flags().IntVar(&deriveWorkers, "workers", runtime.NumCPU(), "goroutines replaying parts (the output does not depend on it)")
	cmd.AddCommand(merge, verify, materialize, derive)
	rootCmd.AddCommand(cmd)
}
