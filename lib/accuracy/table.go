package accuracy

import (
	"fmt"

	"github.com/tailscope/tailscope/lib/atlas"
	"github.com/tailscope/tailscope/lib/frame"
)

// Table turns rows into the archive's frame: one row per scenario and
// estimator, the per-bin values in columns "p99[<bin>]",
// "base_p99[<bin>]" and "error[<bin>]".
func Table(rows []Row) *frame.Table {
	n := len(rows)
	str := func(name string, get func(r Row) string) frame.Column {
		v := make([]string, n)
		for i, r := range rows {
			v[i] = get(r)
		}
		return frame.StringColumn(name, v)
	}
	num := func(name string, get func(r Row) float64) frame.Column {
		v := make([]float64, n)
		for i, r := range rows {
			v[i] = get(r)
		}
		return frame.Float64Column(name, v)
	}
	integer := func(name string, get func(r Row) int) frame.Column {
		v := make([]int64, n)
		for i, r := range rows {
			v[i] = int64(get(r))
		}
		return frame.Int64Column(name, v)
	}
	cols := []frame.Column{
		str("sample", func(r Row) string { return r.Sample }),
		integer("draw", func(r Row) int { return r.Draw }),
		str("preset", func(r Row) string { return r.Preset }),
		str("change", func(r Row) string { return r.Change }),
		str("scenario_id", func(r Row) string { return r.ScenarioID }),
		str("workload_id", func(r Row) string { return r.WorkloadID }),
		str("pair", func(r Row) string { return r.Pair }),
		integer("seed", func(r Row) int { return int(r.Seed) }),
		str("network", func(r Row) string { return r.Region.Network }),
		str("buffer", func(r Row) string { return r.Region.Buffer }),
		str("fabric", func(r Row) string { return r.Region.Fabric }),
		str("load_band", func(r Row) string { return r.Region.Load }),
		str("oversub", func(r Row) string { return r.Region.Oversub }),
		str("flow_band", func(r Row) string { return r.Region.Flows }),
		str("topology", func(r Row) string { return r.Topology }),
		str("matrix", func(r Row) string { return r.Matrix }),
		str("sizes", func(r Row) string { return r.Sizes }),
		num("sigma", func(r Row) float64 { return r.Sigma }),
		num("max_load", func(r Row) float64 { return r.Load }),
		integer("flows", func(r Row) int { return r.Flows }),
		str("estimator", func(r Row) string { return r.Estimator }),
		str("options", func(r Row) string { return r.Options }),
		str("refused", func(r Row) string { return r.Refused }),
		num("cpu_s", func(r Row) float64 { return r.CPUSeconds }),
		num("base_cpu_s", func(r Row) float64 { return r.BaseCPUSeconds }),
		num("sparse_share", func(r Row) float64 { return r.SparseShare }),
		num("flows_per_link", func(r Row) float64 { return r.FlowsPerLink }),
		num("window_over_bdp", func(r Row) float64 { return r.WindowOverBDP }),
		num("outside_share", func(r Row) float64 { return r.OutsideShare }),
	}
	for b, l := range Labels() {
		cols = append(cols,
			num("p99["+l+"]", func(r Row) float64 { return r.P99[b] }),
			num("base_p99["+l+"]", func(r Row) float64 { return r.Base[b] }),
			num("error["+l+"]", func(r Row) float64 { return r.Error[b] }))
	}
	return &frame.Table{Columns: cols}
}

// FromTable reads rows back from a frame Table wrote.
func FromTable(t *frame.Table) ([]Row, error) {
	if err := t.Check(); err != nil {
		return nil, err
	}
	var err error
	strs := func(name string) []string {
		v, e := t.Strings(name)
		if e != nil && err == nil {
			err = e
		}
		return v
	}
	nums := func(name string) []float64 {
		v, e := t.Float64s(name)
		if e != nil && err == nil {
			err = e
		}
		return v
	}
	ints := func(name string) []int64 {
		v, e := t.Int64s(name)
		if e != nil && err == nil {
			err = e
		}
		return v
	}
	// Columns added after the first archive was written: absent, every
	// row has the zero value (no pair recorded, seed 0, infinite buffers).
	optStrs := func(name string) []string {
		if _, e := t.Column(name); e != nil {
			return make([]string, t.Len())
		}
		return strs(name)
	}
	optInts := func(name string) []int64 {
		if _, e := t.Column(name); e != nil {
			return make([]int64, t.Len())
		}
		return ints(name)
	}
	pair, seed, buffer := optStrs("pair"), optInts("seed"), optStrs("buffer")
	sample, draw, preset, change := strs("sample"), ints("draw"), strs("preset"), strs("change")
	id, wl, network, fabric, load, over, fb := strs("scenario_id"), strs("workload_id"), strs("network"), strs("fabric"), strs("load_band"), strs("oversub"), strs("flow_band")
	topo, matrix, sizes, sigma, maxLoad, flows := strs("topology"), strs("matrix"), strs("sizes"), nums("sigma"), nums("max_load"), ints("flows")
	est, opts, refused, cpu, bcpu := strs("estimator"), strs("options"), strs("refused"), nums("cpu_s"), nums("base_cpu_s")
	sparse, fpl, wob, outside := nums("sparse_share"), nums("flows_per_link"), nums("window_over_bdp"), nums("outside_share")
	labels := Labels()
	p99, base, errs := make([][]float64, len(labels)), make([][]float64, len(labels)), make([][]float64, len(labels))
	for b, l := range labels {
		p99[b], base[b], errs[b] = nums("p99["+l+"]"), nums("base_p99["+l+"]"), nums("error["+l+"]")
	}
	if err != nil {
		return nil, fmt.Errorf("accuracy: %w (a frame of other size bins than %v?)", err, labels)
	}
	rows := make([]Row, t.Len())
	for i := range rows {
		r := Row{Sample: sample[i], Draw: int(draw[i]), Preset: preset[i], Change: change[i], ScenarioID: id[i], WorkloadID: wl[i],
			Pair: pair[i], Seed: uint64(seed[i]),
			Region:   atlas.Region{Network: network[i], Buffer: buffer[i], Fabric: fabric[i], Load: load[i], Oversub: over[i], Flows: fb[i]},
			Topology: topo[i], Matrix: matrix[i], Sizes: sizes[i], Sigma: sigma[i], Load: maxLoad[i], Flows: int(flows[i]),
			Estimator: est[i], Options: opts[i], Refused: refused[i], CPUSeconds: cpu[i], BaseCPUSeconds: bcpu[i],
			SparseShare: sparse[i], FlowsPerLink: fpl[i], WindowOverBDP: wob[i], OutsideShare: outside[i]}
		for b := range labels {
			r.P99 = append(r.P99, p99[b][i])
			r.Base = append(r.Base, base[b][i])
			r.Error = append(r.Error, errs[b][i])
		}
		rows[i] = r
	}
	return rows, nil
}
