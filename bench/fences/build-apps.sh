#!/bin/sh
# build-apps.sh INCANT OUT [ARCHS] - builds the case-study applications
# (apps/) into OUT/fences through incant's instrumenting build with the
# switchable fences (passes randomise,fences), for `incant fences` and
# `incant fences cost`. ARCHS: CMAKE_CUDA_ARCHITECTURES syntax (default 90).
set -eu
INCANT=$1 OUT=$2 ARCHS=${3:-90}
SRC=$(cd "$(dirname "$0")/../../apps" && pwd)
export PATH=/usr/local/cuda/bin:$PATH
mkdir -p "$OUT"
(
  eval "$("$INCANT" build-env --passes randomise,fences)"
  export INCANT_BUILD_LOG="$OUT/fences-build.log"
  cmake -S "$SRC" -B "$OUT/fences" -G Ninja -DINCANT_APPS_CUDA_ARCHITECTURES="$ARCHS" >/dev/null
  cmake --build "$OUT/fences" -j "${JOBS:-$(nproc)}" >/dev/null
)
for F in "$OUT"/fences/*; do
  [ -f "$F" ] && [ -x "$F" ] || continue
  "$INCANT" sites "$F" >/dev/null || { echo "not instrumented: $F"; exit 1; }
done
echo "built: $(cd "$OUT/fences" && for F in *; do [ -f "$F" ] && [ -x "$F" ] && printf "%s " "$F"; done)"
