# lib/experiment/experiment.mk: included by the top-level Makefile.
# `make slurm-up` installs and starts a single-node Slurm on loopback
# (scripts/slurm/up.sh; root, idempotent). `make slurm-test` runs the Slurm
# sweep test against it; with TAILSCOPE_SLURM_SETUP=1 (set here and by
# `make unit` in CI) TestSlurmSweep starts Slurm itself and fails, rather
# than skips, when it cannot. `make sweep-quick` is a small sweep through
# Slurm (12 scenarios of 1000 flows, packetsim and flowsim).

GO  ?= go
OUT ?= out
BIN ?= build/bin/tailscope

.PHONY: slurm-up slurm-test sweep-quick

slurm-up:
	scripts/slurm/up.sh

slurm-test: slurm-up
	TAILSCOPE_SLURM_SETUP=1 $(GO) test -count=1 -run 'TestSlurmSweep' -v ./lib/experiment/

sweep-quick: slurm-up tailscope
	$(BIN) sweep --space default --n 12 --flows 1000 --estimators packetsim,flowsim --executor slurm --out $(OUT)/sweep-quick
	$(BIN) plot summary --dir $(OUT)/sweep-quick --baseline packetsim --out $(OUT)/sweep-quick/summary.parquet
