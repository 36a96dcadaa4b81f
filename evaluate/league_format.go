package evaluate

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// LeagueColumns returns the columns of a league's ratings table, one row
// per agent, best rating first: a new slice on each call.
func LeagueColumns() []string { return slices.Clone(leagueColumns) }

// leagueColumns are the columns LeagueColumns returns.
var leagueColumns = []string{"rank", "agent", "rating", "ci95_low", "ci95_high", "games", "win_rate", "mean_rank", "mean_score"}

func (r *LeagueReport) row(pos int) []any {
	a := r.Agents[r.Order[pos]]
	return []any{int64(pos + 1), a.Name, a.Rating, a.CI.Low, a.CI.High, a.Games, a.WinRate, a.MeanRank, a.MeanScore}
}

// leagueDigits are the decimals of each column in the table and markdown
// formats.
var leagueDigits = []int{0, 0, 0, 0, 0, 0, 3, 2, 2}

func cell(v any, digits int, full bool) string {
	switch x := v.(type) {
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		if math.IsNaN(x) {
			return ""
		}
		if full {
			return strconv.FormatFloat(x, 'g', -1, 64)
		}
		out := strconv.FormatFloat(x, 'f', digits, 64)
		if strings.Trim(out, "-0.") == "" {
			// A tiny negative number rounds to "-0" (or "-0.000"): a
			// bootstrap bound a hair below a rating of 0 reads as 0.
			out = strings.TrimPrefix(out, "-")
		}
		return out
	}
	return ""
}

// HeadToHeadTableAgents is the most agents whose head-to-head matrix the
// table and markdown formats print: the best rated, with a line saying
// how many are left out (the json format always has every agent). A
// league with thousands of external labels would otherwise print
// millions of cells (3,000 labels: 90 MB of table).
const HeadToHeadTableAgents = 50

// Write writes the league in format f: with table and markdown, the
// ratings table (LeagueColumns), then the head-to-head score matrix (row
// agent's score against the column agent, agents by rating; at most
// HeadToHeadTableAgents of them); with csv the
// ratings table alone; with json {"env", "env_params", "seed", "deals",
// "players", "games", "external_games", "bootstrap", "lineups", "columns", "agents": [rows],
// "head_to_head": {"agents", "score", "meetings"}, "anchor", "prior_sd_elo",
// "rating_wide_prior" (by row), "notes" ([LeagueReport.Notes])} (NaN as
// null). Under the ratings table, table and markdown print the notes (a
// markdown list).
func (r *LeagueReport) Write(w io.Writer, f Format) error {
	m := len(r.Agents)
	names := make([]string, m)
	for pos, i := range r.Order {
		names[pos] = r.Agents[i].Name
	}
	switch f {
	case FormatCSV:
		cw := csv.NewWriter(w)
		cw.Write(leagueColumns)
		for pos := range m {
			row := r.row(pos)
			rec := make([]string, len(row))
			for j, v := range row {
				rec[j] = cell(v, 0, true)
			}
			cw.Write(rec)
		}
		cw.Flush()
		return cw.Error()
	case FormatJSON:
		num := func(x float64) any {
			if math.IsNaN(x) {
				return nil
			}
			return x
		}
		rows := make([]map[string]any, m)
		for pos := range m {
			rows[pos] = map[string]any{}
			for j, v := range r.row(pos) {
				if x, ok := v.(float64); ok {
					v = num(x)
				}
				rows[pos][leagueColumns[j]] = v
			}
		}
		score := make([][]any, m)
		meet := make([][]int64, m)
		for p, a := range r.Order {
			for _, b := range r.Order {
				score[p] = append(score[p], num(r.Score[a][b]))
				meet[p] = append(meet[p], r.Meetings[a][b])
			}
		}
		var anchor string
		if m > 0 {
			anchor = r.Agents[0].Name
		}
		wide := make([]any, m)
		for p, a := range r.Order {
			wide[p] = num(r.Agents[a].RatingWidePrior)
		}
		lineups := make([][]string, len(r.Lineups))
		for i, lu := range r.Lineups {
			for _, a := range lu {
				lineups[i] = append(lineups[i], r.Agents[a].Name)
			}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{
			"env": r.Env, "env_params": r.EnvParams, "seed": r.Seed, "deals": r.Deals, "players": r.Players,
			"games": r.Games, "external_games": r.ExternalGames, "bootstrap": r.Bootstrap, "lineups": lineups, "columns": leagueColumns, "agents": rows,
			"anchor": anchor, "prior_sd_elo": EloScale * RatingPriorSD, "rating_wide_prior": wide, "notes": r.Notes(),
			"head_to_head": map[string]any{"agents": names, "score": score, "meetings": meet},
		})
	case FormatTable, FormatMarkdown:
	default:
		return &FormatError{Format: string(f)}
	}
	md := f == FormatMarkdown
	var out io.Writer = w
	var tw *tabwriter.Writer
	if !md {
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		out = tw
	}
	line := func(cells []string) {
		if md {
			esc := make([]string, len(cells))
			for i, c := range cells {
				esc[i] = strings.ReplaceAll(c, "|", `\|`) // a label's | would split its cell
			}
			fmt.Fprintf(out, "| %s |\n", strings.Join(esc, " | "))
		} else {
			fmt.Fprintf(out, "%s\t\n", strings.Join(cells, "\t"))
		}
	}
	rule := func(k int) {
		if md {
			fmt.Fprintf(out, "|%s\n", strings.Repeat(" --- |", k))
		}
	}
	line(leagueColumns)
	rule(len(leagueColumns))
	for pos := range m {
		row := r.row(pos)
		cells := make([]string, len(row))
		for j, v := range row {
			cells[j] = cell(v, leagueDigits[j], false)
		}
		line(cells)
	}
	if tw != nil {
		if err := tw.Flush(); err != nil {
			return err
		}
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		out = tw
	}
	fmt.Fprintln(w)
	for _, note := range r.Notes() {
		if md {
			fmt.Fprintf(w, "- %s\n", note)
		} else {
			fmt.Fprintln(w, note)
		}
	}
	fmt.Fprintf(w, "\nHead-to-head score (row against column: 1 per game the row agent ranked better, 1/2 per tie):\n\n")
	if m > HeadToHeadTableAgents {
		fmt.Fprintf(w, "The %d best rated of %d agents; the json format has them all.\n\n", HeadToHeadTableAgents, m)
	}
	shown := r.Order[:min(m, HeadToHeadTableAgents)]
	line(append([]string{"vs"}, names[:len(shown)]...))
	rule(len(shown) + 1)
	for _, a := range shown {
		cells := []string{r.Agents[a].Name}
		for _, b := range shown {
			cells = append(cells, cell(r.Score[a][b], 3, false))
		}
		line(cells)
	}
	if tw != nil {
		return tw.Flush()
	}
	return nil
}

// Plot draws each agent's rating with its 95% bootstrap interval, best
// first, and saves it to path in the format its extension names
// (PlotExtensions).
func (r *LeagueReport) Plot(path string) error {
	if err := CheckPlotPath(path); err != nil {
		return err
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s (%d players): Plackett-Luce ratings, %d games", r.Env, r.Players, r.Games)
	p.Y.Label.Text = fmt.Sprintf("Elo vs %s (95%% bootstrap interval)", r.Agents[0].Name)
	grid := plotter.NewGrid()
	grid.Vertical.Color = nil
	p.Add(grid)
	names := make([]string, len(r.Order))
	pts := make(errPoints, len(r.Order))
	for pos, i := range r.Order {
		a := r.Agents[i]
		names[pos] = a.Name
		lo, hi := a.Rating-a.CI.Low, a.CI.High-a.Rating
		if math.IsNaN(lo) {
			lo, hi = 0, 0
		}
		pts[pos] = errPoint{x: float64(pos), y: a.Rating, lo: lo, hi: hi}
	}
	bars, err := plotter.NewYErrorBars(pts)
	if err != nil {
		return fmt.Errorf("evaluate: plot: %w", err)
	}
	bars.Width = vg.Points(10)
	bars.LineStyle.Width = vg.Points(1.2)
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return fmt.Errorf("evaluate: plot: %w", err)
	}
	sc.GlyphStyle = draw.GlyphStyle{Color: color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}, Radius: vg.Points(4), Shape: draw.CircleGlyph{}}
	p.Add(bars, sc)
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5
	width := max(5*vg.Inch, vg.Length(len(names))*1.3*vg.Inch)
	if err := p.Save(width, 4*vg.Inch, path); err != nil {
		return fmt.Errorf("evaluate: plot %s: %w", path, err)
	}
	return nil
}

type errPoint struct{ x, y, lo, hi float64 }

// errPoints are points with vertical error bars (plotter.XYer and
// plotter.YErrorer).
type errPoints []errPoint

func (e errPoints) Len() int                    { return len(e) }
func (e errPoints) XY(i int) (float64, float64) { return e[i].x, e[i].y }
func (e errPoints) YError(i int) (float64, float64) {
	return e[i].lo, e[i].hi
}
