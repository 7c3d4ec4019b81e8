// Command bindgen writes gomacro's static bindings (what the interpreter's
// `import _b "path"` writes) for the packages named on its command line into
// gophernotes' imports directory, so that rebuilding the kernel links them in.
//
// kernel/build.sh copies this file into the scratch gophernotes module under
// build/kernel (the directory name starts with '_' so that the tailscope
// module's `go build ./...` skips it: it needs gomacro, which tailscope does
// not require).
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/cosmos72/gomacro/base/genimport"
	"github.com/cosmos72/gomacro/base/output"
	"github.com/cosmos72/gomacro/base/paths"

	// Its init tells gomacro to write into gophernotes' imports directory.
	_ "github.com/gopherdata/gophernotes/imports"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: bindgen importpath...")
		os.Exit(2)
	}
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "bindgen:", err)
		os.Exit(1)
	}
}

func run(pkgs []string) error {
	// gomacro runs `go get` on the packages before loading them; without a
	// version that asks the proxy for the latest one, which the proxy here
	// refuses. The module file (GOFLAGS=-modfile) already pins every version,
	// so a go command whose `get` does nothing is all gomacro needs.
	shim, err := os.MkdirTemp("", "bindgen-go")
	if err != nil {
		return err
	}
	defer os.RemoveAll(shim)
	if err := os.Mkdir(filepath.Join(shim, "bin"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(shim, "bin", "go"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		return err
	}
	paths.GoRootDir = shim

	o := &output.Output{Stdout: os.Stdout, Stderr: os.Stderr}
	req := make(map[string]genimport.PackageName, len(pkgs))
	for _, p := range pkgs {
		req[p] = "_b"
	}
	_, err = genimport.DefaultImporter(o).ImportPackagesOrError(req, true)
	return err
}
