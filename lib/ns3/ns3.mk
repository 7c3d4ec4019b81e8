# lib/ns3/ns3.mk: included by the top-level Makefile.
# `make ns3` installs ns-3 3.37 from Debian and builds the ns-3 scenario
# program (build/ns3/tailscope-ns3); the Go driver rebuilds it by itself
# whenever lib/ns3/scenario/scenario.cc changes. libtcmalloc-minimal4 is
# optional: the driver preloads it when present (about 1.3x faster).
# The program is built by the tailscope binary (the top-level `tailscope`
# target), not by `go run`, which would compile the packages a second time
# with another toolchain and cache. `make ns3-debs` installs the packages
# only.

BIN ?= build/bin/tailscope

.PHONY: ns3 ns3-debs

ns3-debs:
	scripts/ensure-debs.sh libns3-dev ns3 libgsl-dev pkg-config g++ libtcmalloc-minimal4

ns3: ns3-debs tailscope
	$(BIN) ns3 build
