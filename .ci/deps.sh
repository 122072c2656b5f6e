#!/usr/bin/env bash
# deps.sh - install ergo's build and test dependencies on Debian 12 (apt), only what is missing.
# The README's two commands install the same list inline; keep them in step.
set -euo pipefail

# gcc only recommends libc6-dev, and --no-install-recommends skips recommends.
PACKAGES=(cmake gcc make libc6-dev pkg-config libjansson-dev libcmocka-dev libhwloc-dev libpapi-dev libcpupower-dev libgsl-dev libopenmpi-dev openmpi-bin gfortran g++ libjs-chart.js libjs-d3 libmicrohttpd-dev libtrilinos-kokkos-dev chromium chromium-driver python3-selenium)
# CI only (not in the README's commands): clang and its libFuzzer runtime for the fuzz stage.
PACKAGES+=(clang libclang-rt-14-dev)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all installed (${PACKAGES[*]})"
  exit 0
fi

echo "deps: installing ${missing[*]}"
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "deps: not root and no sudo; install: ${missing[*]}" >&2; exit 1; }
  sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update
"${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
