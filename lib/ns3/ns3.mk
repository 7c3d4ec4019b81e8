# lib/ns3/ns3.mk: included by the top-level Makefile.
# `make ns3` installs ns-3 3.37 from Debian and builds the ns-3 scenario
# program (build/ns3/tailscope-ns3); the Go driver rebuilds it by itself
# whenever lib/ns3/scenario/scenario.cc changes. libtcmalloc-minimal4 is
# optional: the driver preloads it when present (about 1.3x faster).
# The program is built by the tailscope binary (the top-level `tailscope`
# target), not by `go run`: under `make -j` a second compiler of the same
# packages beside that target's would double a cold build's 260 CPU s.

BIN ?= build/bin/tailscope

.PHONY: ns3

ns3: tailscope
	scripts/ensure-debs.sh libns3-dev ns3 libgsl-dev pkg-config g++ libtcmalloc-minimal4
	$(BIN) ns3 build
