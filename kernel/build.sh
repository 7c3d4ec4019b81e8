#!/usr/bin/env bash
# Builds the tailscope-go Jupyter kernel: gophernotes v0.7.5 with the packages
# listed in kernel/packages.txt statically linked through gomacro's generated
# bindings, using the pinned toolchain. Output: $KERNEL_BIN.
#
# Steps (all under $KERNEL_BUILD, nothing outside it is written):
#  1. download gophernotes' source into the private module cache and copy it
#     to $GOPATH/src/github.com/gopherdata/gophernotes (gomacro writes the
#     bindings into that path);
#  2. give it our module file (kernel/go.mod.in, kernel/go.sum) with tailscope
#     replaced by this checkout, plus our glue (kernel/_hooks);
#  3. build kernel/_bindgen and let gomacro write the bindings;
#  4. build the kernel binary.
#
# Usage: kernel/build.sh [--update-sum]
#   --update-sum  copy the resolved go.sum back to kernel/go.sum (after
#                 changing kernel/packages.txt brings in a new module).
set -euo pipefail
. "$(dirname "$0")/env.sh"

update_sum=false
for a in "$@"; do
	case $a in
	--update-sum) update_sum=true ;;
	*) echo "kernel/build.sh: unknown argument $a" >&2; exit 2 ;;
	esac
done

kernel_go_env
mkdir -p "$KERNEL_BUILD/bin"
# The binary gets the time the build started, so that an input
# edited while the build ran is newer than it and make builds again (a
# cold build takes minutes; the binary's own time would hide such edits).
started=$(date +%s.%N)
say() { echo "kernel/build.sh: $*" >&2; }

if [ "$(go env GOVERSION)" != "$KERNEL_TOOLCHAIN" ]; then
	say "toolchain is $(go env GOVERSION), want $KERNEL_TOOLCHAIN"; exit 1
fi

# 1. Pristine source, copied to a writable work tree.
say "fetching gophernotes $GOPHERNOTES_VERSION"
src=$(go mod download -json "github.com/gopherdata/gophernotes@$GOPHERNOTES_VERSION" |
	sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
if [ ! -f "$src/kernel.go" ]; then
	say "gophernotes source not found (go mod download gave dir '$src')"; exit 1
fi
W=$GOPATH/src/github.com/gopherdata/gophernotes
rm -rf "$W"
mkdir -p "$(dirname "$W")"
cp -R "$src" "$W"
chmod -R u+w "$W"

# 2. Module file, hooks.
sed "s#@REPO@#$ROOT#" "$KERNEL_DIR/go.mod.in" > "$W/go.mod"
cp "$KERNEL_DIR/go.sum" "$W/go.sum"
cp "$KERNEL_DIR/_hooks/tailscope_hooks.go" "$W/"
anchor='	ir := interp.New()'
if [ "$(grep -cxF "$anchor" "$W/kernel.go")" != 1 ]; then
	say "cannot find the interpreter creation line in gophernotes' kernel.go"; exit 1
fi
sed -i "s/^	ir := interp.New()\$/&\n	tailscopeHooks(ir)/" "$W/kernel.go"
# gophernotes replies to a failed cell with a null traceback (the message
# goes only to the published error output), so nbconvert's failure report,
# which quotes the reply, showed an empty error: the reply carries the
# message too.
tb='		content["traceback"] = nil'
if [ "$(grep -cxF "$tb" "$W/kernel.go")" != 1 ]; then
	say "cannot find the error reply's traceback line in gophernotes' kernel.go"; exit 1
fi
sed -i 's/^		content\["traceback"\] = nil$/		content["traceback"] = []string{executionErr.Error()}/' "$W/kernel.go"
# gophernotes exits when its kernel_info reply cannot be sent; JupyterLab's
# server sometimes closes the connection it asked on first (a make test run
# of stop 38: "write: broken pipe", the kernel restarted under the
# browser test's first click). The reply is lost, not the kernel.
ki='		if err := sendKernelInfo(receipt); err != nil {'
if [ "$(grep -cxF "$ki" "$W/kernel.go")" != 1 ] || [ "$(grep -A1 -xF "$ki" "$W/kernel.go" | tail -n 1)" != '			log.Fatal(err)' ]; then
	say "cannot find the kernel_info reply's error handling in gophernotes' kernel.go"; exit 1
fi
sed -i '/^		if err := sendKernelInfo(receipt); err != nil {$/{n;s/log.Fatal(err)/log.Println("kernel_info reply not sent:", err)/}' "$W/kernel.go"

# 3. Bindings. gomacro empties the imports directory and puts a go.mod there
# before writing; restore gophernotes' own files and drop the go.mod after.
mapfile -t pkgs < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$KERNEL_DIR/packages.txt")
if [ ${#pkgs[@]} -eq 0 ]; then
	say "kernel/packages.txt lists no packages"; exit 1
fi
mkdir -p "$W/cmd/tailscope-bindgen"
cp "$KERNEL_DIR/_bindgen/main.go" "$W/cmd/tailscope-bindgen/"
say "building the binding generator"
# -trimpath in every step, as the kernel's own build has it: the build cache
# keys on it, so gomacro, tailscope and their dependencies compile once for
# the three steps instead of twice (a cold build: 622 -> 361 CPU s).
(cd "$W" && go build -mod=mod -trimpath -o "$KERNEL_BUILD/bin/bindgen" ./cmd/tailscope-bindgen)
sed 's#^module .*#module tailscope.kernel/bindgen#' "$W/go.mod" > "$KERNEL_BUILD/bindgen.mod"
cp "$W/go.sum" "$KERNEL_BUILD/bindgen.sum"
say "generating bindings for ${#pkgs[@]} packages"
(cd "$W" && GOFLAGS="-modcacherw -trimpath -mod=mod -modfile=$KERNEL_BUILD/bindgen.mod" \
	"$KERNEL_BUILD/bin/bindgen" "${pkgs[@]}" > "$KERNEL_BUILD/bindgen.log" 2>&1) || {
	cat "$KERNEL_BUILD/bindgen.log" >&2; say "binding generation failed"; exit 1; }
rm -f "$W/imports/go.mod" "$W/imports/go.sum"
cp "$src/imports/"* "$W/imports/"
chmod u+w "$W/imports/"*
for p in "${pkgs[@]}"; do
	f=$W/imports/$(echo "$p" | sed 's/[^A-Za-z0-9_]/_/g').go
	if [ ! -s "$f" ]; then
		cat "$KERNEL_BUILD/bindgen.log" >&2; say "no bindings written for $p"; exit 1
	fi
done
rm -rf "$W/cmd/tailscope-bindgen"

# 4. The kernel.
say "building the kernel"
(cd "$W" && go build -mod=mod -trimpath -o "$KERNEL_BIN.tmp" . && mv "$KERNEL_BIN.tmp" "$KERNEL_BIN")
touch -d "@$started" "$KERNEL_BIN"
if $update_sum; then
	cp "$W/go.sum" "$KERNEL_DIR/go.sum"
	say "updated kernel/go.sum"
fi
say "built $KERNEL_BIN ($(du -h "$KERNEL_BIN" | cut -f1))"
