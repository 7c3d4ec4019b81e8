// Command forkcmp compares packetsim with the papers' ns-3 fork (the HPCC
// fork in its ns-3.39 form, built separately; see ENVIRONMENT.md) under
// one congestion control, DCTCP (the fork's CC_MODE 8), DCQCN (1), HPCC
// (3) or TIMELY (7), on one scenario: it writes the scenario in the fork's
// input formats, runs the fork's binary and packetsim on it, and prints
// p50, p99 and p99.9 slowdown per size bin for both with their ratio
// (packetsim / fork).
//
// The scenario is a 16-host dumbbell (8 senders to 8 receivers) or a
// 4-hop parking lot with 2 background hosts per switch, all links 10 Gbps
// and 1 us, or a fabric preset such as meta32-2:1 (10 Gbps hosts, 40 Gbps
// fabric, Meta's matrix B), Poisson arrivals at the given maximum link
// load, sizes log-uniform between -min and -max bytes. Both sides run packetsim's
// network model, netcfg.Default with -cc (and -var-win for DCTCP), its
// parameters written in the fork's keys and units (forkConfig): DCTCP
// with K = 3 KB per Gbps, g = 1/16, window 18000 B, AI 615 Mbps, minimum
// rate 1 Gbps; DCQCN, TIMELY and HPCC with their netcfg blocks (HPCC's
// window set to the papers' 18000 B on both sides, as the fork takes one
// window for every flow). Every packet is marked at dequeue, 1000 B
// payload; under HPCC and TIMELY packetsim's headers grow by the fork's
// INT header (42 and 8 B), which the fork puts on the wire, and its ACKs
// too beyond the fork's 60 B padding (HPCC's are 88 B). The fork gets
// ACKs in the data queue (as packetsim's), an ACK per packet and a 32 MiB
// switch buffer, so that PFC never fires, unless the network block sets
// a shared buffer with PFC ('{"buffer":{"shared_bytes":204800},
// "pfc":{"enabled":true}}'): then both sides run it, the fork with
// BUFFER_SIZE in KiB, its dynamic threshold (alpha 1, mix_m3/alphas) and
// its headroom and resume thresholds, which are netcfg's defaults.
// Pause counts are the pause frames received (the fork's pfc.txt lines
// of type 1) and sent (packetsim's Result.PauseFrames). Slowdowns of both use packetsim's ideal FCT of the
// flow, so their ratio is the ratio of FCTs.
//
// Usage:
//
//	forkcmp -fork DIR -out DIR [-cc dctcp|dcqcn|hpcc|timely]
//	        [-topology dumbbell|parking-lot] [-load 0.5] [-flows 2000]
//	        [-seeds 1,2] [-var-win=true] [-network JSON] [-fork-rules] [-reuse]
//	        [-sizes webserver] [-sigma 2] [-program third]
//
// -sizes replaces the log-uniform sizes by one of workload's embedded
// distributions (webserver, cachefollower, hadoop, websearch) and -sigma
// S the Poisson arrivals by log-normal ones of shape S: -sizes webserver
// -sigma 2 on a fabric is the workload of `tailscope validate ns3`.
//
// -program names the fork's scenario program in its scratch directory
// (build/scratch/ns3.39-PROGRAM-optimized). The fork's own program,
// third, keeps tables over every pair of nodes and cannot set up a
// 6,144-host fabric in 20 GB; a program that computes the same per-pair
// values only for the pairs its flows use runs the same model there.
//
// -network overrides netcfg's defaults with a scenario's network block
// (its JSON form), so both sides run, say, m3's DCQCN thresholds.
//
// -fork-rules runs packetsim with the fork's departures from the
// algorithms' papers, which netcfg offers as options and the presets
// fork-dcqcn, fork-hpcc and fork-timely bundle: under HPCC one T for
// every flow, twice the network's largest host-to-host propagation delay
// as the fork computes it (netcfg.NetworkBaseRTT), and queues normalised
// by the window (hpcc base_rtt_nanos, queue_over_window); under TIMELY
// one RTT sample per round trip with the fork's count towards
// hyperactive increase (timely per_rtt); under DCQCN every mark echoed
// and cuts on a grid of the CNP interval at the sender, increases by the
// rate timer alone (dcqcn decrease_grid, timer_only).
//
// -reuse skips the fork for a run whose directory already holds its
// output from the same inputs (topology, flows and config byte for byte),
// which the fork, deterministic, would only repeat: comparing packetsim
// variants against one fork run costs packetsim's CPU only. The CPU
// printed for the fork then counts the runs it made.
//
// DIR of -fork is the fork's built source tree (its binary is
// build/scratch/ns3.39-third-optimized and it reads mix_m3/alphas there).
// -out receives per run the fork's inputs and outputs and a CSV of both
// sides' records.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tailscope/tailscope/internal/cputime"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/packetsim"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "forkcmp:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("forkcmp", flag.ContinueOnError)
	forkDir := fs.String("fork", "", "the fork's built source tree (required)")
	out := fs.String("out", "", "directory for the runs' files (required)")
	topology := fs.String("topology", "dumbbell", "dumbbell, parking-lot or a fabric preset (meta32-2:1)")
	load := fs.Float64("load", 0.5, "maximum link load, in (0, 1)")
	flows := fs.Int("flows", 2000, "flows per seed, 1-1000000")
	seeds := fs.String("seeds", "1,2", "comma-separated workload seeds")
	cc := fs.String("cc", "dctcp", "congestion control: dctcp, dcqcn, hpcc or timely")
	varWin := fs.Bool("var-win", true, "DCTCP: scale the window with the rate (the fork's VAR_WIN 1)")
	network := fs.String("network", "", "JSON of a scenario's network block overriding netcfg's defaults, e.g. '{\"dcqcn\":{\"kmin_bytes\":20000}}'")
	forkRules := fs.Bool("fork-rules", false, "run packetsim with the fork's departures from the DCQCN, HPCC and TIMELY papers")
	reuse := fs.Bool("reuse", false, "skip the fork where -out holds its output from identical inputs")
	minSize := fs.Int64("min", 100, "smallest flow size, bytes")
	maxSize := fs.Int64("max", 1_000_000, "largest flow size, bytes")
	sizes := fs.String("sizes", "", "an embedded size distribution (webserver, ...) instead of log-uniform -min to -max")
	sigma := fs.Float64("sigma", 0, "log-normal arrivals of this shape instead of Poisson (0)")
	program := fs.String("program", "third", "the fork's scenario program in its scratch directory")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	case *forkDir == "" || *out == "":
		return fmt.Errorf("-fork and -out are required")
	case !(*load > 0 && *load < 1):
		return fmt.Errorf("-load %g is not in (0, 1)", *load)
	case *flows < 1 || *flows > 1_000_000:
		return fmt.Errorf("-flows %d is not in 1-1000000", *flows)
	case !(*minSize >= 1 && *maxSize > *minSize):
		return fmt.Errorf("-min %d and -max %d: want 1 <= min < max", *minSize, *maxSize)
	case *sigma < 0 || math.IsNaN(*sigma):
		return fmt.Errorf("-sigma %g: want 0 (Poisson) or a log-normal shape > 0", *sigma)
	case *program == "" || strings.ContainsAny(*program, "/\\"):
		return fmt.Errorf("-program %q: want a program name in the fork's scratch directory", *program)
	}
	bin := filepath.Join(*forkDir, "build", "scratch", "ns3.39-"+*program+"-optimized")
	if _, err := os.Stat(bin); err != nil {
		return fmt.Errorf("the fork's binary: %w", err)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	wl := workloadSpec{sizes: workload.SizeSpec{Dist: *sizes}, sigma: *sigma}
	if *sizes == "" {
		cdf := filepath.Join(*out, "loguniform.csv")
		if err := writeLogUniform(cdf, *minSize, *maxSize); err != nil {
			return err
		}
		wl.sizes = workload.SizeSpec{Dist: "empirical", File: cdf}
	} else if _, err := workload.NewSizeDist(wl.sizes); err != nil {
		return fmt.Errorf("-sizes: %w", err)
	}
	cfg, err := config(*cc, *varWin, *network)
	if err != nil {
		return err
	}
	bins := metrics.ParsimonBins()
	// Slowdowns per bin, the last one holding every flow.
	fork, ours := make([][]float64, bins.Len()+1), make([][]float64, bins.Len()+1)
	var forkCPU, oursCPU time.Duration
	forkPauses, ourPauses := 0, int64(0)
	for _, f := range strings.Split(*seeds, ",") {
		seed, err := strconv.ParseUint(strings.TrimSpace(f), 10, 64)
		if err != nil {
			return fmt.Errorf("-seeds: %q is not a seed", f)
		}
		sc, err := build(*topology, *load, *flows, seed, wl, cfg)
		if err != nil {
			return err
		}
		dir := filepath.Join(*out, fmt.Sprintf("%s-%s-load%g-varwin%v%s-seed%d", cfg.CC, *topology, *load, *varWin, wl.name(), seed))
		fct, pauses, cpu, err := runFork(*forkDir, bin, dir, sc, cfg, *reuse)
		if err != nil {
			return err
		}
		forkCPU += cpu
		simCfg := cfg
		if *forkRules {
			simCfg = withForkRules(cfg, sc.Net)
		}
		c0 := cputime.Used()
		res, err := packetsim.Run(context.Background(), sc.Net, sc.Flows, simCfg, packetsim.Options{})
		if err != nil {
			return err
		}
		oursCPU += cputime.Used() - c0
		if len(fct) != len(res.Records) {
			return fmt.Errorf("%s: the fork finished %d flows of %d", dir, len(fct), len(res.Records))
		}
		forkPauses += pauses
		ourPauses += res.PauseFrames
		csv, err := os.Create(filepath.Join(dir, "records.csv"))
		if err != nil {
			return err
		}
		fmt.Fprintln(csv, "flow_id,size,ideal_ns,fct_fork_ns,fct_packetsim_ns")
		for _, r := range res.Records {
			ff, ok := fct[r.FlowID]
			if !ok {
				return fmt.Errorf("%s: the fork did not report flow %d", dir, r.FlowID)
			}
			fmt.Fprintf(csv, "%d,%d,%d,%d,%d\n", r.FlowID, r.Size, r.Ideal, ff, r.FCT)
			for _, b := range []int{bins.Index(r.Size), bins.Len()} {
				fork[b] = append(fork[b], float64(ff)/float64(r.Ideal))
				ours[b] = append(ours[b], r.Slowdown)
			}
		}
		if err := csv.Close(); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "%s, %s, load %g, var_win %v, %s, seeds %s, %d flows each; pause frames: fork %d, packetsim %d; CPU: fork %.1f s, packetsim %.2f s\n",
		cfg.CC, *topology, *load, *varWin, wl, *seeds, *flows, forkPauses, ourPauses, forkCPU.Seconds(), oursCPU.Seconds())
	fmt.Fprintf(stdout, "%-10s %6s  %22s  %22s  %22s\n", "bin", "flows", "p50 fork/ours/ratio", "p99 fork/ours/ratio", "p99.9 fork/ours/ratio")
	for b := range fork {
		label := "all"
		if b < bins.Len() {
			label = bins.Labels[b]
		}
		fmt.Fprintf(stdout, "%-10s %6d ", label, len(fork[b]))
		for _, p := range []float64{50, 99, 99.9} {
			f, o := metrics.Percentile(fork[b], p), metrics.Percentile(ours[b], p)
			fmt.Fprintf(stdout, "  %7.2f %7.2f %6.3f", f, o, o/f)
		}
		fmt.Fprintln(stdout)
	}
	return nil
}

// config is the network model both sides run: netcfg.Default under cc
// (DCTCP's window scaled with the rate if varWin), HPCC's window the
// fork's one for every flow, the network block JSON over it, and the
// fork's sizes on the wire and headroom.
func config(cc string, varWin bool, network string) (netcfg.Config, error) {
	cfg := netcfg.Default()
	cfg.CC = cc
	cfg.DCTCP.VarWin = varWin
	if cc == "hpcc" {
		// The fork gives every flow one window (FIXED_WIN): the papers'
		// one bandwidth-delay product at 10 Gbps, as DCTCP's.
		cfg.HPCC.WindowBytes = cfg.DCTCP.WindowBytes
	}
	if network != "" {
		dec := json.NewDecoder(strings.NewReader(network))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&cfg); err != nil {
			return cfg, fmt.Errorf("-network: %w", err)
		}
	}
	if err := cfg.Validate(); err != nil {
		return cfg, fmt.Errorf("-cc or -network: %w", err)
	}
	if _, ok := forkModes[cfg.CC]; !ok {
		return cfg, fmt.Errorf("-cc %q: want dctcp, dcqcn, hpcc or timely", cfg.CC)
	}
	if err := forkCanRun(cfg); err != nil {
		return cfg, err
	}
	return forkHeadroom(cfg.ForkWire()), nil
}

// writeLogUniform writes a size CDF (workload.ReadCDF's format) that is
// log-uniform between lo and hi: 20 points per decade, linear between
// them.
func writeLogUniform(name string, lo, hi int64) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# log-uniform flow sizes, %d-%d bytes\nsize_bytes,cdf\n", lo, hi)
	span := math.Log(float64(hi) / float64(lo))
	n := int(math.Ceil(20 * span / math.Ln10))
	for i := 0; i <= n; i++ {
		f := float64(i) / float64(n)
		fmt.Fprintf(&b, "%.6f,%.9f\n", float64(lo)*math.Exp(f*span), f)
	}
	return os.WriteFile(name, []byte(b.String()), 0o644)
}

// workloadSpec is the flow sizes and arrivals of a comparison.
type workloadSpec struct {
	sizes workload.SizeSpec
	sigma float64 // log-normal arrivals' shape; 0 for Poisson
}

// name is the workload's part of a run's directory name: empty for the
// default (log-uniform sizes, Poisson arrivals), so earlier runs' files
// are reused.
func (w workloadSpec) name() string {
	s := ""
	if w.sizes.Dist != "empirical" {
		s += "-" + w.sizes.Dist
	}
	if w.sigma > 0 {
		s += fmt.Sprintf("-sigma%g", w.sigma)
	}
	return s
}

// String describes the workload for the report.
func (w workloadSpec) String() string {
	sizes, arrivals := "log-uniform sizes", "Poisson arrivals"
	if w.sizes.Dist != "empirical" {
		sizes = w.sizes.Dist + " sizes"
	}
	if w.sigma > 0 {
		arrivals = fmt.Sprintf("log-normal arrivals (sigma %g)", w.sigma)
	}
	return sizes + ", " + arrivals
}

// build makes the scenario of one seed.
func build(topology string, load float64, flows int, seed uint64, wl workloadSpec, cfg netcfg.Config) (*scenario.Scenario, error) {
	comp := workload.Component{
		Sizes:   wl.sizes,
		Arrival: workload.Arrival{Process: "poisson"},
		MaxLoad: load,
	}
	if wl.sigma > 0 {
		comp.Arrival = workload.Arrival{Process: "lognormal", Sigma: wl.sigma}
	}
	spec := scenario.Spec{Name: "forkcmp " + topology, Network: cfg, Seed: seed}
	switch topology {
	case "dumbbell":
		d := topo.DumbbellSpec{Senders: 8, Receivers: 8}
		spec.Topology.Dumbbell = &d
		comp.Pairs = d.CrossPairs()
	case "parking-lot":
		p := topo.ParkingLotSpec{Hops: 4, BackgroundHosts: 2}
		spec.Topology.ParkingLot = &p
		comp.Pairs = p.ChainPairs()
	default:
		if _, err := topo.Preset(topology); err != nil {
			return nil, fmt.Errorf("-topology %q: want dumbbell, parking-lot or a fabric preset: %w", topology, err)
		}
		// Meta's rack-to-rack matrix B, as `tailscope validate ns3` runs
		// the fabric.
		spec.Topology.Preset = topology
		comp.Matrix = "B"
	}
	spec.Workload = workload.Spec{Flows: flows, Components: []workload.Component{comp}}
	return scenario.Build(spec)
}

// runFork writes the fork's inputs for sc under dir, runs it from the
// fork's tree (unless reuse and dir holds its output from the same
// inputs) and returns each flow's FCT (ns) by flow ID, the number of PFC
// pause frames received and the CPU time the fork used.
func runFork(root, bin, dir string, sc *scenario.Scenario, cfg netcfg.Config, reuse bool) (map[int]int64, int, time.Duration, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, 0, 0, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, 0, 0, err
	}
	path := func(name string) string { return filepath.Join(abs, name) }
	var topoTxt strings.Builder
	if err := sc.Net.WriteNS3(&topoTxt); err != nil {
		return nil, 0, 0, err
	}
	var flowTxt strings.Builder
	fmt.Fprintln(&flowTxt, len(sc.Flows))
	var last int64
	for _, f := range sc.Flows {
		// pg 3 (a lossless class), destination port 100.
		fmt.Fprintf(&flowTxt, "%d %d %d 3 100 %d %d.%09d\n", f.ID, f.Src, f.Dst, f.Size, f.Start/1e9, f.Start%1e9)
		last = max(last, f.Start)
	}
	files := map[string]string{
		"topology.txt": topoTxt.String(),
		"flow.txt":     flowTxt.String(),
		"trace.txt":    "0\n",
		"config.txt":   forkConfig(sc.Net, cfg, path, float64(last)/1e9+1),
	}
	var cpu time.Duration
	if !reuse || !sameInputs(files, path) {
		if cpu, err = execFork(root, bin, files, path); err != nil {
			return nil, 0, 0, fmt.Errorf("the fork on %s: %w", dir, err)
		}
	}
	fct, err := readFCT(path("fct.txt"))
	if err != nil {
		return nil, 0, 0, err
	}
	pfc, err := os.ReadFile(path("pfc.txt"))
	if err != nil {
		return nil, 0, 0, err
	}
	pauses := 0
	for _, line := range strings.Split(string(pfc), "\n") {
		if f := strings.Fields(line); len(f) == 5 && f[4] == "1" {
			pauses++
		}
	}
	return fct, pauses, cpu, nil
}

// sameInputs reports whether the files at path hold exactly files and
// the fork's outputs are there: the output of a run that finished (the
// inputs are written before the run, so a run cut short leaves no
// complete.txt).
func sameInputs(files map[string]string, path func(string) string) bool {
	for name, text := range files {
		b, err := os.ReadFile(path(name))
		if err != nil || string(b) != text {
			return false
		}
	}
	_, err := os.Stat(path("complete.txt"))
	return err == nil
}

// execFork writes the fork's input files, runs it from the fork's tree
// and returns the CPU time it used.
func execFork(root, bin string, files map[string]string, path func(string) string) (time.Duration, error) {
	os.Remove(path("complete.txt"))
	for name, text := range files {
		if err := os.WriteFile(path(name), []byte(text), 0o644); err != nil {
			return 0, err
		}
	}
	cmd := exec.Command(bin, path("config.txt"))
	cmd.Dir = root
	log, err := os.Create(path("fork.log"))
	if err != nil {
		return 0, err
	}
	defer log.Close()
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("%w (see fork.log)", err)
	}
	var cpu time.Duration
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return cpu, os.WriteFile(path("complete.txt"), nil, 0o644)
}

// withForkRules returns cfg with the options that run its DCQCN, HPCC or
// TIMELY as the fork does on net (HPCC's T resolved on net), as the
// fork-* presets set them.
func withForkRules(cfg netcfg.Config, net *topo.Network) netcfg.Config {
	return cfg.WithForkRules().Resolve(net.MaxHostDelay)
}

// forkModes is the fork's CC_MODE of each congestion control it runs.
var forkModes = map[string]int{"dcqcn": 1, "hpcc": 3, "timely": 7, "dctcp": 8}

// forkHeadroom returns cfg with, under PFC, each port's headroom what the
// fork reserves: it sizes the headroom of a 10 Gbps, 1 us port as
// netcfg does for 1000 B payloads and 48 B headers, 8456 B,
// but reserves it for both of a port's lossless queues (0 and 3), so its
// switches' shared pool is the buffer less twice that per port (its log
// prints 8455 B per queue: 18 B per switch apart). The fork caps the
// rate in its headroom at 10 Gbps, so a fabric's 40 Gbps ports get the
// same (its log: 48 x 8455 B for a 24-port fabric switch).
func forkHeadroom(cfg netcfg.Config) netcfg.Config {
	if cfg.PFC.Enabled {
		fork := netcfg.Default()
		fork.PayloadBytes = cfg.PayloadBytes
		cfg.PFC.HeadroomBytes = 2 * fork.HeadroomFor(10*topo.Gbps, 1000)
	}
	return cfg
}

// forkCanRun refuses parameters the fork cannot take: it hard-codes
// TIMELY's EWMA weight, minimum RTT and hyperactive-increase count, reads
// thresholds in whole KB and buffers in KiB, and its shared buffer is
// lossless (PFC) with the headroom and resume thresholds it computes.
func forkCanRun(cfg netcfg.Config) error {
	def := netcfg.Default().PFC
	switch t, d, b, p := cfg.TIMELY, cfg.DCQCN, cfg.Buffer, cfg.PFC; {
	case cfg.BufferBytes > 0:
		return fmt.Errorf("buffer_bytes: the fork has no per-port buffer; set buffer shared_bytes with pfc")
	case b.SharedBytes > 0 && (!p.Enabled || b.SharedBytes%1024 != 0 || b.Alpha != 1):
		return fmt.Errorf("buffer: the fork runs a shared buffer in whole KiB with alpha 1 and PFC on, got %d B, alpha %g, pfc %v", b.SharedBytes, b.Alpha, p.Enabled)
	case p.Enabled && (p.HeadroomBytes != 0 || p.XonBytes != def.XonBytes || p.XonOffsetBytes != def.XonOffsetBytes):
		return fmt.Errorf("pfc: the fork computes its headroom and fixes xon %d and xon_offset %d", def.XonBytes, def.XonOffsetBytes)
	case cfg.CC == "timely" && (t.Alpha != 0.875 || t.MinRTTNanos != 20_000 || t.HAISteps != 5):
		return fmt.Errorf("timely: the fork fixes alpha 0.875, min RTT 20 us and 5 steps to hyperactive increase")
	case cfg.CC == "dcqcn" && (d.KminBytes%1000 != 0 || d.KmaxBytes%1000 != 0):
		return fmt.Errorf("dcqcn: the fork takes Kmin %d and Kmax %d in whole KB", d.KminBytes, d.KmaxBytes)
	}
	return nil
}

// forkConfig is the fork's config.txt for packetsim's model cfg on net.
// The fork shares some keys between its algorithms (EWMA_GAIN, RATE_AI,
// RATE_HAI, MIN_RATE, the window), which take the chosen algorithm's
// values; the keys only one algorithm reads always carry netcfg's.
func forkConfig(net *topo.Network, cfg netcfg.Config, path func(string) string, stop float64) string {
	rates := map[int64]bool{}
	var list []int64
	for _, l := range net.Links {
		if !rates[l.Bandwidth] {
			rates[l.Bandwidth] = true
			list = append(list, l.Bandwidth)
		}
	}
	kmap := func(value func(int64) string) string {
		s := strconv.Itoa(len(list))
		for _, r := range list {
			s += fmt.Sprintf(" %d %s", r, value(r))
		}
		return s
	}
	mbps := func(bps int64) string { return strconv.FormatFloat(float64(bps)/1e6, 'g', -1, 64) + "Mb/s" }
	us := func(ns int64) string { return strconv.FormatFloat(float64(ns)/1e3, 'g', -1, 64) }
	flag := func(b bool) int {
		if b {
			return 1
		}
		return 0
	}
	d, t, h := cfg.DCQCN, cfg.TIMELY, cfg.HPCC
	bufferKiB := int64(32768) // so large that PFC never fires
	if cfg.SharedBuffer() {
		bufferKiB = cfg.Buffer.SharedBytes / 1024
	}
	// DCTCP's step marking: Kmin = Kmax = K, Pmax 1. HPCC and TIMELY
	// ignore marks.
	kmin := kmap(func(r int64) string { return strconv.FormatInt(cfg.KBytesFor(r)/1000, 10) })
	kmax, pmax := kmin, kmap(func(int64) string { return "1.0" })
	g, ai, hai, minRate := cfg.DCTCP.G, d.AIRateBps, d.HAIRateBps, cfg.DCTCP.MinRateBps
	win, varWin := cfg.DCTCP.WindowBytes, cfg.DCTCP.VarWin
	switch cfg.CC {
	case "dcqcn":
		kmin = kmap(func(int64) string { return strconv.FormatInt(d.KminBytes/1000, 10) })
		kmax = kmap(func(int64) string { return strconv.FormatInt(d.KmaxBytes/1000, 10) })
		pmax = kmap(func(int64) string { return strconv.FormatFloat(d.Pmax, 'g', -1, 64) })
		g, ai, hai, minRate, win, varWin = d.G, d.AIRateBps, d.HAIRateBps, d.MinRateBps, d.WindowBytes, false
	case "timely":
		// The fork's hyperactive step is RATE_HAI, TIMELY's N delta.
		ai, hai, minRate, win, varWin = t.AIRateBps, t.HAISteps*t.AIRateBps, t.MinRateBps, t.WindowBytes, false
	case "hpcc":
		ai, minRate, win, varWin = h.AIRateBps, h.MinRateBps, h.WindowBytes, true
	}
	return fmt.Sprintf(`ENABLE_QCN 1
ENABLE_PFC 1
PACKET_PAYLOAD_SIZE %d
TOPOLOGY_FILE %s
FLOW_FILE %s
TRACE_FILE %s
TRACE_OUTPUT_FILE %s
FCT_OUTPUT_FILE %s
PFC_OUTPUT_FILE %s
SIMULATOR_STOP_TIME %.3f
CC_MODE %d
ALPHA_RESUME_INTERVAL %s
RATE_DECREASE_INTERVAL %s
CLAMP_TARGET_RATE 1
RP_TIMER %s
EWMA_GAIN %g
FAST_RECOVERY_TIMES %d
RATE_AI %s
RATE_HAI %s
MIN_RATE %s
DCTCP_RATE_AI %s
TIMELY_T_LOW %d
TIMELY_T_HIGH %d
TIMELY_BETA %g
ERROR_RATE_PER_LINK 0.0000
L2_CHUNK_SIZE 4000
L2_ACK_INTERVAL 1
L2_BACK_TO_ZERO 0
HAS_WIN %d
GLOBAL_T 1
VAR_WIN %d
FAST_REACT 1
U_TARGET %g
MI_THRESH %d
INT_MULTI 1
MULTI_RATE 0
SAMPLE_FEEDBACK 0
PINT_LOG_BASE 1.05
PINT_PROB 1.0
RATE_BOUND 1
ACK_HIGH_PRIO 0
LINK_DOWN 0 0 0
ENABLE_TRACE 0
KMAX_MAP %s
KMIN_MAP %s
PMAX_MAP %s
BUFFER_SIZE %d
QLEN_MON_FILE %s
QLEN_MON_START 1000000000000
QLEN_MON_END 1000000000001
FIXED_WIN %d
BASE_RTT 14400
MAX_INFLIGHT_FLOWS 1000000000
N_CLIENTS_PER_RACK_FOR_CLOSED_LOOP 1
`, cfg.PayloadBytes, path("topology.txt"), path("flow.txt"), path("trace.txt"), path("mix.tr"),
		path("fct.txt"), path("pfc.txt"), stop, forkModes[cfg.CC],
		// The fork cuts DCQCN's rate at most once per RATE_DECREASE_INTERVAL
		// after any CNP; packetsim's receiver sends at most one CNP per
		// CNP interval (or, under decrease_grid, its sender cuts as the
		// fork): both cut at most once per interval.
		us(d.AlphaTimerNanos), us(d.CNPIntervalNanos), us(d.RateTimerNanos), g, d.FastRecoverySteps,
		mbps(ai), mbps(hai), mbps(minRate), mbps(cfg.DCTCP.AIRateBps), t.TLowNanos, t.THighNanos, t.Beta,
		flag(win > 0), flag(varWin), h.Eta, h.MaxStage, kmax, kmin, pmax, bufferKiB, path("qlen.txt"), win)
}

// readFCT reads the fork's FCT file: "id sip dip sport dport size
// start_ns fct_ns standalone_fct_ns" per flow.
func readFCT(name string) (map[int]int64, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fct := map[int]int64{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if len(fields) != 9 {
			return nil, fmt.Errorf("%s line %d: want 9 fields, got %q", name, line, sc.Text())
		}
		id, err1 := strconv.Atoi(fields[0])
		ns, err2 := strconv.ParseInt(fields[7], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%s line %d: bad id or FCT in %q", name, line, sc.Text())
		}
		fct[id] = ns
	}
	return fct, sc.Err()
}
