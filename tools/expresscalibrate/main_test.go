package main

import (
	"strings"
	"testing"
)

// TestRun: a small run prints the header and one row per setting, every
// row with hands and turns measured.
func TestRun(t *testing.T) {
	var b strings.Builder
	if err := run(&b, "express-v1", "heuristic", 2); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2+len(settings) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), 2+len(settings), b.String())
	}
	for _, l := range lines[2:] {
		if strings.Contains(l, "NaN") || !strings.HasPrefix(l, "| map[") {
			t.Errorf("row %q", l)
		}
	}
	if err := run(&b, "express-v1", "heuristic", 0); err == nil {
		t.Error("--games 0 accepted")
	}
	if err := run(&b, "no-such-env", "heuristic", 1); err == nil {
		t.Error("an unknown env accepted")
	}
}
