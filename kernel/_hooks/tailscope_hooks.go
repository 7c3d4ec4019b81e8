// This file is copied into the scratch gophernotes module by kernel/build.sh,
// which also inserts one call to tailscopeHooks right after gophernotes
// creates its interpreter. It is our code, not gophernotes'.

package main

import (
	"os"

	"github.com/cosmos72/gomacro/base"
	interp "github.com/cosmos72/gomacro/fast"

	"github.com/tailscope/tailscope/kernel/nb"
)

// tailscopeHooks makes SIGINT (Jupyter's "interrupt kernel") stop the running
// cell instead of killing the kernel: gophernotes v0.7.5 installs no handler,
// so Go's default action ends the process. gomacro checks the flag set by
// Interrupt between statements and unwinds the cell with an error, but a
// compiled library call runs on until it returns; cancelling nb.Context
// makes the library calls that take it return within moments. The flag is
// set first, so the cell stops as soon as the call returns instead of
// going on with the fresh context.
func tailscopeHooks(ir *interp.Interp) {
	base.StartSignalHandler(func(sig os.Signal) {
		ir.Interrupt(sig)
		nb.Interrupt()
	})
}
