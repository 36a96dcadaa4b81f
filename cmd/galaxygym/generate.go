package main

import (
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/datasets"
)

// runFlags are the flags generate and bench share.
type runFlags struct {
	env       string
	agent     string
	episodes  int64
	workers   int
	seed      uint64
	agentOpts []string
	envParams []string
	weights   string
	seats     string
	agentSet  func() bool // whether --agent was given
}

func (f *runFlags) register(cmd *cobra.Command, agent string, episodes int64) {
	fl := cmd.Flags()
	fl.StringVar(&f.env, "env", "galaxy-express-v1", "environment id (galaxygym envs lists them)")
	fl.StringVar(&f.agent, "agent", agent, "agent name (galaxygym envs lists them)")
	fl.Int64Var(&f.episodes, "episodes", episodes, "number of episodes")
	fl.IntVar(&f.workers, "workers", runtime.NumCPU(), "goroutines playing episodes (the output does not depend on it)")
	fl.Uint64Var(&f.seed, "seed", 0, "run seed; every episode's seeds derive from it and the episode index")
	fl.StringArrayVar(&f.agentOpts, "agent-opt", nil, "agent option key=value (repeatable)")
	fl.StringVar(&f.weights, "weights", "", "the policy agent's weights file (.npz, docs/policy-format.md), or the one "+
		"that guides mcts (docs/mcts.md): shorthand for --agent-opt weights=FILE")
	fl.StringArrayVar(&f.envParams, "env-param", nil, "environment parameter name=value (repeatable)")
	fl.StringVar(&f.seats, "seats", "", "comma-separated agents, one per seat (player 0 first), instead of --agent; "+
		"--agent-opt then takes agent.key=value")
	f.agentSet = func() bool { return fl.Changed("agent") }
}

// config builds the datasets.Config of the shared flags.
func (f *runFlags) config() (datasets.Config, error) {
	cfg := datasets.Config{Env: f.env, Agent: f.agent, Episodes: f.episodes, Workers: f.workers, Seed: f.seed}
	opts, err := parseKV("--agent-opt", f.agentOpts)
	if err != nil {
		return cfg, err
	}
	if f.seats != "" {
		if f.agentSet != nil && f.agentSet() {
			return cfg, fmt.Errorf("--agent %s and --seats %s: give one (--seats puts one agent in each seat)", f.agent, f.seats)
		}
		if cfg.Seats, err = agentList("--seats", f.seats); err != nil {
			return cfg, err
		}
		cfg.Agent = ""
		if f.weights != "" {
			opts["policy.weights"] = f.weights
		}
		cfg.SeatOptions, err = optionsByAgent(opts)
		if err != nil {
			return cfg, err
		}
		cfg.EnvParams, err = envParams(f.envParams)
		return cfg, err
	}
	if f.weights != "" {
		if f.agent != "policy" && f.agent != "mcts" {
			return cfg, fmt.Errorf("--weights is an option of --agent policy or mcts, not of --agent %s", f.agent)
		}
		if w, ok := opts["weights"]; ok && w != f.weights {
			return cfg, fmt.Errorf("--weights %s and --agent-opt weights=%s disagree", f.weights, w)
		}
		opts["weights"] = f.weights
	}
	if len(opts) > 0 {
		cfg.AgentOptions = agents.Options(opts)
	}
	cfg.EnvParams, err = envParams(f.envParams)
	return cfg, err
}

// agentList splits a comma-separated list of agent names.
func agentList(flag, s string) ([]string, error) {
	var names []string
	for _, name := range strings.Split(s, ",") {
		if name = strings.TrimSpace(name); name != "" {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s %q: want a comma-separated list of agent names", flag, s)
	}
	return names, nil
}

// optionsByAgent turns agent.key=value options into options by agent name
// (nil for none).
func optionsByAgent(kv map[string]string) (map[string]agents.Options, error) {
	var out map[string]agents.Options
	for _, k := range slices.Sorted(maps.Keys(kv)) {
		name, key, ok := strings.Cut(k, ".")
		if !ok || name == "" || key == "" {
			return nil, fmt.Errorf("--agent-opt %q: want agent.key=value (e.g. heuristic.scan_wrap=true)", k+"="+kv[k])
		}
		if out == nil {
			out = map[string]agents.Options{}
		}
		if out[name] == nil {
			out[name] = agents.Options{}
		}
		out[name][key] = kv[k]
	}
	return out, nil
}

// envParams parses repeated --env-param name=value flags into the map an
// environment's spec resolves (nil for none: the defaults).
func envParams(kvs []string) (map[string]any, error) {
	params, err := parseKV("--env-param", kvs)
	if err != nil || len(params) == 0 {
		return nil, err
	}
	m := make(map[string]any, len(params))
	for k, v := range params {
		m[k] = v // parsed by the environment's spec
	}
	return m, nil
}

// parseKV parses repeated key=value flags.
func parseKV(flag string, kvs []string) (map[string]string, error) {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("%s %q: want key=value", flag, kv)
		}
		m[k] = v
	}
	return m, nil
}

// isTerminal reports whether w is a terminal (the progress bar is drawn
// only there).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progressBar returns a datasets.Config.Progress drawing an episodes bar
// (rate, ETA) on w, and a function that ends it (full when the run
// succeeded, as it stands otherwise).
func progressBar(w io.Writer, desc string) (func(datasets.Progress), func(ok bool)) {
	var (
		mu  sync.Mutex
		bar *progressbar.ProgressBar
	)
	update := func(p datasets.Progress) {
		mu.Lock()
		defer mu.Unlock()
		if bar == nil {
			if p.EpisodesToPlay == 0 {
				return
			}
			bar = progressbar.NewOptions64(p.EpisodesToPlay,
				progressbar.OptionSetWriter(w),
				progressbar.OptionSetDescription(desc),
				progressbar.OptionShowCount(),
				progressbar.OptionShowIts(),
				progressbar.OptionSetItsString("episodes"),
				progressbar.OptionSetPredictTime(true),
				progressbar.OptionThrottle(100*time.Millisecond),
				progressbar.OptionClearOnFinish(),
				progressbar.OptionFullWidth(),
			)
		}
		bar.Set64(p.Episodes)
	}
	done := func(ok bool) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case bar == nil:
		case ok:
			bar.Finish()
		default:
			bar.Exit()
			fmt.Fprintln(w)
		}
	}
	return update, done
}

func init() {
	var (
		f            runFlags
		out          string
		perPart      int
		obsEnc       string
		obsMode      string
		recordSearch bool
		zstdLevel    string
		datasetID    string
		author       string
		shard        int
		shards       int
	)
	cmd := &cobra.Command{
		Use:   "generate",
		Short: "Write a Parquet dataset of agent play (the main job)",
		Long: "generate plays --episodes episodes of --agent on --env with --workers goroutines and writes\n" +
			"OUT/steps/part-NNNNN.parquet (one row per step, plus one per episode for the final\n" +
			"observation), OUT/episodes/part-NNNNN.parquet (one row per episode) and OUT/manifest.json (the\n" +
			"dataset card). The output is the same, byte for byte, whatever --workers is. Running the same\n" +
			"command again after an interruption (Ctrl-C, a crash, a full disk) resumes: complete parts are\n" +
			"kept; a directory written with other parameters is refused. OUT defaults to\n" +
			"datasets/out/<env>-<agent>. Schema and usage: docs/datasets.md.\n\n" +
			"OUT may be a bucket URL (s3://bucket/prefix, gs://, azblob://, file://): the same files, each\n" +
			"visible only once complete, resumed from what the bucket holds. --shards N --shard I plays\n" +
			"shard I of a run split over N machines (a Kubernetes Indexed Job sets I); galaxygym dataset\n" +
			"merge OUT then writes the manifest. Credentials and the cluster set-up: docs/scaling.md.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := f.config()
			if err != nil {
				return err
			}
			cfg.EpisodesPerPart = perPart
			cfg.ObsEncoding = datasets.ObsEncoding(obsEnc)
			if obsMode != string(datasets.ObsStored) {
				cfg.Observations = datasets.Observations(obsMode)
			}
			cfg.ZstdLevel = datasets.ZstdLevel(zstdLevel)
			cfg.RecordSearch = recordSearch
			cfg.DatasetID = datasetID
			cfg.Author = author
			cfg.Out = out
			cfg.Shards = shards
			if shards > 1 {
				cfg.Shard = shard
				if !cmd.Flags().Changed("shard") {
					// A Kubernetes Indexed Job gives each pod its index.
					idx, ok := os.LookupEnv("JOB_COMPLETION_INDEX")
					if !ok {
						return fmt.Errorf("--shards %d needs --shard I (0 <= I < %d) or JOB_COMPLETION_INDEX", shards, shards)
					}
					if cfg.Shard, err = strconv.Atoi(idx); err != nil {
						return fmt.Errorf("JOB_COMPLETION_INDEX=%q: not an integer", idx)
					}
				}
			} else if cmd.Flags().Changed("shard") && shard != 0 {
				return fmt.Errorf("--shard %d needs --shards N (N > %d)", shard, shard)
			}
			if cfg.Out == "" {
				who := cfg.Agent
				if len(cfg.Seats) > 0 {
					who = strings.Join(cfg.Seats, "-")
				}
				cfg.Out = filepath.Join("datasets", "out", cfg.Env+"-"+who)
			}
			cfg.CommandLine = cfg.CanonicalCommand() + " --out " + cfg.Out
			stderr := cmd.ErrOrStderr()
			var done func(bool)
			if isTerminal(stderr) {
				cfg.Progress, done = progressBar(stderr, "generate")
			}
			res, err := datasets.Generate(cmd.Context(), cfg)
			if done != nil {
				done(err == nil)
			}
			if err != nil {
				return err
			}
			if cfg.Shards > 1 {
				fmt.Fprintf(cmd.OutOrStdout(),
					"shard %d of %d: %d episodes, %d steps, %d bytes, %.0f steps/s, %.0f episodes/s (%d parts written, %d kept) -> %s; "+
						"galaxygym dataset merge %s writes the manifest when every shard is done\n",
					cfg.Shard, cfg.Shards, res.Episodes, res.Steps, res.Bytes, res.StepsPerSecond(), res.EpisodesPerSecond(),
					res.PartsWritten, res.PartsKept, cfg.Out, cfg.Out)
				return nil
			}
			m := res.Manifest
			rows := m.TotalSteps + m.TotalEpisodes
			fmt.Fprintf(cmd.OutOrStdout(),
				"%d episodes, %d steps, %d rows, %d bytes, %.2f bytes/row, %.0f steps/s, %.0f episodes/s (%d played in %.2fs, %d parts kept) -> %s\n",
				m.TotalEpisodes, m.TotalSteps, rows, res.Bytes, float64(res.Bytes)/float64(rows),
				res.StepsPerSecond(), res.EpisodesPerSecond(), res.Episodes, res.Elapsed.Seconds(), res.PartsKept, cfg.Out)
			return nil
		},
	}
	f.register(cmd, "heuristic", 1000000)
	fl := cmd.Flags()
	fl.StringVar(&out, "out", "", "output directory or bucket URL: s3://bucket/prefix, gs://bucket/prefix, "+
		"azblob://container/prefix, file:///dir (default datasets/out/<env>-<agent>; docs/scaling.md)")
	fl.IntVar(&shards, "shards", 0, "split the run into N shards of consecutive parts, one per machine; "+
		"then galaxygym dataset merge writes the manifest (docs/scaling.md)")
	fl.IntVar(&shard, "shard", 0, "the shard this process plays, 0 <= I < N (default: $JOB_COMPLETION_INDEX, "+
		"which a Kubernetes Indexed Job sets)")
	fl.IntVar(&perPart, "episodes-per-part", datasets.DefaultEpisodesPerPart, "consecutive episodes per part file")
	fl.StringVar(&obsEnc, "obs-encoding", string(datasets.ObsPlain),
		"obs column encoding: plain (every reader: pyarrow, DuckDB, polars, ...) or split (BYTE_STREAM_SPLIT, 1.5-1.8x smaller; pyarrow, arrow-go, parquet-go only)")
	fl.StringVar(&obsMode, "observations", string(datasets.ObsStored),
		"stored (obs and action_mask columns) or none (a compact dataset: seeds, actions, rewards; "+
			"observations derived on read by replaying, galaxygym dataset materialize writes them; docs/datasets.md)")
	fl.BoolVar(&recordSearch, "record-search", false,
		"add the search's statistics to the steps table (the mcts seats): search_policy, the visit "+
			"fractions over the actions, and search_value, the acting seat's root value (mean return from the "+
			"decision on); for expert iteration (docs/learning-baselines.md)")
	fl.StringVar(&zstdLevel, "zstd-level", string(datasets.ZstdBetter),
		"zstd effort: better (smallest), default (1.2-1.5x faster to generate, 10% larger) or fastest")
	fl.StringVar(&datasetID, "dataset-id", "", "manifest dataset_id (default galaxygym/<env>/<agent>-v1)")
	fl.StringVar(&author, "author", "", "manifest author")
	rootCmd.AddCommand(cmd)
}
