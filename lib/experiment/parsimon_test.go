package experiment

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tailscope/tailscope/lib/estimator"
	"github.com/tailscope/tailscope/lib/scenario"
)

// Parsimon's link simulations run as tasks through the local pool and,
// where Slurm is up, as job-array elements, and give the in-process run's
// estimates; run again in the same directory, no link is simulated twice.
func TestParsimonLinks(t *testing.T) {
	spec := scenario.PFSDumbbell(4, 1500, 0.6, 5)
	sc, err := scenario.Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, variant := range []string{"parsimon", "parsimon-c"} {
		const opts = `{"workers":1}`
		want, err := estimator.RunParsimon(context.Background(), variant, sc, opts, nil)
		if err != nil {
			t.Fatal(err)
		}
		for name, ex := range testExecutors(t) {
			dir := t.TempDir()
			links := ParsimonLinks(dir, spec, variant, opts, ex, nil)
			for run := 0; run < 2; run++ {
				ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
				got, err := estimator.RunParsimon(ctx, variant, sc, opts, links)
				cancel()
				if err != nil {
					t.Fatalf("%s %s: %v", variant, name, err)
				}
				if !reflect.DeepEqual(got.Records, want.Records) || got.Extra["link_sims"] != want.Extra["link_sims"] {
					t.Errorf("%s %s run %d: %s link simulations as tasks give other estimates than %s in process",
						variant, name, run, got.Extra["link_sims"], want.Extra["link_sims"])
				}
			}
			j, err := os.ReadFile(filepath.Join(dir, JournalFile))
			if err != nil {
				t.Fatal(err)
			}
			if n := strconv.Itoa(strings.Count(string(j), "done ")); n != want.Extra["link_sims"] {
				t.Errorf("%s %s: %s link simulations done over two runs, want %s once each", variant, name, n, want.Extra["link_sims"])
			}
		}
	}
}
