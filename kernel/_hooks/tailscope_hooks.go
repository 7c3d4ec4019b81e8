// This file is copied into the scratch gophernotes module by kernel/build.sh,
// which also inserts one call to tailscopeHooks right after gophernotes
// creates its interpreter. It is our code, not gophernotes'.

package main

import (
	"github.com/cosmos72/gomacro/base"
	interp "github.com/cosmos72/gomacro/fast"
)

// tailscopeHooks makes SIGINT (Jupyter's "interrupt kernel") stop the running
// cell instead of killing the kernel: gophernotes v0.7.5 installs no handler,
// so Go's default action ends the process. gomacro checks the flag set by
// Interrupt between statements and unwinds the cell with an error.
func tailscopeHooks(ir *interp.Interp) {
	base.StartSignalHandler(ir.Interrupt)
}
