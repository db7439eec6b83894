#!/usr/bin/env bash
# Compiles the CUDA kernels of a suite copy to PTX (nvcc's optimised build,
# as incant race makes it) into OUT, and writes OUT/list.txt for
# `RaceBench --ptx-list=OUT/list.txt`, which times the analysis alone:
#
#   bench/Race/suite-ptx.sh gpuverify COPY OUT
#   build/bench/Race/RaceBench --ptx-list=OUT/list.txt
#
# The -D options of a GPUVerify kernel's second line are passed on. Files
# nvcc rejects are left out (suites.sh counts them as not analysed).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -eq 3 ] || { sed -n 2,8p "$0" >&2; exit 2; }
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
suite=$1
copy=$(cd "$2" && pwd) || exit 2
mkdir -p "$3" && out=$(cd "$3" && pwd) || exit 2
: >"$out/list.txt"
case $suite in
gpuverify)
  dir=$copy/testsuite/CUDA
  flags=(-include "$here/gpuverify-stubs.h")
  ;;
scor)
  dir=$copy/microbenchmarks/src
  flags=()
  ;;
indigo)
  dir=$copy/indigo/indigo_sources
  flags=(-I"$copy/indigo/indigo_include")
  ;;
*)
  echo "suite-ptx.sh: unknown suite '$suite' (gpuverify, scor or indigo)" >&2
  exit 2
  ;;
esac
cd "$dir" || exit 2
for f in $(find . -name '*.cu' | sort); do
  name=$(echo "${f#./}" | tr '/' '_')
  ptx=$out/${name%.cu}.ptx
  extra=()
  if [ "$suite" = gpuverify ]; then
    for opt in $(sed -n 2p "$f" | tr -d '\r' | sed 's,^//,,'); do
      case $opt in -D*) extra+=("$opt") ;; esac
    done
    grep -q curand "$f" && extra+=(-include curand_kernel.h)
  fi
  if "$NVCC" -arch=sm_90 -ptx -lineinfo "${flags[@]}" "${extra[@]}" "$f" \
    -o "$ptx" 2>/dev/null; then
    echo "$ptx" >>"$out/list.txt"
  fi
done
wc -l <"$out/list.txt" | xargs echo "PTX files:" >&2
