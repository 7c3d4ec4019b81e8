package m3

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
)

// TaskKind is the task kind of lib/experiment that simulates one training
// task (options: TaskDraw). A data directory holds the task frames under
// <dir>/TaskKind/, one per task, as a sweep of such tasks writes them, so
// that generating a data set resumes, spreads over Slurm arrays and is
// interrupted like every other long run.
const TaskKind = "m3-task"

// GenOptions describe a training data set: tasks 0..Tasks-1 drawn by
// RandomTaskIn(Space, Seed, i, Flows), redrawn by LowShare if set.
type GenOptions struct {
	Tasks, Flows int
	Seed         uint64
	// Space is the configuration space (Spaces; "" is "dctcp").
	Space string
	// LowShare, when not nil, gives the tasks the foreground shares of
	// a fabric path's (nil: RandomTask's 20-50%).
	LowShare *LowShare
}

// LowShare redraws a task's foreground share, flows and inner-segment
// weight so that the data set holds paths like a fabric's, whose
// foreground is a ten-thousandth of their flows or less, where
// RandomTask's is a fifth to a half. The share is log-uniform in
// [MinShare, MaxShare]; the task gets FGFlows/share flows, at least the
// draw's Flows and at most MaxFlows, so that its foreground still has
// enough flows for packet-level percentiles (MinTargetFlows per output
// bucket); and with InnerWeight above 1, every other task draws its
// Task.InnerWeight uniformly from 2..InnerWeight, putting the contention
// on the fabric links. The draw has a stream of its own, so the rest of
// the task is RandomTaskIn's.
type LowShare struct {
	MinShare    float64 `json:"min_share"`
	MaxShare    float64 `json:"max_share"`
	FGFlows     int     `json:"fg_flows"`
	MaxFlows    int     `json:"max_flows"`
	InnerWeight int     `json:"inner_weight,omitempty"`
}

// check refuses a LowShare that draws no task.
func (l *LowShare) check() error {
	switch {
	case !(l.MinShare > 0 && l.MinShare <= l.MaxShare && l.MaxShare < 1):
		return fmt.Errorf("m3: low-share draw: want 0 < min share %g <= max share %g < 1", l.MinShare, l.MaxShare)
	case l.FGFlows <= 0 || l.MaxFlows <= 0:
		return fmt.Errorf("m3: low-share draw: want positive foreground flows (%d) and max flows (%d)", l.FGFlows, l.MaxFlows)
	case l.InnerWeight < 0:
		return fmt.Errorf("m3: low-share draw: inner weight %d must not be negative", l.InnerWeight)
	}
	return nil
}

// apply redraws task t (of index, drawn from seed) as l says.
func (l *LowShare) apply(t *Task, seed uint64, index int) {
	r := rand.New(rand.NewPCG(seed^0x6c6f77, uint64(index))) // "low"
	t.ForegroundShare = l.MinShare * math.Pow(l.MaxShare/l.MinShare, r.Float64())
	t.Flows = max(t.Flows, min(l.MaxFlows, int(math.Ceil(float64(l.FGFlows)/t.ForegroundShare))))
	if l.InnerWeight > 1 && r.IntN(2) == 0 {
		t.InnerWeight = 2 + r.IntN(l.InnerWeight-1)
	}
}

// TaskDraw names one training task: RandomTaskIn(Space, Seed, Index,
// Flows), redrawn by LowShare if set. It is the options of a TaskKind
// task, so its JSON names the task's frame; Space "" and "dctcp" are one
// space, and a draw without LowShare has the JSON it had before LowShare
// existed.
type TaskDraw struct {
	Space    string    `json:"space,omitempty"`
	Seed     uint64    `json:"seed"`
	Index    int       `json:"index"`
	Flows    int       `json:"flows"`
	LowShare *LowShare `json:"low_share,omitempty"`
}

// Canonical returns d with the default space written "", or an error if d
// draws no task.
func (d TaskDraw) Canonical() (TaskDraw, error) {
	if d.Space == "dctcp" {
		d.Space = ""
	}
	if d.Index < 0 || d.Flows <= 0 {
		return d, fmt.Errorf("m3: training task %d with %d flows: want an index >= 0 and flows > 0", d.Index, d.Flows)
	}
	_, err := d.Task()
	return d, err
}

// Task draws the task.
func (d TaskDraw) Task() (Task, error) {
	t, err := RandomTaskIn(d.Space, d.Seed, d.Index, d.Flows)
	if err != nil || d.LowShare == nil {
		return t, err
	}
	if err := d.LowShare.check(); err != nil {
		return Task{}, err
	}
	d.LowShare.apply(&t, d.Seed, d.Index)
	return t, nil
}

// Draws lists the data set's tasks, in index order.
func (o GenOptions) Draws() ([]TaskDraw, error) {
	if o.Tasks <= 0 || o.Flows <= 0 {
		return nil, fmt.Errorf("m3: gendata needs positive tasks and flows, got %d and %d", o.Tasks, o.Flows)
	}
	draws := make([]TaskDraw, o.Tasks)
	for i := range draws {
		d, err := TaskDraw{Space: o.Space, Seed: o.Seed, Index: i, Flows: o.Flows, LowShare: o.LowShare}.Canonical()
		if err != nil {
			return nil, err
		}
		draws[i] = d
	}
	return draws, nil
}

// TaskFrames lists the task frames of data directory dir (none if dir
// does not exist). Task frames of
// tailscope versions before TaskKind (<dir>/task-NNNNNN.parquet) are
// refused by name rather than silently left out.
func TaskFrames(dir string) ([]string, error) {
	old, err := filepath.Glob(filepath.Join(dir, "task-*.parquet"))
	if err != nil {
		return nil, err
	}
	if len(old) > 0 {
		return nil, fmt.Errorf("m3: %s holds %d task frames of an older tailscope (such as %s); task frames now live under %s as sweep results: generate the data set again into another directory (tailscope m3 gendata)",
			dir, len(old), filepath.Base(old[0]), filepath.Join(dir, TaskKind))
	}
	return filepath.Glob(filepath.Join(dir, TaskKind, "*.parquet"))
}
