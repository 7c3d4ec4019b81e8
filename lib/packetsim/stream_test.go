package packetsim

import (
	"context"
	"errors"
	"reflect"
	"sort"
	"testing"
	"unsafe"

	"github.com/tailscope/tailscope/lib/cc"
	"github.com/tailscope/tailscope/lib/internal/stopctx"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/workload"
)

// maxOverlap is the most intervals [start, start+extra+fct) of the
// records that hold at one time.
func maxOverlap(recs []metrics.Record, extra int64) int {
	type edge struct {
		t int64
		d int
	}
	var es []edge
	for _, r := range recs {
		es = append(es, edge{r.Start, 1}, edge{r.Start + r.FCT + extra, -1})
	}
	sort.Slice(es, func(i, j int) bool { return es[i].t < es[j].t || es[i].t == es[j].t && es[i].d < es[j].d })
	n, best := 0, 0
	for _, e := range es {
		n += e.d
		best = max(best, n)
	}
	return best
}

// Stream keeps state only for flows in flight. On a fabric with finite
// buffers (drops, go-back-N and timeouts exercise the count of a flow's
// packets still travelling), every slot is free again at the end, the
// most slots held lies between the most flows running at once and the
// most running or within 100 us of their end (the last ACKs' way back),
// plus, with finite buffers, the retransmission timer's period (a timer
// pending at the end holds its flow), far below the number of flows, and
// the records are Run's, emitted in flow order.
func TestStreamHoldsFlowsInFlight(t *testing.T) {
	n := 10_000
	if testing.Short() {
		n = 3000
	}
	net, flows := fabricScenario(t, n)
	for _, buffer := range []int64{0, 20_000} {
		cfg := netcfg.Default()
		cfg.BufferBytes = buffer
		want, err := Run(context.Background(), net, flows, cfg, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var got []metrics.Record
		s, err := newSim(net, workload.SliceSource(flows), cfg, Options{}, cc.NewDCTCPRate, func(r metrics.Record) error {
			got = append(got, r)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.run(context.Background()); err != nil {
			t.Fatal(err)
		}
		res, err := s.result()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want.Records) || len(got) != len(flows) {
			t.Fatalf("buffer %d: Stream's %d records differ from Run's %d", buffer, len(got), len(want.Records))
		}
		if len(s.free) != len(s.fs) {
			t.Errorf("buffer %d: %d of %d slots still held after the run", buffer, len(s.fs)-len(s.free), len(s.fs))
		}
		lo, hi := maxOverlap(got, 0), maxOverlap(got, 100_000)
		if buffer > 0 {
			hi = maxOverlap(got, 100_000+cfg.DCTCP.MinRTONanos)
		}
		if res.PeakFlows < lo || res.PeakFlows > hi || hi > len(flows)/4 {
			t.Errorf("buffer %d: %d slots at most, want between %d and %d, far below %d flows", buffer, res.PeakFlows, lo, hi, len(flows))
		}
		t.Logf("buffer %d: %d drops, %d retransmits; %d slots for %d flows (%d..%d running)", buffer, res.Drops, res.Retransmits, res.PeakFlows, len(flows), lo, hi)
	}
}

// An error from emit stops the run and is returned.
func TestStreamEmitError(t *testing.T) {
	net, flows := fabricScenario(t, 2000)
	stop := errors.New("disk full")
	n := 0
	_, err := Stream(context.Background(), net, workload.SliceSource(flows), netcfg.Default(), Options{}, func(metrics.Record) error {
		if n++; n == 100 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 100 {
		t.Errorf("Stream returned %v after %d records, want the emit error after 100", err, n)
	}
}

// A cancelled context stops Run before it starts and Stream within a
// record of the cancellation, with the context's error.
func TestStreamCancelled(t *testing.T) {
	net, flows := fabricScenario(t, 2000)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if res, err := Run(ctx, net, flows, netcfg.Default(), Options{}); !errors.Is(err, context.Canceled) || res != nil {
		t.Fatalf("cancelled Run: result %v, error %v; want none and context.Canceled", res != nil, err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	n := 0
	_, err := Stream(ctx, net, workload.SliceSource(flows), netcfg.Default(), Options{}, func(metrics.Record) error {
		if n++; n == 100 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || n != 100 {
		t.Errorf("Stream returned %v after %d records, want context.Canceled after 100", err, n)
	}
}

// The event loop looks at the context every 65,536 events, so a run
// stops even while no flow finishes (records leave in flow order, and a
// long flow can hold them back): this context's Done never closes, so
// only those looks can stop the run.
func TestRunLooksBetweenRecords(t *testing.T) {
	net, flows := fabricScenario(t, 2000)
	// Look 1 is Run's own before it starts, look 2 the loop's at event 0,
	// look 3 the loop's at event 65,536.
	ctx := &stopctx.After{Context: context.Background(), N: 3}
	_, err := Stream(ctx, net, workload.SliceSource(flows), netcfg.Default(), Options{}, func(metrics.Record) error {
		return nil
	})
	if !errors.Is(err, context.Canceled) || ctx.Looks != 3 {
		t.Fatalf("Stream returned %v after %d looks, want context.Canceled at look 3", err, ctx.Looks)
	}
	full, err := Run(context.Background(), net, flows, netcfg.Default(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if full.Events <= 1<<16 {
		t.Fatalf("the scenario has %d events; the test needs more than 65,536", full.Events)
	}
}

// A port's hot state must stay one cache line: a hop reads and writes it.
func TestPortIsOneCacheLine(t *testing.T) {
	if n := unsafe.Sizeof(port{}); n != 64 {
		t.Errorf("port is %d bytes; keep it at 64 (one cache line) or measure again", n)
	}
	if n := unsafe.Sizeof(event{}); n != 24 {
		t.Errorf("event is %d bytes; keep it at 24 or measure again", n)
	}
	var f flow
	if n := unsafe.Sizeof(f); n != 256 {
		t.Errorf("flow is %d bytes; keep it at 256 (four cache lines) or measure again", n)
	}
	if o := unsafe.Offsetof(f.nackSent); o != 192 || unsafe.Offsetof(f.rcvNxt) >= 256 {
		t.Errorf("the receiver's fields start at byte %d of a flow; keep them on its last cache line, apart from the sender's", o)
	}
}
