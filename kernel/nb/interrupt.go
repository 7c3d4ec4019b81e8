package nb

import (
	"context"
	"sync"
)

// cell holds the context of the cells running now. The kernel cancels it
// on an interrupt and starts a fresh one, so that a library call already
// running stops while the cells that follow run normally.
var cell struct {
	mu     sync.Mutex
	ctx    context.Context
	cancel context.CancelFunc
}

// Context is the context of the running cell: the tailscope-go kernel
// cancels it when the user interrupts the kernel. Every function of this
// package that runs an estimator or a sweep uses it; cells that call the
// library directly pass it, e.g. estimator.Run(nb.Context(), ...). Outside
// the kernel it is cancelled only by Interrupt.
func Context() context.Context {
	cell.mu.Lock()
	defer cell.mu.Unlock()
	if cell.ctx == nil {
		cell.ctx, cell.cancel = context.WithCancel(context.Background())
	}
	return cell.ctx
}

// Interrupt cancels the context Context has returned so far and starts a
// fresh one for the cells that follow. The kernel calls it on SIGINT
// (Jupyter's "interrupt kernel") right after telling the interpreter to
// stop the cell between statements: the interpreter cannot stop compiled
// library code, the context can.
func Interrupt() {
	cell.mu.Lock()
	defer cell.mu.Unlock()
	if cell.cancel != nil {
		cell.cancel()
	}
	cell.ctx, cell.cancel = context.WithCancel(context.Background())
}
