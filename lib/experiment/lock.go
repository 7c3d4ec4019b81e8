package experiment

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// ErrElsewhere is wrapped by the error of a task that another live
// process is running: its lock file (<result>.lock) is held, so this
// process skipped it. Such a task is not failed, and not done either.
var ErrElsewhere = errors.New("running in another process")

// holder is who holds a task's lock: a process on a host.
type holder struct {
	pid  int
	host string
}

func (h holder) String() string { return fmt.Sprintf("pid %d on %s", h.pid, h.host) }

// me is this process as a lock holder.
func me() (holder, error) {
	host, err := os.Hostname()
	if err != nil {
		return holder{}, fmt.Errorf("task lock: %w", err)
	}
	return holder{os.Getpid(), host}, nil
}

// lockTask takes the lock of the task whose result goes to path: it
// creates path+".lock" exclusively (create), holding this process's pid
// and host. A lock of a process
// that is gone from this host is stale and taken over, which takeover
// describes; a lock of a live process, or of another host (whose
// processes cannot be seen from here), makes lockTask fail with an error
// wrapping ErrElsewhere that names the holder and the lock file. release
// removes the lock.
func lockTask(path string) (release func(), takeover string, err error) {
	self, err := me()
	if err != nil {
		return nil, "", err
	}
	lock := path + ".lock"
	for attempt := 0; ; attempt++ {
		err := create(lock, self)
		if err == nil {
			held.Store(lock, true)
			return func() { held.Delete(lock); os.Remove(lock) }, takeover, nil
		}
		if !errors.Is(err, os.ErrExist) || attempt > 0 {
			// A second collision means another process took the stale
			// lock over first.
			return nil, "", lockError(lock, err)
		}
		h, err := readLock(lock)
		switch {
		case errors.Is(err, os.ErrNotExist):
			continue // released meanwhile: try again
		case err != nil:
			return nil, "", fmt.Errorf("%w: %s is unreadable (remove it if no process runs the task): %v", ErrElsewhere, lock, err)
		case h.host != self.host || alive(h.pid) && !(h.pid == self.pid && !holds(lock)):
			// This process's own pid in a lock it does not hold is a
			// crashed run's whose pid came round again.
			return nil, "", fmt.Errorf("%w: %s holds %s (remove it if that process is gone)", ErrElsewhere, h, lock)
		}
		// Stale: move it aside under a name of our own and check that
		// what moved is the stale lock: another process finding it stale
		// too may have replaced it with its own live lock already, which
		// goes back.
		aside := fmt.Sprintf("%s.stale-%d", lock, self.pid)
		if err := os.Rename(lock, aside); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			return nil, "", lockError(lock, err)
		}
		if moved, err := readLock(aside); err != nil || moved != h {
			os.Link(aside, lock) // fails only if yet another process locked it: it holds it then
			os.Remove(aside)
			return nil, "", fmt.Errorf("%w: another process took the stale %s over first", ErrElsewhere, lock)
		}
		os.Remove(aside)
		takeover = fmt.Sprintf("took over the stale lock %s of %s (gone)", lock, h)
	}
}

// create makes the lock file, failing if it exists. The holder is
// written to a file of this process's own first and then linked to the
// lock's name (link fails if the name exists, atomically, also on network
// file systems), so a lock never exists without its holder: a process
// killed between creating and writing would otherwise leave an empty lock
// that no later run can judge stale.
func create(lock string, self holder) error {
	tmp := fmt.Sprintf("%s.new-%d", lock, self.pid)
	err := os.WriteFile(tmp, fmt.Appendf(nil, "%d %s\n", self.pid, self.host), 0o644)
	if err == nil {
		err = os.Link(tmp, lock)
	}
	os.Remove(tmp)
	return err
}

// readLock reads who holds a lock file.
func readLock(lock string) (holder, error) {
	f, err := os.Open(lock)
	if err != nil {
		return holder{}, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return holder{}, err
	}
	fields := strings.Fields(string(b))
	if len(fields) != 2 {
		return holder{}, fmt.Errorf("lock file holds %q, want a pid and a host", b)
	}
	pid, err := strconv.Atoi(fields[0])
	if err != nil || pid <= 0 {
		return holder{}, fmt.Errorf("lock file holds %q, want a pid and a host", b)
	}
	return holder{pid, fields[1]}, nil
}

// held holds the lock files this process holds.
var held sync.Map

// holds reports whether this process holds lock.
func holds(lock string) bool {
	_, ok := held.Load(lock)
	return ok
}

// alive reports whether process pid exists on this host. A process that
// has exited but that its parent has not reaped yet (a zombie, as a run
// killed a moment ago is) is gone: it answers signals, so where /proc
// shows process states, alive reads the state. A process that exists but
// is not ours to signal (EPERM) is alive.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err == nil {
		// The state follows the command name, which is in parentheses
		// and may itself hold any character.
		if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) {
			switch b[i+2] {
			case 'Z', 'X', 'x':
				return false
			}
		}
		return true
	}
	if _, serr := os.Stat("/proc/self/stat"); serr == nil && errors.Is(err, os.ErrNotExist) {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}

func lockError(lock string, err error) error {
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("%w: another process took %s first", ErrElsewhere, lock)
	}
	return fmt.Errorf("task lock: %w", err)
}
