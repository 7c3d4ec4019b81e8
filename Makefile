# tailscope: the two commands are `make reproduce` and `make test`; both
# install what is missing on a Debian machine (root or sudo) and need only Go.

GO      ?= go
OUT     ?= out
SCALE   ?= quick
BIN     := build/bin/tailscope

.PHONY: all deps test unit reproduce bench tailscope clean

all: tailscope

# System and npm pieces the tests need: Node.js for the independent Parquet
# reader (tools/parquetcheck).
deps: tools/parquetcheck/node_modules/.package-lock.json

tools/parquetcheck/node_modules/.package-lock.json: tools/parquetcheck/package-lock.json
	@command -v node >/dev/null && command -v npm >/dev/null || scripts/ensure-debs.sh nodejs npm
	npm ci --prefix tools/parquetcheck --no-audit --no-fund --loglevel=error

tailscope:
	$(GO) build -o $(BIN) ./cmd/tailscope

# Unit and integration tests of the library (no notebooks).
unit: deps
	$(GO) vet ./...
	$(GO) test -count=1 ./...

# The README's test command, also what CI runs.
test: unit

# Quick reproduction on the embedded default scenario: frames and figures
# land in $(OUT)/.
reproduce: deps tailscope
	mkdir -p $(OUT)
	$(BIN) gen --spec default --out $(OUT)/default/flows.parquet
	@echo "reproduce: frames are in $(OUT)/"

bench:
	$(GO) test -run '^$$' -bench . -benchtime 1x ./...

clean:
	rm -rf build $(OUT)

-include kernel/kernel.mk
