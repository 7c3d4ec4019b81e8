package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/m3"
	"github.com/tailscope/tailscope/lib/plot"
	"github.com/tailscope/tailscope/lib/progress"
)

func init() {
	register("m3", "m3 estimator: 'm3 gendata' simulates training parking lots, 'm3 train' fits the model", runM3)
}

func runM3(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: tailscope m3 gendata|train [flags]")
	}
	switch args[0] {
	case "gendata":
		return runM3Gendata(args[1:])
	case "train":
		return runM3Train(args[1:])
	}
	return fmt.Errorf("unknown m3 subcommand %q (known: gendata, train)", args[0])
}

// envInt reads an integer environment variable (Slurm's array variables),
// def when unset.
func envInt(name string, def int) (int, error) {
	v := os.Getenv(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("%s=%q is not an integer", name, v)
	}
	return n, nil
}

func runM3Gendata(args []string) error {
	fs := flag.NewFlagSet("m3 gendata", flag.ContinueOnError)
	out := fs.String("out", "out/m3data", "directory of task frames (one per task; existing ones are skipped)")
	tasks := intFlag(fs, "tasks", 1000, 1, math.MaxInt, "number of tasks in the data set")
	flows := intFlag(fs, "flows", 4000, 1, math.MaxInt, "flows per parking lot (foreground and background)")
	seed := fs.Uint64("seed", 1, "data-set seed; task i depends only on (seed, i)")
	space := fs.String("space", "dctcp", "configuration space: dctcp (the papers' DCTCP, infinite buffers) or table4 (m3 Table 4's CCs, windows, buffers, and stock ns-3's window DCTCP)")
	workers := intFlag(fs, "workers", runtime.NumCPU(), 1, math.MaxInt, "tasks run in parallel")
	shard := intFlag(fs, "shard", -1, -1, math.MaxInt, "run only tasks with index % shards == shard (default $SLURM_ARRAY_TASK_ID or 0)")
	shards := intFlag(fs, "shards", -1, -1, math.MaxInt, "number of shards (default $SLURM_ARRAY_TASK_COUNT or 1)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var err error
	if *shard < 0 {
		if *shard, err = envInt("SLURM_ARRAY_TASK_ID", 0); err != nil {
			return err
		}
	}
	if *shards < 0 {
		if *shards, err = envInt("SLURM_ARRAY_TASK_COUNT", 1); err != nil {
			return err
		}
	}
	if err := mkdirOut(*out); err != nil {
		return err
	}
	if *space == "dctcp" {
		*space = "" // the manifests of data sets made before spaces existed
	}
	if err := writeManifest(*out, dataManifest{Tasks: *tasks, Flows: *flows, Seed: *seed, Space: *space, GitCommit: gitCommit()}); err != nil {
		return err
	}
	t0 := time.Now()
	n, err := m3.GenerateData(*out, m3.GenOptions{Tasks: *tasks, Flows: *flows, Seed: *seed, Space: *space, Workers: *workers,
		Shard: *shard, Shards: *shards, Progress: progress.NewLine(os.Stderr, "m3 gendata")})
	fmt.Fprintf(os.Stderr, "m3 gendata: %d tasks simulated in %.1f s into %s\n", n, time.Since(t0).Seconds(), *out)
	return err
}

// spaceFlag is the gendata flag that names space ("" for the default).
func spaceFlag(space string) string {
	if space == "" {
		return ""
	}
	return " -space " + space
}

// dataManifest is <data dir>/gendata.json: what 'm3 gendata' was asked
// for and the commit that simulated it, for the model's provenance.
type dataManifest struct {
	Tasks     int    `json:"tasks"`
	Flows     int    `json:"flows"`
	Seed      uint64 `json:"seed"`
	Space     string `json:"space,omitempty"` // m3.Spaces; empty: dctcp
	GitCommit string `json:"git_commit"`
}

const manifestFile = "gendata.json"

// writeManifest records m in dir, refusing to mix data sets: tasks of
// another seed or flow count would silently differ from their index's.
func writeManifest(dir string, m dataManifest) error {
	path := filepath.Join(dir, manifestFile)
	if old, err := readManifest(dir); err == nil {
		if old.Seed != m.Seed || old.Flows != m.Flows || old.Space != m.Space {
			return fmt.Errorf("m3 gendata: %s holds seed %d with %d flows per task in space %q; asked for seed %d with %d in %q (use another -out)",
				dir, old.Seed, old.Flows, old.Space, m.Seed, m.Flows, m.Space)
		}
		m.Tasks = max(m.Tasks, old.Tasks)
		if old.GitCommit != "" {
			m.GitCommit = old.GitCommit // the commit that started the data set
		}
	} else if !os.IsNotExist(err) {
		return err
	}
	js, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(js, '\n'), 0o644)
}

func readManifest(dir string) (dataManifest, error) {
	var m dataManifest
	b, err := os.ReadFile(filepath.Join(dir, manifestFile))
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("%s: %w", filepath.Join(dir, manifestFile), err)
	}
	return m, nil
}

// gitCommit is the checked-out commit, "" outside a git work tree.
func gitCommit() string {
	out, _ := exec.Command("git", "rev-parse", "HEAD").Output()
	return strings.TrimSpace(string(out))
}

// ccError is one congestion control's held-out error in one bucket.
type ccError struct {
	CC         string  `json:"cc"`
	Bucket     string  `json:"bucket"`
	Rows       int64   `json:"rows"`
	FlowSimErr float64 `json:"flowsim_mean_abs_p99_err"`
	ModelErr   float64 `json:"model_mean_abs_p99_err"`
}

// provenance is the record written next to a trained model.
type provenance struct {
	Model          string            `json:"model"`
	GitCommit      string            `json:"git_commit"`
	Data           string            `json:"data"`
	DataTasks      int               `json:"data_tasks"`
	DataFlows      int               `json:"data_flows"`
	DataSeed       uint64            `json:"data_seed"`
	DataCommit     string            `json:"data_git_commit"`
	TrainSeed      uint64            `json:"train_seed"`
	Split          string            `json:"split"`
	Info           m3.ModelInfo      `json:"training"`
	TestBuckets    []string          `json:"test_buckets"`
	TestRows       []int             `json:"test_rows"`
	TestFlowSimErr []float64         `json:"test_flowsim_mean_abs_p99_err"`
	TestModelErr   []float64         `json:"test_model_mean_abs_p99_err"`
	Thin1FlowSim   []float64         `json:"test_thin1_flowsim_mean_abs_p99_err"`
	Thin1Model     []float64         `json:"test_thin1_model_mean_abs_p99_err"`
	TestByCC       []ccError         `json:"test_by_cc,omitempty"`
	TrainSeconds   float64           `json:"train_seconds"`
	Commands       map[string]string `json:"commands"`
}

func runM3Train(args []string) error {
	fs := flag.NewFlagSet("m3 train", flag.ContinueOnError)
	data := fs.String("data", "out/m3data", "directory of task frames from 'm3 gendata'")
	out := fs.String("out", "datasets/models/m3.model", "model file to write; provenance goes to <out>.json")
	report := fs.String("report", "out/m3eval", "directory for the held-out ablation frames and figure")
	seed := fs.Uint64("seed", 1, "training seed (initialisation, shuffling, thinning)")
	epochs := intFlag(fs, "epochs", 60, 1, math.MaxInt, "training epochs (the best validation epoch is kept)")
	hidden := fs.String("hidden", "96,96", "hidden layer widths")
	members := intFlag(fs, "members", 3, 1, 64, "ensemble members (trained in parallel, corrections averaged)")
	lr := floatFlag(fs, "lr", 1e-3, positive, "Adam step size at the start (cosine decay to a tenth)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var widths []int
	for _, w := range strings.Split(*hidden, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(w))
		if err != nil || n < 1 || n > 1<<16 {
			return fmt.Errorf("bad -hidden %q: want widths from 1 to 65536", *hidden)
		}
		widths = append(widths, n)
	}
	manifest, err := readManifest(*data)
	if err != nil {
		return fmt.Errorf("m3 train: %w (the data directory must come from 'tailscope m3 gendata')", err)
	}
	t0 := time.Now()
	ds, err := m3.LoadData(*data, *seed)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "m3 train: %d tasks (%d flows): %d training, %d validation samples (with thinned copies), %d test; loaded in %.1f s\n",
		ds.Tasks, ds.Flows, len(ds.Train), len(ds.Val), len(ds.Test), time.Since(t0).Seconds())
	t1 := time.Now()
	model, err := m3.Train(ds.Train, ds.Val, m3.TrainOptions{Hidden: widths, Members: *members, Epochs: *epochs, LR: *lr, Seed: *seed, Progress: progress.NewLine(os.Stderr, "m3 train")})
	if err != nil {
		return err
	}
	trainSec := time.Since(t1).Seconds()
	model.Info.Notes = "ensemble of MLP corrections of flowSim; see lib/m3 and the provenance file"
	if err := mkdirOut(filepath.Dir(*out)); err != nil {
		return err
	}
	if err := model.Save(*out); err != nil {
		return err
	}
	if err := mkdirOut(*report); err != nil {
		return err
	}
	p := provenance{
		Model: filepath.Base(*out), GitCommit: gitCommit(), Data: *data,
		DataTasks: ds.Tasks, DataFlows: ds.Flows, DataSeed: manifest.Seed, DataCommit: manifest.GitCommit, TrainSeed: *seed,
		Split: "task index % 10: 9 test, 8 validation, else training", Info: model.Info, TrainSeconds: trainSec,
		Commands: map[string]string{
			"gendata": fmt.Sprintf("tailscope m3 gendata -out %s -seed %d -tasks %d -flows %d%s", *data, manifest.Seed, ds.Tasks, manifest.Flows, spaceFlag(manifest.Space)),
			"train":   "tailscope m3 train " + strings.Join(args, " "),
		},
	}
	for _, thin := range []int{0, 1} {
		t := m3.Ablation(model, ds.Test, thin, *seed)
		t.Meta = frame.Meta{Estimator: "m3", Seed: *seed, Extra: map[string]string{"thin": strconv.Itoa(thin)}}
		name := filepath.Join(*report, fmt.Sprintf("ablation-thin%d", thin))
		if err := frame.WriteTable(name+".parquet", t); err != nil {
			return err
		}
		title := "held-out parking lots: flowSim vs model (m3 Fig. 16)"
		if thin > 0 {
			title = fmt.Sprintf("held-out parking lots, foreground thinned to %d flow", thin)
		}
		labels, fs, mo, _, err := m3.AblationSummary(t)
		if err != nil {
			return err
		}
		fig, err := plot.Ablation(labels, fs, mo, title)
		if err != nil {
			return err
		}
		if err := plot.Save(fig, name+".png"); err != nil {
			return err
		}
		labels, fsErr, moErr, n, err := m3.AblationSummary(t)
		if err != nil {
			return err
		}
		if thin == 0 {
			p.TestBuckets, p.TestRows, p.TestFlowSimErr, p.TestModelErr = labels, n, fsErr, moErr
			// Fig. 16 per congestion control.
			byCC, err := m3.AblationByCC(t)
			if err != nil {
				return err
			}
			if err := frame.WriteTable(filepath.Join(*report, "ablation-by-cc.parquet"), byCC); err != nil {
				return err
			}
			ccs, _ := byCC.Strings("cc")
			bks, _ := byCC.Strings("bucket")
			rows, _ := byCC.Int64s("rows")
			fe, _ := byCC.Float64s("flowsim_mean_abs_err")
			me, _ := byCC.Float64s("model_mean_abs_err")
			for i := range ccs {
				p.TestByCC = append(p.TestByCC, ccError{CC: ccs[i], Bucket: bks[i], Rows: rows[i], FlowSimErr: fe[i], ModelErr: me[i]})
				fmt.Fprintf(os.Stderr, "held out %-12s bucket %-9s rows %4d: flowSim mean |p99 err| %.1f%%, model %.1f%%\n", ccs[i], bks[i], rows[i], 100*fe[i], 100*me[i])
			}
		} else {
			p.Thin1FlowSim, p.Thin1Model = fsErr, moErr
		}
		for b, l := range labels {
			fmt.Fprintf(os.Stderr, "thin %d bucket %-9s rows %4d: flowSim mean |p99 err| %.1f%%, model %.1f%%\n", thin, l, n[b], 100*fsErr[b], 100*moErr[b])
		}
	}
	js, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(*out+".json", append(js, '\n'), 0o644)
}
