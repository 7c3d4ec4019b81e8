package accuracy

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/atlas"
)

// The committed report, the embedded summary and the atlas's tables in
// README.md and BENCHMARKS.md are what the committed archive gives: the
// commands that regenerate them were run after the archive last grew.
func TestDocumentsPrintTheArchive(t *testing.T) {
	root := filepath.Join("..", "..")
	archive := filepath.Join(root, "results", "accuracy-atlas")
	read := func(parts ...string) string {
		b, err := os.ReadFile(filepath.Join(append([]string{root}, parts...)...))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// The designs the embedded summary was reported from: "small", or
	// "small,wide" once the wide design is archived beside it.
	embedded, err := atlas.Read(strings.NewReader(read("datasets", "accuracy", "atlas.json")))
	if err != nil {
		t.Fatal(err)
	}
	var size string
	if _, err := fmt.Sscanf(embedded.Source, "tailscope accuracy report -size %s", &size); err != nil {
		t.Fatalf("embedded summary's source %q names no designs: %v", embedded.Source, err)
	}
	var designs []Options
	for _, name := range strings.Split(size, ",") {
		o, ok := Sizes[name]
		if !ok {
			t.Fatalf("embedded summary's source %q names design %q, which is not in Sizes", embedded.Source, name)
		}
		designs = append(designs, o)
	}
	rows, err := LoadAll(t.TempDir(), archive, designs)
	if err != nil {
		t.Fatal(err)
	}
	regen := "tailscope accuracy report -size " + size + " -out DIR -archive results/accuracy-atlas --summary datasets/accuracy/atlas.json"
	var rep bytes.Buffer
	Report(&rep, rows)
	if read("results", "accuracy-atlas", "accuracy.md") != rep.String() {
		t.Errorf("results/accuracy-atlas/accuracy.md is not the archive's report: run %s and copy DIR/accuracy.md there", regen)
	}
	var sum bytes.Buffer
	if err := Summarize(rows, embedded.Source).Write(&sum); err != nil {
		t.Fatal(err)
	}
	if read("datasets", "accuracy", "atlas.json") != sum.String() {
		t.Errorf("datasets/accuracy/atlas.json is not the archive's summary: run %s", regen)
	}
	for doc, lines := range map[string][]string{"BENCHMARKS.md": benchmarksTable(rows), "README.md": readmeRows(rows)} {
		text := read(doc)
		for _, l := range lines {
			if !strings.Contains(text, l+"\n") {
				t.Errorf("%s lacks the archive's line %q (from %s)", doc, l, regen)
			}
		}
	}
}

// The wide design leaves the small design's rows as they are: of the
// rows of both designs, the small design's scenarios report exactly as
// the small design alone does (its regions, noise bands and pairs are
// unchanged by the wide design's).
func TestWideLeavesSmallReport(t *testing.T) {
	archive := filepath.Join("..", "..", "results", "accuracy-atlas")
	small, err := Load(t.TempDir(), archive, Sizes["small"])
	if err != nil {
		t.Fatal(err)
	}
	both, err := LoadAll(t.TempDir(), archive, []Options{Sizes["small"], Sizes["wide"]})
	if err != nil {
		t.Fatal(err)
	}
	scs, _, err := Design(Sizes["small"])
	if err != nil {
		t.Fatal(err)
	}
	inSmall := map[string]bool{}
	for _, s := range scs {
		inSmall[s.Spec.ID()] = true
	}
	ofSmall := slices.DeleteFunc(slices.Clone(both), func(r Row) bool { return !inSmall[r.ScenarioID] })
	var a, b bytes.Buffer
	Report(&a, small)
	Report(&b, ofSmall)
	if len(small) == 0 || a.String() != b.String() {
		t.Errorf("the small design's rows of small,wide report otherwise than small's alone (%d and %d rows)", len(small), len(ofSmall))
	}
}
