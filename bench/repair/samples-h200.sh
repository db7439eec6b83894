#!/bin/bash
# The device half of docs/repair.md's "On the H200" table: build the NVIDIA
# samples three ways (orig, unrep, rep) and unrep and rep again with pass
# race, run each build with the sample's own check and the pass-race builds
# under incant race --dynamic --scheme addr --time-limit 60, and print the
# table last.
#
#   bench/repair/samples-h200.sh [DIR]     # DIR: .dev-samples by default
#
# DIR is what bench/repair/samples-h200-prep.sh made here and the device
# call carried: Common/, src/orig|unrep|rep/SAMPLE/, repair/, xbin/. Logs go
# to $OUT (or DIR/out): machine.txt, summary.tsv, table.md, run.log and
# logs.tgz (every build's, check's and race report's log).
#
# Environment (all optional):
#   SAMPLES="matrixMul scan"   only these rows
#   RACE_ONLY=1                only the pass-race builds and incant race
#   SHADOW_MB=N                incant race --shadow-mb N (default: the tool's)
#   RACE_REGS="matrixMul=64"   nvcc -maxrregcount for a sample's race builds
set -u
set +e
d=$(cd "${1:-.dev-samples}" && pwd)
out=${OUT:-$d/out}
mkdir -p "$out"
w=/tmp/samples-h200
rm -rf "$w" && mkdir -p "$w/bin" "$w/logs" "$w/build" "$w/rows"
exec > >(tee "$out/run.log") 2>&1

for f in "$d"/xbin/*.gz; do [ -e "$f" ] && gunzip -kf "$f"; done
chmod +x "$d/xbin/incant" "$d/xbin/incant-all"
export LD_LIBRARY_PATH=$d/xbin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
export INCANT_INJECT_LIB=$d/xbin/libincant-inject.so
export incant=$d/xbin/incant w d
cellpy=$(cd "$(dirname "$0")" && pwd)/samples-h200-cell.py
export cellpy
export RACE_ONLY=${RACE_ONLY:-} SHADOW_MB=${SHADOW_MB:-} RACE_REGS=${RACE_REGS:-}

{ echo "date_utc: $(date -u '+%Y-%m-%d %H:%M:%S')"
  nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv,noheader |
    sed 's/^/gpu: /'
  nvidia-smi | grep -o 'CUDA Version: [0-9.]*' | sed 's/^/driver_/'
  nvcc --version | grep -m1 release | sed 's/^/nvcc: /'
  echo "cuda-samples: $(cat "$d/cuda-samples.commit" 2>/dev/null)"
  echo "incant: $(cat "$d/incant.commit" 2>/dev/null)"
  echo "cpus: $(nproc)"
  echo "settings: SAMPLES=${SAMPLES:-all} RACE_ONLY=$RACE_ONLY SHADOW_MB=$SHADOW_MB RACE_REGS=$RACE_REGS"
} | tee "$out/machine.txt"

# Rows: NAME, the orig folder, its sources, its arguments.
all_rows=(
  "SobolQRNG|SobolQRNG|sobol.cpp sobol_gold.cpp sobol_gpu.cu sobol_primitives.cpp|"
  "scan|scan|main.cpp scan.cu scan_gold.cpp|"
  "reduction2|reduction|reduction.cpp reduction_kernel.cu|--kernel=2 --n=1048576"
  "reduction3|reduction|reduction.cpp reduction_kernel.cu|--kernel=3 --n=1048576"
  "histogram256|histogram|main.cpp histogram256.cu histogram64.cu histogram_gold.cpp|"
  "histogram64|histogram|main.cpp histogram256.cu histogram64.cu histogram_gold.cpp|"
  "binomialOptions|binomialOptions|binomialOptions.cpp binomialOptions_gold.cpp binomialOptions_kernel.cu|"
  "matrixMul|matrixMul|matrixMul.cu|-wA=128 -hA=128 -wB=128 -hB=128"
)
field() { local IFS='|' r; read -r -a r <<<"$1"; echo "${r[$2]}"; }
rows=()
for r in "${all_rows[@]}"; do
  [ -z "${SAMPLES:-}" ] || [[ " $SAMPLES " == *" $(field "$r" 0) "* ]] && rows+=("$r")
done
rows_flat=$(printf '%s\n' "${rows[@]}")
export rows_flat

# BIN-NAME SOURCE-DIR RACE(0/1) SOURCES...: one nvcc build, in its own copy.
build() {
  local bin=$1 src=$2 race=$3 extra=() n=${1%%.*} kv
  shift 3
  local b=$w/build/$bin
  rm -rf "$b" && cp -r "$src" "$b" && cd "$b" || return 1
  if [ "$race" = 1 ]; then
    for kv in $RACE_REGS; do [ "${kv%%=*}" = "$n" ] && extra=(-maxrregcount="${kv#*=}"); done
  fi
  local t0=$SECONDS
  ( [ "$race" = 1 ] && eval "$("$incant" build-env --passes race)"
    timeout 420 nvcc -O3 -arch=sm_90 -lineinfo "${extra[@]}" -I"$d/Common" "$@" -o "$w/bin/$bin" ) \
    >"$w/logs/$bin.build.log" 2>&1
  echo "build $bin ${extra[*]} rc $? $((SECONDS - t0)) s"
}
export -f build

echo "== builds $(date -u +%T)"
jobs_list=$w/builds.txt
: >"$jobs_list"
if [ -z "$RACE_ONLY" ]; then
  for r in "${rows[@]}"; do
    dir=$(field "$r" 1) srcs=$(field "$r" 2)
    grep -q "^$dir.orig " "$jobs_list" || echo "$dir.orig $d/src/orig/$dir 0 $srcs" >>"$jobs_list"
  done
fi
for r in "${rows[@]}"; do
  n=$(field "$r" 0) srcs=$(field "$r" 2)
  for v in unrep rep; do
    [ -d "$d/src/$v/$n" ] || continue
    echo "$n.$v.race $d/src/$v/$n 1 $srcs" >>"$jobs_list"
    [ -n "$RACE_ONLY" ] || echo "$n.$v $d/src/$v/$n 0 $srcs" >>"$jobs_list"
  done
done
# The reduction's race builds first (its file instantiates every kernel for
# three types: the longest builds), then the rest in list order.
{ grep '^reduction.*race ' "$jobs_list"; grep -v '^reduction.*race ' "$jobs_list"; } |
  xargs -P "$(nproc)" -L 1 bash -c 'build "$@"' _
echo "== builds done $(date -u +%T)"

# NAME VARIANT ARGS: the sample's check (exit 0 = passed).
check() {
  local bin=$w/bin/$1.$2
  [ -n "$RACE_ONLY" ] && { echo -; return; }
  [ -x "$bin" ] || { echo build-failed; return; }
  (cd "$w" && timeout 120 "$bin" $3 </dev/null >"$w/logs/$1.$2.check.log" 2>&1)
  local rc=$?
  case $rc in 0) echo pass ;; 124) echo timeout ;; *) echo "fail($rc)" ;; esac
}
# NAME VARIANT ARGS: incant race --dynamic on the pass-race build; the cell
# (bench/repair/samples-h200-cell.py) says the races and their kernels.
race() {
  local bin=$w/bin/$1.$2.race rep=$w/logs/$1.$2.race.txt sh=()
  [ -x "$bin" ] || { echo build-failed; return; }
  [ -n "$SHADOW_MB" ] && sh=(--shadow-mb "$SHADOW_MB")
  (cd "$w" && timeout 150 "$incant" race --dynamic --scheme addr --time-limit 60 "${sh[@]}" \
     -o "$rep" -- "$bin" $3 </dev/null >"$w/logs/$1.$2.race.log" 2>&1)
  echo "$?" >"$rep.rc"
  python3 "$cellpy" "$rep"
}
# NAME: one row of the table into $w/rows/NAME (the rows run 4 at a time).
row() {
  local rows=() r n dir a o u p ru rr
  while IFS= read -r r; do rows+=("$r"); done <<<"$rows_flat"
  for r in "${rows[@]}"; do [ "$(field "$r" 0)" = "$1" ] && break; done
  n=$(field "$r" 0) dir=$(field "$r" 1) a=$(field "$r" 3)
  echo "row $n start $(date -u +%T)"
  [ "$n" = "$dir" ] || ln -sfn "$w/bin/$dir.orig" "$w/bin/$n.orig"
  o=$(check "$n" orig "$a") u=$(check "$n" unrep "$a")
  p=-; [ -d "$d/src/rep/$n" ] && p=$(check "$n" rep "$a")
  ru=$(race "$n" unrep "$a")
  rr=-; [ -d "$d/src/rep/$n" ] && rr=$(race "$n" rep "$a")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$a" "$o" "$u" "$p" "$ru" "$rr" >"$w/rows/$n"
  echo "row $n done $(date -u +%T)"
}
export -f row check race field

echo "== runs $(date -u +%T)"
for r in "${rows[@]}"; do field "$r" 0; done | xargs -P 4 -I{} bash -c 'row "$1"' _ {}
printf 'sample\targs\torig\tunrep\trep\trace_unrep\trace_rep\n' >"$out/summary.tsv"
for r in "${rows[@]}"; do
  n=$(field "$r" 0)
  cat "$w/rows/$n" 2>/dev/null >>"$out/summary.tsv" || printf '%s\tno row\n' "$n" >>"$out/summary.tsv"
done
echo "== done $(date -u +%T)"

cp -r "$d/repair" "$w/repair" 2>/dev/null
(cd "$w" && tar -czf "$out/logs.tgz" logs repair builds.txt)
{ echo "| sample | args | orig | unrep | rep | race --dynamic on unrep | on rep |"
  echo "|---|---|---|---|---|---|---|"
  tail -n +2 "$out/summary.tsv" | awk -F'\t' '{printf "| %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7}'
} >"$out/table.md"
cat "$out/machine.txt" "$out/table.md"
