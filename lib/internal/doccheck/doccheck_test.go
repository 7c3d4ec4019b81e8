package doccheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestDocumented parses the non-test Go files of every package of the
// module (lib/, cmd/, tools/, scripts/, kernel/) and reports each package without a package doc comment and each
// exported top-level identifier, or exported method of an exported type,
// without a doc comment (a grouped declaration's comment documents the
// group, as go doc shows it).
func TestDocumented(t *testing.T) {
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found from the test's directory: %v", err)
	}
	pkgs := 0
	for _, top := range []string{"lib", "internal", "cmd", "tools", "scripts", "kernel"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(dir string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return err
			}
			if name := d.Name(); name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			files, err := parseDir(dir)
			if err != nil || len(files) == 0 {
				return err
			}
			pkgs++
			rel, _ := filepath.Rel(root, dir)
			for _, p := range undocumented(files) {
				t.Errorf("%s: %s", rel, p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if pkgs < 10 {
		t.Fatalf("found only %d packages", pkgs)
	}
}

// parseDir parses the non-test Go files of dir with their comments.
func parseDir(dir string) ([]*ast.File, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// undocumented lists what files, one package, leave undocumented.
func undocumented(files []*ast.File) []string {
	var out []string
	hasDoc := false
	for _, f := range files {
		if f.Doc == nil {
			continue
		}
		hasDoc = true
		// go doc's convention: "Package name ..." or, for a main
		// package, "Command name ...".
		want := "Package " + f.Name.Name + " "
		if f.Name.Name == "main" {
			want = "Command "
		}
		if text := f.Doc.Text(); !strings.HasPrefix(text, want) {
			out = append(out, "package doc does not start with "+strconv.Quote(want)+": "+strconv.Quote(strings.SplitN(text, "\n", 2)[0]))
		}
	}
	if !hasDoc {
		out = append(out, "no package doc comment")
	}
	for _, f := range files {
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Doc == nil && d.Name.IsExported() && receiverExported(d) {
					out = append(out, "func "+d.Name.Name)
				}
			case *ast.GenDecl:
				if d.Doc != nil && d.Lparen.IsValid() {
					continue // the group's comment
				}
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() && s.Doc == nil && d.Doc == nil {
							out = append(out, "type "+s.Name.Name)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() && s.Doc == nil && s.Comment == nil && d.Doc == nil {
								out = append(out, d.Tok.String()+" "+n.Name)
							}
						}
					}
				}
			}
		}
	}
	return out
}

// receiverExported reports whether d is a function or a method of an
// exported type (methods of unexported types are not in the package's
// documentation).
func receiverExported(d *ast.FuncDecl) bool {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return true
	}
	t := d.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.Ident:
			return x.IsExported()
		default:
			return true
		}
	}
}
