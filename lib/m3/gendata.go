package m3

import (
	"fmt"
	"path/filepath"
)

// TaskKind is the task kind of lib/experiment that simulates one training
// task (options: TaskDraw). A data directory holds the task frames under
// <dir>/TaskKind/, one per task, as a sweep of such tasks writes them, so
// that generating a data set resumes, spreads over Slurm arrays and is
// interrupted like every other long run.
const TaskKind = "m3-task"

// GenOptions describe a training data set: tasks 0..Tasks-1 drawn by
// RandomTaskIn(Space, Seed, i, Flows).
type GenOptions struct {
	Tasks, Flows int
	Seed         uint64
	// Space is the configuration space (Spaces; "" is "dctcp").
	Space string
}

// TaskDraw names one training task: RandomTaskIn(Space, Seed, Index,
// Flows). It is the options of a TaskKind task, so its JSON names the
// task's frame; Space "" and "dctcp" are one space.
type TaskDraw struct {
	Space string `json:"space,omitempty"`
	Seed  uint64 `json:"seed"`
	Index int    `json:"index"`
	Flows int    `json:"flows"`
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
func (d TaskDraw) Task() (Task, error) { return RandomTaskIn(d.Space, d.Seed, d.Index, d.Flows) }

// Draws lists the data set's tasks, in index order.
func (o GenOptions) Draws() ([]TaskDraw, error) {
	if o.Tasks <= 0 || o.Flows <= 0 {
		return nil, fmt.Errorf("m3: gendata needs positive tasks and flows, got %d and %d", o.Tasks, o.Flows)
	}
	draws := make([]TaskDraw, o.Tasks)
	for i := range draws {
		d, err := TaskDraw{Space: o.Space, Seed: o.Seed, Index: i, Flows: o.Flows}.Canonical()
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
