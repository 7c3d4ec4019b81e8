# Kernel targets, included by the top-level Makefile after python/python.mk
# (VENV, VENV_OK). Recipes live in scripts under kernel/ so that they can be
# run and tested on their own.

.PHONY: kernel lab kernel-test notebooks browser-test

KERNEL_BIN  := build/kernel/bin/tailscope-kernel
# The kernelspec lives in the project environment's prefix, so two clones
# never overwrite each other's kernel.
KERNEL_SPEC := $(VENV)/share/jupyter/kernels/tailscope-go/kernel.json
# The second kernel, GoNB, beside it (kernel/gonb-install.sh).
GONB_SPEC   := $(VENV)/share/jupyter/kernels/tailscope-gonb/kernel.json
# What the kernel binary is built from: its build script and pins, and every
# file of the packages bound into the interpreter (embedded data included).
KERNEL_INPUTS := kernel/build.sh kernel/env.sh kernel/go.mod.in kernel/go.sum \
	kernel/packages.txt $(wildcard kernel/_hooks/*.go kernel/_bindgen/*.go) go.mod go.sum \
	$(shell find lib internal kernel/nb datasets -type f ! -name '*_test.go' ! -path '*/testdata/*')

# The kernel is rebuilt only when one of its inputs changed.
$(KERNEL_BIN): $(KERNEL_INPUTS)
	kernel/build.sh

$(KERNEL_SPEC): $(KERNEL_BIN) $(VENV_OK) kernel/install.sh $(wildcard kernel/mklogo/*.go)
	kernel/install.sh

$(GONB_SPEC): kernel/gonb/go.mod kernel/gonb/go.sum kernel/gonb-install.sh kernel/env.sh $(VENV_OK) $(wildcard kernel/mklogo/*.go)
	kernel/gonb-install.sh

# Build the gophernotes kernel with tailscope preloaded and install the
# tailscope-go kernelspec (the default) into the project environment, and
# GoNB as the second kernelspec, tailscope-gonb.
kernel: $(KERNEL_SPEC) $(GONB_SPEC)

# JupyterLab on 127.0.0.1 with a token, in the workspace build/lab (working
# copies of the notebooks, the executed notebooks, the frames).
lab: $(KERNEL_SPEC) $(GONB_SPEC)
	kernel/lab.sh

# Jupyter-protocol smoke test of the kernel (temporary kernelspec).
kernel-test: $(KERNEL_BIN) $(VENV_OK)
	kernel/kernel-test.sh

# Execute every notebook headless at SCALE (ci, quick or paper), then the
# GoNB ones and the Python companion notebook; notebook 06 runs ns-3, so
# ns-3 is installed first.
SCALE ?= ci
notebooks: $(KERNEL_SPEC) $(GONB_SPEC) ns3
	kernel/run-notebooks.sh $(SCALE)

# JupyterLab driven by Debian's Chromium through playwright-core
# (tools/browsertest): notebook 01 run in the browser, and an interrupt;
# then the built manual (docs.mk): front page, a reference page, search.
BROWSERTEST_OK := tools/browsertest/node_modules/.package-lock.json
$(BROWSERTEST_OK): tools/browsertest/package-lock.json
	@command -v node >/dev/null && command -v npm >/dev/null || scripts/ensure-debs.sh nodejs npm
	npm ci --prefix tools/browsertest --no-audit --no-fund --loglevel=error
browser-test: $(KERNEL_SPEC) $(BROWSERTEST_OK) docs-build
	scripts/ensure-debs.sh chromium
	node tools/browsertest/lab.mjs
	node tools/browsertest/site.mjs $(DOCS_SITE)
