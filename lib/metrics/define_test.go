package metrics

import (
	"math"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
)

// Redefine's FCTs and ideals against sums done by hand on a 3-hop path:
// host 0 -(10G, 1 us)- switch 2 -(40G, 2 us)- switch 3 -(10G, 1 us)- host 1.
// One-way propagation 4,000 ns; the last ACK's return adds 4,000 ns and
// 60 B at 10, 40 and 10 Gbps (48 + 12 + 48 ns): 4,108 ns. A 1,000 B flow's
// ideal is 1,048 B at each hop (838.4 + 209.6 + 838.4 ns) plus 4,000 ns.
func TestRedefine(t *testing.T) {
	net, err := topo.New("line", []topo.Node{
		{ID: 0, Kind: topo.Host}, {ID: 1, Kind: topo.Host}, {ID: 2, Kind: topo.Switch}, {ID: 3, Kind: topo.Switch},
	}, []topo.Link{
		{A: 0, B: 2, Bandwidth: 10 * topo.Gbps, Delay: 1000},
		{A: 2, B: 3, Bandwidth: 40 * topo.Gbps, Delay: 2000},
		{A: 3, B: 1, Bandwidth: 10 * topo.Gbps, Delay: 1000},
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg := netcfg.Default()
	path, err := net.Path(0, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	const ideal, back, prop = 5886, 4108, 4000
	if got := IdealFCT(net, path, 1000, cfg); got != ideal {
		t.Fatalf("IdealFCT = %d, want %d", got, ideal)
	}
	loaded := Record{FlowID: 0, Src: 0, Dst: 1, Size: 1000, FCT: 2 * ideal, Ideal: ideal, Slowdown: 2}
	unloaded := loaded
	unloaded.FCT, unloaded.Slowdown = ideal, 1
	for _, tc := range []struct {
		def       SlowdownDef
		rec       Record
		fct, idl  int64
		slowdown  float64
		wantErr   string
		cfgAckOff bool
	}{
		{def: SlowdownDef{}, rec: loaded, fct: 2 * ideal, idl: ideal, slowdown: 2},
		{def: SlowdownDef{AckFCT: true}, rec: loaded, fct: 2*ideal + back, idl: ideal, slowdown: float64(2*ideal+back) / ideal},
		{def: SlowdownDef{RTTIdeal: true}, rec: loaded, fct: 2 * ideal, idl: ideal + back, slowdown: float64(2*ideal) / (ideal + back)},
		{def: SlowdownDef{AckFCT: true, RTTIdeal: true}, rec: loaded, fct: 2*ideal + back, idl: ideal + back, slowdown: float64(2*ideal+back) / (ideal + back)},
		// One definition on both ends keeps an unloaded flow at 1.
		{def: SlowdownDef{AckFCT: true, RTTIdeal: true}, rec: unloaded, fct: ideal + back, idl: ideal + back, slowdown: 1},
		{def: SlowdownDef{NoProp: true}, rec: loaded, fct: 2 * ideal, idl: ideal - prop, slowdown: float64(2*ideal) / (ideal - prop)},
		{def: SlowdownDef{AckFCT: true, RTTIdeal: true, NoProp: true}, rec: loaded, fct: 2*ideal + back, idl: ideal + back - 2*prop, slowdown: float64(2*ideal+back) / (ideal + back - 2*prop)},
		{def: SlowdownDef{NoProp: true}, rec: Record{Src: 0, Dst: 1, Size: 1000, FCT: 9000, Ideal: 3000}, wantErr: "not positive"},
		{def: SlowdownDef{}, rec: Record{Src: 0, Dst: 1, Size: 1000, FCT: 0, Ideal: ideal}, wantErr: "must be positive"},
		{def: SlowdownDef{}, rec: Record{Src: 2, Dst: 1, Size: 1000, FCT: 1, Ideal: 1}, wantErr: "not a host"},
		{def: SlowdownDef{AckFCT: true}, rec: loaded, cfgAckOff: true, wantErr: "ack_bytes"},
	} {
		t.Run(tc.def.String(), func(t *testing.T) {
			c := cfg
			if tc.cfgAckOff {
				c.AckBytes = 0
			}
			got, err := Redefine(net, c, []Record{tc.rec}, tc.def)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			r := got[0]
			if r.FCT != tc.fct || r.Ideal != tc.idl || math.Abs(r.Slowdown-tc.slowdown) > 1e-12 {
				t.Errorf("FCT %d, ideal %d, slowdown %g; want %d, %d, %g", r.FCT, r.Ideal, r.Slowdown, tc.fct, tc.idl, tc.slowdown)
			}
		})
	}
}
