package experiment

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// slurmSetupEnv, set to 1, lets TestSlurmSweep install and start a
// single-node Slurm with scripts/slurm/up.sh (needs root and apt).
const slurmSetupEnv = "TAILSCOPE_SLURM_SETUP"

// slurmUp reports whether a Slurm node takes jobs, starting one when
// allowed; otherwise it says why not.
func slurmUp(t *testing.T) (ok bool, why string) {
	ready := func() bool {
		if _, err := exec.LookPath("sbatch"); err != nil {
			return false
		}
		out, err := exec.Command("sinfo", "--noheader", "--format=%T").Output()
		s := string(out)
		return err == nil && (strings.Contains(s, "idle") || strings.Contains(s, "mixed") || strings.Contains(s, "allocated"))
	}
	if ready() {
		return true, ""
	}
	if os.Getenv(slurmSetupEnv) != "1" {
		return false, "no running Slurm (sbatch/sinfo); set " + slurmSetupEnv + "=1 to install and start one with scripts/slurm/up.sh"
	}
	up, err := filepath.Abs(filepath.Join("..", "..", "scripts", "slurm", "up.sh"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("bash", up).CombinedOutput()
	if err != nil {
		return false, "scripts/slurm/up.sh could not start Slurm here: " + err.Error() + "\n" + string(out)
	}
	if !ready() {
		return false, "scripts/slurm/up.sh ran but no node takes jobs:\n" + string(out)
	}
	return true, ""
}

// A small sweep through real Slurm job arrays gives the local executor's
// results, and a failing array element is reported with its log.
func TestSlurmSweep(t *testing.T) {
	if ok, why := slurmUp(t); !ok {
		if os.Getenv(slurmSetupEnv) == "1" {
			t.Fatal(why) // CI asked for Slurm: not getting it is a failure
		}
		t.Skip(why)
	}
	sp := DefaultSpace()
	sp.Flows = []int{300}
	specs, err := Sample(sp, 3, 5)
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := Tasks(specs, []string{"packetsim"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The test binary is the worker (TestMain runs "task run ..."); two
	// arrays of at most two elements exercise the splitting.
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	slurm := Slurm{Command: []string{exe}, MaxArray: 2, Poll: 200 * time.Millisecond, TimeLimit: 5 * time.Minute}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	t0 := time.Now()
	rep, err := Sweep(ctx, dir, tasks, slurm, nil)
	if err != nil {
		t.Fatal(err)
	}
	wall := time.Since(t0)
	if rep != (Report{Total: 3, Ran: 3}) {
		t.Errorf("slurm sweep: %+v", rep)
	}
	if left, err := os.ReadDir(filepath.Join(dir, "slurm")); err != nil || len(left) != 0 {
		t.Errorf("succeeded arrays left %d batch directories (%v)", len(left), err)
	}
	local := t.TempDir()
	t0 = time.Now()
	if _, err := Sweep(ctx, local, tasks, Local{}, nil); err != nil {
		t.Fatal(err)
	}
	t.Logf("3 tasks: slurm %v, local %v", wall.Round(time.Millisecond), time.Since(t0).Round(time.Millisecond))
	sameResults(t, tasks, dir, local)

	// Nothing is resubmitted once done; a bad task fails in its element
	// and its error names the element's log.
	bad := tasks[0]
	bad.Spec.Topology.Preset = "meta64"
	rep, err = Sweep(ctx, dir, append(tasks, bad), slurm, nil)
	if rep != (Report{Total: 4, Skipped: 3, Failed: 1}) {
		t.Errorf("second slurm sweep: %+v", rep)
	}
	if err == nil || !strings.Contains(err.Error(), `unknown fabric preset "meta64"`) {
		t.Fatalf("err = %v, want the element's error", err)
	}
	m := regexp.MustCompile(`\(log (\S+)\)`).FindStringSubmatch(err.Error())
	if m == nil {
		t.Fatalf("err = %v names no log", err)
	}
	if log, rerr := os.ReadFile(m[1]); rerr != nil || !strings.Contains(string(log), "meta64") {
		t.Errorf("the failed element's log %s: %q, %v", m[1], log, rerr)
	}
}
