# lib/ns3/ns3.mk: included by the top-level Makefile.
# `make ns3` installs ns-3 3.37 from Debian and builds the ns-3 scenario
# program (build/ns3/tailscope-ns3); the Go driver rebuilds it by itself
# whenever lib/ns3/scenario/scenario.cc changes.

GO ?= go

.PHONY: ns3

ns3:
	scripts/ensure-debs.sh libns3-dev ns3 libgsl-dev pkg-config g++
	$(GO) run ./cmd/tailscope ns3 build
