# Sourced by the kernel/*.sh scripts: locations and pinned versions shared by
# the kernel build, install and tests. Everything the build writes stays under
# $KERNEL_BUILD (default build/kernel): a private GOPATH, module cache and
# build cache, so the user's Go caches are never touched.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KERNEL_DIR=$ROOT/kernel
KERNEL_BUILD=${KERNEL_BUILD:-$ROOT/build/kernel}
KERNEL_NAME=tailscope-go
KERNEL_BIN=$KERNEL_BUILD/bin/tailscope-kernel

# The toolchain that builds the kernel (downloaded through the module proxy
# into the private module cache). gophernotes v0.7.5 panics at start when
# built with Go 1.26; go1.24.13 is the newest toolchain it works with and the
# oldest that gonum v0.17.0 accepts.
KERNEL_TOOLCHAIN=go1.24.13
GOPHERNOTES_VERSION=v0.7.5

# The second kernel, GoNB (kernel/gonb-install.sh): it compiles each cell as
# real Go with the same toolchain and caches, so generics and this checkout
# (a go.work entry) are available. Its pins are kernel/gonb/go.mod.
GONB_NAME=tailscope-gonb
GONB_BIN=$KERNEL_BUILD/gonb/gonb

# The project's Python environment (python/venv.sh, `make venv`): Jupyter,
# JupyterLab, nbconvert and jupyter_client come from there, never from the
# system.
VENV=${VENV:-$ROOT/build/venv}
PYTHON=${PYTHON:-$VENV/bin/python}

# Where the kernelspec goes: the environment's prefix, so that each clone has
# its own kernel, unless overridden (tests install into a temporary
# JUPYTER_PATH entry). Jupyter in a virtual environment looks there before
# the user's directory; say so explicitly for older settings.
KERNELSPEC_ROOT=${KERNELSPEC_ROOT:-$VENV/share/jupyter/kernels}
export JUPYTER_PREFER_ENV_PATH=1

# need_venv fails with the command to run when the environment is missing.
need_venv() {
	if [ ! -f "$VENV/.installed" ]; then
		echo "$(basename "$0"): the project's Python environment $VENV is missing: run make venv" >&2
		exit 1
	fi
}

kernel_go_env() {
	export GOPATH=$KERNEL_BUILD/gopath
	export GOMODCACHE=$KERNEL_BUILD/gopath/pkg/mod
	export GOCACHE=$KERNEL_BUILD/gocache
	export GOTOOLCHAIN=$KERNEL_TOOLCHAIN
	export GOWORK=off
	# Local modules are not on the proxy, which answers 400/403 rather than
	# 404; "|off" stops there instead of trying direct VCS access.
	export GOPROXY=${KERNEL_GOPROXY:-https://proxy.golang.org|off}
	export GONOSUMDB=github.com/cosmos72
	export GOFLAGS=-modcacherw
	unset GOROOT
}
