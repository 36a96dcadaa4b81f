package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/galaxygym/galaxygym/datasets"
	"github.com/galaxygym/galaxygym/env"
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
	derive := newDeriveCmd()
	cmd.AddCommand(merge, verify, materialize, derive)
	rootCmd.AddCommand(cmd)
}

// newDeriveCmd is `galaxygym dataset derive`.
func newDeriveCmd() *cobra.Command {
	var (
		deriveWorkers int
		deriveNoObs   bool
		deriveHidden  bool
		hiddenLayout  bool
		intoPID       int
		intoObs       string
		intoMasks     string
		serve         bool
	)
	derive := &cobra.Command{
		Use:   "derive IN",
		Short: "Derive the observations and masks of a compact dataset (what galaxygym.datasets.load reads)",
		Long: "derive replays every episode of the compact dataset IN and writes its steps table's observations\n" +
			"and action masks to stdout, in row order, in batches: a little-endian uint32 row count n, n\n" +
			"observations (ObsSize bytes each), n masks (NumActions bytes each); a batch of 0 rows ends it.\n" +
			"--no-obs leaves the observations out (ObsSize taken as 0). --hidden writes in place of each\n" +
			"row's observation the hidden part of the row's player (what its observation does not show, for a\n" +
			"critic trained with the whole state; full datasets too), and --hidden --layout prints its layout\n" +
			"as JSON ({\"size\", \"layout\", \"high\"}) and exits. With --into-pid PID --into-obs\n" +
			"ADDR:LEN --into-masks ADDR:LEN (Linux) it writes every row instead straight into the uint8 arrays\n" +
			"(rows x ObsSize, rows x NumActions) at those addresses of process PID, the galaxygym.datasets\n" +
			"reader that started it (process_vm_writev; refused where the system does not allow it). Every\n" +
			"step is checked against IN as by materialize; a dataset this build cannot replay is refused.\n" +
			"With --serve (and no IN) it derives, one at a time, the datasets asked on stdin into the arrays of\n" +
			"the process that started it, one JSON request a line ({\"in\", \"obs\": \"ADDR:LEN\", \"masks\",\n" +
			"\"workers\", \"no_obs\"}), answering each with a line ({\"ok\": true} or {\"error\", \"refused\"}),\n" +
			"until stdin ends: galaxygym.datasets keeps one so that a load does not start a process.\n" +
			"docs/datasets.md, \"Compact datasets\".",
		Args: func(cmd *cobra.Command, args []string) error {
			if serve {
				return cobra.NoArgs(cmd, args)
			}
			return cobra.ExactArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if serve {
				return serveDerive(cmd.Context(), cmd.InOrStdin(), cmd.OutOrStdout(), os.Getppid())
			}
			if hiddenLayout {
				if !deriveHidden {
					return fmt.Errorf("dataset derive: --layout goes with --hidden")
				}
				layout, high, err := datasets.HiddenLayout(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				return json.NewEncoder(cmd.OutOrStdout()).Encode(map[string]any{
					"size": layout[len(layout)-1].End(), "layout": layout, "high": env.Bounds(high)})
			}
			cfg := datasets.DeriveConfig{In: args[0], Workers: deriveWorkers, NoObs: deriveNoObs, Hidden: deriveHidden}
			if cmd.Flags().Changed("into-pid") {
				obs, obsLen, err := parseAddrLen("--into-obs", intoObs)
				if err != nil {
					return err
				}
				masks, masksLen, err := parseAddrLen("--into-masks", intoMasks)
				if err != nil {
					return err
				}
				w, err := newIntoProcess(intoPID, obs, obsLen, masks, masksLen)
				if err != nil {
					return err
				}
				cfg.Rows = w
				return datasets.DeriveTo(cmd.Context(), cfg)
			}
			out := cmd.OutOrStdout()
			if isTerminal(out) {
				return fmt.Errorf("dataset derive writes binary data: redirect stdout (or use galaxygym dataset materialize)")
			}
			w := bufio.NewWriterSize(out, 1<<20)
			cfg.Out = w
			if err := datasets.DeriveTo(cmd.Context(), cfg); err != nil {
				w.Flush()
				return err
			}
			return w.Flush()
		},
	}
	derive.Flags().IntVar(&deriveWorkers, "workers", runtime.NumCPU(), "goroutines replaying (the output does not depend on it)")
	derive.Flags().BoolVar(&deriveNoObs, "no-obs", false, "derive the action masks only")
	derive.Flags().BoolVar(&deriveHidden, "hidden", false, "write each row's hidden part (env.HiddenObserver) in place of its observation: for critics only")
	derive.Flags().BoolVar(&hiddenLayout, "layout", false, "with --hidden: print the hidden part's layout as JSON and exit")
	derive.Flags().IntVar(&intoPID, "into-pid", 0, "write the rows into the arrays of this process (Linux; with --into-obs, --into-masks), not to stdout")
	derive.Flags().StringVar(&intoObs, "into-obs", "", "ADDR:LEN: the observations array of --into-pid (decimal address and bytes)")
	derive.Flags().StringVar(&intoMasks, "into-masks", "", "ADDR:LEN: the action masks array of --into-pid")
	derive.Flags().BoolVar(&serve, "serve", false, "derive the datasets asked on stdin into the arrays of the parent process, one JSON request a line")
	return derive
}

// parseAddrLen parses an --into-obs/--into-masks value: a decimal address
// and a byte length, colon-separated.
func parseAddrLen(flag, v string) (uintptr, int64, error) {
	a, l, ok := strings.Cut(v, ":")
	addr, err1 := strconv.ParseUint(a, 10, 64)
	n, err2 := strconv.ParseInt(l, 10, 64)
	if !ok || err1 != nil || err2 != nil || n < 0 {
		return 0, 0, fmt.Errorf("dataset derive: %s %q: want ADDR:LEN (decimal)", flag, v)
	}
	return uintptr(addr), n, nil
}
