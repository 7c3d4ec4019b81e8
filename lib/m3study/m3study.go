// Package m3study is m3's training study behind "tailscope m3 gendata",
// "tailscope m3 train" and notebook 05: the training data set with its
// manifest (Gendata), the training run with its provenance record
// (Train), and the held-out ablation of the model against flowSim alone
// (Ablations; m3's Fig. 16). Like package validate it holds the whole
// recipe, so that the command and the notebook only call it, and it is
// where m3's results become plot's plain data.
package m3study

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tailscope/tailscope/lib/experiment"
	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/m3"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/plot"
	"github.com/tailscope/tailscope/lib/progress"
)

// Manifest is <data dir>/gendata.json: what a data set was generated
// with and the commit that started it, for the model's provenance.
type Manifest struct {
	Tasks int    `json:"tasks"` // parking lots; scenarios in NetworkSpace
	Flows int    `json:"flows"` // per task
	Seed  uint64 `json:"seed"`
	Space string `json:"space,omitempty"` // m3.Spaces or NetworkSpace; empty: dctcp
	// LowShare is the data set's low-share draw (m3.GenOptions), nil
	// for none.
	LowShare  *m3.LowShare `json:"low_share,omitempty"`
	GitCommit string       `json:"git_commit"`
}

// ManifestFile is the manifest's name in a data directory.
const ManifestFile = "gendata.json"

// WriteManifest records m in dir, refusing to mix data sets: tasks of
// another seed, flow count or configuration space would silently differ
// from their index's.
// A data set grown with more tasks keeps the larger count and the commit
// that started it.
func WriteManifest(dir string, m Manifest) error {
	if old, err := ReadManifest(dir); err == nil {
		if old.Seed != m.Seed || old.Flows != m.Flows || old.Space != m.Space || !reflect.DeepEqual(old.LowShare, m.LowShare) {
			return fmt.Errorf("m3study: %s holds seed %d with %d flows per task in space %q, low-share draw %s; asked for seed %d with %d in %q, %s (use another directory)",
				dir, old.Seed, old.Flows, old.Space, lowShareString(old.LowShare), m.Seed, m.Flows, m.Space, lowShareString(m.LowShare))
		}
		m.Tasks = max(m.Tasks, old.Tasks)
		if old.GitCommit != "" {
			m.GitCommit = old.GitCommit
		}
	} else if !os.IsNotExist(err) {
		return err
	}
	return writeJSON(filepath.Join(dir, ManifestFile), m)
}

// lowShareString describes a low-share draw for messages.
func lowShareString(l *m3.LowShare) string {
	if l == nil {
		return "none"
	}
	return fmt.Sprintf("%+v", *l)
}

// ReadManifest reads dir's manifest.
func ReadManifest(dir string) (Manifest, error) {
	var m Manifest
	path := filepath.Join(dir, ManifestFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

func writeJSON(path string, v any) error {
	js, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(js, '\n'), 0o644)
}

// gitCommit is the commit of the working directory's checkout, "" outside
// a git work tree.
func gitCommit() string {
	out, _ := exec.Command("git", "rev-parse", "HEAD").Output()
	return strings.TrimSpace(string(out))
}

// Gendata records the data set's manifest in dir (with the checked-out
// commit) and simulates its missing tasks there as sweep tasks through
// exec (experiment.GenerateM3Data), reporting to p: an interrupted run
// resumes. A directory of an older tailscope's task frames is refused
// before anything is written.
func Gendata(ctx context.Context, dir string, o m3.GenOptions, exec experiment.Executor, p progress.Reporter) (experiment.Report, error) {
	if o.Space == "dctcp" {
		o.Space = "" // as the manifests of data sets made before spaces existed
	}
	if IsNetworkSpace(o.Space) {
		return gendataNetwork(ctx, dir, o, exec, p)
	}
	if _, err := m3.TaskFrames(dir); err != nil {
		return experiment.Report{}, err
	}
	if _, err := o.Draws(); err != nil {
		return experiment.Report{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return experiment.Report{}, err
	}
	if err := WriteManifest(dir, Manifest{Tasks: o.Tasks, Flows: o.Flows, Seed: o.Seed, Space: o.Space, LowShare: o.LowShare, GitCommit: gitCommit()}); err != nil {
		return experiment.Report{}, err
	}
	return experiment.GenerateM3Data(ctx, dir, o, exec, p)
}

// Ablation is the held-out comparison of flowSim alone and flowSim with
// the model's corrections, with the foreground thinned to Thin flows (0:
// whole).
type Ablation struct {
	Thin  int
	Table *frame.Table // m3.Ablation's rows
	// Buckets label the size buckets; per bucket, the rows and the mean
	// |p99 error| of flowSim and of the model.
	Buckets            []string
	Rows               []int
	FlowSimErr, ModErr []float64
}

// Ablations compares model and flowSim on the held-out samples test,
// whole and thinned to one foreground flow (thinning drawn from seed).
func Ablations(model *m3.Model, test []*m3.Sample, seed uint64) ([]Ablation, error) {
	var out []Ablation
	for _, thin := range []int{0, 1} {
		t := m3.Ablation(model, test, thin, seed)
		t.Meta = frame.Meta{Estimator: "m3", Seed: seed, Extra: map[string]string{"thin": strconv.Itoa(thin)}}
		labels, fs, mo, n, err := m3.AblationSummary(t)
		if err != nil {
			return nil, err
		}
		out = append(out, Ablation{Thin: thin, Table: t, Buckets: labels, Rows: n, FlowSimErr: fs, ModErr: mo})
	}
	return out, nil
}

// Name is the ablation's file name stem: ablation-thin<Thin>.
func (a Ablation) Name() string { return fmt.Sprintf("ablation-thin%d", a.Thin) }

// Report writes the ablation's per-bucket errors.
func (a Ablation) Report(w io.Writer) {
	for b, l := range a.Buckets {
		fmt.Fprintf(w, "thin %d bucket %-9s rows %4d: flowSim mean |p99 err| %.1f%%, model %.1f%%\n", a.Thin, l, a.Rows[b], 100*a.FlowSimErr[b], 100*a.ModErr[b])
	}
}

// Figure draws the ablation per bucket (m3 Fig. 16).
func (a Ablation) Figure() (*plot.Figure, error) {
	title := "held-out parking lots: flowSim vs flowSim + model (m3 Fig. 16)"
	if a.Thin > 0 {
		title = fmt.Sprintf("held-out parking lots, foreground thinned to %d flow", a.Thin)
	}
	return plot.Ablation(a.Buckets, a.FlowSimErr, a.ModErr, title)
}

// Write stores the ablation's frame and figure under dir as
// <Name>.parquet and <Name>.png; the whole foreground's (Thin 0) also per
// congestion control and size bucket as ablation-by-cc.parquet, and per
// buffer kind (netcfg.Config.BufferKind) as ablation-by-buffer.parquet.
func (a Ablation) Write(dir string) error {
	if err := frame.WriteTable(filepath.Join(dir, a.Name()+".parquet"), a.Table); err != nil {
		return err
	}
	if a.Thin == 0 {
		for _, column := range []string{"cc", "buffer"} {
			g, err := m3.AblationBy(a.Table, column)
			if err != nil {
				return err
			}
			if err := frame.WriteTable(filepath.Join(dir, "ablation-by-"+column+".parquet"), g); err != nil {
				return err
			}
		}
	}
	fig, err := a.Figure()
	if err != nil {
		return err
	}
	return plot.Save(fig, filepath.Join(dir, a.Name()+".png"))
}

// TrainConfig sets up Train.
type TrainConfig struct {
	// Data is the data directory from Gendata, or several, separated by
	// commas, that make one data set (m3.LoadData).
	Data    string
	Model   string // model file to write; its provenance goes to <Model>.json
	Options m3.TrainOptions
	// Command is the command line that trained, for the provenance.
	Command string
	// NetworkPaths is the number of paths drawn per scenario of a
	// network data set (NetworkSpace; DefaultNetworkPaths if 0).
	NetworkPaths int
	// NetworkPooled makes each scenario of a network data set one group
	// whose pooled prediction learns the network's slowdowns per output
	// bucket (m3.Group) instead of samples that learn their own flows'.
	NetworkPooled bool
	// WindowCap trains a model of the window-capped flowSim base
	// (flowsim.Options.WindowCap; m3.ModelInfo.WindowCap).
	WindowCap bool
	// Log gets the data set's size and the training time (may be nil).
	Log io.Writer
}

// CCError is one congestion control's (or buffer kind's) held-out error
// in one size bucket (m3 Fig. 16 per congestion control).
type CCError struct {
	CC         string  `json:"cc,omitempty"`
	Data       string  `json:"data,omitempty"`   // the data set's space, on a network row of one data set among several
	Buffer     string  `json:"buffer,omitempty"` // netcfg.Config.BufferKind`
	Bucket     string  `json:"bucket"`
	Rows       int64   `json:"rows"`
	FlowSimErr float64 `json:"flowsim_mean_abs_p99_err"`
	ModelErr   float64 `json:"model_mean_abs_p99_err"`
}

// Provenance is the record written next to a trained model.
type Provenance struct {
	Model      string `json:"model"`
	GitCommit  string `json:"git_commit"`
	Data       string `json:"data"`
	DataTasks  int    `json:"data_tasks"`
	DataFlows  int    `json:"data_flows"`
	DataSeed   uint64 `json:"data_seed"`
	DataCommit string `json:"data_git_commit"`
	// DataSets are the manifests of Data's directories when it names
	// several (DataSeed and DataCommit are the first's).
	DataSets       []Manifest   `json:"data_sets,omitempty"`
	TrainSeed      uint64       `json:"train_seed"`
	Split          string       `json:"split"`
	Info           m3.ModelInfo `json:"training"`
	TestBuckets    []string     `json:"test_buckets"`
	TestRows       []int        `json:"test_rows"`
	TestFlowSimErr []float64    `json:"test_flowsim_mean_abs_p99_err"`
	TestModelErr   []float64    `json:"test_model_mean_abs_p99_err"`
	Thin1FlowSim   []float64    `json:"test_thin1_flowsim_mean_abs_p99_err"`
	Thin1Model     []float64    `json:"test_thin1_model_mean_abs_p99_err"`
	TestByCC       []CCError    `json:"test_by_cc,omitempty"`
	TestByBuffer   []CCError    `json:"test_by_buffer,omitempty"`
	// TestNetworks is the held-out networks' (a network data set's
	// scenarios with index % 10 == 9) mean |p99 error| over all flows per
	// congestion control, of their drawn paths pooled as m3 pools them
	// (m3.Group.Pool), flowSim's and the model's; Rows counts networks.
	TestNetworks []CCError         `json:"test_networks,omitempty"`
	TrainSeconds float64           `json:"train_seconds"`
	Commands     map[string]string `json:"commands"`
}

// Train loads the data set cfg.Data (m3.LoadData, split by task index),
// trains a model on it, saves the model to cfg.Model and its provenance
// (data set, commits, training, held-out errors, commands) to
// cfg.Model+".json", and returns the model with its held-out ablations.
func Train(cfg TrainConfig) (*m3.Model, []Ablation, error) {
	log := cfg.Log
	if log == nil {
		log = io.Discard
	}
	seed := cfg.Options.Seed
	t0 := time.Now()
	ds, manifests, err := LoadData(cfg.Data, LoadOptions{Seed: seed, NetworkPaths: cfg.NetworkPaths, NetworkPooled: cfg.NetworkPooled,
		WindowCap: cfg.WindowCap, Progress: cfg.Options.Progress})
	if err != nil {
		return nil, nil, err
	}
	dirs := strings.Split(cfg.Data, ",")
	var gendata []string
	for i, m := range manifests {
		gendata = append(gendata, m.command(dirs[i]))
	}
	manifest := manifests[0]
	fmt.Fprintf(log, "m3 train: %d tasks and scenarios (%d flows): %d training, %d validation samples (with thinned copies), %d test; %d, %d, %d networks pooled; loaded in %.1f s\n",
		ds.Tasks, ds.Flows, len(ds.Train), len(ds.Val), len(ds.Test), len(ds.TrainGroups), len(ds.ValGroups), len(ds.TestGroups), time.Since(t0).Seconds())
	t1 := time.Now()
	o := cfg.Options
	o.Groups, o.ValGroups = ds.TrainGroups, ds.ValGroups
	model, err := m3.Train(ds.Train, ds.Val, o)
	if err != nil {
		return nil, nil, err
	}
	trainSec := time.Since(t1).Seconds()
	model.Info.Notes = "ensemble of MLP corrections of flowSim; see lib/m3 and the provenance file"
	if model.Info.Encoder != "" {
		model.Info.Notes = "ensemble of MLP corrections of flowSim over a learned per-hop background encoder (m3's background context); see lib/m3 and the provenance file"
	}
	if err := model.Save(cfg.Model); err != nil {
		return nil, nil, err
	}
	abls, err := Ablations(model, ds.Test, seed)
	if err != nil {
		return nil, nil, err
	}
	p := Provenance{
		Model: filepath.Base(cfg.Model), GitCommit: gitCommit(), Data: cfg.Data,
		DataTasks: ds.Tasks, DataFlows: ds.Flows, DataSeed: manifest.Seed, DataCommit: manifest.GitCommit, TrainSeed: seed,
		Split: "task index % 10: 9 test, 8 validation, else training", Info: model.Info, TrainSeconds: trainSec,
		TestBuckets: abls[0].Buckets, TestRows: abls[0].Rows, TestFlowSimErr: abls[0].FlowSimErr, TestModelErr: abls[0].ModErr,
		Thin1FlowSim: abls[1].FlowSimErr, Thin1Model: abls[1].ModErr,
		Commands: map[string]string{
			"gendata": strings.Join(gendata, "; "),
			"train":   cfg.Command,
		},
	}
	if len(manifests) > 1 {
		p.DataSets = manifests
	}
	if p.TestByCC, err = by(abls[0].Table, "cc"); err != nil {
		return nil, nil, err
	}
	if p.TestByBuffer, err = by(abls[0].Table, "buffer"); err != nil {
		return nil, nil, err
	}
	for _, e := range append(p.TestByCC, p.TestByBuffer...) {
		fmt.Fprintf(log, "held out %-12s bucket %-9s rows %4d: flowSim mean |p99 err| %.1f%%, model %.1f%%\n", e.CC+e.Buffer, e.Bucket, e.Rows, 100*e.FlowSimErr, 100*e.ModelErr)
	}
	if p.TestNetworks, err = networkErrors(model, ds.TestGroups); err != nil {
		return nil, nil, err
	}
	for _, e := range p.TestNetworks {
		name := e.CC
		if e.Data != "" {
			name += " of " + e.Data
		}
		fmt.Fprintf(log, "held-out networks %-12s %3d: flowSim mean |p99 err| %.1f%%, model %.1f%%\n", name, e.Rows, 100*e.FlowSimErr, 100*e.ModelErr)
	}
	return model, abls, writeJSON(cfg.Model+".json", p)
}

// LoadOptions say how LoadData turns data directories into samples.
type LoadOptions struct {
	Seed uint64 // thinning of task samples (m3.LoadData)
	// NetworkPaths is the number of paths drawn per scenario of a
	// network data set (NetworkSpace; DefaultNetworkPaths if 0), and
	// NetworkPooled makes each scenario one group (m3.Group) instead of
	// samples that learn their own flows.
	NetworkPaths  int
	NetworkPooled bool
	// WindowCap gives every sample the window-capped flowSim base
	// (flowsim.Options.WindowCap).
	WindowCap bool
	Progress  progress.Reporter // gets each scenario of a network data set
}

// LoadData loads the data directories named in data (comma-separated,
// each from Gendata) as one data set, with their manifests: task frames by
// m3.LoadData, network data sets (NetworkSpace) as samples or groups
// (loadNetwork).
func LoadData(data string, o LoadOptions) (*m3.DataSet, []Manifest, error) {
	paths := o.NetworkPaths
	if paths == 0 {
		paths = DefaultNetworkPaths
	}
	if paths < 0 {
		return nil, nil, fmt.Errorf("m3study: %d paths per scenario: want a positive number", paths)
	}
	dirs := strings.Split(data, ",")
	var manifests []Manifest
	var taskDirs []string
	for _, dir := range dirs {
		m, err := ReadManifest(dir)
		if err != nil {
			return nil, nil, fmt.Errorf("m3study: %w (the data directory must come from 'tailscope m3 gendata')", err)
		}
		manifests = append(manifests, m)
		if !IsNetworkSpace(m.Space) {
			taskDirs = append(taskDirs, dir)
		}
	}
	ds := &m3.DataSet{}
	if len(taskDirs) > 0 {
		var err error
		if ds, err = m3.LoadData(taskDirs, o.Seed, o.WindowCap); err != nil {
			return nil, nil, err
		}
	}
	for i, dir := range dirs {
		if IsNetworkSpace(manifests[i].Space) {
			if err := loadNetwork(context.Background(), ds, dir, manifests[i], paths, o); err != nil {
				return nil, nil, err
			}
		}
	}
	return ds, manifests, nil
}

// networkErrors is the mean |p99 error| over all flows of groups pooled
// with flowSim alone and with model, per congestion control and over all
// ("all"), in CC order, then, if the groups come from several data sets,
// over all of each data set's (m3.Group.Data).
func networkErrors(model *m3.Model, groups []*m3.Group) ([]CCError, error) {
	type key struct{ cc, data string }
	by := map[key]*CCError{}
	sets := map[string]bool{}
	for _, g := range groups {
		sets[g.Data] = true
	}
	for _, g := range groups {
		fs, err := g.Pool(nil)
		if err != nil {
			return nil, err
		}
		mo, err := g.Pool(model)
		if err != nil {
			return nil, err
		}
		truth := g.Overall[m3.NumPercentiles-2]
		keys := []key{{cc: g.Samples[0].Network.CC}, {cc: "all"}}
		if len(sets) > 1 {
			keys = append(keys, key{cc: "all", data: g.Data})
		}
		for _, k := range keys {
			e := by[k]
			if e == nil {
				e = &CCError{CC: k.cc, Data: k.data, Bucket: "all"}
				by[k] = e
			}
			e.Rows++
			e.FlowSimErr += math.Abs(metrics.P99Error(fs.Overall[m3.NumPercentiles-2], truth))
			e.ModelErr += math.Abs(metrics.P99Error(mo.Overall[m3.NumPercentiles-2], truth))
		}
	}
	keys := slices.SortedFunc(maps.Keys(by), func(a, b key) int {
		return cmp.Or(strings.Compare(a.data, b.data), strings.Compare(a.cc, b.cc))
	})
	var out []CCError
	for _, k := range keys {
		e := *by[k]
		e.FlowSimErr /= float64(e.Rows)
		e.ModelErr /= float64(e.Rows)
		out = append(out, e)
	}
	return out, nil
}

// by is the held-out ablation t per congestion control (column "cc") or
// buffer kind ("buffer") and size bucket (m3.AblationBy).
func by(t *frame.Table, column string) ([]CCError, error) {
	g, err := m3.AblationBy(t, column)
	if err != nil {
		return nil, err
	}
	keys, _ := g.Strings(column)
	bks, _ := g.Strings("bucket")
	rows, _ := g.Int64s("rows")
	fe, _ := g.Float64s("flowsim_mean_abs_err")
	me, err := g.Float64s("model_mean_abs_err")
	if err != nil {
		return nil, err
	}
	out := make([]CCError, len(keys))
	for i := range keys {
		out[i] = CCError{Bucket: bks[i], Rows: rows[i], FlowSimErr: fe[i], ModelErr: me[i]}
		if column == "cc" {
			out[i].CC = keys[i]
		} else {
			out[i].Buffer = keys[i]
		}
	}
	return out, nil
}

// command is the gendata command line that makes the data set of m in
// dir.
func (m Manifest) command(dir string) string {
	c := fmt.Sprintf("tailscope m3 gendata -out %s -seed %d -tasks %d -flows %d", dir, m.Seed, m.Tasks, m.Flows)
	if m.Space != "" {
		c += " -space " + m.Space
	}
	if l := m.LowShare; l != nil {
		c += fmt.Sprintf(" -min-share %g -max-share %g -fg-flows %d -max-flows %d -inner-weight %d", l.MinShare, l.MaxShare, l.FGFlows, l.MaxFlows, l.InnerWeight)
	}
	return c
}
