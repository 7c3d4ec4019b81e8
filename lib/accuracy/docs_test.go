package accuracy

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The committed report, the embedded summary and the atlas's tables in
// README.md and BENCHMARKS.md are what the committed archive gives: the
// commands that regenerate them were run after the archive last grew.
func TestDocumentsPrintTheArchive(t *testing.T) {
	root := filepath.Join("..", "..")
	archive := filepath.Join(root, "results", "accuracy-atlas")
	rows, err := Load(t.TempDir(), archive, Sizes["small"])
	if err != nil {
		t.Fatal(err)
	}
	read := func(parts ...string) string {
		b, err := os.ReadFile(filepath.Join(append([]string{root}, parts...)...))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	regen := "tailscope accuracy report -size small -out DIR -archive results/accuracy-atlas --summary datasets/accuracy/atlas.json"
	var rep bytes.Buffer
	Report(&rep, rows)
	if read("results", "accuracy-atlas", "accuracy.md") != rep.String() {
		t.Errorf("results/accuracy-atlas/accuracy.md is not the archive's report: run %s and copy DIR/accuracy.md there", regen)
	}
	var sum bytes.Buffer
	if err := Summarize(rows, "tailscope accuracy report -size small (results/accuracy-atlas)").Write(&sum); err != nil {
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
