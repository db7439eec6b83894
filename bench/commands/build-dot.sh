#!/bin/sh
# build-dot.sh INCANT OUT - apps/dot built through incant's instrumenting
# build (incant nvcc, sm_90) for the one-call check of h200.sh: dot-nf
# (pass randomise, for stress), dot-f and dot-nf-f (randomise,fences, for
# fences and its --reference), dot-race and dot-nf-race (race, for race
# --dynamic). Needs nvcc; no GPU.
set -eu
INCANT=$1 OUT=$2
SRC=$(cd "$(dirname "$0")/../../apps" && pwd)
mkdir -p "$OUT"
build() { # NAME PASSES [NVCC ARGS...]
  N=$1 P=$2; shift 2
  INCANT_PASSES=$P "$INCANT" nvcc -arch=sm_90 -std=c++17 -lineinfo \
    -I"$SRC/common" "$SRC/dot/dot.cu" "$@" -o "$OUT/$N"
}
build dot-nf randomise -DAPP_NF
build dot-f randomise,fences
build dot-nf-f randomise,fences -DAPP_NF
build dot-race race
build dot-nf-race race -DAPP_NF
ls "$OUT"
