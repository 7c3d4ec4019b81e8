#!/usr/bin/env bash
# Installs the Debian packages the kernel scripts need (Jupyter server,
# nbconvert, nbclient, jupyter_client) when they are missing. Needs root; as
# another user it prints the command to run and fails.
set -euo pipefail
. "$(dirname "$0")/env.sh"

pkgs=(jupyter-notebook jupyter-nbconvert python3-nbclient python3-jupyter-client)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi
cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	echo "kernel/deps.sh: missing Debian packages: ${missing[*]}" >&2
	echo "run as root: $cmd" >&2
	exit 1
fi
echo "kernel/deps.sh: installing ${missing[*]}" >&2
sh -c "$cmd" >&2
