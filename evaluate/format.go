package evaluate

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Format is an output format of [Report.Write].
type Format string

// The formats: every one writes one row per agent under the columns of
// [Report.Columns].
const (
	FormatTable    Format = "table"    // aligned text (text/tabwriter)
	FormatMarkdown Format = "markdown" // a GitHub table
	FormatCSV      Format = "csv"      // a header line, then full-precision numbers; empty for none
	FormatJSON     Format = "json"     // {"env", "env_params", "seed", "episodes", "columns", "agents": [rows]}
)

// Formats returns the formats, a new slice on each call.
func Formats() []Format {
	return []Format{FormatTable, FormatMarkdown, FormatCSV, FormatJSON}
}

// ParseFormat returns the named format, or a *[FormatError].
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats() {
		if string(f) == s {
			return f, nil
		}
	}
	return "", &FormatError{Format: s}
}

// column is one column of every format: its name, the decimals shown by
// the table and markdown formats, and its value for an agent: a string, an
// int64, a float64 (NaN for none) or nil (none).
type column struct {
	name   string
	digits int
	value  func(a *AgentReport) any
}

// columns defines the columns and their order, once for every format.
func (r *Report) columns() []column {
	sum := func(f func(s *AgentSummary) float64) func(a *AgentReport) any {
		return func(a *AgentReport) any { return f(&a.Summary) }
	}
	diff := func(f func(d *Estimate) float64) func(a *AgentReport) any {
		return func(a *AgentReport) any {
			if a.Summary.DiffVsFirst == nil {
				return nil
			}
			return f(a.Summary.DiffVsFirst)
		}
	}
	if r.Seats != nil {
		return r.seatColumns(sum, diff)
	}
	cols := []column{
		{"agent", 0, func(a *AgentReport) any { return a.Name }},
		{"episodes", 0, func(a *AgentReport) any { return a.Summary.Episodes }},
		{"mean_return", 2, sum(func(s *AgentSummary) float64 { return s.Return.Mean })},
		{"sd_return", 2, sum(func(s *AgentSummary) float64 { return s.Return.SD })},
		{"ci95_low", 2, sum(func(s *AgentSummary) float64 { return s.Return.CI.Low })},
		{"ci95_high", 2, sum(func(s *AgentSummary) float64 { return s.Return.CI.High })},
		{"win_rate", 4, sum(func(s *AgentSummary) float64 { return s.WinRate })},
		{"win_ci95_low", 4, sum(func(s *AgentSummary) float64 { return s.WinCI.Low })},
		{"win_ci95_high", 4, sum(func(s *AgentSummary) float64 { return s.WinCI.High })},
		{"mean_length", 2, sum(func(s *AgentSummary) float64 { return s.MeanLength })},
	}
	for j, name := range r.Stats {
		cols = append(cols, column{"mean_" + Slug(name), 3,
			sum(func(s *AgentSummary) float64 { return s.MeanStats[j] })})
	}
	for j, lv := range r.Labels {
		for k, slug := range lv.Slugs {
			cols = append(cols, column{"share_" + Slug(lv.Name) + "_" + slug, 4,
				sum(func(s *AgentSummary) float64 { return s.Shares[j][k] })})
		}
	}
	return append(cols,
		column{"diff_vs_first", 2, diff(func(d *Estimate) float64 { return d.Mean })},
		column{"diff_ci95_low", 2, diff(func(d *Estimate) float64 { return d.CI.Low })},
		column{"diff_ci95_high", 2, diff(func(d *Estimate) float64 { return d.CI.High })},
		column{"steps_per_second", 0, sum(func(s *AgentSummary) float64 { return s.StepsPerSecond })},
		column{"seconds", 2, sum(func(s *AgentSummary) float64 { return s.Seconds })},
	)
}

// seatColumns are the columns of a report of seats.
func (r *Report) seatColumns(sum func(f func(s *AgentSummary) float64) func(a *AgentReport) any,
	diff func(f func(d *Estimate) float64) func(a *AgentReport) any) []column {
	return []column{
		{"agent", 0, func(a *AgentReport) any { return a.Name }},
		{"games", 0, func(a *AgentReport) any { return a.Summary.Episodes }},
		{"win_rate", 4, sum(func(s *AgentSummary) float64 { return s.WinRate })},
		{"win_ci95_low", 4, sum(func(s *AgentSummary) float64 { return s.WinCI.Low })},
		{"win_ci95_high", 4, sum(func(s *AgentSummary) float64 { return s.WinCI.High })},
		{"mean_score", 2, sum(func(s *AgentSummary) float64 { return s.Score.Mean })},
		{"score_ci95_low", 2, sum(func(s *AgentSummary) float64 { return s.Score.CI.Low })},
		{"score_ci95_high", 2, sum(func(s *AgentSummary) float64 { return s.Score.CI.High })},
		{"mean_rank", 3, sum(func(s *AgentSummary) float64 { return s.Rank.Mean })},
		{"rank_ci95_low", 3, sum(func(s *AgentSummary) float64 { return s.Rank.CI.Low })},
		{"rank_ci95_high", 3, sum(func(s *AgentSummary) float64 { return s.Rank.CI.High })},
		{"mean_return", 2, sum(func(s *AgentSummary) float64 { return s.Return.Mean })},
		{"mean_length", 2, sum(func(s *AgentSummary) float64 { return s.MeanLength })},
		{"score_diff_vs_first", 2, diff(func(d *Estimate) float64 { return d.Mean })},
		{"score_diff_ci95_low", 2, diff(func(d *Estimate) float64 { return d.CI.Low })},
		{"score_diff_ci95_high", 2, diff(func(d *Estimate) float64 { return d.CI.High })},
	}
}

// Columns returns the column names of every format, in order: agent,
// episodes, mean_return, sd_return, ci95_low, ci95_high, win_rate,
// win_ci95_low, win_ci95_high, mean_length, mean_<stat> per statistic,
// share_<label>_<value> per label value, diff_vs_first, diff_ci95_low,
// diff_ci95_high, steps_per_second, seconds. A report of seats
// (Config.Seats) has instead: agent, games, win_rate, win_ci95_low,
// win_ci95_high, mean_score, score_ci95_low, score_ci95_high, mean_rank,
// rank_ci95_low, rank_ci95_high, mean_return, mean_length,
// score_diff_vs_first, score_diff_ci95_low, score_diff_ci95_high.
func (r *Report) Columns() []string {
	cols := r.columns()
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.name
	}
	return names
}

// Write writes the report to w in format f (a *[FormatError] for an
// unknown one).
func (r *Report) Write(w io.Writer, f Format) error {
	switch f {
	case FormatTable:
		return r.writeTable(w)
	case FormatMarkdown:
		return r.writeMarkdown(w)
	case FormatCSV:
		return r.writeCSV(w)
	case FormatJSON:
		return r.writeJSON(w)
	}
	return &FormatError{Format: string(f)}
}

// text renders a value for the table and markdown formats.
func text(v any, digits int) string {
	switch v := v.(type) {
	case string:
		return v
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return "-"
		}
		s := strconv.FormatFloat(v, 'f', digits, 64)
		if strings.HasPrefix(s, "-") && strings.Trim(s, "-0.") == "" {
			s = s[1:] // no negative zero
		}
		return s
	}
	return "-"
}

// full renders a value at full precision for CSV ("" for none).
func full(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return ""
}

func (r *Report) writeTable(w io.Writer) error {
	cols := r.columns()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, c := range cols {
		fmt.Fprint(tw, c.name, "\t")
	}
	fmt.Fprintln(tw)
	for _, a := range r.Agents {
		for _, c := range cols {
			fmt.Fprint(tw, text(c.value(a), c.digits), "\t")
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

func (r *Report) writeMarkdown(w io.Writer) error {
	cols := r.columns()
	var b strings.Builder
	b.WriteString("|")
	for _, c := range cols {
		b.WriteString(" " + c.name + " |")
	}
	b.WriteString("\n|")
	for i := range cols {
		if i == 0 {
			b.WriteString(" :--- |")
		} else {
			b.WriteString(" ---: |")
		}
	}
	b.WriteString("\n")
	for _, a := range r.Agents {
		b.WriteString("|")
		for _, c := range cols {
			s := strings.ReplaceAll(text(c.value(a), c.digits), "|", `\|`)
			b.WriteString(" " + s + " |")
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (r *Report) writeCSV(w io.Writer) error {
	cols := r.columns()
	cw := csv.NewWriter(w)
	cw.Write(r.Columns())
	row := make([]string, len(cols))
	for _, a := range r.Agents {
		for i, c := range cols {
			row[i] = full(c.value(a))
		}
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

func (r *Report) writeJSON(w io.Writer) error {
	cols := r.columns()
	var b bytes.Buffer
	put := func(v any) {
		if f, ok := v.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
			v = nil
		}
		data, err := json.Marshal(v)
		if err != nil {
			data = []byte("null")
		}
		b.Write(data)
	}
	params := map[string]any(r.EnvParams)
	if params == nil {
		params = map[string]any{}
	}
	b.WriteString(`{"env":`)
	put(r.Env)
	b.WriteString(`,"env_params":`)
	put(params)
	b.WriteString(`,"seed":`)
	put(r.Seed)
	b.WriteString(`,"episodes":`)
	put(r.Episodes)
	if r.Seats != nil {
		b.WriteString(`,"seats":`)
		put(r.Seats)
		b.WriteString(`,"rotate":`)
		put(r.Rotate)
	}
	b.WriteString(`,"columns":`)
	put(r.Columns())
	b.WriteString(`,"agents":[`)
	for i, a := range r.Agents {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('{')
		for k, c := range cols {
			if k > 0 {
				b.WriteByte(',')
			}
			put(c.name)
			b.WriteByte(':')
			put(c.value(a))
		}
		b.WriteByte('}')
	}
	b.WriteString("]}")
	var out bytes.Buffer
	if err := json.Indent(&out, b.Bytes(), "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	_, err := w.Write(out.Bytes())
	return err
}

// DefaultSection is the section of a document [Splice] writes by default;
// MarkerStart and MarkerEnd are its markers.
const (
	DefaultSection = "leaderboard"
	MarkerStart    = "<!-- leaderboard:start -->"
	MarkerEnd      = "<!-- leaderboard:end -->"
)

// Markers returns the lines that open and close section in a document:
// "<!-- SECTION:start -->" and "<!-- SECTION:end -->".
func Markers(section string) (start, end string) {
	return "<!-- " + section + ":start -->", "<!-- " + section + ":end -->"
}

// Splice returns doc with the lines between its two marker lines of
// section (see [Markers]; each alone on its line, surrounding spaces
// allowed) replaced by content, set off by blank lines. It returns a
// *[MarkerError] when the markers are missing, repeated or out of order.
func Splice(doc []byte, section string, content []byte) ([]byte, error) {
	mStart, mEnd := Markers(section)
	lines := bytes.SplitAfter(doc, []byte("\n"))
	start, end := -1, -1
	for i, l := range lines {
		switch string(bytes.TrimSpace(l)) {
		case mStart:
			if start >= 0 {
				return nil, &MarkerError{Section: section, Reason: "two start markers"}
			}
			start = i
		case mEnd:
			if end >= 0 {
				return nil, &MarkerError{Section: section, Reason: "two end markers"}
			}
			end = i
		}
	}
	switch {
	case start < 0:
		return nil, &MarkerError{Section: section, Reason: "no start marker"}
	case end < 0:
		return nil, &MarkerError{Section: section, Reason: "no end marker"}
	case end < start:
		return nil, &MarkerError{Section: section, Reason: "end marker before start marker"}
	}
	var b bytes.Buffer
	for _, l := range lines[:start+1] {
		b.Write(l)
	}
	if !bytes.HasSuffix(lines[start], []byte("\n")) {
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	b.Write(bytes.TrimRight(content, "\n"))
	b.WriteString("\n\n")
	for _, l := range lines[end:] {
		b.Write(l)
	}
	return b.Bytes(), nil
}
