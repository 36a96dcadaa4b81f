package evaluate

import (
	"fmt"
	"image/color"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// PlotExtensions returns the file extensions [Report.Plot] writes, each
// naming its format: a new slice on each call.
func PlotExtensions() []string { return []string{".png", ".svg", ".pdf"} }

// CheckPlotPath returns a *[PlotPathError] when path's extension is not one
// of PlotExtensions (compared case-insensitively), so that a caller can
// refuse it before playing.
func CheckPlotPath(path string) error {
	ext := strings.ToLower(filepath.Ext(path))
	for _, e := range PlotExtensions() {
		if ext == e {
			return nil
		}
	}
	return &PlotPathError{Path: path}
}

// Plot draws the distribution of each agent's episode returns as a box
// plot (median, quartiles, whiskers to the farthest return within 1.5
// interquartile ranges, the returns beyond as points) with the mean marked
// by a red cross, and saves it to path in the format its extension names
// (see PlotExtensions).
func (r *Report) Plot(path string) error {
	if err := CheckPlotPath(path); err != nil {
		return err
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: returns of %d seeded episodes per agent (seed %d)", r.Env, r.Episodes, r.Seed)
	p.Y.Label.Text = "episode return"
	p.Y.Tick.Marker = plot.DefaultTicks{}
	grid := plotter.NewGrid() // under the boxes
	grid.Vertical.Color = nil
	p.Add(grid)
	names := make([]string, len(r.Agents))
	means := make(plotter.XYs, len(r.Agents))
	for i, a := range r.Agents {
		names[i] = a.Name
		box, err := plotter.NewBoxPlot(vg.Points(40), float64(i), plotter.Values(a.Returns))
		if err != nil {
			return fmt.Errorf("evaluate: plot %s: %w", a.Name, err)
		}
		box.FillColor = color.RGBA{R: 0xc6, G: 0xdb, B: 0xef, A: 0xff}
		box.GlyphStyle.Radius = vg.Points(1.5)
		p.Add(box)
		means[i] = plotter.XY{X: float64(i), Y: a.Summary.Return.Mean}
	}
	mean, err := plotter.NewScatter(means)
	if err != nil {
		return fmt.Errorf("evaluate: plot: %w", err)
	}
	mean.GlyphStyle = draw.GlyphStyle{Color: color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
		Radius: vg.Points(4), Shape: draw.CrossGlyph{}}
	p.Add(mean)
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(len(r.Agents))-0.5
	p.X.Label.Text = "red ×: mean; box: quartiles and median; whiskers: 1.5 IQR"
	width := max(5*vg.Inch, vg.Length(len(r.Agents))*1.5*vg.Inch)
	if err := p.Save(width, 4*vg.Inch, path); err != nil {
		return fmt.Errorf("evaluate: plot %s: %w", path, err)
	}
	return nil
}
