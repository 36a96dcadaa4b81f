package main

import (
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/version"
)

func TestVersionFlag(t *testing.T) {
	out, err := runCLI(t, "--version")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "galaxygym version "+version.Version) {
		t.Fatalf("--version printed %q, want it to start with %q", out, "galaxygym version "+version.Version)
	}
}
