// Command m3diag takes m3's p99 error on one scenario apart, against a
// packetsim record frame of the same spec (the same flows, checked by
// size). For every path-sampling seed it prints, per m3 output bucket,
// the p99 slowdown of:
//
//   - the network (packetsim, all flows);
//   - the sampled paths' foreground flows in packetsim, each path's flows
//     sharing its draws (paths are drawn in proportion to their flows, so
//     every flow counts alike in expectation): the error of sampling alone;
//   - flowSim on the sampled parking lots, pooled as m3 pools them: the
//     error before the model;
//   - m3 (the model's corrections, pooled by Aggregate) and, beside it,
//     the same predictions pooled uniformly over the paths (m3 §3.5, each
//     path's every bucket weighted by its draws alone).
//
// With -features it also prints, for the first seed, m3's error per path
// length (the network's flows with routes of that length against the
// drawn paths of that length), what the parking lots look like (hops,
// foreground and background flows, the foreground's share, the busiest
// and idlest hop's load, the coefficient of variation of the flows'
// inter-arrival times), and with -train the share of the model's inputs
// outside the [1st, 99th] percentile of the training tasks' (whole and
// thinned to one foreground flow). -pathsim n runs packetsim on the first
// n drawn parking lots and compares their foreground flows with the
// network's (m3's path decomposition alone).
//
//	go run ./scripts/bench/m3diag -spec spec.json -truth packetsim.parquet -seeds 3 -features -train DATA
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"

	"gonum.org/v1/gonum/stat"

	"github.com/tailscope/tailscope/lib/flowsim"
	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/m3"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/packetsim"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/workload"
)

func main() {
	specPath := flag.String("spec", "", "scenario spec file")
	truth := flag.String("truth", "", "packetsim record frame of the spec")
	modelPath := flag.String("model", "", "model file ('' the embedded model)")
	samples := flag.Int("samples", m3.DefaultSamples, "paths drawn per seed")
	seeds := flag.Int("seeds", 1, "path-sampling seeds 1..n")
	bgHosts := flag.Int("background-hosts", 0, "hosts per attachment group (m3.Options.BackgroundHosts)")
	features := flag.Bool("features", false, "errors per path length and the parking lots' features (first seed)")
	train := flag.String("train", "", "training data directory: inputs outside the training range (first seed)")
	pathSims := flag.Int("pathsim", 0, "packetsim on the first n drawn parking lots (first seed)")
	addFG := flag.Int("add-foreground", 0, "with -pathsim: also add this many WebServer foreground flows to each lot, Poisson over its span, and compare the model's prediction from one of them and from all of them, and flowSim's, with packetsim on them")
	flag.Parse()
	if err := run(*specPath, *truth, *modelPath, *samples, *seeds, *bgHosts, *features, *train, *pathSims, *addFG); err != nil {
		fmt.Fprintln(os.Stderr, "m3diag:", err)
		os.Exit(1)
	}
}

// study is one scenario with its packetsim slowdowns, decomposed.
type study struct {
	sc    *scenario.Scenario
	d     *m3.Decomposition
	sd    []float64   // packetsim slowdown of every flow
	all   [][]float64 // packetsim slowdowns per output bucket
	count []int
	out   metrics.Bins
	dur   float64 // seconds from the first flow's start to the last's
}

// drawn is one seed's sample: the distinct drawn paths, their parking
// lots, model inputs and predictions.
type drawn struct {
	paths, draws []int
	sims         []*m3.PathSim
	samples      []*m3.Sample
	pred         [][][]float64
}

func run(specPath, truth, modelPath string, samples, seeds, bgHosts int, features bool, train string, pathSims, addFG int) error {
	spec, err := scenario.Load(specPath)
	if err != nil {
		return err
	}
	sc, err := scenario.Build(spec)
	if err != nil {
		return err
	}
	recs, _, err := frame.ReadRecords(truth)
	if err != nil {
		return err
	}
	if len(recs) != len(sc.Flows) {
		return fmt.Errorf("%s holds %d records, the spec %d flows", truth, len(recs), len(sc.Flows))
	}
	s := &study{sc: sc, sd: make([]float64, len(sc.Flows)), out: metrics.M3OutputBins()}
	for _, r := range recs {
		if r.FlowID < 0 || r.FlowID >= len(sc.Flows) || sc.Flows[r.FlowID].Size != r.Size {
			return fmt.Errorf("%s: flow %d is not the spec's", truth, r.FlowID)
		}
		s.sd[r.FlowID] = r.Slowdown
	}
	s.all, s.count = make([][]float64, s.out.Len()), make([]int, s.out.Len())
	for i, f := range sc.Flows {
		b := s.out.Index(f.Size)
		s.all[b] = append(s.all[b], s.sd[i])
		s.count[b]++
	}
	model, err := m3.DefaultModel()
	if modelPath != "" {
		model, err = m3.LoadModel(modelPath)
	}
	if err != nil {
		return err
	}
	if s.d, err = m3.Decompose(sc.Net, sc.Flows); err != nil {
		return err
	}
	s.dur = float64(sc.Flows[len(sc.Flows)-1].Start-sc.Flows[0].Start) / 1e9
	fmt.Printf("%d flows, %d paths, %.4f s of arrivals\n", len(sc.Flows), s.d.NumPaths(), s.dur)
	for seed := 1; seed <= seeds; seed++ {
		dr, err := s.draw(model, samples, uint64(seed), bgHosts)
		if err != nil {
			return err
		}
		fmt.Printf("seed %d (%d distinct paths):\n", seed, len(dr.paths))
		s.errors(dr)
		if seed > 1 {
			continue
		}
		if features {
			s.byLength(dr)
			s.lots(dr)
		}
		if train != "" {
			if err := inputRanges(train, dr.samples); err != nil {
				return err
			}
		}
		if pathSims > 0 {
			if err := s.pathLevel(dr, pathSims); err != nil {
				return err
			}
		}
		if pathSims > 0 && addFG > 0 {
			if err := s.foregroundStream(model, dr, pathSims, addFG); err != nil {
				return err
			}
		}
	}
	return nil
}

// draw samples paths as m3.Run does, simulates their parking lots with
// flowSim and predicts.
func (s *study) draw(model *m3.Model, n int, seed uint64, bgHosts int) (*drawn, error) {
	counts, err := s.d.Sample(n, seed)
	if err != nil {
		return nil, err
	}
	dr := &drawn{}
	for p, c := range counts {
		if c == 0 {
			continue
		}
		sim, err := s.d.PathSim(s.sc.Net, s.sc.Flows, p, bgHosts)
		if err != nil {
			return nil, err
		}
		fr, err := flowsim.Run(context.Background(), sim.Net, sim.Flows, s.sc.Spec.Network, flowsim.Options{})
		if err != nil {
			return nil, err
		}
		dr.paths, dr.draws = append(dr.paths, p), append(dr.draws, c)
		dr.sims = append(dr.sims, sim)
		dr.samples = append(dr.samples, m3.NewSample(sim, s.sc.Spec.Network, metrics.Slowdowns(fr), nil))
	}
	dr.pred = model.Predict(dr.samples)
	return dr, nil
}

// p99 is the 99th percentile, NaN of nothing.
func p99(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return metrics.Percentile(xs, 99)
}

// weighted is a value with its mass.
type weighted struct{ v, w float64 }

// weightedP99 is the smallest value whose cumulative mass reaches 99% of
// the total, NaN of nothing.
func weightedP99(xs []weighted) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	slices.SortFunc(xs, func(a, b weighted) int { return cmp.Compare(a.v, b.v) })
	var total float64
	for _, x := range xs {
		total += x.w
	}
	cum := 0.0
	for _, x := range xs {
		if cum += x.w; cum >= 0.99*total {
			return x.v
		}
	}
	return xs[len(xs)-1].v
}

func pct(est, truth float64) string { return fmt.Sprintf("%.3f (%+.1f%%)", est, 100*(est/truth-1)) }

// estimates pools the drawn paths j for which keep(j) holds: flowSim's
// percentiles, the model's, and the model's with uniform weights.
func (s *study) estimates(dr *drawn, keep func(j int) bool) (flowSim, model, uniform *m3.Distribution, err error) {
	ones := make([]int, s.out.Len())
	for b := range ones {
		ones[b] = 1
	}
	var f, m, u []m3.PathEstimate
	for j := range dr.paths {
		if !keep(j) {
			continue
		}
		c := dr.samples[j].Count
		f = append(f, m3.PathEstimate{Draws: dr.draws[j], Count: c, Percentiles: dr.samples[j].Base})
		m = append(m, m3.PathEstimate{Draws: dr.draws[j], Count: c, Percentiles: dr.pred[j]})
		u = append(u, m3.PathEstimate{Draws: dr.draws[j], Count: ones, Percentiles: dr.pred[j]})
	}
	if flowSim, err = m3.Aggregate(f, s.count); err != nil {
		return nil, nil, nil, err
	}
	if model, err = m3.Aggregate(m, s.count); err != nil {
		return nil, nil, nil, err
	}
	uniform, err = m3.Aggregate(u, s.count)
	return flowSim, model, uniform, err
}

// errors prints the per-bucket decomposition of m3's error.
func (s *study) errors(dr *drawn) {
	sampled := make([][]weighted, s.out.Len())
	for j, p := range dr.paths {
		fg := s.d.Foreground(p)
		for _, f := range fg {
			b := s.out.Index(s.sc.Flows[f].Size)
			sampled[b] = append(sampled[b], weighted{s.sd[f], float64(dr.draws[j]) / float64(len(fg))})
		}
	}
	fs, m, u, err := s.estimates(dr, func(int) bool { return true })
	if err != nil {
		fmt.Println("  ", err)
		return
	}
	for b, label := range s.out.Labels {
		t := p99(s.all[b])
		fmt.Printf("  %-9s network %.3f | sampled flows (%d) %s | flowSim %s | m3 %s | m3 uniform %s\n", label, t,
			len(sampled[b]), pct(weightedP99(sampled[b]), t), pct(fs.Buckets[b][98], t), pct(m.Buckets[b][98], t), pct(u.Buckets[b][98], t))
	}
}

// byLength prints m3's error per path length, and per kind of the
// busiest hop of the drawn paths (the network's flows on those paths
// alone as the truth).
func (s *study) byLength(dr *drawn) {
	for _, h := range []int{2, 4, 6} {
		s.group(dr, fmt.Sprintf("%d-hop paths", h), func(i int) bool { return len(s.d.Route(i)) == h },
			func(j int) bool { return dr.sims[j].Hops() == h })
	}
	// The busiest hop of each drawn lot: a host link (the chain's ends)
	// or a fabric link.
	host := make([]bool, len(dr.sims))
	onPath := map[int]int{} // flow -> drawn lot
	for j, sim := range dr.sims {
		best := sim.BusiestHop()
		host[j] = best == 0 || best == sim.Hops()-1
		for _, f := range s.d.Foreground(dr.paths[j]) {
			onPath[int(f)] = j
		}
	}
	for _, kind := range []bool{true, false} {
		name := "busiest hop a host link"
		if !kind {
			name = "busiest hop a fabric link"
		}
		s.group(dr, name+" (drawn flows)", func(i int) bool { j, ok := onPath[i]; return ok && host[j] == kind },
			func(j int) bool { return host[j] == kind })
	}
}

// group prints m3's error on the drawn paths j with lot(j) against the
// network's flows i with flow(i).
func (s *study) group(dr *drawn, name string, flow func(i int) bool, lot func(j int) bool) {
	th := make([][]float64, s.out.Len())
	for i, f := range s.sc.Flows {
		if flow(i) {
			b := s.out.Index(f.Size)
			th[b] = append(th[b], s.sd[i])
		}
	}
	n := 0
	for j := range dr.sims {
		if lot(j) {
			n++
		}
	}
	if n == 0 {
		return
	}
	_, m, _, err := s.estimates(dr, lot)
	if err != nil {
		fmt.Println("  ", err)
		return
	}
	fmt.Printf("  %s, %d drawn:", name, n)
	for b, label := range s.out.Labels {
		t := p99(th[b])
		fmt.Printf(" %s %.3f (%d), m3 %+.1f%%;", label, t, len(th[b]), 100*(m.Buckets[b][98]/t-1))
	}
	fmt.Println()
}

// quantiles summarises xs.
func quantiles(xs []float64) string {
	q := metrics.Percentiles(xs, []float64{5, 50, 95})
	return fmt.Sprintf("p5 %.3g, median %.3g, p95 %.3g, max %.3g", q[0], q[1], q[2], slices.Max(xs))
}

// lots prints what the drawn parking lots look like.
func (s *study) lots(dr *drawn) {
	hops := map[int]int{}
	var fg, bg, share, busiest, idlest, cv []float64
	for _, sim := range dr.sims {
		h := sim.Hops()
		hops[h]++
		bytes := sim.HopBytes()
		nf := 0
		for k := range sim.Flows {
			if sim.Foreground[k] {
				nf++
			}
		}
		fg, bg = append(fg, float64(nf)), append(bg, float64(len(sim.Flows)-nf))
		share = append(share, float64(nf)/float64(len(sim.Flows)))
		hi, lo := 0.0, math.Inf(1)
		for j := range h {
			l := bytes[j] * 8 / (float64(sim.Net.Channels[2*j].Bandwidth) * s.dur)
			hi, lo = max(hi, l), min(lo, l)
		}
		busiest, idlest = append(busiest, hi), append(idlest, lo)
		var gaps []float64
		for k := 1; k < len(sim.Flows); k++ {
			gaps = append(gaps, float64(sim.Flows[k].Start-sim.Flows[k-1].Start))
		}
		m, sd := stat.PopMeanStdDev(gaps, nil)
		cv = append(cv, sd/m)
	}
	fmt.Printf("  parking lots: hops %v\n", hops)
	fmt.Printf("  foreground flows: %s\n  background flows: %s\n  foreground share: %s\n", quantiles(fg), quantiles(bg), quantiles(share))
	fmt.Printf("  busiest hop's load: %s\n  idlest hop's load: %s\n", quantiles(busiest), quantiles(idlest))
	fmt.Printf("  inter-arrival CV: %s (log-normal sigma 1: 1.31, sigma 2: 7.32; Poisson 1)\n", quantiles(cv))
}

// inputs rebuilds the model's raw input blocks of s as m3 builds them:
// log foreground map, mean and max over hops of the log background maps,
// the DCTCP spec entries, log1p counts, log flowSim percentiles.
func inputs(s *m3.Sample) map[string][]float64 {
	blk := map[string][]float64{}
	for _, row := range s.FG {
		for _, v := range row {
			blk["fg map"] = append(blk["fg map"], math.Log(v))
		}
	}
	n := len(s.FG) * m3.NumPercentiles
	mn, mx := make([]float64, n), make([]float64, n)
	for _, m := range s.BG {
		for b, row := range m {
			for p, v := range row {
				l := math.Log(v)
				mn[b*m3.NumPercentiles+p] += l / float64(len(s.BG))
				mx[b*m3.NumPercentiles+p] = max(mx[b*m3.NumPercentiles+p], l)
			}
		}
	}
	blk["bg mean"], blk["bg max"] = mn, mx
	blk["spec"] = slices.Clone(s.Spec[:len(m3.LegacySpecNames)])
	for _, c := range s.Count {
		blk["counts"] = append(blk["counts"], math.Log1p(float64(c)))
	}
	for _, row := range s.Base {
		for _, v := range row {
			blk["flowSim"] = append(blk["flowSim"], math.Log(v))
		}
	}
	return blk
}

// inputRanges prints, per input block, the share of the drawn paths'
// inputs outside the [1st, 99th] percentile of every eighth training
// task's (whole and thinned to one foreground flow). Both data layouts
// are read: m3.TaskFrames' and the older task-*.parquet.
func inputRanges(dir string, drawn []*m3.Sample) error {
	files, err := filepath.Glob(filepath.Join(dir, "task-*.parquet"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		if files, err = m3.TaskFrames(dir); err != nil {
			return err
		}
	}
	if len(files) == 0 {
		return fmt.Errorf("no training task frames in %s", dir)
	}
	vals := map[string][][]float64{}
	r := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < len(files); i += 8 {
		tr, err := m3.ReadTaskResult(files[i])
		if err != nil {
			return err
		}
		s, err := tr.Sample(false)
		if err != nil {
			return err
		}
		for _, x := range []*m3.Sample{s, s.Thin(1, r)} {
			for k, v := range inputs(x) {
				if vals[k] == nil {
					vals[k] = make([][]float64, len(v))
				}
				for j, y := range v {
					vals[k][j] = append(vals[k][j], y)
				}
			}
		}
	}
	var keys []string
	for k := range vals {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		lo, hi := make([]float64, len(vals[k])), make([]float64, len(vals[k]))
		for j, c := range vals[k] {
			q := metrics.Percentiles(c, []float64{1, 99})
			lo[j], hi[j] = q[0]-1e-9, q[1]+1e-9
		}
		var n, below, above int
		for _, s := range drawn {
			for j, y := range inputs(s)[k] {
				n++
				if y < lo[j] {
					below++
				} else if y > hi[j] {
					above++
				}
			}
		}
		fmt.Printf("  inputs %-8s (%d values): %.1f%% below the training's 1st percentile, %.1f%% above its 99th\n",
			k, n, 100*float64(below)/float64(n), 100*float64(above)/float64(n))
	}
	return nil
}

// pathLevel runs packetsim on the first n drawn parking lots and compares
// their foreground flows' slowdowns with the network's.
func (s *study) pathLevel(dr *drawn, n int) error {
	lot, net := make([][]float64, s.out.Len()), make([][]float64, s.out.Len())
	var ratio []float64
	for _, sim := range dr.sims[:min(n, len(dr.sims))] {
		res, err := packetsim.Run(context.Background(), sim.Net, sim.Flows, s.sc.Spec.Network, packetsim.Options{})
		if err != nil {
			return err
		}
		for _, r := range res.Records {
			if !sim.Foreground[r.FlowID] {
				continue
			}
			f := sim.Orig[r.FlowID]
			b := s.out.Index(s.sc.Flows[f].Size)
			lot[b], net[b] = append(lot[b], r.Slowdown), append(net[b], s.sd[f])
			ratio = append(ratio, r.Slowdown/s.sd[f])
		}
	}
	fmt.Printf("  packetsim on %d parking lots: foreground slowdown / the network's: %s\n", min(n, len(dr.sims)), quantiles(ratio))
	for b, label := range s.out.Labels {
		if len(lot[b]) == 0 {
			continue
		}
		fmt.Printf("  %-9s %d flows: p99 parking lots %.3f, network %.3f\n", label, len(lot[b]), p99(lot[b]), p99(net[b]))
	}
	return nil
}

// foregroundStream adds k WebServer foreground flows, Poisson arrivals
// spread over each lot's span, to the first n drawn lots, simulates them
// with flowSim and packetsim and prints, pooled over the lots per output
// bucket, packetsim's p99 of the added flows, the model's from one of
// them and from all of them, and flowSim's: with a whole foreground
// stream the lot is a training task in all but its background, so a miss
// there is the background's, not the thin foreground's.
func (s *study) foregroundStream(model *m3.Model, dr *drawn, n, k int) error {
	cfg := s.sc.Spec.Network
	// Per lot: packetsim, the model from one flow and from all, flowSim.
	var est [4][]m3.PathEstimate
	r := rand.New(rand.NewPCG(1, 0x6667)) // "fg"
	for j, sim := range dr.sims[:min(n, len(dr.sims))] {
		lo, hi := sim.Flows[0].Start, sim.Flows[len(sim.Flows)-1].Start
		// The load only sets the generator's span; starts are stretched
		// over the lot's below.
		add, err := workload.Generate(sim.Net, workload.Spec{Flows: k, Components: []workload.Component{{
			Pairs: [][2]int{{0, 1}}, Sizes: workload.SizeSpec{Dist: "webserver"}, Arrival: workload.Arrival{Process: "poisson"}, MaxLoad: 0.01}}}, uint64(j+1))
		if err != nil {
			return err
		}
		a0, a1 := add[0].Start, add[len(add)-1].Start
		type flow struct {
			f           workload.Flow
			first, last int
			fg          bool
		}
		all := make([]flow, 0, len(sim.Flows)+k)
		for i, f := range sim.Flows {
			all = append(all, flow{f, sim.First[i], sim.Last[i], sim.Foreground[i]})
		}
		for _, f := range add {
			f.Start = lo + int64(float64(f.Start-a0)*float64(hi-lo)/float64(max(a1-a0, 1)))
			all = append(all, flow{f, 0, sim.Hops() - 1, true})
		}
		slices.SortStableFunc(all, func(a, b flow) int { return cmp.Compare(a.f.Start, b.f.Start) })
		lot := &m3.PathSim{Spec: sim.Spec, Net: sim.Net}
		for i, x := range all {
			x.f.ID = i
			lot.Flows = append(lot.Flows, x.f)
			lot.First, lot.Last = append(lot.First, x.first), append(lot.Last, x.last)
			lot.Foreground, lot.Orig = append(lot.Foreground, x.fg), append(lot.Orig, -1)
		}
		fs, err := flowsim.Run(context.Background(), lot.Net, lot.Flows, cfg, flowsim.Options{})
		if err != nil {
			return err
		}
		ps, err := packetsim.Run(context.Background(), lot.Net, lot.Flows, cfg, packetsim.Options{})
		if err != nil {
			return err
		}
		pk := make([]float64, len(lot.Flows))
		for _, rec := range ps.Records {
			pk[rec.FlowID] = rec.Slowdown
		}
		sample := m3.NewSample(lot, cfg, metrics.Slowdowns(fs), pk)
		p := model.Predict([]*m3.Sample{sample.Thin(1, r), sample})
		for i, pct := range [][][]float64{sample.Target, p[0], p[1], sample.Base} {
			est[i] = append(est[i], m3.PathEstimate{Draws: 1, Count: sample.TargetCount, Percentiles: pct})
		}
	}
	ones := make([]int, s.out.Len())
	for b := range ones {
		ones[b] = 1
	}
	var d [4]*m3.Distribution
	for i := range est {
		var err error
		if d[i], err = m3.Aggregate(est[i], ones); err != nil {
			return err
		}
	}
	fmt.Printf("  %d lots with %d added foreground flows each:\n", len(est[0]), k)
	for b, label := range s.out.Labels {
		t := d[0].Buckets[b][98]
		fmt.Printf("  %-9s packetsim p99 %.3f | model from one flow %s | from all %s | flowSim %s\n", label, t, pct(d[1].Buckets[b][98], t), pct(d[2].Buckets[b][98], t), pct(d[3].Buckets[b][98], t))
	}
	return nil
}
