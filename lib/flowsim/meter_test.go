package flowsim

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// ExampleRun's two flows keep the 10 Gbps bottleneck busy from 0 to
// 167.68 us (flow 0 alone, then both at 5 Gbps, then flow 1 alone): 10 us
// bins hold 100,000 bits each, the last (160-170 us) 76,800.
func TestMeterBottleneckBins(t *testing.T) {
	net, err := topo.Dumbbell(topo.DumbbellSpec{Senders: 2, Receivers: 2})
	if err != nil {
		t.Fatal(err)
	}
	flows := []workload.Flow{
		{ID: 0, Src: 0, Dst: 2, Size: 100_000, Start: 0},
		{ID: 1, Src: 1, Dst: 3, Size: 100_000, Start: 20_000},
	}
	bottleneck := 2 * (len(net.Links) - 1) // left -> right
	m := &Meter{BinNs: 10_000, Links: []int{bottleneck}}
	if _, err := Run(context.Background(), net, flows, netcfg.Default(), Options{Meter: m}); err != nil {
		t.Fatal(err)
	}
	bins := m.Bits[0]
	if len(bins) != 17 {
		t.Fatalf("%d bins, want 17", len(bins))
	}
	for k, b := range bins {
		want := 100_000.0
		if k == 16 {
			want = 76_800
		}
		if math.Abs(b-want) > 1e-6 {
			t.Errorf("bin %d: %.3f bits, want %.0f", k, b, want)
		}
	}
}

// Every link carries exactly the wire bits of the jobs crossing it, and
// metering disjoint windows splits those bits without loss.
func TestMeterConservesBits(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	caps := []int64{10e9, 4e9, 10e9, 25e9}
	var jobs []Job
	want := make([]float64, len(caps))
	for i := 0; i < 400; i++ {
		a := r.IntN(len(caps))
		b := r.IntN(len(caps))
		route := []int{a}
		if b != a {
			route = append(route, b)
		}
		j := Job{ID: i, Route: route, Bytes: 1 + r.Int64N(200_000), Start: r.Int64N(2_000_000)}
		if i%3 == 0 {
			j.CapBps = 2e9
		}
		for _, l := range route {
			want[l] += float64(j.Bytes) * 8
		}
		jobs = append(jobs, j)
	}
	all := []int{0, 1, 2, 3}
	whole := &Meter{BinNs: 7_777, Links: all}
	fin, err := Simulate(caps, jobs, whole)
	if err != nil {
		t.Fatal(err)
	}
	early := &Meter{BinNs: 7_777, Links: all, To: 1_000_000}
	late := &Meter{BinNs: 7_777, Links: all, From: 1_000_000}
	for _, m := range []*Meter{early, late} {
		got, err := Simulate(caps, jobs, m)
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if got[i] != fin[i] {
				t.Fatalf("metering changed job %d's finish: %g vs %g", i, got[i], fin[i])
			}
		}
	}
	for i, l := range all {
		var sum, split float64
		for k, b := range whole.Bits[i] {
			sum += b
			if k < len(early.Bits[i]) {
				split += early.Bits[i][k]
			}
			if k < len(late.Bits[i]) {
				split += late.Bits[i][k]
			}
		}
		if math.Abs(sum-want[l]) > 1e-9*want[l] {
			t.Errorf("link %d carried %.1f bits, jobs put %.1f on it", l, sum, want[l])
		}
		if math.Abs(split-sum) > 1e-9*want[l] {
			t.Errorf("link %d: windows add up to %.1f bits, whole run %.1f", l, split, sum)
		}
		for k, b := range whole.Bits[i] {
			if b > float64(caps[l])/1e9*7_777*(1+1e-9) {
				t.Errorf("link %d bin %d carried %.1f bits, above its capacity", l, k, b)
			}
		}
	}
}

func TestMeterErrors(t *testing.T) {
	jobs := []Job{{ID: 1, Route: []int{0}, Bytes: 10}}
	for _, m := range []*Meter{
		{BinNs: 0, Links: []int{0}},
		{BinNs: 10, Links: []int{1}},
		{BinNs: 10, Links: []int{0, 0}},
		{BinNs: 10, Links: []int{0}, From: 5, To: 5},
	} {
		if _, err := Simulate([]int64{1e9}, jobs, m); err == nil {
			t.Errorf("meter %+v accepted", *m)
		}
	}
}
