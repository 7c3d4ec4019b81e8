package experiment

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tailscope/tailscope/lib/estimator"
	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/parsimon"
	"github.com/tailscope/tailscope/lib/progress"
)

// LinkTasks is the most tasks ParsimonLinks cuts a run's link-level
// simulations into (LinkBatches): a few per node of a cluster of dozens
// of nodes.
const LinkTasks = 256

// LinkTaskPackets is the least work, in packets of the simulated flows,
// ParsimonLinks gives a task (fewer tasks than LinkTasks when a run has
// less than LinkTasks times this): about 4 CPU seconds of the default
// backend. A task costs its worker about 0.1 CPU s besides its
// simulations (a process's start, the page faults of its fresh heap, its
// input and its result), and Slurm a few hundredths of a second and
// 0.2-0.3 s of wall time: at 20M packets this was 6% of the
// simulations' CPU.
const LinkTaskPackets = 40_000_000

// linkTasks is how many tasks ParsimonLinks makes of simulations of
// total packets: total / LinkTaskPackets, at least one, at most
// LinkTasks.
func linkTasks(total int64) int {
	return int(min(max((total+LinkTaskPackets-1)/LinkTaskPackets, 1), LinkTasks))
}

// LinkInputDir is the directory, beside the results of the
// KindParsimonLinks tasks (<dir>/parsimon-links), that holds their input
// files: <digest>.links, named by the SHA-256 of their bytes.
const LinkInputDir = "input"

// LoadTimer names, in the run log of a parsimon-links frame, the seconds
// its worker spent reading, checking and decoding the task's input file.
const LoadTimer = "load_s"

// linkInput is the content of a link-task input file: the link-level
// simulations of one task, each with exactly the flows and parameters it
// needs (parsimon.Task), and the backend that runs them.
type linkInput struct {
	Backend string
	Tasks   []parsimon.Task
}

// ParsimonLinksOptions are the options of a KindParsimonLinks task: the
// digest of its input file, which names it (content addressing: equal
// digests mean equal simulations, so a rerun finds the results it made).
type ParsimonLinksOptions struct {
	Input string `json:"input"` // SHA-256 of the input file, hex
}

// LinkBatches cuts link-level simulations, whose work (their flows'
// packets, parsimon.Links.Packets) is packets, into about tasks groups of
// similar work, each one task: simulations are taken in decreasing number
// of packets (the order of parsimon.RunTasks, largest first) and added to
// the current group until it holds at least 1/tasks of all packets. A
// simulation larger than that is a group of its own; the last group may
// be smaller. It returns the groups as indices into packets.
func LinkBatches(packets []int64, tasks int) [][]int {
	n := len(packets)
	order, cost := make([]int, n), packets
	var total int64
	for i := range order {
		order[i] = i
		total += cost[i]
	}
	sort.SliceStable(order, func(i, j int) bool { return cost[order[i]] > cost[order[j]] })
	target := (total + int64(max(tasks, 1)) - 1) / int64(max(tasks, 1))
	var groups [][]int
	var cur []int
	var sum int64
	for _, i := range order {
		cur, sum = append(cur, i), sum+cost[i]
		if sum >= target {
			groups, cur, sum = append(groups, cur), nil, 0
		}
	}
	if len(cur) > 0 {
		groups = append(groups, cur)
	}
	return groups
}

// ParsimonLinks returns a parsimon.LinkRunner that runs a Parsimon run's
// link-level simulations as tasks of kind KindParsimonLinks through exec,
// under dir. The simulations are grouped into tasks of at least
// LinkTaskPackets packets each, at most LinkTasks tasks (LinkBatches);
// each task's simulations, with exactly the flows and
// parameters they need, are written once to an input file named by its
// digest (LinkInputDir), so that a worker runs them without building the
// scenario or its decomposition. Results of tasks already done under dir
// are reused, so an interrupted run resumes with the simulations it had
// not finished; on Slurm every task is an array element. Input files are
// removed once the run has read every result.
func ParsimonLinks(dir string, exec Executor, p progress.Reporter) parsimon.LinkRunner {
	return parsimonLinks(dir, exec, p, linkTasks)
}

// parsimonLinks is ParsimonLinks cutting simulations of total packets
// into about ntasks(total) tasks.
func parsimonLinks(dir string, exec Executor, p progress.Reporter, ntasks func(total int64) int) parsimon.LinkRunner {
	return func(ctx context.Context, links parsimon.Links, done func(int, *parsimon.TaskResult) error) error {
		if links.Backend == "" {
			return errors.New("experiment: parsimon links: the run's link-level backend has no name, so other processes cannot run it; name it (parsimon.Options.BackendName) or run in process")
		}
		packets := make([]int64, len(links.Channels))
		var total int64
		for i := range packets {
			packets[i] = links.Packets(i)
			total += packets[i]
		}
		groups := LinkBatches(packets, ntasks(total))
		tasks := make([]Task, len(groups))
		inputs := make([]string, len(groups))
		for g, group := range groups {
			in := linkInput{Backend: links.Backend, Tasks: make([]parsimon.Task, len(group))}
			for j, i := range group {
				if err := ctx.Err(); err != nil {
					return fmt.Errorf("experiment: parsimon links: interrupted: %w", err)
				}
				t, err := links.Task(i)
				if err != nil {
					return err
				}
				in.Tasks[j] = *t
			}
			digest, err := writeLinkInput(filepath.Join(dir, KindParsimonLinks, LinkInputDir), &in)
			if err != nil {
				return err
			}
			b, err := json.Marshal(ParsimonLinksOptions{Input: digest})
			if err != nil {
				return err
			}
			tasks[g] = Task{Kind: KindParsimonLinks, Options: string(b)}
			inputs[g] = filepath.Join(dir, KindParsimonLinks, LinkInputDir, digest+linkInputExt)
		}
		if _, err := Sweep(ctx, dir, tasks, exec, p); err != nil {
			return err
		}
		for g, t := range tasks {
			path, err := t.ResultPath(dir)
			if err != nil {
				return err
			}
			res, err := readLinkResults(path, links, groups[g])
			if err != nil {
				return err
			}
			for j, i := range groups[g] {
				if err := done(i, res[j]); err != nil {
					return fmt.Errorf("experiment: %s: %w", path, err)
				}
			}
		}
		for _, in := range inputs {
			if err := os.Remove(in); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("experiment: parsimon links: %w", err)
			}
		}
		return nil
	}
}

// writeLinkInput encodes in (encodeLinkInput) and writes it to dir as
// <digest>.links (a temporary file renamed into place, unless a file of
// that name is there already: same name, same bytes), and returns the
// digest. The encoding is deterministic, so a rerun of a run finds its
// tasks' keys again.
func writeLinkInput(dir string, in *linkInput) (string, error) {
	buf, err := encodeLinkInput(in)
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(buf)
	digest := hex.EncodeToString(h[:])
	path := filepath.Join(dir, digest+linkInputExt)
	if _, err := os.Stat(path); err == nil {
		return digest, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("experiment: %w", err)
	}
	f, err := os.CreateTemp(dir, "."+digest+".tmp*")
	if err != nil {
		return "", fmt.Errorf("experiment: %w", err)
	}
	_, err = f.Write(buf)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("experiment: parsimon link input: %w", err)
	}
	return digest, nil
}

// readLinkInput reads the input file of digest under dir, checks that
// its bytes are the ones named and returns it with its size in bytes.
func readLinkInput(dir, digest string) (*linkInput, int, error) {
	path := filepath.Join(dir, digest+linkInputExt)
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, fmt.Errorf("parsimon-links: input file: %w (a link task reads the file its sweep wrote beside its result; is the directory shared with this node?)", err)
	}
	if h := sha256.Sum256(raw); hex.EncodeToString(h[:]) != digest {
		return nil, 0, fmt.Errorf("parsimon-links: input file %s: its SHA-256 is %x, not the %s it is named by (damaged or truncated)", path, h, digest)
	}
	in, err := decodeLinkInput(raw)
	if err != nil {
		return nil, 0, fmt.Errorf("parsimon-links: input file %s: %w", path, err)
	}
	return in, len(raw), nil
}

func parsimonLinksOptions(opts string) (string, error) {
	o, err := readLinksOptions(opts)
	return canonical(o, err)
}

func readLinksOptions(opts string) (ParsimonLinksOptions, error) {
	var o ParsimonLinksOptions
	if err := estimator.DecodeOptions(opts, &o); err != nil {
		return o, err
	}
	if b, err := hex.DecodeString(o.Input); err != nil || len(b) != sha256.Size {
		return o, fmt.Errorf("parsimon-links: input %q is not a SHA-256 digest (64 hex digits)", o.Input)
	}
	return o, nil
}

// Extra keys of a parsimon-links frame: the channels simulated, in task
// order, and how many of the frame's records (consecutive, in that order)
// each holds, both comma-separated.
const (
	extraChannels = "channels"
	extraFlows    = "channel_flows"
)

// ExtraInputBytes is the Extra key of a parsimon-links frame that holds
// the size of the task's input file in bytes: what a worker node had to
// read to run it.
const ExtraInputBytes = "input_bytes"

// linkSimTimer names one channel's simulation time in a parsimon-links
// frame's run log.
func linkSimTimer(channel int) string { return LinkSimTimer + "." + strconv.Itoa(channel) }

// ColDelayNs is the column of a parsimon-links frame that holds each
// flow's delay at the simulated channel in nanoseconds,
// parsimon.TaskResult.Delays.
const ColDelayNs = "delay_ns"

// runParsimonLinks runs the link simulations of a KindParsimonLinks task,
// read from its input file beside path, one after the other, and writes
// each flow's delay at its channel (parsimon.TaskResult.Delays) to path,
// simulation by simulation: one integer column, ColDelayNs. The flows'
// IDs and sizes are the input's, which the submitting process has, so
// they are not written again (writing them was two thirds of what the
// result cost a worker).
func runParsimonLinks(ctx context.Context, opts, path string) error {
	o, err := readLinksOptions(opts)
	if err != nil {
		return err
	}
	t0 := time.Now()
	in, size, err := readLinkInput(filepath.Join(filepath.Dir(path), LinkInputDir), o.Input)
	if err != nil {
		return err
	}
	backend, err := parsimon.BackendByName(in.Backend)
	if err != nil {
		return fmt.Errorf("parsimon-links: input %s: %w", o.Input, err)
	}
	timings := map[string]float64{LoadTimer: time.Since(t0).Seconds()}
	n := 0
	for i := range in.Tasks {
		n += len(in.Tasks[i].Flows)
	}
	delays := make([]int64, 0, n)
	channels, flows := make([]string, len(in.Tasks)), make([]string, len(in.Tasks))
	var total float64
	for i := range in.Tasks {
		t := &in.Tasks[i]
		r, err := parsimon.RunTask(ctx, t, backend)
		if err != nil {
			return err
		}
		timings[linkSimTimer(t.Channel)], total = r.WallSeconds, total+r.WallSeconds
		delays = append(delays, r.Delays...)
		channels[i], flows[i] = strconv.Itoa(t.Channel), strconv.Itoa(len(r.Delays))
		in.Tasks[i].Flows = nil // done with: the heap holds the rest only
	}
	timings[LinkSimTimer] = total
	return frame.WriteTable(path, &frame.Table{
		Meta: frame.Meta{
			Estimator: KindParsimonLinks,
			Options:   opts,
			Extra: map[string]string{
				extraChannels: strings.Join(channels, ","), extraFlows: strings.Join(flows, ","),
				ExtraInputBytes: strconv.Itoa(size),
			},
			Timings: timings,
		},
		Columns: []frame.Column{frame.Int64Column(ColDelayNs, delays)},
	})
}

// readLinkResults reads the parsimon-links frame at path as one result
// per channel, in task order, with each flow's ID and size from links
// (the flows crossing the channel, in the order of its task's input).
func readLinkResults(path string, links parsimon.Links, group []int) ([]*parsimon.TaskResult, error) {
	t, err := frame.ReadTable(path)
	if err != nil {
		return nil, fmt.Errorf("experiment: parsimon links: %w", err)
	}
	delays, err := t.Int64s(ColDelayNs)
	if err != nil {
		return nil, fmt.Errorf("experiment: %s: %w", path, err)
	}
	meta := t.Meta
	chs, ns := strings.Split(meta.Extra[extraChannels], ","), strings.Split(meta.Extra[extraFlows], ",")
	if len(chs) != len(ns) || meta.Extra[extraChannels] == "" {
		return nil, fmt.Errorf("experiment: %s: metadata names %d channels and %d flow counts", path, len(chs), len(ns))
	}
	if len(chs) != len(group) {
		return nil, fmt.Errorf("experiment: %s holds %d link simulations; its task has %d", path, len(chs), len(group))
	}
	out := make([]*parsimon.TaskResult, len(chs))
	at := 0
	for i := range chs {
		c, err1 := strconv.Atoi(chs[i])
		n, err2 := strconv.Atoi(ns[i])
		if err := errors.Join(err1, err2); err != nil || n < 0 || at+n > len(delays) {
			return nil, fmt.Errorf("experiment: %s: channel %q with %q results of %d: bad metadata", path, chs[i], ns[i], len(delays))
		}
		on := links.D.On(links.Channels[group[i]])
		if c != links.Channels[group[i]] || n != len(on) {
			return nil, fmt.Errorf("experiment: %s: simulation %d is of channel %d with %d flows; its task's is of channel %d with %d", path, i, c, n, links.Channels[group[i]], len(on))
		}
		wall, ok := meta.Timings[linkSimTimer(c)]
		if !ok {
			return nil, fmt.Errorf("experiment: %s: no simulation time of channel %d in its run log %s", path, c, frame.RunLogPath(path))
		}
		r := &parsimon.TaskResult{Channel: c, FlowIDs: make([]int, n), Sizes: make([]int64, n), Delays: delays[at : at+n : at+n], WallSeconds: wall}
		for j, fi := range on {
			f := &links.D.Flows[fi]
			r.FlowIDs[j], r.Sizes[j] = f.ID, f.Size
		}
		out[i] = r
		at += n
	}
	if at != len(delays) {
		return nil, fmt.Errorf("experiment: %s holds %d results; its channels account for %d", path, len(delays), at)
	}
	return out, nil
}
