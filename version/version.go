// Package version holds the galaxygym release version, the one string that
// `galaxygym --version`, the server's hello message, every dataset manifest
// and the Python package (python/pyproject.toml, checked by a test) share.
package version

import (
	"runtime/debug"
	"sync"
)

// Version is the release version of galaxygym (semantic versioning, no
// leading "v"). python/pyproject.toml carries the same string; the Python
// tests check that they agree.
const Version = "0.1.0"

var revision = sync.OnceValue(func() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev == "" {
		return ""
	}
	return rev + dirty
})

// Revision returns the VCS revision the binary was built from (12 hex
// digits, "-dirty" appended for a modified tree), or "" when the build
// recorded none (go test, a build outside a checkout, -buildvcs=false).
func Revision() string { return revision() }

// Full returns Version followed by the revision in parentheses when one is
// known, e.g. "0.1.0 (0b00040d3e1a-dirty)": the form `galaxygym --version`
// prints.
func Full() string {
	if r := Revision(); r != "" {
		return Version + " (" + r + ")"
	}
	return Version
}
