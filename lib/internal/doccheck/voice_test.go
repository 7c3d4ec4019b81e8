package doccheck

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// processWords are the words of how the work was organized, which have no
// place in what a user reads (STYLE.md, "the project's voice"): numbered
// work rounds, issue numbers, sessions and helpers, and the working names
// of branches and measurements.
var processWords = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\bstops? [0-9]+`),
	regexp.MustCompile(`(?i)\bissues? #?[0-9]+`),
	regexp.MustCompile(`(?i)\bsessions?\b`),
	regexp.MustCompile(`(?i)\bhelpers?\b`),
	regexp.MustCompile(`(?i)\bwaves? [0-9]+`),
	regexp.MustCompile(`(?i)\bhouse[0-9]+\b`),
	regexp.MustCompile(`(?i)\blinkev\b`),
	regexp.MustCompile(`(?i)\blinkspeed\b`),
	regexp.MustCompile(`(?i)\bplanning repository\b`),
}

// processWordsIn returns each process word in text with the line it is on.
func processWordsIn(text string) []string {
	var out []string
	for i, line := range strings.Split(text, "\n") {
		for _, re := range processWords {
			for _, m := range re.FindAllString(line, -1) {
				out = append(out, fmt.Sprintf("line %d: %q", i+1, m))
			}
		}
	}
	return out
}

func TestProcessWordsIn(t *testing.T) {
	for _, c := range []struct {
		text string
		n    int
	}{
		{"measured in stop 50", 1},
		{"since Stops 43", 1},
		{"see issue 16 and Issue #90", 2},
		{"one session of the machine", 1},
		{"a small helper", 1},
		{"the house4 queue, linkev and linkspeed", 3},
		{"the planning repository", 1},
		{"wave 2", 1},
		{"packetsim stops within 8192 events", 0},
		{"the loop stops at its n-th look", 0},
		{"a known issue with the fork", 0},
		{"the lighthouse4 and stopwatch 3", 0},
		{"", 0},
	} {
		t.Run(c.text, func(t *testing.T) {
			if got := processWordsIn(c.text); len(got) != c.n {
				t.Errorf("processWordsIn(%q) = %v, want %d matches", c.text, got, c.n)
			}
		})
	}
}

// TestVoice holds what a user reads to the project's voice: every Markdown
// file of the repository (README, BENCHMARKS, CHANGELOG, the manual under
// docs/, the READMEs beside the code), every cell source of the notebooks,
// the Go documentation (package doc comments and the doc comments of
// exported identifiers, as go doc shows them), and the string literals of
// the Go code, which hold what the command prints and every error
// message. Test files are not read: they are for the project's
// developers.
func TestVoice(t *testing.T) {
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found from the test's directory: %v", err)
	}
	var md, nbs, pkgs int
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			switch name := d.Name(); {
			case path == root:
				return nil
			case strings.HasPrefix(name, "."), strings.HasPrefix(name, "_"), name == "testdata", name == "node_modules":
				return filepath.SkipDir
			case rel == "build", rel == "out":
				return filepath.SkipDir
			}
			if hasGo(path) {
				files, err := parseDir(path)
				if err != nil {
					return err
				}
				pkgs++
				for _, p := range goDocs(files) {
					for _, w := range processWordsIn(p.text) {
						t.Errorf("%s: doc of %s: %s", rel, p.what, w)
					}
				}
				for _, lit := range stringLiterals(files) {
					for _, w := range processWordsIn(lit) {
						t.Errorf("%s: string %s: %s", rel, strconvQuote(lit), w)
					}
				}
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".md":
			md++
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, w := range processWordsIn(string(b)) {
				t.Errorf("%s: %s", rel, w)
			}
		case ".ipynb":
			nbs++
			cells, err := notebookCells(path)
			if err != nil {
				return fmt.Errorf("%s: %v", rel, err)
			}
			for i, c := range cells {
				for _, w := range processWordsIn(c) {
					t.Errorf("%s: cell %d: %s", rel, i, w)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// A walk that finds nothing would pass whatever the text says.
	if md < 5 || nbs < 5 || pkgs < 10 {
		t.Fatalf("found only %d Markdown files, %d notebooks, %d Go packages", md, nbs, pkgs)
	}
}

// hasGo reports whether dir holds a non-test Go file.
func hasGo(dir string) bool {
	names, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, n := range names {
		if !strings.HasSuffix(n, "_test.go") {
			return true
		}
	}
	return false
}

// notebookCells returns the source of every cell of a notebook file.
func notebookCells(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var nb struct {
		Cells []struct {
			Source json.RawMessage `json:"source"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(b, &nb); err != nil {
		return nil, err
	}
	var out []string
	for _, c := range nb.Cells {
		// nbformat allows a string or a list of lines.
		var lines []string
		if err := json.Unmarshal(c.Source, &lines); err != nil {
			var s string
			if err := json.Unmarshal(c.Source, &s); err != nil {
				return nil, fmt.Errorf("cell source is neither a string nor a list of strings")
			}
			lines = []string{s}
		}
		out = append(out, strings.Join(lines, ""))
	}
	return out, nil
}

// stringLiterals returns the value of every string literal in files
// (messages, flag usage, printed tables), unquoted where it can be.
func stringLiterals(files []*ast.File) []string {
	var out []string
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if b, ok := n.(*ast.BasicLit); ok && b.Kind == token.STRING {
				v, err := strconv.Unquote(b.Value)
				if err != nil {
					v = b.Value
				}
				out = append(out, v)
			}
			return true
		})
	}
	return out
}

// strconvQuote shortens a literal for a failure message.
func strconvQuote(s string) string {
	if len(s) > 80 {
		s = s[:80] + "..."
	}
	return strconv.Quote(s)
}

// doc is one documentation comment and what it documents.
type doc struct{ what, text string }

// goDocs returns the documentation go doc shows for one package: the
// package doc comment and the doc comments of exported identifiers (and of
// exported methods of exported types).
func goDocs(files []*ast.File) []doc {
	var out []doc
	add := func(what string, g *ast.CommentGroup) {
		if g != nil {
			out = append(out, doc{what, g.Text()})
		}
	}
	for _, f := range files {
		add("package "+f.Name.Name, f.Doc)
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Name.IsExported() && receiverExported(d) {
					add("func "+d.Name.Name, d.Doc)
				}
			case *ast.GenDecl:
				exported := false
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							exported = true
							add("type "+s.Name.Name, s.Doc)
							if st, ok := s.Type.(*ast.StructType); ok {
								for _, fld := range st.Fields.List {
									for _, n := range fld.Names {
										if n.IsExported() {
											add("field "+s.Name.Name+"."+n.Name, fld.Doc)
										}
									}
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								exported = true
								add(d.Tok.String()+" "+n.Name, s.Doc)
							}
						}
					}
				}
				if exported {
					add("declaration group", d.Doc)
				}
			}
		}
	}
	return out
}
