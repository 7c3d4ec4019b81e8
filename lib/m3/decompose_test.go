package m3

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// fabricFlows is a 3000-flow matrix-B workload on the 32-rack fabric:
// about 2,500 paths of 2, 4 and 6 hops, three routing chunks.
func fabricFlows(t *testing.T) (*topo.Network, []workload.Flow) {
	t.Helper()
	fs, err := topo.Preset("meta32-2:1")
	if err != nil {
		t.Fatal(err)
	}
	net, err := topo.Fabric(fs)
	if err != nil {
		t.Fatal(err)
	}
	flows, err := workload.Generate(net, workload.Spec{Flows: 3000, Components: []workload.Component{{
		Matrix: "B", Sizes: workload.SizeSpec{Dist: "webserver"}, Arrival: workload.Arrival{Sigma: 2}, MaxLoad: 0.5,
	}}}, 3)
	if err != nil {
		t.Fatal(err)
	}
	return net, flows
}

// TestDecomposeMatchesDefinition checks the flat-array decomposition,
// built on one to three workers, against m3's Eq. 1 and 2 evaluated
// directly: paths as a map from each route's text to its flows, and a
// path's background as every other flow sharing one of its channels,
// spanning the first to the last hop it shares.
func TestDecomposeMatchesDefinition(t *testing.T) {
	net, flows := fabricFlows(t)
	var (
		routes [][]int32
		paths  [][]int32 // flows per path, paths in order of first flow
		byKey  = map[string]int{}
		pathOf []int
	)
	for i, f := range flows {
		r, err := net.Path(f.ID, f.Src, f.Dst)
		if err != nil {
			t.Fatal(err)
		}
		var route []int32
		for _, c := range r {
			route = append(route, int32(c))
		}
		routes = append(routes, route)
		key := fmt.Sprint(route)
		p, ok := byKey[key]
		if !ok {
			p = len(paths)
			byKey[key] = p
			paths = append(paths, nil)
		}
		paths[p] = append(paths[p], int32(i))
		pathOf = append(pathOf, p)
	}
	background := func(p int) []BackgroundFlow {
		var out []BackgroundFlow
		for f, route := range routes {
			if pathOf[f] == p {
				continue
			}
			first, last := -1, -1
			for h, c := range routes[paths[p][0]] {
				for _, x := range route {
					if x == c {
						if first < 0 {
							first = h
						}
						last = h
					}
				}
			}
			if first >= 0 {
				out = append(out, BackgroundFlow{Flow: f, First: first, Last: last})
			}
		}
		return out
	}
	for workers := 1; workers <= 3; workers++ {
		d, err := decompose(context.Background(), net, flows, workers)
		if err != nil {
			t.Fatal(err)
		}
		if d.NumPaths() != len(paths) {
			t.Fatalf("%d workers: %d paths, want %d", workers, d.NumPaths(), len(paths))
		}
		for i := range flows {
			if d.FlowPath(i) != pathOf[i] || !reflect.DeepEqual(d.Route(i), routes[i]) {
				t.Fatalf("%d workers: flow %d on path %d with route %v, want %d, %v", workers, i, d.FlowPath(i), d.Route(i), pathOf[i], routes[i])
			}
		}
		for p := range paths {
			if !reflect.DeepEqual(d.Foreground(p), paths[p]) || !reflect.DeepEqual(d.Channels(p), routes[paths[p][0]]) {
				t.Fatalf("%d workers: path %d has flows %v and channels %v, want %v, %v", workers, p, d.Foreground(p), d.Channels(p), paths[p], routes[paths[p][0]])
			}
			// Eq. 2 is quadratic here: check every 25th path.
			if p%25 != 0 {
				continue
			}
			if got, want := d.Background(p), background(p); !reflect.DeepEqual(got, want) {
				t.Fatalf("%d workers: path %d has %d background flows, want %d", workers, p, len(got), len(want))
			}
		}
	}
}

// TestRunCancelled checks that a cancelled context stops Run with the
// context's error.
func TestRunCancelled(t *testing.T) {
	net, flows := fabricFlows(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, net, flows, netcfg.Default(), Options{Samples: 50, Seed: 1}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run: error %v, want context.Canceled", err)
	}
}
