package flowsim

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// referenceFinish is a second, deliberately naive implementation in the
// style of the original flowSim: per-job state, every rate recomputed from
// scratch at every event by raising one water level over all active jobs,
// the next completion found by scanning. It shares no code with the engine.
func referenceFinish(capBps []int64, jobs []Job) []float64 {
	n := len(jobs)
	rem := make([]float64, n) // bits left
	rate := make([]float64, n)
	finish := make([]float64, n)
	active := make([]bool, n)
	done := 0
	now := 0.0
	for done < n {
		// Next event: an arrival or the earliest completion.
		next := math.Inf(1)
		for i, j := range jobs {
			if !active[i] && finish[i] == 0 {
				next = math.Min(next, float64(j.Start))
			}
		}
		for i := range jobs {
			if active[i] {
				next = math.Min(next, now+rem[i]/rate[i])
			}
		}
		for i := range jobs {
			if active[i] {
				rem[i] -= rate[i] * (next - now)
			}
		}
		now = next
		for i, j := range jobs {
			switch {
			case active[i] && rem[i] <= 1e-9*float64(j.Bytes*8):
				active[i], finish[i] = false, now
				done++
			case !active[i] && finish[i] == 0 && float64(j.Start) == now:
				active[i], rem[i] = true, float64(j.Bytes*8)
			}
		}
		referenceRates(capBps, jobs, active, rate)
	}
	return finish
}

// referenceRates sets the max-min fair rate (bits/ns) of every active job:
// all unfrozen jobs share one level, raised until a link fills or a job
// reaches its cap; those jobs freeze, and the level rises on.
func referenceRates(capBps []int64, jobs []Job, active []bool, rate []float64) {
	frozen := make([]bool, len(jobs))
	left := 0
	for i := range jobs {
		frozen[i] = !active[i]
		if active[i] {
			left++
		}
	}
	for left > 0 {
		used := make([]float64, len(capBps))
		count := make([]int, len(capBps))
		for i, j := range jobs {
			for _, l := range j.Route {
				if active[i] && frozen[i] {
					used[l] += rate[i]
				}
				if !frozen[i] {
					count[l]++
				}
			}
		}
		level := math.Inf(1)
		for l, c := range capBps {
			if count[l] > 0 {
				level = math.Min(level, (float64(c)/1e9-used[l])/float64(count[l]))
			}
		}
		for i, j := range jobs {
			if !frozen[i] && j.CapBps > 0 {
				level = math.Min(level, float64(j.CapBps)/1e9)
			}
		}
		tol := 1e-12 * level
		for i, j := range jobs {
			if frozen[i] {
				continue
			}
			hit := j.CapBps > 0 && float64(j.CapBps)/1e9 <= level+tol
			for _, l := range j.Route {
				hit = hit || (float64(capBps[l])/1e9-used[l])/float64(count[l]) <= level+tol
			}
			if hit {
				rate[i], frozen[i] = level, true
				left--
			}
		}
	}
}

// randomInstance draws links and jobs that exercise shared and disjoint
// routes, binding and idle caps, and simultaneous arrivals and completions
// (starts on a coarse grid, repeated sizes).
func randomInstance(r *rand.Rand, maxLinks, maxJobs int) ([]int64, []Job) {
	speeds := []int64{1e9, 2.5e9, 4e9, 10e9, 40e9}
	caps := make([]int64, 1+r.IntN(maxLinks))
	for l := range caps {
		caps[l] = speeds[r.IntN(len(speeds))]
	}
	jobs := make([]Job, 1+r.IntN(maxJobs))
	for i := range jobs {
		route := r.Perm(len(caps))[:1+r.IntN(min(len(caps), 6))]
		var capBps int64
		if r.IntN(3) == 0 {
			capBps = speeds[r.IntN(len(speeds))] / 2
		}
		size := int64(1 + r.IntN(200_000))
		if r.IntN(4) == 0 {
			size = 10_000
		}
		jobs[i] = Job{ID: 1000 - i, Route: route, Bytes: size, CapBps: capBps, Start: int64(r.IntN(50)) * 1000}
	}
	return caps, jobs
}

func closeTo(got, want float64) bool {
	return math.Abs(got-want) <= 1e-6*math.Max(1, math.Abs(want))
}

// The engine (incremental, routes shared, event heap) must agree with the
// recompute-everything reference on random instances: many small ones, and
// larger ones where re-solved neighbourhoods are a small part of the
// network; with the water levels found by the heap and by the scan, and
// with the dense allocator (the default for these few routes).
func TestSimulateMatchesReference(t *testing.T) {
	defer func(s, d int) { smallFill, denseRoutes = s, d }(smallFill, denseRoutes)
	for _, mode := range []struct {
		name         string
		small, dense int
	}{{"heap", -1, 0}, {"scan", math.MaxInt, 0}, {"general", smallFill, 0}, {"default", smallFill, denseRoutes}} {
		t.Run(mode.name, func(t *testing.T) {
			smallFill, denseRoutes = mode.small, mode.dense
			matchReference(t)
		})
	}
}

func matchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 1))
	for k := 0; k < 500; k++ {
		maxLinks, maxJobs := 6, 40
		if k%5 == 0 {
			maxLinks, maxJobs = 20, 120
		}
		caps, jobs := randomInstance(r, maxLinks, maxJobs)
		got, err := Simulate(caps, jobs, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := referenceFinish(caps, jobs)
		for i := range jobs {
			if !closeTo(got[i], want[i]) {
				t.Fatalf("instance %d (%d links, %d jobs): job %d finishes at %.6f ns, reference %.6f ns\ncaps %v\njobs %+v",
					k, len(caps), len(jobs), jobs[i].ID, got[i], want[i], caps, jobs)
			}
		}
	}
}

// Run on a fabric must give the FCTs its documented formula gives from the
// reference's finish times: routing, wire bytes, NIC caps and the ideal FCT
// wired up as specified.
func TestRunMatchesReferenceOnFabric(t *testing.T) {
	spec, err := topo.Preset("meta32-4:1")
	if err != nil {
		t.Fatal(err)
	}
	net, err := topo.Fabric(spec)
	if err != nil {
		t.Fatal(err)
	}
	sizes := workload.SizeSpec{Dist: "webserver"}
	flows, err := workload.Generate(net, workload.Spec{Flows: 300, Components: []workload.Component{{
		Matrix: "C", Sizes: sizes, Arrival: workload.Arrival{Sigma: 2}, MaxLoad: 0.7}}}, 3)
	if err != nil {
		t.Fatal(err)
	}
	cfg := netcfg.Default()
	recs, err := Run(context.Background(), net, flows, cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	caps := make([]int64, len(net.Channels))
	for i, ch := range net.Channels {
		caps[i] = ch.Bandwidth
	}
	jobs := make([]Job, len(flows))
	for i, f := range flows {
		path, err := net.Path(f.ID, f.Src, f.Dst)
		if err != nil {
			t.Fatal(err)
		}
		jobs[i] = Job{ID: f.ID, Route: path, Bytes: cfg.WireBytes(f.Size), CapBps: net.Channels[path[0]].Bandwidth, Start: f.Start}
	}
	want := referenceFinish(caps, jobs)
	shared := 0
	for i, f := range flows {
		path := jobs[i].Route
		minBw := int64(math.MaxInt64)
		for _, c := range path {
			minBw = min(minBw, net.Channels[c].Bandwidth)
		}
		ideal := metrics.IdealFCT(net, path, f.Size, cfg)
		tx := want[i] - float64(f.Start)
		alone := float64(jobs[i].Bytes*8) * 1e9 / float64(minBw)
		wantFCT := ideal + int64(math.Round(tx-alone))
		r := recs[i]
		if r.FlowID != f.ID || r.Src != f.Src || r.Dst != f.Dst || r.Size != f.Size || r.Start != f.Start || r.Ideal != ideal {
			t.Fatalf("record %d = %+v does not describe flow %+v (ideal %d)", i, r, f, ideal)
		}
		// Rounding of nearly-half nanoseconds may differ by one.
		if d := r.FCT - wantFCT; d < -1 || d > 1 {
			t.Errorf("flow %d: FCT %d ns, reference %d ns", f.ID, r.FCT, wantFCT)
		}
		if r.FCT > ideal+1 {
			shared++
		}
		if r.Slowdown != float64(r.FCT)/float64(r.Ideal) || r.Slowdown < 1 {
			t.Errorf("flow %d: slowdown %g for FCT %d, ideal %d", f.ID, r.Slowdown, r.FCT, r.Ideal)
		}
	}
	if shared < len(flows)/10 {
		t.Errorf("only %d of %d flows were slowed by sharing: the scenario does not test sharing", shared, len(flows))
	}
}
