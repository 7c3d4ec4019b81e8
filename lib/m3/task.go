package m3

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// Task is one synthetic parking-lot scenario of the training set (m3
// Table 2): a chain of Hops links, foreground flows over the whole chain
// and background flows over every shorter segment, with a size
// distribution, log-normal arrivals, a target max load and DCTCP settings.
// It is self-contained and serializable, so that a task runs the same in a
// goroutine or as a Slurm array element.
type Task struct {
	Index      int               `json:"index"`
	Seed       uint64            `json:"seed"`
	Hops       int               `json:"hops"`
	Bandwidths []int64           `json:"bandwidths"` // per hop, bps
	Sizes      workload.SizeSpec `json:"sizes"`
	Sigma      float64           `json:"sigma"`    // log-normal arrival shape
	MaxLoad    float64           `json:"max_load"` // of the busiest hop
	// ForegroundShare is the expected share of flows that are foreground.
	ForegroundShare float64       `json:"foreground_share"`
	Flows           int           `json:"flows"`
	BackgroundHosts int           `json:"background_hosts"`
	Network         netcfg.Config `json:"network"`
}

// fabricChain is the hop bandwidths of a Meta-fabric path of h hops:
// 10 Gbps host links at the ends, 40 Gbps in between.
func fabricChain(h int) []int64 {
	bw := make([]int64, h)
	for i := range bw {
		bw[i] = 40 * topo.Gbps
		if i == 0 || i == h-1 {
			bw[i] = 10 * topo.Gbps
		}
	}
	return bw
}

// taskSizes are the size distributions tasks draw from: m3's four
// parametric families (mean 5-50 KB) and, in a quarter of the tasks, the
// Meta distributions the fabric scenarios use.
var (
	paramSizes = []string{"pareto", "exp", "gaussian", "lognormal"}
	metaSizes  = []string{"webserver", "cachefollower", "hadoop"}
)

// RandomTask draws task index of a training set from m3 Table 2's space,
// widened where the fabric scenarios need it: 2, 4 or 6 hops, sizes as in
// taskSizes, arrival sigma in [1, 2], foreground share in [0.2, 0.5], and
// max load log-uniform in [0.05, 0.8] rather than m3's uniform [0.2, 0.8]:
// the busiest link of a fabric scenario sets its max load, and most hops
// of its paths carry a fifth to a half of that (5-20% at a 30% max load).
// Two tasks in three draw the ECN threshold K in [1, 4] KB per Gbps
// (10-40 KB at 10 Gbps) and the DCTCP window in [8, 30] KB; the third
// keeps the default network model (30 KB, 18 KB), the one every scenario
// uses unless it says otherwise, so that the model is densest there. The
// draw depends only on (seed, index).
func RandomTask(seed uint64, index, flows int) Task {
	r := rand.New(rand.NewPCG(seed, uint64(index)))
	h := []int{2, 4, 6}[r.IntN(3)]
	t := Task{
		Index:           index,
		Seed:            r.Uint64(),
		Hops:            h,
		Bandwidths:      fabricChain(h),
		Sigma:           1 + r.Float64(),
		MaxLoad:         0.05 * math.Pow(16, r.Float64()),
		ForegroundShare: 0.2 + 0.3*r.Float64(),
		Flows:           flows,
		BackgroundHosts: DefaultBackgroundHosts,
		Network:         netcfg.Default(),
	}
	if r.IntN(4) == 0 {
		t.Sizes = workload.SizeSpec{Dist: metaSizes[r.IntN(len(metaSizes))]}
	} else {
		t.Sizes = workload.SizeSpec{Dist: paramSizes[r.IntN(len(paramSizes))], Mean: math.Round(5000 + 45000*r.Float64())}
	}
	if r.IntN(3) != 0 {
		t.Network.KBytesPerGbps = math.Round(1000 + 3000*r.Float64())
		t.Network.DCTCP.WindowBytes = int64(8000 + r.IntN(22001))
	}
	return t
}

// Build makes the task's parking lot and flows. Flow pairs are drawn
// uniformly from a list holding every background segment (first..last hop,
// one pair per background host slot) once and the foreground pair as often
// as ForegroundShare asks. A background flow joining at hop a enters from
// a host a links away and one leaving after hop b goes to a host
// Hops-1-b links away, so that every flow has the foreground's base round
// trip, as on a fabric where most routes have the same length.
func (t Task) Build() (*PathSim, error) {
	switch {
	case t.Hops < 1 || len(t.Bandwidths) != t.Hops:
		return nil, fmt.Errorf("m3: task %d: %d hops with %d bandwidths", t.Index, t.Hops, len(t.Bandwidths))
	case !(t.ForegroundShare > 0 && t.ForegroundShare < 1):
		return nil, fmt.Errorf("m3: task %d: foreground share %g must be in (0, 1)", t.Index, t.ForegroundShare)
	case t.Flows <= 0:
		return nil, fmt.Errorf("m3: task %d: needs a positive number of flows, got %d", t.Index, t.Flows)
	case t.BackgroundHosts <= 0:
		return nil, fmt.Errorf("m3: task %d: needs background hosts, got %d", t.Index, t.BackgroundHosts)
	}
	spec := topo.ParkingLotSpec{Hops: t.Hops, Bandwidths: t.Bandwidths, HostBandwidth: 10 * topo.Gbps,
		Delay: topo.Microsecond, BackgroundHosts: t.BackgroundHosts}
	l, err := newLot(spec)
	if err != nil {
		return nil, fmt.Errorf("m3: task %d: %w", t.Index, err)
	}
	type span struct{ first, last int }
	var pairs [][2]int
	spans := map[[2]int]span{}
	for a := 0; a < t.Hops; a++ {
		for b := a; b < t.Hops; b++ {
			if a == 0 && b == t.Hops-1 {
				continue
			}
			for j := 0; j < t.BackgroundHosts; j++ {
				src, dst := l.endpoints(a, b, int64(a)*spec.Delay, int64(t.Hops-1-b)*spec.Delay, j, j)
				pairs = append(pairs, [2]int{src, dst})
				spans[[2]int{src, dst}] = span{a, b}
			}
		}
	}
	fg := max(1, int(math.Round(float64(len(pairs))*t.ForegroundShare/(1-t.ForegroundShare))))
	for range fg {
		pairs = append(pairs, [2]int{0, 1})
	}
	spans[[2]int{0, 1}] = span{0, t.Hops - 1}
	net, err := l.network()
	if err != nil {
		return nil, fmt.Errorf("m3: task %d: %w", t.Index, err)
	}
	flows, err := workload.Generate(net, workload.Spec{Flows: t.Flows, Components: []workload.Component{{
		Pairs: pairs, Sizes: t.Sizes, Arrival: workload.Arrival{Process: "lognormal", Sigma: t.Sigma}, MaxLoad: t.MaxLoad,
	}}}, t.Seed)
	if err != nil {
		return nil, fmt.Errorf("m3: task %d: %w", t.Index, err)
	}
	sim := &PathSim{Spec: spec, Net: net, Flows: flows}
	for _, f := range flows {
		s := spans[[2]int{f.Src, f.Dst}]
		sim.First, sim.Last = append(sim.First, s.first), append(sim.Last, s.last)
		sim.Foreground = append(sim.Foreground, f.Src == 0 && f.Dst == 1)
		sim.Orig = append(sim.Orig, -1)
	}
	return sim, nil
}
