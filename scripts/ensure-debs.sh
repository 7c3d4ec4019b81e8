#!/usr/bin/env bash
# ensure-debs.sh PKG...: install the Debian packages that are missing.
# Used by every make target that needs a system component, so that a fresh
# Debian machine needs nothing installed by hand.
set -euo pipefail
missing=()
for p in "$@"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "ensure-debs: installing ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "ensure-debs: need root to run: apt-get install -y ${missing[*]}" >&2; exit 1; }
  sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
# make -j may run several of these at once (make reproduce prepares the
# kernel, ns-3 and the Python environment in parallel): take turns, and
# wait for a dpkg lock another apt holds instead of failing.
exec 9>"${TMPDIR:-/tmp}/tailscope-ensure-debs.lock"
flock 9
wait_lock=(-o DPkg::Lock::Timeout=600)
$sudo apt-get "${wait_lock[@]}" update -qq
$sudo apt-get "${wait_lock[@]}" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
