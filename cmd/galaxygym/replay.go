package main

import (
	"bufio"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/galaxygym/galaxygym/play"
)

func init() {
	var (
		dataset string
		episode int64
		view    int
		out     string
		asHTML  bool
	)
	cmd := &cobra.Command{
		Use:   "replay",
		Short: "Write an episode of a dataset as one self-contained HTML file (--html)",
		Long: "replay --html replays episode --episode of the dataset in --dataset exactly, from the env id, parameters,\n" +
			"seed and actions it stores, and writes one HTML file holding every step (picture, text board, the move\n" +
			"made and the legal ones, the returns so far) with a scrubber and the arrow keys: it opens with a\n" +
			"double-click, with no server. It fails when this build cannot replay the dataset (another version of\n" +
			"the environment). The page of `galaxygym serve --datasets DIR` replays the same episodes live (docs/play.md).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !asHTML {
				return fmt.Errorf("replay: say --html (the only output so far); the live replay is galaxygym serve --datasets DIR")
			}
			if dataset == "" {
				return fmt.Errorf("replay: --dataset DIR is required")
			}
			if out == "" {
				out = fmt.Sprintf("replay-%d.html", episode)
			}
			f, err := os.Create(out)
			if err != nil {
				return err
			}
			w := bufio.NewWriter(f)
			if err := play.WriteReplayHTML(w, dataset, episode, view); err != nil {
				f.Close()
				os.Remove(out)
				return err
			}
			if err := w.Flush(); err != nil {
				f.Close()
				return err
			}
			if err := f.Close(); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s\n", out)
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&asHTML, "html", false, "write a self-contained HTML file")
	f.StringVar(&dataset, "dataset", "", "the dataset folder (written by generate, or recorded by serve --record)")
	f.Int64Var(&episode, "episode", 0, "the episode_id to replay")
	f.IntVar(&view, "view", play.FaceUp, "the seat whose view is shown (-1: every card face up)")
	f.StringVarP(&out, "out", "o", "", "the HTML file to write (default replay-EPISODE.html)")
	rootCmd.AddCommand(cmd)
}
