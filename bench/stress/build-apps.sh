#!/bin/sh
# build-apps.sh INCANT OUT [ARCHS] - builds the case-study applications
# (apps/, a CMake project of its own) into OUT/<variant> for each variant
# of $VARIANTS (default "plain instr"):
#   plain   as they are, for the overhead comparison;
#   instr   through incant's instrumenting build (eval "$(incant
#           build-env)": nvcc's --ptxas-prefix, CMake's compiler probe
#           included), for incant stress;
#   fences  the same with the switchable fences (build-env --passes
#           randomise,fences), for incant fences.
# ARCHS: CMAKE_CUDA_ARCHITECTURES syntax (default 90).
set -eu
INCANT=$1 OUT=$2 ARCHS=${3:-90}
SRC=$(cd "$(dirname "$0")/../../apps" && pwd)
export PATH=/usr/local/cuda/bin:$PATH
JOBS=${JOBS:-$(nproc)}
mkdir -p "$OUT"
for V in ${VARIANTS:-plain instr}; do
  (
    case $V in
    plain) ;;
    instr) eval "$("$INCANT" build-env)" ;;
    fences) eval "$("$INCANT" build-env --passes randomise,fences)" ;;
    *) echo "unknown variant $V (plain, instr, fences)"; exit 2 ;;
    esac
    [ "$V" = plain ] || export INCANT_BUILD_LOG="$OUT/$V-build.log"
    cmake -S "$SRC" -B "$OUT/$V" -G Ninja -DINCANT_APPS_CUDA_ARCHITECTURES="$ARCHS" >/dev/null
    cmake --build "$OUT/$V" -j "$JOBS" >/dev/null
  )
  [ "$V" = plain ] && continue
  for F in "$OUT/$V"/*; do
    [ -f "$F" ] && [ -x "$F" ] || continue
    "$INCANT" sites "$F" >/dev/null || { echo "not instrumented: $F"; exit 1; }
  done
  echo "built $V: $(cd "$OUT/$V" && for F in *; do [ -f "$F" ] && [ -x "$F" ] && printf "%s " "$F"; done)"
done
