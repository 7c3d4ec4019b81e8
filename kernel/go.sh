#!/usr/bin/env bash
# Runs go in the kernel's Go environment (kernel/env.sh: its toolchain, its
# module and build caches). `make tailscope` builds the command line this
# way, with -trimpath as the kernel is built, so that the binary, the kernel
# and GoNB compile tailscope and its dependencies once between them: after
# the kernel's build, the binary's is 15 CPU s instead of 266 cold.
#
# Usage: kernel/go.sh <go arguments>
set -euo pipefail
. "$(dirname "$0")/env.sh"
kernel_go_env
exec go "$@"
