package archmap

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// sourceFiles parses every non-test Go file of the module (its own module
// tools/zstdcompare and testdata folders left out) and calls visit with
// each, its path relative to the module's root.
func sourceFiles(t *testing.T, visit func(path string, fset *token.FileSet, f *ast.File)) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	n := 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			if rel != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules" || rel == "tools/zstdcompare" || rel == "python") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		n++
		visit(rel, fset, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("found no Go file")
	}
}

// TestNoExportedVariables: no package exports a package-level var, which
// any importer could change. Only error sentinels are allowed: an exported
// var named Err... whose value is an errors.New call.
func TestNoExportedVariables(t *testing.T) {
	sourceFiles(t, func(path string, fset *token.FileSet, f *ast.File) {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, s := range gd.Specs {
				vs := s.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if !name.IsExported() || isErrorSentinel(name.Name, vs, i) {
						continue
					}
					t.Errorf("%s: exported package variable %s: make it a const, a func or unexported", fset.Position(name.Pos()), name.Name)
				}
			}
		}
	})
}

// isErrorSentinel reports whether the i-th name of vs is an error sentinel:
// named Err... and given the value errors.New(...).
func isErrorSentinel(name string, vs *ast.ValueSpec, i int) bool {
	if !strings.HasPrefix(name, "Err") || i >= len(vs.Values) {
		return false
	}
	call, ok := vs.Values[i].(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "errors" && sel.Sel.Name == "New"
}

// TestIsErrorSentinel: the allowance covers errors.New sentinels only.
func TestIsErrorSentinel(t *testing.T) {
	for _, c := range []struct {
		src  string
		want bool
	}{
		{`var ErrX = errors.New("x")`, true},
		{`var ErrX = fmt.Errorf("x")`, false},
		{`var X = errors.New("x")`, false},
		{`var ErrX error`, false},
	} {
		f, err := parser.ParseFile(token.NewFileSet(), "x.go", "package p\n"+c.src, 0)
		if err != nil {
			t.Fatal(err)
		}
		vs := f.Decls[0].(*ast.GenDecl).Specs[0].(*ast.ValueSpec)
		if got := isErrorSentinel(vs.Names[0].Name, vs, 0); got != c.want {
			t.Errorf("%s: got %v, want %v", c.src, got, c.want)
		}
	}
}
