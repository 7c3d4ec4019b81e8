package scenario_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tailscope/tailscope/lib/estimator"
	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// A Go program runs its own flows on its own network: FromNetwork makes
// the scenario, whose spec records the network's and the flows'
// digests, so the frame written from its results says which flows ran.
func ExampleFromNetwork() {
	net, err := topo.Dumbbell(topo.DumbbellSpec{Senders: 2, Receivers: 2})
	if err != nil {
		panic(err)
	}
	flows := []workload.Flow{
		{ID: 0, Src: 0, Dst: 2, Size: 100_000, Start: 0},
		{ID: 1, Src: 1, Dst: 3, Size: 100_000, Start: 1_000},
	}
	sc, err := scenario.FromNetwork(net, flows, netcfg.Default(), 1)
	if err != nil {
		panic(err)
	}
	res, err := estimator.Run(context.Background(), "flowsim", sc, "")
	if err != nil {
		panic(err)
	}
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	p := filepath.Join(dir, "flowsim.parquet")
	if err := res.Write(p, sc); err != nil {
		panic(err)
	}
	_, meta, err := frame.ReadRecords(p)
	if err != nil {
		panic(err)
	}
	given, _ := scenario.Parse(stringsReader(meta.Spec))
	fmt.Println(len(res.Records), "records")
	fmt.Println("flows digest recorded:", given.Workload.Digest == workload.Digest(flows))
	fmt.Println("scenario ID is the frame's:", meta.ScenarioID == sc.ID)
	// Output:
	// 2 records
	// flows digest recorded: true
	// scenario ID is the frame's: true
}

func stringsReader(s string) *strings.Reader { return strings.NewReader(s) }
