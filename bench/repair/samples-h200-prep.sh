#!/bin/bash
# The local half of docs/repair.md's "On the H200" table: make the orig,
# unrep and rep sources of the NVIDIA samples and the folder that travels to
# the GPU machine (where bench/repair/samples-h200.sh builds and runs them).
# It needs incant repair, so Z3 and libclang: run it here, not on the device.
#
#   bench/repair/samples-h200-prep.sh CUDA_SAMPLES DEST [INCANT_BUILD]
#
# CUDA_SAMPLES: a work tree of NVIDIA/cuda-samples (docs: c94ff366); from a
# bare copy: git --git-dir=REPO archive HEAD Common Samples | tar -x -C DIR,
# and git --git-dir=REPO rev-parse HEAD >DIR/COMMIT.
# DEST: a folder git ignores inside the repository (.dev-samples), emptied.
# INCANT_BUILD: the build tree (default build).
#
# DEST gets Common/ (the headers), src/orig|unrep|rep/SAMPLE/, repair/ (each
# incant repair's output, exit status and patch) and xbin/ (incant, incant-all
# and libz3 gzipped, the injected library, libfmt, libsqlite3).
set -u
cs=$(cd "${1:?cuda-samples checkout}" && pwd) dest=${2:?destination}
b=$(cd "${3:-build}" && pwd)
[ -d "$cs/Samples" ] && [ -d "$cs/Common" ] || { echo "prep: no Samples/ and Common/ in $cs (a work tree, not a bare repository)" >&2; exit 2; }
incant=$b/tools/incant/incant
rm -rf "$dest" && mkdir -p "$dest"/{Common,src/orig,src/unrep,src/rep,repair,xbin}
dest=$(cd "$dest" && pwd)
cp "$cs"/Common/*.h "$dest/Common/"
git -C "$cs" rev-parse HEAD >"$dest/cuda-samples.commit" 2>/dev/null ||
  cp "$cs/COMMIT" "$dest/cuda-samples.commit" 2>/dev/null  # an archive: its commit by hand

# orig: the samples as they are, with the two size edits of the docs.
S=$cs/Samples
cp -r "$S/5_Domain_Specific/SobolQRNG" "$S/2_Concepts_and_Techniques/scan" \
  "$S/2_Concepts_and_Techniques/reduction" "$S/2_Concepts_and_Techniques/histogram" \
  "$S/5_Domain_Specific/binomialOptions" "$S/0_Introduction/matrixMul" "$dest/src/orig/"
o=$dest/src/orig
rm -rf "$o"/*/doc "$o"/*/*.sln "$o"/*/*.vcxproj* "$o"/*/Makefile "$o"/*/CMakeLists.txt
sed -i 's/^const int          numRuns    = 16;/const int          numRuns    = 1;/' "$o/histogram/main.cpp"
sed -i 's/^#define MAX_OPTIONS 1024$/#define MAX_OPTIONS 128/' "$o/binomialOptions/binomialOptions_common.h"
grep -q 'numRuns    = 1;' "$o/histogram/main.cpp" || echo "prep: numRuns edit failed" >&2
grep -q 'MAX_OPTIONS 128' "$o/binomialOptions/binomialOptions_common.h" || echo "prep: MAX_OPTIONS edit failed" >&2

# NAME ORIG-DIR FILE LINES: unrep = orig less LINES of FILE (each must be a
# barrier).
mk() {
  local name=$1 from=$2 file=$3 lines=$4 u=$dest/src/unrep/$1 l
  cp -r "$o/$from" "$u"
  for l in $lines; do
    sed -n "${l}p" "$u/$file" | grep -q -E 'cg::sync\(cta\)|__syncthreads\(\)' ||
      echo "prep: $name: line $l of $file is no barrier" >&2
  done
  sed -i "$(for l in $lines; do printf '%sd;' "$l"; done)" "$u/$file"
}
# NAME FILE KERNEL LAUNCH...: incant repair on unrep's FILE; rep = unrep with
# its source patch. A second call for NAME (another launch) is made only
# when the first gave no patch; repair/NAME.txt holds every attempt.
rp() {
  local name=$1 file=$2 kernel=$3 u=$dest/src/unrep/$1 r=$dest/src/rep/$1
  shift 3
  [ -d "$r" ] && return
  { echo "\$ incant repair $file --kernel '$kernel' $* -X -I\$D/Common --patch $name.diff"
    (cd "$u" && "$incant" repair "$file" --kernel "$kernel" "$@" -X "-I$dest/Common" \
       --patch "$dest/repair/$name.diff") 2>&1
    echo "rc $?"; } >>"$dest/repair/$name.txt"
  if [ -s "$dest/repair/$name.diff" ]; then
    cp -r "$u" "$r"
    (cd "$r" && patch -p1 <"$dest/repair/$name.diff") >>"$dest/repair/$name.txt" 2>&1 ||
      { echo "prep: $name: the patch did not apply" >&2; rm -rf "$r"; }
  else
    rm -f "$dest/repair/$name.diff"
  fi
  echo "$name ($*): $(grep '^kernel ' "$dest/repair/$name.txt" | tail -1 | sed 's/.*): //')" \
    "$([ -d "$r" ] && echo '(patched)' || echo '(no source patch)')"
}
mk SobolQRNG SobolQRNG sobol_gpu.cu 85
rp SobolQRNG sobol_gpu.cu sobolGPU_kernel --block-dim 64
# The docs' launch (the grid and the sizes symbolic) leaves the unsigned
# product n_vectors * blockIdx.y free to wrap: then the launch the sample
# makes on a 132-SM GPU (grid 4 * 132 rounded up to 1024 by 100 dimensions,
# 100000 vectors).
rp SobolQRNG sobol_gpu.cu sobolGPU_kernel --block-dim 64 --grid-dim 1024,100 \
  --param 0=100000 --param 1=100
mk scan scan scan.cu 160
rp scan scan.cu uniformUpdate --block-dim 256
mk reduction2 reduction reduction_kernel.cu "181 189"
rp reduction2 reduction_kernel.cu reduce2 --block-dim 256
mk reduction3 reduction reduction_kernel.cu "218 226"
rp reduction3 reduction_kernel.cu reduce3 --block-dim 256
mk histogram256 histogram histogram256.cu 116
rp histogram256 histogram256.cu mergeHistogram256Kernel --block-dim 256 --grid-dim 256
mk histogram64 histogram histogram64.cu 148
rp histogram64 histogram64.cu mergeHistogram64Kernel --block-dim 256 --grid-dim 64
mk binomialOptions binomialOptions binomialOptions_kernel.cu "106 108"
rp binomialOptions binomialOptions_kernel.cu binomialOptionsKernel --block-dim 128
mk matrixMul matrixMul matrixMul.cu "105 119"
rp matrixMul matrixMul.cu 'MatrixMulCUDA<32>' --block-dim 32,32 --grid-dim 4,4 \
  --param 3=128 --param 4=128

cp "$incant" "$b/lib/incant/libincant-inject.so" "$dest/xbin/"
gzip -c "$b/tools/incant/incant-all" >"$dest/xbin/incant-all.gz"
for l in libfmt.so.9 libsqlite3.so.0; do
  cp -L "$(ldconfig -p | awk -v l=$l '$1 == l {print $NF; exit}')" "$dest/xbin/$l"
done
gzip -c "$(ldconfig -p | awk '$1 == "libz3.so.4" {print $NF; exit}')" >"$dest/xbin/libz3.so.4.gz"
git -C "$b/.." rev-parse HEAD >"$dest/incant.commit" 2>/dev/null
du -sh "$dest"
