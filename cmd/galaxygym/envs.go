package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
)

func init() {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "envs",
		Short: "List the registered environments and agents",
		Long: "envs lists every registered environment with its players, actions, observation shape\n" +
			"parameters and the agents that play it, then every agent with the environments it plays\n" +
			"(a game's own agents, such as its heuristic, are registered per environment; generic\n" +
			"agents play every environment or every one they can). --json prints the environment\n" +
			"specs as JSON.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := cmd.OutOrStdout()
			if asJSON {
				specs := make([]*env.Spec, 0)
				for _, id := range env.IDs() {
					g, _ := env.Lookup(id)
					specs = append(specs, g.Spec())
				}
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(specs)
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ENV\tPLAYERS\tACTIONS\tOBSERVATION\tMAX STEPS\tAGENTS\tPARAMETERS")
			for _, id := range env.IDs() {
				g, _ := env.Lookup(id)
				s := g.Spec()
				params := make([]string, 0, len(s.Params))
				for _, p := range s.Params {
					params = append(params, fmt.Sprintf("%s=%v", p.Name, p.Default))
				}
				var names []string
				for _, a := range agents.Playing(s) {
					names = append(names, a.Name)
				}
				players := strconv.Itoa(s.NumPlayers)
				if s.MaxPlayers > s.MinPlayers {
					players = fmt.Sprintf("%d-%d", s.MinPlayers, s.MaxPlayers) // the default is the players parameter's
				}
				fmt.Fprintf(tw, "%s\t%s\t%d\t%s%v\t%d\t%s\t%s\n", s.ID, players, s.NumActions(),
					s.ObsDType, s.ObsShape, s.MaxEpisodeSteps, strings.Join(names, ","), strings.Join(params, " "))
			}
			tw.Flush()
			fmt.Fprintln(out)
			tw = tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "AGENT\tPLAYS\tDESCRIPTION")
			for _, a := range agents.List() {
				plays := a.Env
				if a.Generic() {
					plays = strings.Join(agents.EnvsOf(a.Name), ",")
					if a.PlaysEvery() {
						plays = "every environment"
					}
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\n", a.Name, plays, a.Doc)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the environment specs as JSON")
	rootCmd.AddCommand(cmd)
}
