package ns3

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// source is the scenario program; embedding it lets Build work from any
// directory (notebooks, installed binaries).
//
//go:embed scenario/scenario.cc
var source []byte

// Modules are the pkg-config modules the program links against.
var Modules = []string{"ns3-core", "ns3-network", "ns3-internet", "ns3-point-to-point", "ns3-traffic-control"}

// Packages are the Debian packages the program needs.
var Packages = []string{"libns3-dev", "ns3", "libgsl-dev", "pkg-config", "g++"}

const module = "github.com/tailscope/tailscope"

// Available reports whether the program can be built: g++, pkg-config and
// ns-3's development files. The error says what is missing and how to
// install it.
func Available() error {
	hint := fmt.Sprintf("run `make ns3` in the tailscope repository, or apt-get install %s", strings.Join(Packages, " "))
	for _, tool := range []string{"pkg-config", "g++"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("ns3: %s not found, so ns-3 (Debian package libns3-dev) cannot be used: %s", tool, hint)
		}
	}
	out, err := exec.Command("pkg-config", append([]string{"--print-errors", "--exists"}, Modules...)...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ns3: ns-3 is not installed (pkg-config: %s): %s", strings.TrimSpace(string(out)), hint)
	}
	return nil
}

// Version returns the installed ns-3 version as pkg-config reports it.
func Version() (string, error) {
	out, err := exec.Command("pkg-config", "--modversion", "ns3-core").Output()
	if err != nil {
		return "", fmt.Errorf("ns3: cannot read the ns-3 version: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// DefaultProgram is where Build puts the program: build/ns3/tailscope-ns3
// under the tailscope module root when the working directory is inside it,
// else tailscope/ns3/<digest>/tailscope-ns3 under the user's cache
// directory, where <digest> is that of the source this tailscope embeds
// (SourceDigest): tailscope builds embedding other sources share the
// cache without rebuilding each other's program back and forth.
func DefaultProgram() string {
	if dir, err := os.Getwd(); err == nil {
		for {
			if isModuleRoot(dir) {
				return filepath.Join(dir, "build", "ns3", "tailscope-ns3")
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	return cachedProgram(cache, source)
}

// cachedProgram is the program built from src in the cache directory
// cache.
func cachedProgram(cache string, src []byte) string {
	return filepath.Join(cache, "tailscope", "ns3", digest(src)[:16], "tailscope-ns3")
}

// digest is the hex SHA-256 of src.
func digest(src []byte) string {
	sum := sha256.Sum256(src)
	return hex.EncodeToString(sum[:])
}

// SourceDigest is the hex SHA-256 of the scenario program's source
// embedded in this tailscope; a program built from it has the digest in
// the file beside it (Build).
func SourceDigest() string { return digest(source) }

func isModuleRoot(dir string) bool {
	fh, err := os.Open(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == "module" {
			return f[1] == module
		}
	}
	return false
}

var buildMu sync.Mutex

// Build compiles the program to path unless it is already there and built
// from the current source (the source's hash is kept next to it in
// path+".sha256"). It returns whether it compiled.
func Build(path string) (bool, error) {
	buildMu.Lock()
	defer buildMu.Unlock()
	stamp := digest(source)
	if old, err := os.ReadFile(path + ".sha256"); err == nil && strings.TrimSpace(string(old)) == stamp {
		if _, err := os.Stat(path); err == nil {
			return false, nil
		}
	}
	if err := Available(); err != nil {
		return false, err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, err
	}
	flags, err := exec.Command("pkg-config", append([]string{"--cflags", "--libs"}, Modules...)...).Output()
	if err != nil {
		return false, fmt.Errorf("ns3: pkg-config %s: %w", strings.Join(Modules, " "), err)
	}
	src, err := os.CreateTemp(dir, "scenario-*.cc")
	if err != nil {
		return false, err
	}
	defer os.Remove(src.Name())
	if _, err := src.Write(source); err != nil {
		src.Close()
		return false, err
	}
	if err := src.Close(); err != nil {
		return false, err
	}
	// Build beside the target and rename, so that a concurrent run never
	// sees half a binary.
	tmp := src.Name() + ".bin"
	defer os.Remove(tmp)
	args := append([]string{"-O2", "-std=c++17", "-o", tmp, src.Name()}, strings.Fields(string(flags))...)
	var msg bytes.Buffer
	cmd := exec.Command("g++", args...)
	cmd.Stdout, cmd.Stderr = &msg, &msg
	if err := cmd.Run(); err != nil {
		return false, fmt.Errorf("ns3: compiling the scenario program failed: %w\n%s", err, msg.String())
	}
	if err := os.Rename(tmp, path); err != nil {
		return false, err
	}
	return true, os.WriteFile(path+".sha256", []byte(stamp+"\n"), 0o644)
}

// tcmalloc finds Debian's libtcmalloc-minimal4 (optional; `make ns3`
// installs it) for the program to preload, or "".
var tcmalloc = sync.OnceValue(func() string {
	ldconfig, err := exec.LookPath("ldconfig")
	if err != nil {
		ldconfig = "/sbin/ldconfig"
	}
	out, err := exec.Command(ldconfig, "-p").Output()
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(out), "\n") {
		name, path, ok := strings.Cut(strings.TrimSpace(line), " => ")
		if ok && strings.HasPrefix(name, "libtcmalloc_minimal.so.4 ") {
			return path
		}
	}
	return ""
})

// program returns the program to run: the given path as it is, or the
// default one, built if needed.
func program(path string) (string, error) {
	if path != "" {
		if _, err := os.Stat(path); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return "", fmt.Errorf("ns3: the scenario program %s does not exist: run `make ns3` to install ns-3 (Debian package libns3-dev) and build it", path)
			}
			return "", err
		}
		return path, nil
	}
	path = DefaultProgram()
	_, err := Build(path)
	return path, err
}
