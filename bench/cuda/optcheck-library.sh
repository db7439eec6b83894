#!/bin/bash
# optcheck on every litmus test of the library (and unittests/CUDA/Inputs):
# emits and compiles each with NVRTC for sm_90 and checks the SASS, in
# parallel on the CPUs (no GPU is used; NVRTC and cuobjdump or nvdisasm
# are). Usage: bench/cuda/optcheck-library.sh BENCH OUTFILE [EMITDIR]
# Prints a count per optcheck result, then every test not plainly ok.
B=${1:?bench binary}; O=${2:?output file}; E=${3:-$(mktemp -d)}
export B E
ls litmus/*/*.litmus unittests/CUDA/Inputs/*.litmus |
  xargs -P "$(nproc)" -I{} bash -c '
    n=$(basename "{}" .litmus)
    r=$("$B" "{}" --emit "$E/$n" 2>&1 | grep -E "optcheck|error" | head -1)
    echo "$n: $r"' | sort > "$O"
echo "$(wc -l < "$O") tests"
sed 's/^[^:]*: //; s/(ptxas -O\([01]\).*/(ptxas -O\1)/' "$O" | sort | uniq -c
grep -v ': optcheck: ok$' "$O"
