package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/scenario"
)

func init() {
	register("gen", "generate a scenario's flows and topology as frames, and report link loads", runGen)
}

// loadSpec returns the named preset (scenario.PresetNames) or reads a
// spec file.
func loadSpec(path string) (scenario.Spec, error) {
	if s, err := scenario.Named(path); err == nil {
		return s, nil
	}
	s, err := scenario.Load(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, fmt.Errorf("spec %q is neither a file nor a preset (%s)", path, strings.Join(scenario.PresetNames(), ", "))
	}
	return s, err
}

// specUsage is the help of every --spec flag.
var specUsage = "scenario spec (JSON file) or a preset: " + strings.Join(scenario.PresetNames(), ", ")

func runGen(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	spec := fs.String("spec", "default", specUsage)
	out := fs.String("out", "flows.parquet", "flows frame to write (.parquet or .arrow); the topology goes to <out stem>.nodes/.channels")
	seed := int64Flag(fs, "seed", -1, -1, math.MaxInt64, "override the spec's seed (-1: keep it)")
	flows := intFlag(fs, "flows", 0, 0, math.MaxInt, "override the spec's flow count (0: keep it)")
	printSpec := fs.Bool("print-spec", false, "print the spec as JSON and exit (a template for your own)")
	format := fs.String("format", "", "write the topology and flows for another simulator instead of frames: "+strings.Join(scenario.ExportFormats(), ", ")+" (-out is then a directory)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	s, err := loadSpec(*spec)
	if err != nil {
		return err
	}
	if *seed >= 0 {
		s.Seed = uint64(*seed)
	}
	if *flows > 0 {
		s.Workload.Flows, s.Workload.DurationNs = *flows, 0
	}
	if *printSpec {
		fmt.Println(s.JSON())
		return nil
	}
	if *format != "" {
		return genExport(s, *format, *out)
	}
	// The flows go to the frame as they are drawn (workload.NewSource, the
	// flows of workload.Generate) and their loads are measured on the way,
	// so 16M flows on the 6,144-host fabric are never held at once.
	t0 := time.Now()
	sc, err := scenario.BuildNet(s)
	if err != nil {
		return err
	}
	src, err := sc.Source()
	if err != nil {
		return err
	}
	meta := frame.Meta{ScenarioID: sc.ID, Spec: s.JSON(), Seed: s.Seed}
	stem := strings.TrimSuffix(strings.TrimSuffix(*out, ".parquet"), ".arrow")
	ext := strings.TrimPrefix(*out, stem)
	if err := mkdirOut(filepath.Dir(*out)); err != nil {
		return err
	}
	w, err := frame.NewFlowWriter(*out, meta)
	if err != nil {
		return err
	}
	meter := metrics.NewLoadMeter(sc.Net)
	for f, ok := src.Next(); ok; f, ok = src.Next() {
		if err = w.Write(f); err == nil {
			err = meter.Add(f)
		}
		if err != nil {
			break
		}
	}
	if err == nil {
		err = src.Err()
	}
	if err != nil {
		w.Abort()
		return err
	}
	n := w.Len()
	wall := time.Since(t0).Seconds()
	if err := w.Close(wall); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "scenario %s: %s\ngenerated %d flows in %.2f s\n", sc.ID, sc.Net.Summary(), n, wall)
	meta.WallSeconds = wall
	if err := frame.WriteTopology(stem+".nodes"+ext, stem+".channels"+ext, sc.Net, meta); err != nil {
		return err
	}
	loads, err := meter.Loads()
	if err != nil {
		return err
	}
	targets := make([]string, len(s.Workload.Components))
	for i, c := range s.Workload.Components {
		targets[i] = fmt.Sprintf("%.3f", c.MaxLoad)
	}
	if s.Workload.FromFile() {
		targets = []string{"none (the file's start times)"}
		if s.Workload.MaxLoad > 0 {
			targets = []string{fmt.Sprintf("%.3f", s.Workload.MaxLoad)}
		}
	}
	ch := sc.Net.Channels[loads.MaxChannel]
	fmt.Printf("flows: %s (%d), topology: %s%s, %s%s\n", *out, n, stem, ".nodes"+ext, stem, ".channels"+ext)
	fmt.Printf("span: %.3f ms\n", float64(loads.SpanNs)/1e6)
	fmt.Printf("max load: %.4f on channel %d (%d->%d, %g Gbps); target %s\n", loads.Max, ch.ID, ch.Src, ch.Dst, float64(ch.Bandwidth)/1e9, strings.Join(targets, "+"))
	fmt.Printf("top-10%% average load: %.4f\n", loads.Top10)
	return nil
}

// genExport writes the scenario's topology and flows in another
// simulator's format to the directory out.
func genExport(s scenario.Spec, format, out string) error {
	if !slices.Contains(scenario.ExportFormats(), format) {
		return fmt.Errorf("gen: unknown -format %q (known: %s)", format, strings.Join(scenario.ExportFormats(), ", "))
	}
	if err := mkdirOut(out); err != nil {
		return err
	}
	sc, err := scenario.Build(s)
	if err != nil {
		return err
	}
	files, err := sc.Export(out, format)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "scenario %s: %s, %d flows\n", sc.ID, sc.Net.Summary(), len(sc.Flows))
	fmt.Printf("%s: %s\n", format, strings.Join(files, ", "))
	return nil
}
