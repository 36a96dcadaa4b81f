package archmap

import (
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/galaxygym/galaxygym"

// mapRow is one row of the package table: the packages it names (first
// column) and the module packages it says they import (third column).
type mapRow struct {
	packages []string
	imports  []string
}

// mapRows returns the rows of the table under "## Packages" of
// docs/architecture.md: backticked names, several to a cell allowed; in the
// imports column "its game" stands for env/<game> of a package
// agents/<game>, and "-" for none.
func mapRows(t *testing.T, doc string) []mapRow {
	t.Helper()
	_, section, ok := strings.Cut(doc, "\n## Packages\n")
	if !ok {
		t.Fatal("docs/architecture.md has no \"## Packages\" section")
	}
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	tick := regexp.MustCompile("`([^`]+)`")
	var out []mapRow
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 3 || !strings.HasPrefix(strings.TrimSpace(line), "|") {
			continue
		}
		var row mapRow
		for _, m := range tick.FindAllStringSubmatch(cells[1], -1) {
			row.packages = append(row.packages, m[1])
		}
		if len(row.packages) == 0 {
			continue
		}
		if len(cells) > 3 {
			for _, m := range tick.FindAllStringSubmatch(cells[3], -1) {
				row.imports = append(row.imports, m[1])
			}
			if strings.Contains(cells[3], "its game") {
				row.imports = append(row.imports, "its game")
			}
		}
		out = append(out, row)
	}
	if len(out) == 0 {
		t.Fatal("the package table of docs/architecture.md names no package")
	}
	return out
}

// mapPackages returns the packages named in the first column of the
// package table, relative to the module.
func mapPackages(t *testing.T, doc string) []string {
	t.Helper()
	var out []string
	for _, r := range mapRows(t, doc) {
		out = append(out, r.packages...)
	}
	return out
}

// rowImports returns what row says package pkg imports from the module,
// sorted, with "its game" resolved to env/<game> for pkg agents/<game>.
func rowImports(row mapRow, pkg string) []string {
	var out []string
	for _, imp := range row.imports {
		if imp == "its game" {
			imp = "env/" + path.Base(pkg)
		}
		out = append(out, imp)
	}
	slices.Sort(out)
	return out
}

// readMap returns the module's root and docs/architecture.md.
func readMap(t *testing.T) (root, doc string) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	return root, string(b)
}

// TestMapImportsMatchGoList: each row's "imports from the module" column
// names exactly the module packages that `go list` says each package of
// the row imports from its non-test files.
func TestMapImportsMatchGoList(t *testing.T) {
	root, doc := readMap(t)
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./...")
	cmd.Dir = root
	listed, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(listed)), "\n") {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(f[0], module+"/")
		imports[pkg] = []string{}
		for _, imp := range f[1:] {
			if rel, ok := strings.CutPrefix(imp, module+"/"); ok {
				imports[pkg] = append(imports[pkg], rel)
			}
		}
		slices.Sort(imports[pkg])
	}
	for _, row := range mapRows(t, doc) {
		for _, pkg := range row.packages {
			got, ok := imports[pkg]
			if !ok {
				continue // TestMapNamesEveryPackage reports it
			}
			if want := rowImports(row, pkg); !slices.Equal(got, want) {
				t.Errorf("docs/architecture.md says %s imports %v from the module; go list says %v", pkg, want, got)
			}
		}
	}
}

func TestMapNamesEveryPackage(t *testing.T) {
	root, doc := readMap(t)
	named := mapPackages(t, doc)
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

// TestMapRowsParse: the imports column is read per row, "-" as none and
// "its game" as the game of an agents/<game> package.
func TestMapRowsParse(t *testing.T) {
	doc := "# x\n\n## Packages\n\n| package | holds | imports |\n| --- | --- | --- |\n| `env` | x | - |\n| `agents/a`, `agents/b` | y | `agents`, its game |\n"
	rows := mapRows(t, doc)
	if len(rows) != 2 || len(rows[0].imports) != 0 {
		t.Fatalf("got %+v", rows)
	}
	if got, want := rowImports(rows[1], "agents/b"), []string{"agents", "env/b"}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}
