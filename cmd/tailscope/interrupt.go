package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// interruptible is the context of a long command: Ctrl-C or SIGTERM
// cancels it, so that a sweep keeps its finished tasks and a simulation
// stops between records instead of being killed mid-write.
func interruptible() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}
