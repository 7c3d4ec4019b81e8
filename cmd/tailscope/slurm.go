package main

import "github.com/tailscope/tailscope/lib/experiment"

func init() {
	register("task", "run one element of a Slurm job array (\"task run --batch F --index N\"; used by sweep --executor slurm)", runTask)
}

// runTask is what every Slurm array element runs: the same binary as the
// sweep that submitted it. Slurm signals SIGTERM at the time limit.
func runTask(args []string) error {
	ctx, stop := interruptible()
	defer stop()
	return experiment.WorkerMain(ctx, args)
}
