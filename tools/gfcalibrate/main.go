// Command gfcalibrate measures the calibration curve of Galaxy Fighters v2:
// the win rate of an agent (the heuristic by default) against the
// spawn_density parameter, for each mission, on the same seeded episodes
// as galaxygym eval --seed. It writes the table as CSV and draws the curves
// (95% Wilson intervals as error bars, the target band of each mission
// shaded) with gonum/plot. galaxygym eval --plot draws the return
// distributions of one setting; this program draws the sweep.
//
//	go run ./tools/gfcalibrate --episodes 2000 \
//	    --csv docs/rules/galaxy-fighters-v2-calibration.csv \
//	    --plot docs/rules/galaxy-fighters-v2-calibration.png
//
// Each point is one evaluate.Run, the run that
// galaxygym eval --env galaxy-fighters-v2 --env-param mission=M
// --env-param spawn_density=D --agents A --episodes N --seed S performs.
package main

import (
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"image/color"
	"log/slog"
	"os"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/galaxygym/galaxygym/agents"
	_ "github.com/galaxygym/galaxygym/env/all"
	"github.com/galaxygym/galaxygym/env/galaxyfighters"
	"github.com/galaxygym/galaxygym/evaluate"
)

// bands are the targets for the heuristic's win rate per mission.
var bands = map[string][2]float64{"rookie": {0.90, 1}, "expert": {0.50, 0.80}, "ace": {0.15, 0.45}}

var missions = []string{"rookie", "expert", "ace"}

type point struct {
	mission        string
	density        float64
	win, low, high float64
}

func main() {
	episodes := flag.Int64("episodes", 2000, "episodes per (mission, density)")
	seed := flag.Uint64("seed", 0, "run seed (as galaxygym eval --seed)")
	agent := flag.String("agent", "heuristic", "the agent measured")
	densities := flag.String("densities", "1,1.5,1.75,2,2.2,2.3,2.4,2.5,2.6,2.7,2.8,2.9,3", "comma-separated spawn densities")
	csvPath := flag.String("csv", "", "write the table here")
	plotPath := flag.String("plot", "", "draw the curves here (.png, .svg or .pdf)")
	workers := flag.Int("workers", 2, "goroutines playing episodes")
	flag.Parse()
	if err := run(*episodes, *seed, *agent, *densities, *csvPath, *plotPath, *workers); err != nil {
		fmt.Fprintln(os.Stderr, "gfcalibrate:", err)
		os.Exit(1)
	}
}

func run(episodes int64, seed uint64, agent, densities, csvPath, plotPath string, workers int) error {
	if plotPath != "" {
		if err := evaluate.CheckPlotPath(plotPath); err != nil {
			return err
		}
	}
	var ds []float64
	for _, f := range strings.Split(densities, ",") {
		d, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			return fmt.Errorf("density %q: %w", f, err)
		}
		ds = append(ds, d)
	}
	var pts []point
	for _, m := range missions {
		for _, d := range ds {
			r, err := evaluate.Run(context.Background(), evaluate.Config{Env: galaxyfighters.ID,
				EnvParams: map[string]any{"mission": m, "spawn_density": d}, Agents: []string{agent},
				AgentOptions: map[string]agents.Options{}, Episodes: episodes, Seed: seed, Workers: workers})
			if err != nil {
				return err
			}
			s := r.Agents[0].Summary
			pts = append(pts, point{m, d, s.WinRate, s.WinCI.Low, s.WinCI.High})
			slog.Info("measured", "mission", m, "density", d, "win_rate", s.WinRate)
		}
	}
	if csvPath != "" {
		if err := writeCSV(csvPath, agent, episodes, pts); err != nil {
			return err
		}
	}
	if plotPath != "" {
		return drawCurves(plotPath, agent, episodes, seed, pts)
	}
	return nil
}

func writeCSV(path, agent string, episodes int64, pts []point) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	w.Write([]string{"mission", "spawn_density", "agent", "episodes", "win_rate", "win_ci95_low", "win_ci95_high"})
	for _, p := range pts {
		w.Write([]string{p.mission, strconv.FormatFloat(p.density, 'g', -1, 64), agent, strconv.FormatInt(episodes, 10),
			strconv.FormatFloat(p.win, 'f', 4, 64), strconv.FormatFloat(p.low, 'f', 4, 64), strconv.FormatFloat(p.high, 'f', 4, 64)})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

var colors = map[string]color.RGBA{
	"rookie": {R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	"expert": {R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	"ace":    {R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
}

func drawCurves(path, agent string, episodes int64, seed uint64, pts []point) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: %s win rate vs spawn_density (%d seeded games a point, seed %d)",
		galaxyfighters.ID, agent, episodes, seed)
	p.X.Label.Text = "spawn_density (spawn cards laid per spawn phase)"
	p.Y.Label.Text = "win rate (95% Wilson interval)"
	p.Y.Min, p.Y.Max = 0, 1
	p.Add(plotter.NewGrid())
	p.Legend.Top = false
	p.Legend.Left = true
	lo, hi := pts[0].density, pts[0].density
	for _, q := range pts {
		lo, hi = min(lo, q.density), max(hi, q.density)
	}
	for _, m := range missions {
		c := colors[m]
		band := bands[m]
		poly, err := plotter.NewPolygon(plotter.XYs{{X: lo, Y: band[0]}, {X: hi, Y: band[0]}, {X: hi, Y: band[1]}, {X: lo, Y: band[1]}})
		if err != nil {
			return err
		}
		poly.Color = color.NRGBA{R: c.R, G: c.G, B: c.B, A: 0x28}
		poly.LineStyle.Color = nil
		poly.LineStyle.Width = 0
		p.Add(poly)
	}
	for _, m := range missions {
		var xy plotter.XYs
		var errs plotter.YErrors
		for _, q := range pts {
			if q.mission == m {
				xy = append(xy, plotter.XY{X: q.density, Y: q.win})
				errs = append(errs, struct{ Low, High float64 }{q.win - q.low, q.high - q.win})
			}
		}
		line, points, err := plotter.NewLinePoints(xy)
		if err != nil {
			return err
		}
		line.Color, points.Color = colors[m], colors[m]
		points.Shape = draw.CircleGlyph{}
		points.Radius = vg.Points(2)
		eb, err := plotter.NewYErrorBars(struct {
			plotter.XYer
			plotter.YErrorer
		}{xy, errs})
		if err != nil {
			return err
		}
		eb.Color = colors[m]
		p.Add(line, points, eb)
		p.Legend.Add(fmt.Sprintf("%s (band %.0f-%.0f%%)", m, 100*bands[m][0], 100*bands[m][1]), line, points)
	}
	return p.Save(8*vg.Inch, 5*vg.Inch, path)
}
