package experiment

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/tailscope/tailscope/lib/estimator"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/parsimon"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/workload"
)

// runTasks returns the link-level simulations of a small Parsimon run, as
// the run hands them to its link runner.
func runTasks(t *testing.T) []parsimon.Task {
	t.Helper()
	sc, err := scenario.Build(scenario.PFSFabric(400, 0.5, 7))
	if err != nil {
		t.Fatal(err)
	}
	var got []parsimon.Task
	stop := errors.New("captured")
	_, err = estimator.RunParsimon(context.Background(), "parsimon", sc, `{"workers":1}`,
		func(_ context.Context, links parsimon.Links, _ func(int, *parsimon.TaskResult) error) error {
			for i := range links.Channels {
				tk, err := links.Task(i)
				if err != nil {
					return err
				}
				got = append(got, *tk)
			}
			return stop
		})
	if !errors.Is(err, stop) || len(got) == 0 {
		t.Fatalf("capturing a run's link simulations: %d, %v", len(got), err)
	}
	return got
}

// A link-task input file decodes to the simulations it was encoded from,
// field for field, and equal inputs encode to equal bytes.
func TestLinkInputRoundTrip(t *testing.T) {
	run := runTasks(t)
	other := run[0]
	other.Config = netcfg.Default()
	other.Config.CC = "timely"
	other.WindowOnce = true
	// Values the varints must carry whatever their sign and size:
	// decreasing IDs and start times, negative and extreme ones.
	odd := parsimon.Task{
		Channel: 1 << 40, Kind: parsimon.Direct, KBytes: -3,
		Nodes:  []parsimon.TaskNode{{ID: 0}, {ID: -5, Switch: true}},
		Links:  []parsimon.TaskLink{{A: 0, B: 1, Bandwidth: 1 << 62, NominalBandwidth: -1, Delay: 0}},
		Flows:  []workload.Flow{{ID: 9, Src: 0, Dst: 1, Size: 1 << 62, Start: 1 << 62, Class: 3}, {ID: -9, Src: 1, Dst: 0, Size: 1, Start: -(1 << 62), Class: -1}},
		Config: run[0].Config,
	}
	for _, tc := range []struct {
		name string
		in   linkInput
	}{
		{"a run's simulations", linkInput{Backend: "linksim", Tasks: run}},
		{"two network models", linkInput{Backend: "packetsim", Tasks: []parsimon.Task{run[0], other, run[len(run)-1]}}},
		{"odd values", linkInput{Backend: "linksim", Tasks: []parsimon.Task{odd, {Config: odd.Config, Nodes: []parsimon.TaskNode{}, Links: []parsimon.TaskLink{}, Flows: []workload.Flow{}}}}},
		{"no simulation", linkInput{Backend: "linksim", Tasks: []parsimon.Task{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := encodeLinkInput(&tc.in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := decodeLinkInput(b)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, &tc.in) {
				t.Errorf("decoded input differs from the encoded one")
			}
			again, err := encodeLinkInput(got)
			if err != nil || !bytes.Equal(again, b) {
				t.Errorf("re-encoding gives other bytes (%v)", err)
			}
		})
	}
}

// Every truncation of an input file, a byte more or another magic is an
// error, never a panic or a short input taken for whole.
func TestLinkInputDamaged(t *testing.T) {
	run := runTasks(t)
	b, err := encodeLinkInput(&linkInput{Backend: "linksim", Tasks: run[:2]})
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < len(b); n++ {
		if _, err := decodeLinkInput(b[:n]); err == nil {
			t.Fatalf("the first %d of %d bytes decode without error", n, len(b))
		}
	}
	if _, err := decodeLinkInput(append(append([]byte(nil), b...), 0)); err == nil {
		t.Error("a byte after the last simulation is not refused")
	}
	wrong := append([]byte(nil), b...)
	wrong[0] = 'X'
	if _, err := decodeLinkInput(wrong); err == nil {
		t.Error("a file of another magic is not refused")
	}
}

// Decoding arbitrary bytes after the magic fails cleanly or gives an
// input that encodes again.
func FuzzLinkInput(f *testing.F) {
	b, err := encodeLinkInput(&linkInput{Backend: "linksim", Tasks: []parsimon.Task{{
		Channel: 3, Nodes: []parsimon.TaskNode{{ID: 0}, {ID: 1}},
		Links: []parsimon.TaskLink{{A: 0, B: 1, Bandwidth: 10, NominalBandwidth: 10, Delay: 1}},
		Flows: []workload.Flow{{ID: 1, Src: 0, Dst: 1, Size: 5}}, Config: netcfg.Default(),
	}}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		in, err := decodeLinkInput(b)
		if err != nil {
			return
		}
		if _, err := encodeLinkInput(in); err != nil {
			t.Fatal(err)
		}
	})
}
