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

// maxFuncLines is the most lines a function may span outside tests, from
// its func keyword to its closing brace.
const maxFuncLines = 150

// longFuncAllowed names the functions allowed over maxFuncLines, as
// "path:Func" or "path:Recv.Func": none.
var longFuncAllowed = map[string]bool{}

// TestNoLongFunctions: no function outside tests spans more than
// maxFuncLines lines (longFuncAllowed excepted); a longer one is split
// where its jobs split.
func TestNoLongFunctions(t *testing.T) {
	sourceFiles(t, func(path string, fset *token.FileSet, f *ast.File) {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			lines := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
			name := path + ":" + funcName(fd)
			if lines > maxFuncLines && !longFuncAllowed[name] {
				t.Errorf("%s: %s spans %d lines, more than %d: split it where its jobs split", fset.Position(fd.Pos()), funcName(fd), lines, maxFuncLines)
			}
		}
	})
}

// funcName returns "Func" or "Recv.Func" (the receiver's type name, without
// a pointer or type parameters).
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	typ := fd.Recv.List[0].Type
	if st, ok := typ.(*ast.StarExpr); ok {
		typ = st.X
	}
	switch x := typ.(type) {
	case *ast.IndexExpr:
		typ = x.X
	case *ast.IndexListExpr:
		typ = x.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}

// TestFuncName: methods are named with their receiver's type.
func TestFuncName(t *testing.T) {
	src := "package p\nfunc F() {}\nfunc (c *conn) handle() {}\nfunc (l list[T]) Len() int { return 0 }\n"
	f, err := parser.ParseFile(token.NewFileSet(), "x.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range f.Decls {
		got = append(got, funcName(d.(*ast.FuncDecl)))
	}
	if want := []string{"F", "conn.handle", "list.Len"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("got %v, want %v", got, want)
	}
}
