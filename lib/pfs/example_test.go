package pfs_test

import (
	"context"
	"fmt"

	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/pfs"
	"github.com/tailscope/tailscope/lib/scenario"
)

// Four temporal chunks of the pfs dumbbell against the serial flowSim
// run: every flow gets one record, the flows estimated to be still
// sending at chunk boundaries are injected into the next chunk, and the
// received bytes and the FCT tail stay close.
func ExampleRun() {
	sc, err := scenario.Build(scenario.PFSDumbbell(8, 5000, 0.6, 1))
	if err != nil {
		panic(err)
	}
	serial, err := pfs.Serial(sc.Net, sc.Flows, sc.Spec.Network, pfs.Options{})
	if err != nil {
		panic(err)
	}
	res, err := pfs.Run(context.Background(), sc.Net, sc.Flows, sc.Spec.Network, pfs.Options{Temporal: 4, Workers: 2})
	if err != nil {
		panic(err)
	}
	acc, err := pfs.Compare(res, serial, metrics.AllSizes())
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d records from %d chunks, %d boundary flows injected\n", len(res.Records), res.Chunks, res.Injected)
	fmt.Printf("received bytes NRMSE %.3f, p99 slowdown error %+.3f\n", acc.NRMSE, acc.P99.ErrorAll)
	// Output:
	// 5000 records from 4 chunks, 7 boundary flows injected
	// received bytes NRMSE 0.156, p99 slowdown error +0.003

}
