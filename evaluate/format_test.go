package evaluate_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/galaxygym/galaxygym/evaluate"
)

var (
	reportOnce sync.Once
	report     *evaluate.Report
	reportErr  error
)

// sample is a small random-vs-heuristic report shared by the format tests.
func sample(t *testing.T) *evaluate.Report {
	t.Helper()
	reportOnce.Do(func() {
		report, reportErr = evaluate.Run(context.Background(), evaluate.Config{Env: ge,
			Agents: []string{"random", "heuristic"}, Episodes: 300, Seed: 5, Workers: 2})
	})
	if reportErr != nil {
		t.Fatal(reportErr)
	}
	return report
}

// The documented columns of Galaxy Express, in order.
var geColumns = []string{"agent", "episodes", "mean_return", "sd_return", "ci95_low", "ci95_high",
	"win_rate", "win_ci95_low", "win_ci95_high", "mean_length",
	"mean_deliveries", "mean_refuels", "mean_unspent_coins", "mean_turns"}

var tailColumns = []string{"diff_vs_first", "diff_ci95_low", "diff_ci95_high", "steps_per_second", "seconds"}

func TestColumns(t *testing.T) {
	r := sample(t)
	cols := r.Columns()
	if !reflect.DeepEqual(cols[:len(geColumns)], geColumns) || !reflect.DeepEqual(cols[len(cols)-len(tailColumns):], tailColumns) {
		t.Errorf("columns %v", cols)
	}
	shares := cols[len(geColumns) : len(cols)-len(tailColumns)]
	for _, c := range shares {
		if !strings.HasPrefix(c, "share_rating_") {
			t.Errorf("column %q between the stats and the differences", c)
		}
	}
	if len(shares) == 0 || shares[0] != "share_rating_employee_of_the_year" {
		t.Errorf("share columns %v", shares)
	}
}

func TestCSV(t *testing.T) {
	r := sample(t)
	var b bytes.Buffer
	if err := r.Write(&b, evaluate.FormatCSV); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || !reflect.DeepEqual(rows[0], r.Columns()) {
		t.Fatalf("csv: %v", rows)
	}
	at := func(row []string, col string) string { return row[indexOf(rows[0], col)] }
	if at(rows[1], "agent") != "random" || at(rows[2], "agent") != "heuristic" || at(rows[1], "episodes") != "300" {
		t.Errorf("csv rows %v", rows[1:])
	}
	if at(rows[1], "diff_vs_first") != "" || at(rows[1], "diff_ci95_low") != "" {
		t.Errorf("first agent's differences not empty: %v", rows[1])
	}
	mean, err := strconv.ParseFloat(at(rows[2], "mean_return"), 64)
	if err != nil || mean != r.Agents[1].Summary.Return.Mean {
		t.Errorf("heuristic mean_return %q, want %v at full precision", at(rows[2], "mean_return"), r.Agents[1].Summary.Return.Mean)
	}
	diff, err := strconv.ParseFloat(at(rows[2], "diff_vs_first"), 64)
	if err != nil || diff != r.Agents[1].Summary.DiffVsFirst.Mean {
		t.Errorf("diff_vs_first %q", at(rows[2], "diff_vs_first"))
	}
}

func indexOf(xs []string, x string) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return -1
}

func TestJSON(t *testing.T) {
	r := sample(t)
	var b bytes.Buffer
	if err := r.Write(&b, evaluate.FormatJSON); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Env       string           `json:"env"`
		EnvParams map[string]any   `json:"env_params"`
		Seed      uint64           `json:"seed"`
		Episodes  int64            `json:"episodes"`
		Columns   []string         `json:"columns"`
		Agents    []map[string]any `json:"agents"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if doc.Env != ge || doc.Seed != 5 || doc.Episodes != 300 || !reflect.DeepEqual(doc.Columns, r.Columns()) ||
		len(doc.Agents) != 2 || doc.EnvParams["max_turns"] == nil {
		t.Fatalf("json: %+v", doc)
	}
	for _, row := range doc.Agents {
		if len(row) != len(doc.Columns) {
			t.Errorf("row with %d keys, %d columns", len(row), len(doc.Columns))
		}
	}
	if doc.Agents[0]["diff_vs_first"] != nil || doc.Agents[0]["agent"] != "random" ||
		doc.Agents[1]["mean_return"] != r.Agents[1].Summary.Return.Mean || doc.Agents[1]["episodes"] != 300.0 {
		t.Errorf("json rows %v", doc.Agents)
	}
	// Keys in column order.
	if i, j := strings.Index(b.String(), `"mean_return"`), strings.Index(b.String(), `"seconds"`); i < 0 || j < i {
		t.Error("json keys out of column order")
	}
}

func TestTextFormats(t *testing.T) {
	r := sample(t)
	var tb, md bytes.Buffer
	if err := r.Write(&tb, evaluate.FormatTable); err != nil {
		t.Fatal(err)
	}
	if err := r.Write(&md, evaluate.FormatMarkdown); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(tb.String(), "\n"), "\n")
	if len(lines) != 3 || !reflect.DeepEqual(strings.Fields(lines[0]), r.Columns()) ||
		strings.Fields(lines[1])[0] != "random" || len(strings.Fields(lines[1])) != len(r.Columns()) {
		t.Errorf("table:\n%s", tb.String())
	}
	want := strconv.FormatFloat(r.Agents[1].Summary.Return.Mean, 'f', 2, 64)
	if !strings.Contains(lines[2], " "+want+" ") {
		t.Errorf("table lacks heuristic's mean %s:\n%s", want, tb.String())
	}
	lines = strings.Split(strings.TrimSuffix(md.String(), "\n"), "\n")
	if len(lines) != 4 || lines[0] != "| "+strings.Join(r.Columns(), " | ")+" |" ||
		!strings.HasPrefix(lines[1], "| :--- | ---: |") || !strings.HasPrefix(lines[2], "| random | 300 | ") {
		t.Errorf("markdown:\n%s", md.String())
	}
	for _, l := range lines {
		if strings.Count(l, "|") != len(r.Columns())+1 {
			t.Errorf("markdown line with %d bars: %s", strings.Count(l, "|"), l)
		}
	}
	var fe *evaluate.FormatError
	if err := r.Write(&tb, "xml"); !errors.As(err, &fe) {
		t.Errorf("Write(xml): %v", err)
	}
	if _, err := evaluate.ParseFormat("yaml"); !errors.As(err, &fe) {
		t.Errorf("ParseFormat(yaml): %v", err)
	}
	for _, f := range evaluate.Formats() {
		if g, err := evaluate.ParseFormat(string(f)); err != nil || g != f {
			t.Errorf("ParseFormat(%s) = %v, %v", f, g, err)
		}
	}
}

func TestPlot(t *testing.T) {
	r := sample(t)
	dir := t.TempDir()
	magic := map[string]string{".png": "\x89PNG\r\n\x1a\n", ".svg": "<?xml", ".pdf": "%PDF-"}
	for ext, m := range magic {
		path := filepath.Join(dir, "returns"+ext)
		if err := r.Plot(path); err != nil {
			t.Fatalf("Plot(%s): %v", path, err)
		}
		data, err := os.ReadFile(path)
		if err != nil || len(data) < 1000 || !strings.HasPrefix(string(data), m) {
			t.Errorf("%s: %d bytes, starts %q, want %q (%v)", path, len(data), data[:min(8, len(data))], m, err)
		}
	}
	var pe *evaluate.PlotPathError
	bad := filepath.Join(dir, "returns.gif")
	if err := r.Plot(bad); !errors.As(err, &pe) || evaluate.CheckPlotPath(bad) == nil || evaluate.CheckPlotPath("x.PNG") != nil {
		t.Errorf("Plot(.gif): %v", err)
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Error("Plot(.gif) created the file")
	}
}

func TestSplice(t *testing.T) {
	doc := "# Title\n\ntext\n" + evaluate.MarkerStart + "\nold table\nold line\n" + evaluate.MarkerEnd + "\nafter\n"
	got, err := evaluate.Splice([]byte(doc), evaluate.DefaultSection, []byte("| a |\n|---|\n"))
	want := "# Title\n\ntext\n" + evaluate.MarkerStart + "\n\n| a |\n|---|\n\n" + evaluate.MarkerEnd + "\nafter\n"
	if err != nil || string(got) != want {
		t.Errorf("Splice = %q, %v; want %q", got, err, want)
	}
	// Idempotent.
	if again, err := evaluate.Splice(got, evaluate.DefaultSection, []byte("| a |\n|---|\n")); err != nil || string(again) != want {
		t.Errorf("Splice again = %q, %v", again, err)
	}
	// Another section, and the default one left alone.
	start, end := evaluate.Markers("search")
	two := want + start + "\nx\n" + end + "\n"
	got, err = evaluate.Splice([]byte(two), "search", []byte("y"))
	if err != nil || string(got) != want+start+"\n\ny\n\n"+end+"\n" {
		t.Errorf("Splice(search) = %q, %v", got, err)
	}
	var me *evaluate.MarkerError
	if _, err := evaluate.Splice([]byte(want), "search", nil); !errors.As(err, &me) || me.Section != "search" {
		t.Errorf("Splice of a missing section: %v", err)
	}
	for _, bad := range []string{
		"no markers\n",
		evaluate.MarkerStart + "\n",
		evaluate.MarkerEnd + "\n" + evaluate.MarkerStart + "\n",
		evaluate.MarkerStart + "\n" + evaluate.MarkerStart + "\n" + evaluate.MarkerEnd + "\n",
	} {
		if _, err := evaluate.Splice([]byte(bad), evaluate.DefaultSection, nil); !errors.As(err, &me) {
			t.Errorf("Splice(%q): %v", bad, err)
		}
	}
}
