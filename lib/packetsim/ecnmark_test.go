package packetsim

import (
	"context"
	"sort"
	"testing"

	"github.com/tailscope/tailscope/lib/cc"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// echoRecorder is a CC that never reacts and remembers whether any ACK
// echoed a mark.
type echoRecorder struct {
	line   float64
	marked bool
}

func (r *echoRecorder) RateBps() float64    { return r.line }
func (r *echoRecorder) WindowBytes() int64  { return 1 << 40 }
func (r *echoRecorder) OnAck(a cc.Ack)      { r.marked = r.marked || a.ECE }
func (r *echoRecorder) OnTimeout(now int64) {}

// n single-packet flows from n senders reach the dumbbell's bottleneck
// port at one instant and leave it one packet time w apart, in the order
// the simultaneous arrivals ran (their tie-break), which their completion
// times give. Marked at enqueue, the i-th to leave sees the i packets
// ahead of it (marked if i*w > K: the last ones); marked at dequeue, it
// sees the n-1-i packets behind it as it starts (marked if (n-1-i)*w > K:
// the first ones, except the first, which found the port empty and
// started at once).
func TestECNMarkingPoint(t *testing.T) {
	const n = 40
	net, err := topo.Dumbbell(topo.DumbbellSpec{Senders: n, Receivers: 1})
	must(t, net, err)
	for _, point := range netcfg.ECNMarks {
		t.Run(point, func(t *testing.T) {
			cfg := netcfg.Default()
			cfg.ECNMark = point
			w, k := cfg.PayloadBytes+cfg.HeaderBytes, cfg.KBytesFor(10*topo.Gbps)
			var ccs []*echoRecorder
			newCC := func(cfg netcfg.Config, line int64) cc.CC {
				r := &echoRecorder{line: float64(line)}
				ccs = append(ccs, r) // flows start in input order
				return r
			}
			flows := make([]workload.Flow, n)
			for i := range flows {
				flows[i] = workload.Flow{ID: i, Src: i, Dst: n, Size: cfg.PayloadBytes, Start: 1000}
			}
			res, err := Run(context.Background(), net, flows, cfg, Options{CC: newCC})
			if err != nil {
				t.Fatal(err)
			}
			order := make([]int, n) // flows by completion time
			for i := range order {
				order[i] = i
			}
			sort.Slice(order, func(a, b int) bool { return res.Records[order[a]].FCT < res.Records[order[b]].FCT })
			var marks int64
			for i, fi := range order {
				r := ccs[fi]
				if i > 0 && res.Records[fi].FCT == res.Records[order[i-1]].FCT {
					t.Fatalf("flows %d and %d finished at once; they share one port", fi, order[i-1])
				}
				want := int64(i)*w > k
				if point == "dequeue" {
					want = i > 0 && int64(n-1-i)*w > k
				}
				if r.marked != want {
					t.Errorf("flow %d, %d-th to leave: marked %v, want %v", fi, i, r.marked, want)
				}
				if want {
					marks++
				}
			}
			if res.Marks != marks {
				t.Errorf("%d marks counted, want %d", res.Marks, marks)
			}
		})
	}
}
