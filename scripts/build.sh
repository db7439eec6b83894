#!/usr/bin/env bash
# Sets up a fresh Debian machine for incant and builds it into build/.
#   scripts/build.sh            install missing packages, configure, build
#   BUILD_DIR=dir scripts/build.sh
# Packages come from Debian only (see docs/building.md).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  g++ cmake ninja-build python3
  libfmt-dev nlohmann-json3-dev libcli11-dev
  libsqlite3-dev           # the campaign store (incant campaign, merge, report)
  libz3-dev                # lib/SMT: incant race (optional; left out without it)
  libclang-14-dev          # lib/Source: host launches, statement boundaries (optional)
  libgtest-dev libgmock-dev libbenchmark-dev
  llvm-14-tools            # lit and FileCheck for the tool-output tests
  clang-14                 # compiles lib/OpenCL/runtime/harness.cl on its own
  ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-c-headers pocl-opencl-icd
)
# A one-node Slurm cluster for campaign --slurm's test (test/campaign/
# slurm-cluster.test; skipped where these are absent). Without Debian's
# recommends (slurm-wlm-plugins: 30 more packages the test does not use).
# Their services do not start on installation: slurmctld and slurmd find no
# /etc/slurm/slurm.conf and exit 0; munge starts only where services may
# (a systemd machine, or no policy-rc.d), detached from this script.
slurm_packages=(slurmctld slurmd slurm-client munge)
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
updated=false
install_missing() { # [apt-get options...] -- packages...
  local opts=() missing=() p
  while [ "$1" != -- ]; do opts+=("$1"); shift; done; shift
  for p in "$@"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  echo "incant: installing ${missing[*]}" >&2
  $updated || { $SUDO apt-get update -qq; updated=true; }
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
    -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
    "${opts[@]}" "${missing[@]}" </dev/null >/dev/null
}
install_missing -- "${packages[@]}"
install_missing --no-install-recommends -- "${slurm_packages[@]}"

build=${BUILD_DIR:-build}
extra=()
[ "${CI:-}" = true ] && extra+=(-DINCANT_WERROR=ON)
# Rebuilds in other checkouts reuse objects when ccache is installed.
command -v ccache >/dev/null && extra+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${extra[@]}" >/dev/null
cmake --build "$build" -j"$(nproc)"
