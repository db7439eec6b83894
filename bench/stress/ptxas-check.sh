#!/bin/sh
# ptxas-check.sh INCANT [OUT] - what the instrumenting build does to each
# case-study application's kernels with everything off, as ptxas sees it:
# registers, stack frame and spills per kernel, plain PTX against the
# instrumented PTX (no GPU needed).
set -u
INCANT=$1 OUT=${2:-$(mktemp -d)}
SRC=$(cd "$(dirname "$0")/../../apps" && pwd)
export PATH=/usr/local/cuda/bin:$PATH
info() { ptxas -arch=sm_90 -v "$1" -o /dev/null 2>&1 |
  sed -n 's/.*Used \([0-9]*\) registers.*/\1 registers/p; s/^ *\([0-9]*\) bytes stack frame.*/\1 B stack/p' |
  paste -sd' ' -; }
printf '| app | plain | instrumented |\n|---|---|---|\n'
for D in "$SRC"/*/; do
  A=$(basename "$D")
  [ -f "$D/$A.cu" ] || continue
  nvcc -arch=sm_90 -std=c++17 -ptx -lineinfo "$D/$A.cu" -o "$OUT/$A.ptx" || continue
  "$INCANT" instrument "$OUT/$A.ptx" -o "$OUT/$A-i.ptx" || continue
  printf '| %s | %s | %s |\n' "$A" "$(info "$OUT/$A.ptx")" "$(info "$OUT/$A-i.ptx")"
done
