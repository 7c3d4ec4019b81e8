# tailscope: the two commands are `make reproduce` and `make test`; both
# install what is missing on a Debian machine (root or sudo) and need only Go.

GO      ?= go
OUT     ?= out
BIN     := build/bin/tailscope
# The Go packages; not ./..., which would walk the kernel's module cache
# under build/.
PKGS    := ./cmd/... ./lib/... ./internal/... ./kernel/... ./datasets/... ./tools/framedump ./tools/forkcmp

.PHONY: all deps test unit reproduce bench tailscope clean largescale

all: tailscope

# npm pieces the tests need: the independent Parquet reader
# (tools/parquetcheck), reinstalled whenever its lock file changes.
deps: tools/parquetcheck/node_modules/.package-lock.json

tools/parquetcheck/node_modules/.package-lock.json: tools/parquetcheck/package-lock.json
	@command -v node >/dev/null && command -v npm >/dev/null || scripts/ensure-debs.sh nodejs npm
	npm ci --prefix tools/parquetcheck --no-audit --no-fund --loglevel=error

# Built by the kernel's Go (kernel/go.sh: its toolchain and caches, and
# -trimpath like the kernel), so the binary and the kernel share their
# compiled packages.
# The commit the binary is built from, "+dirty" with changes: go build
# records it itself in a clone, not in a git worktree (tailscope version).
COMMIT = $(shell c=$$(git rev-parse --short=12 HEAD 2>/dev/null) && { [ -z "$$(git status --porcelain 2>/dev/null)" ] || c=$$c+dirty; echo $$c; })

tailscope:
	kernel/go.sh build -trimpath -buildvcs=auto -ldflags "-X github.com/tailscope/tailscope/lib/frame.linkedCommit=$(COMMIT)" -o $(BIN) ./cmd/tailscope

# Library tests, including the ns-3 baseline's (ns-3 is installed first)
# and the Slurm executor's (the test installs and starts a one-node Slurm).
unit: deps ns3
	$(GO) vet $(PKGS)
	TAILSCOPE_SLURM_SETUP=1 $(GO) test -count=1 $(PKGS)

# The README's test command, also what CI runs: library tests, the kernel's
# Jupyter-protocol smoke test, every notebook executed at ci scale, then
# pandas/pyarrow/DuckDB on every frame kind (the notebooks' frames included)
# and JupyterLab in a real browser.
test: unit kernel-test
	$(MAKE) notebooks SCALE=ci
	$(MAKE) python-test browser-test

# Quick reproduction on the embedded default scenario: the notebooks at
# quick scale (frames and figures under $(OUT)/notebooks and
# build/notebooks), plus the default scenario's frames from the CLI.
# The pieces are prepared in parallel: the kernel build is CPU-bound while
# the Python environment, ns-3's Debian packages and npm packages are mostly
# downloads; the tailscope binary follows the kernel, whose compiled
# packages it reuses (15 CPU s instead of 266 beside it), then ns-3's
# scenario program (11 CPU s). The
# GoNB kernel and its two notebooks (copies of 00 and 01, checked by make
# test) are left out: about 200 CPU s, a sixth of the whole (BENCHMARKS.md);
# make lab builds GoNB when it is missing. flowSim answers anyway: the
# accuracy atlas refuses it on the default scenario, and the reproduction
# shows by how much it is off (the frame is marked so).
reproduce:
	$(MAKE) -j3 deps $(KERNEL_SPEC) ns3-debs
	$(MAKE) ns3
	$(BIN) gen --spec default --out $(OUT)/default/flows.parquet
	$(BIN) run --spec default --estimator packetsim,flowsim --answer-anyway --out $(OUT)/runs
	kernel/run-notebooks.sh quick notebooks/*.ipynb notebooks/python/*.ipynb
	@echo "reproduce: $$(find $(OUT) -name '*.parquet' | wc -l) frames under $(OUT)/ (default scenario: $(OUT)/default, $(OUT)/runs)"
	@echo "reproduce: $$(find $(OUT)/notebooks -name '*.png' | wc -l) figures under $(OUT)/notebooks/<notebook>/"
	@echo "reproduce: executed notebooks in build/notebooks/ (open them in JupyterLab: make lab)"

# The large-scale reproductions (Parsimon §5.2, m3 §5.3 and the
# sensitivity analysis at 200k flows): LARGESCALE=ci (minutes), mid or paper
# (hours of CPU); results, report and figures under LARGESCALE_OUT, resumed
# where a previous run stopped.
LARGESCALE     ?= ci
# At paper scale the sensitivity scenarios archived in results/ are
# reported, not run again (docs/howto/reproduce.md, "The large-scale
# reproductions").
LARGESCALE_OUT ?= $(OUT)/largescale/$(LARGESCALE)
LARGESCALE_ARCHIVE = $(if $(filter paper,$(LARGESCALE)),--archive results/largescale-paper)
largescale: tailscope
	nice $(BIN) largescale run --scale $(LARGESCALE) $(LARGESCALE_ARCHIVE) --out $(LARGESCALE_OUT)

bench:
	$(GO) test -run '^$$' -bench . -benchtime 1x $(PKGS)

clean:
	rm -rf build/bin build/notebooks $(OUT)

-include python/python.mk
-include kernel/kernel.mk
-include lib/ns3/ns3.mk
-include lib/experiment/experiment.mk
-include fuzz.mk
-include docs.mk
