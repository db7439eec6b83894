#!/bin/sh
# build-apps.sh INCANT OUT [ARCHS] - builds the case-study applications
# (apps/, a CMake project of its own) twice: OUT/instr through incant's
# instrumenting build (eval "$(incant build-env)": nvcc's --ptxas-prefix,
# CMake's compiler probe included) and OUT/plain as they are, for the
# overhead comparison. ARCHS: CMAKE_CUDA_ARCHITECTURES syntax (default 90).
set -eu
INCANT=$1 OUT=$2 ARCHS=${3:-90}
SRC=$(cd "$(dirname "$0")/../../apps" && pwd)
export PATH=/usr/local/cuda/bin:$PATH
JOBS=$(nproc)
mkdir -p "$OUT"
cmake -S "$SRC" -B "$OUT/plain" -G Ninja -DINCANT_APPS_CUDA_ARCHITECTURES="$ARCHS" >/dev/null
cmake --build "$OUT/plain" -j "$JOBS" >/dev/null
(
  eval "$("$INCANT" build-env)"
  export INCANT_BUILD_LOG="$OUT/instr-build.log"
  cmake -S "$SRC" -B "$OUT/instr" -G Ninja -DINCANT_APPS_CUDA_ARCHITECTURES="$ARCHS" >/dev/null
  cmake --build "$OUT/instr" -j "$JOBS" >/dev/null
)
for F in "$OUT"/instr/*; do
  [ -f "$F" ] && [ -x "$F" ] || continue
  "$INCANT" sites "$F" >/dev/null || { echo "not instrumented: $F"; exit 1; }
done
echo "built: $(cd "$OUT/instr" && for F in *; do [ -f "$F" ] && [ -x "$F" ] && printf "%s " "$F"; done)"
