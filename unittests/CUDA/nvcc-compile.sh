#!/bin/sh
# Emits the CUDA harness for several tests and compiles each with nvcc for
# sm_90 (no GPU needed). Usage: nvcc-compile.sh BENCH NVCC WORKDIR SRCDIR
# Lines naming a .litmus file (relative to SRCDIR) need BENCH built with
# the litmus parser; they are skipped otherwise.
set -e
B=$1; NVCC=$2; W=$3; S=${4:-.}
rm -rf "$W"; mkdir -p "$W"
i=0
while read -r ARGS; do
  i=$((i + 1))
  D="$W/$i"
  case "$ARGS" in
    *.litmus*) ARGS="$S/$ARGS" ;;
  esac
  # shellcheck disable=SC2086
  if ! "$B" $ARGS --emit "$D" > "$W/emit.log" 2>&1; then
    if grep -q 'built without the litmus parser' "$W/emit.log"; then
      echo "skipped (no parser): $ARGS"; continue
    fi
    cat "$W/emit.log"; exit 1
  fi
  "$NVCC" -arch=sm_90 -std=c++17 -diag-suppress 177,550 -c "$D/test.cu" \
    -o "$D/test.o"
  echo "ok: $ARGS"
done <<LIST
MP
MP --fence membar.gl
SB --fence fence.sc.gpu
LB --place warp
SB --place lane --shared
MP --place warp --shared
MP --place cluster
litmus/bar/MP+bar.sync+warp-shared.litmus
litmus/bar/SB+bar.sync+warp-global.litmus
unittests/CUDA/Inputs/MP+u64-pointer.litmus
unittests/CUDA/Inputs/SB+bar.sync+u64+cta.litmus
litmus/CoRR/CoRR+cta-global.litmus
LIST
