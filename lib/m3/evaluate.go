package m3

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/metrics"
)

// DataSet is a training set split by task index: index % 10 == 9 is held
// out for testing, == 8 validates (early stopping), the rest trains.
type DataSet struct {
	Train, Val, Test []*Sample
	// Groups are networks whose pooled prediction is learned (Group),
	// split as the samples are.
	TrainGroups, ValGroups, TestGroups []*Group
	// Tasks is the number of task frames read, Flows their flows.
	Tasks, Flows int
}

// ThinTo are the foreground sizes training and validation samples are
// thinned to besides being used whole (see Sample.Thin): fabric paths
// mostly carry one to a few foreground flows.
var ThinTo = []int{1, 2, 4, 16}

// LoadData reads every task frame in the data directories dirs
// (TaskFrames) and splits them by task index. Training and validation
// samples are augmented with thinned copies drawn from seed. Samples are
// in directory order, then task index order, whatever the frames' names.
// Several directories, each made by one gendata run, make one data set: a
// task index may recur across them (their draws differ), not within one.
// windowCap picks the samples' flowSim base (TaskResult.Sample).
func LoadData(dirs []string, seed uint64, windowCap bool) (*DataSet, error) {
	if len(dirs) == 0 {
		return nil, fmt.Errorf("m3: no data directory to load")
	}
	ds := &DataSet{}
	for _, dir := range dirs {
		if err := ds.load(dir, seed, windowCap); err != nil {
			return nil, err
		}
	}
	return ds, nil
}

// load adds the task frames of data directory dir to ds.
func (ds *DataSet) load(dir string, seed uint64, windowCap bool) error {
	files, err := TaskFrames(dir)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("m3: no task frames in %s (run tailscope m3 gendata)", dir)
	}
	// Frames are named by hashes: read them in any order, keep each
	// task's samples (not its raw frame) and append them by index.
	type task struct {
		index   int
		samples []*Sample
	}
	tasks := make([]task, 0, len(files))
	for _, f := range files {
		tr, err := ReadTaskResult(f)
		if err != nil {
			return err
		}
		s, err := tr.Sample(windowCap)
		if err != nil {
			return err
		}
		ds.Tasks++
		ds.Flows += len(tr.Sizes)
		t := task{index: tr.Task.Index, samples: []*Sample{s}}
		if t.index%10 != 9 { // held out for testing: whole only
			r := rand.New(rand.NewPCG(seed, uint64(t.index)))
			for _, k := range ThinTo {
				t.samples = append(t.samples, s.Thin(k, r))
			}
		}
		tasks = append(tasks, t)
	}
	slices.SortFunc(tasks, func(a, b task) int { return a.index - b.index })
	for i, t := range tasks {
		if i > 0 && t.index == tasks[i-1].index {
			return fmt.Errorf("m3: %s holds task %d twice (data sets of other seeds, flows or spaces mixed)", dir, t.index)
		}
		ds.Add(t.index, t.samples...)
	}
	return nil
}

// Add adds the samples of task (or scenario) index to the part of ds the
// index selects: % 10 == 9 test, == 8 validation, else training.
func (ds *DataSet) Add(index int, samples ...*Sample) {
	switch index % 10 {
	case 9:
		ds.Test = append(ds.Test, samples...)
	case 8:
		ds.Val = append(ds.Val, samples...)
	default:
		ds.Train = append(ds.Train, samples...)
	}
}

// AddGroup adds group g of scenario index to the part of ds the index
// selects, as Add does.
func (ds *DataSet) AddGroup(index int, g *Group) {
	switch index % 10 {
	case 9:
		ds.TestGroups = append(ds.TestGroups, g)
	case 8:
		ds.ValGroups = append(ds.ValGroups, g)
	default:
		ds.TrainGroups = append(ds.TrainGroups, g)
	}
}

// Ablation compares flowSim alone with the model on held-out samples
// (m3 Fig. 16): one row per sample and output bucket, with the sample's
// congestion control and buffer kind (netcfg.Config.BufferKind), with at least
// MinTargetFlows foreground flows, with the packet-level p99 and the p99
// error of flowSim and of the model. thin, when positive, first thins each
// sample's foreground to that many flows (seeded by seed).
func Ablation(m *Model, test []*Sample, thin int, seed uint64) *frame.Table {
	if thin > 0 {
		r := rand.New(rand.NewPCG(seed, 0x7468)) // "th"
		thinned := make([]*Sample, len(test))
		for i, s := range test {
			thinned[i] = s.Thin(thin, r)
		}
		test = thinned
	}
	pred := m.Predict(test)
	labels := metrics.M3OutputBins().Labels
	var sample, flows, hops []int64
	var bucket, cc, buffer []string
	var target, fs, model, fsErr, modelErr []float64
	for i, s := range test {
		for b, t := range s.Target {
			if s.TargetCount[b] < MinTargetFlows {
				continue
			}
			p := NumPercentiles - 2 // the 99th percentile
			sample, flows, hops = append(sample, int64(i)), append(flows, int64(s.TargetCount[b])), append(hops, int64(s.Hops))
			bucket, cc, buffer = append(bucket, labels[b]), append(cc, s.Network.CC), append(buffer, s.Network.BufferKind())
			target, fs, model = append(target, t[p]), append(fs, s.Base[b][p]), append(model, pred[i][b][p])
			fsErr = append(fsErr, metrics.P99Error(s.Base[b][p], t[p]))
			modelErr = append(modelErr, metrics.P99Error(pred[i][b][p], t[p]))
		}
	}
	return &frame.Table{Columns: []frame.Column{
		frame.Int64Column("sample", sample),
		frame.Int64Column("hops", hops),
		frame.StringColumn("bucket", bucket),
		frame.StringColumn("cc", cc),
		frame.StringColumn("buffer", buffer),
		frame.Int64Column("flows", flows),
		frame.Float64Column("packetsim_p99", target),
		frame.Float64Column("flowsim_p99", fs),
		frame.Float64Column("model_p99", model),
		frame.Float64Column("flowsim_err", fsErr),
		frame.Float64Column("model_err", modelErr),
	}}
}

// AblationSummary is the mean |p99 error| per output bucket of an
// Ablation table, for flowSim and for the model, and the number of rows.
func AblationSummary(t *frame.Table) (labels []string, flowSim, model []float64, n []int, err error) {
	bucket, err := t.Strings("bucket")
	if err != nil {
		return nil, nil, nil, nil, err
	}
	fe, _ := t.Float64s("flowsim_err")
	me, _ := t.Float64s("model_err")
	labels = metrics.M3OutputBins().Labels
	flowSim, model, n = make([]float64, len(labels)), make([]float64, len(labels)), make([]int, len(labels))
	for i, l := range bucket {
		for b, x := range labels {
			if x == l {
				flowSim[b] += math.Abs(fe[i])
				model[b] += math.Abs(me[i])
				n[b]++
			}
		}
	}
	for b := range labels {
		flowSim[b] /= float64(max(n[b], 1))
		model[b] /= float64(max(n[b], 1))
	}
	return labels, flowSim, model, n, nil
}

// AblationBy is the mean |p99 error| of flowSim and of the model per value
// of an Ablation table's string column ("cc", "buffer") and output
// bucket (m3 Fig. 16 per CC): columns column, bucket, rows, flowsim_mean_abs_err,
// model_mean_abs_err, in value order, then bucket order.
func AblationBy(t *frame.Table, column string) (*frame.Table, error) {
	ccs, err := t.Strings(column)
	if err != nil {
		return nil, err
	}
	bucket, err := t.Strings("bucket")
	if err != nil {
		return nil, err
	}
	fe, err := t.Float64s("flowsim_err")
	if err != nil {
		return nil, err
	}
	me, err := t.Float64s("model_err")
	if err != nil {
		return nil, err
	}
	type key struct{ cc, bucket string }
	sumF, sumM, n := map[key]float64{}, map[key]float64{}, map[key]int{}
	var names []string
	for i, c := range ccs {
		if !slices.Contains(names, c) {
			names = append(names, c)
		}
		k := key{c, bucket[i]}
		sumF[k] += math.Abs(fe[i])
		sumM[k] += math.Abs(me[i])
		n[k]++
	}
	sort.Strings(names)
	var cc, bk []string
	var rows []int64
	var f, m []float64
	for _, c := range names {
		for _, b := range metrics.M3OutputBins().Labels {
			k := key{c, b}
			if n[k] == 0 {
				continue
			}
			cc, bk, rows = append(cc, c), append(bk, b), append(rows, int64(n[k]))
			f, m = append(f, sumF[k]/float64(n[k])), append(m, sumM[k]/float64(n[k]))
		}
	}
	return &frame.Table{Columns: []frame.Column{
		frame.StringColumn(column, cc), frame.StringColumn("bucket", bk), frame.Int64Column("rows", rows),
		frame.Float64Column("flowsim_mean_abs_err", f), frame.Float64Column("model_mean_abs_err", m),
	}}, nil
}
