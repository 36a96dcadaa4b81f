package version

import (
	_ "github.com/galaxygym/galaxygym/env/envtest" // accepts go test ./... -update
	"regexp"
	"strings"
	"testing"
)

func TestVersionIsSemver(t *testing.T) {
	if !regexp.MustCompile(`^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$`).MatchString(Version) {
		t.Fatalf("Version %q is not a semantic version without a leading v", Version)
	}
	if !strings.HasPrefix(Full(), Version) {
		t.Fatalf("Full() = %q, want the prefix %q", Full(), Version)
	}
}
