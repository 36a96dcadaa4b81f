package archmap

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/galaxygym/galaxygym"

// mapPackages returns the packages named in the first column of the table
// under "## Packages" of docs/architecture.md (backticked, several to a
// cell allowed), relative to the module.
func mapPackages(t *testing.T, doc string) []string {
	t.Helper()
	_, section, ok := strings.Cut(doc, "\n## Packages\n")
	if !ok {
		t.Fatal("docs/architecture.md has no \"## Packages\" section")
	}
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	tick := regexp.MustCompile("`([^`]+)`")
	var out []string
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 3 || !strings.HasPrefix(strings.TrimSpace(line), "|") {
			continue
		}
		for _, m := range tick.FindAllStringSubmatch(cells[1], -1) {
			out = append(out, m[1])
		}
	}
	if len(out) == 0 {
		t.Fatal("the package table of docs/architecture.md names no package")
	}
	return out
}

func TestMapNamesEveryPackage(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	named := mapPackages(t, string(doc))
	cmd := exec.Command("go", "list", "./...")
	cmd.Dir = root
	listed, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list ./...: %v", err)
	}
	var pkgs []string
	for _, p := range strings.Fields(string(listed)) {
		if p == module {
			p = "."
		}
		pkgs = append(pkgs, strings.TrimPrefix(p, module+"/"))
	}
	for _, p := range pkgs {
		if !slices.Contains(named, p) {
			t.Errorf("package %s is not on the map: add a row for it to the package table of docs/architecture.md", p)
		}
	}
	for _, p := range named {
		if !slices.Contains(pkgs, p) {
			t.Errorf("docs/architecture.md names package %s, which go list ./... does not list", p)
		}
	}
}

// TestMapPackagesParse: the table parser reads several packages of one
// cell and ignores the header and the other columns.
func TestMapPackagesParse(t *testing.T) {
	doc := "# x\n\n## Packages\n\n| package | holds |\n| --- | --- |\n| `env` | `Spec` |\n| `a/b`, `a/c` | x |\n\n## Next\n| `not` | |\n"
	got := mapPackages(t, doc)
	if want := []string{"env", "a/b", "a/c"}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}
