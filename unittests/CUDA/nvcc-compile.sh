#!/bin/sh
# Emits the CUDA harness for several tests and compiles each with nvcc for
# sm_90 (no GPU needed). Usage: nvcc-compile.sh BENCH NVCC WORKDIR
set -e
B=$1; NVCC=$2; W=$3
rm -rf "$W"; mkdir -p "$W"
i=0
while read -r ARGS; do
  i=$((i + 1))
  D="$W/$i"
  # shellcheck disable=SC2086
  "$B" $ARGS --emit "$D" > /dev/null
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
LIST
