#!/bin/bash
# h200.sh - one device call: `incant run`, `stress`, `fences` and
# `race --dynamic` once each with this build (and, on the GPU machine, the
# no-driver path of stress through INCANT_LIBCUDA), each command's exit
# code last in a table. Run from the folder that holds inst/ (cmake
# --install), lib/ (the shared libraries) and dot/ (build-dot.sh).
set -u
D=$PWD
I=$D/inst/bin/incant
export INCANT_INJECT_LIB=$D/inst/lib/incant/libincant-inject.so
export LD_LIBRARY_PATH=$D/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
A=$D/dot
OUT=${OUT:-$D/out}
mkdir -p "$OUT"
ROWS=()
step() { # NAME LIMIT ARGS...
  local n=$1 l=$2; shift 2
  echo "### $n: incant $*"
  local t0=$(date +%s.%N)
  env ${STEP_ENV:-} timeout -k 5 "$l" "$I" "$@" >"$OUT/$n.out" 2>"$OUT/$n.err"
  local rc=$?
  local t1=$(date +%s.%N)
  cat "$OUT/$n.out"; tail -5 "$OUT/$n.err"
  ROWS+=("$(printf '%-12s rc=%-3s %6.1fs' "$n" "$rc" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')")")
}
nvidia-smi -L
step devices 30 devices
step run 60 run --backend cuda "$D/inst/share/incant/litmus/MP/MP+cta-global.litmus"
step stress 60 stress --no-progress --runs 10 --env none-,sys+ -- "$A/dot-nf" --repeat 5
step stress-ok 60 stress --no-progress --runs 5 --env sys+ -- "$A/dot-f" --repeat 5
STEP_ENV=INCANT_LIBCUDA=/nonexistent/libcuda.so.1 step nodriver 30 stress --runs 1 -- "$A/dot-nf"
step fences 90 fences --no-db --env sys+ --iterations 4 --stable-runs 4 \
  --budget 50s --reference "$A/dot-f" -- "$A/dot-nf-f" --repeat 20
step race-nf 60 race --dynamic -- "$A/dot-nf-race"
step race 60 race --dynamic -- "$A/dot-race"
echo "### summary"
printf '%s\n' "${ROWS[@]}"
