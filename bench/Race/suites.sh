#!/usr/bin/env bash
# Runs `incant race` over a copy of a public race-detection suite, one kernel
# file at a time, as the suite gives it, and prints one line per file:
#   path|label|exit code|races divergent-barriers unknowns|seconds|error
# (the counts are "- - -" where incant gave no JSON). bench/Race/matrix.py
# turns the lines into the confusion matrix of docs/race.md.
#
#   bench/Race/suites.sh gpuverify COPY > gv.txt   # mc-imperial/gpuverify
#   bench/Race/suites.sh scor COPY > scor.txt      # csl-iisc/ScoR
#   bench/Race/suites.sh scor-apps COPY > apps.txt # ScoR's applications
#   bench/Race/suites.sh indigo COPY > indigo.txt  # HiRace-Artifact-SC24
#   bench/Race/suites.sh -j 16 indigo COPY > indigo.txt   # 16 files at once
#
# COPY is a checkout of the suite's repository (measure on copies outside
# this repository; docs/race.md says which commits). INCANT picks the binary
# (default build/tools/incant/incant of this checkout). SAMPLE=K runs every
# K-th file of the suite (in sorted order) instead of all, from the first,
# or from the J+1-th with SAMPLE_FROM=J.
#
# GPUVerify kernels get the launch and -D options of their second line
# (a block of more than 1024 threads stays symbolic), and
# --assume-pure-externals: that suite's convention is that a function
# declared without a body has no effect on memory (GPUVerify treats it so);
# the reports name every function the assumption was used for.
#
# Labels: GPUVerify's kernels say pass or xfail on their first line;
# bench/Race/gpuverify-labels.tsv relabels those whose expected result is not
# about a race (an assertion, a null pointer, a Bugle error: "other") and
# those that race by incant's definition although GPUVerify passes them
# (warp-synchronous code under sm_70 rules, same-value writes). ScoR's file
# names start with race_ or norace_. Indigo's file names carry their bugs:
# atomicBug, guardBug, raceBug and syncBug are races, boundsBug alone is an
# out-of-bounds access ("bounds only").
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
INCANT=${INCANT:-$here/../../build/tools/incant/incant}
usage() { sed -n 2,20p "$0" >&2; exit 2; }
jobs=1
if [ "${1:-}" = -j ]; then
  [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || usage
  jobs=$2
  shift 2
fi
[ $# -eq 2 ] || usage
suite=$1
copy=$(cd "$2" && pwd) || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run LABEL FILE ARGS...: one line for FILE, written to $tmp/N.out (N: the
# file's place in the run), N.err holding incant's messages; the lines are
# printed in order as soon as they and those before them are done (so that a
# run stopped half-way has printed what it finished).
next=0 printed=0
run() {
  local n=$next
  next=$((next + 1))
  if [ "$jobs" -gt 1 ]; then
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    analyse "$n" "$@" &
  else
    analyse "$n" "$@"
  fi
  flush
}

flush() {
  while [ -e "$tmp/$printed.out" ]; do
    cat "$tmp/$printed.out"
    printed=$((printed + 1))
  done
}

analyse() {
  local n=$1 label=$2 file=$3
  shift 3
  local start end out rc counts err=$tmp/$n.err
  start=$(date +%s.%N)
  out=$("$INCANT" race "$file" --json "$@" 2>"$err")
  rc=$?
  end=$(date +%s.%N)
  counts=$(printf '%s' "$out" | python3 -c '
import json, sys
try:
    d = json.load(sys.stdin)
    s = [k["summary"] for k in d["kernels"]]
    print(sum(x["races"] for x in s), sum(x["divergent_barriers"] for x in s),
          sum(x["unknown_pairs"] + x["unknown_barriers"] for x in s))
except Exception:
    print("- - -")')
  printf '%s|%s|%s|%s|%.3f|%s\n' "$file" "$label" "$rc" "$counts" \
    "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')" \
    "$(head -c 160 "$err" | tr '\n|' '  ')" \
    >"$tmp/$n.part"
  mv "$tmp/$n.part" "$tmp/$n.out"
}

# sample: every SAMPLE-th line of the input, from line SAMPLE_FROM + 1.
sample() {
  awk -v k="${SAMPLE:-1}" -v j="${SAMPLE_FROM:-0}" '(NR - 1) % k == j'
}

# dims "--blockDim=[8,8]" -> 8,8; empty where CUDA does not allow it (more
# than 1024 threads in a block), so that the launch stays symbolic.
dims() {
  local v=${1#*=}
  v=${v#[}
  v=${v%]}
  local n=1 d
  for d in ${v//,/ }; do n=$((n * d)); done
  if [ "$2" = block ] && [ "$n" -gt 1024 ]; then return; fi
  echo "$v"
}

case $suite in
gpuverify)
  cd "$copy/testsuite/CUDA" || exit 2
  for f in $(find . -name '*.cu' | sort | sample); do
    head=$(head -1 "$f" | tr 'A-Z' 'a-z' | tr -d '\r ')
    label=$(awk -F'\t' -v p="$f" '$1 == p { print $2 }' \
      "$here/gpuverify-labels.tsv")
    if [ -z "$label" ]; then
      case $head in
      //pass) label=safe ;;
      //xfail:not_all_verified) label=race ;;
      *) label=other ;;
      esac
    fi
    args=()
    for opt in $(sed -n 2p "$f" | tr -d '\r' | sed 's,^//,,'); do
      case $opt in
      --blockDim=*)
        d=$(dims "$opt" block)
        [ -n "$d" ] && args+=(--block-dim "$d")
        ;;
      --gridDim=*)
        d=$(dims "$opt" grid)
        [ -n "$d" ] && args+=(--grid-dim "$d")
        ;;
      -D*) args+=(--compiler-arg="$opt") ;;
      esac
    done
    # GPUVerify's own cuda.h brings cuRAND's device API.
    grep -q curand "$f" && args+=(--compiler-arg=-include \
      --compiler-arg=curand_kernel.h)
    run "$label" "$f" "${args[@]}" --assume-pure-externals \
      --compiler-arg=-include \
      --compiler-arg="$here/gpuverify-stubs.h"
  done
  ;;
scor)
  cd "$copy/microbenchmarks/src" || exit 2
  for f in $(ls *.cu | sample); do
    case $f in race_*) label=race ;; *) label=safe ;; esac
    nb=$(grep -o 'define NBLOCKS *[0-9]*' "$f" | awk '{ print $3 }')
    tp=$(grep -o 'define TPERBLK *[0-9]*' "$f" | awk '{ print $3 }')
    args=()
    [ -n "$nb" ] && args+=(--grid-dim "$nb")
    [ -n "$tp" ] && args+=(--block-dim "$tp")
    run "$label" "$f" "${args[@]}"
  done
  ;;
scor-apps)
  # ScoR's seven applications: each kernel file as its Makefile builds it
  # (its NBLOCKS and NTHREADS as -D and as the launch), once as shipped
  # (race-free) and once with -DRACEY (the injected races).
  cd "$copy/benchmarks" || exit 2
  for d in $(ls -d */ | tr -d / | sample); do
    # The Makefile's files: the kernel file, or the main file alone where
    # it holds the kernels (reduction).
    files=$(sed -n 's/^FILES *:= *//p' "$d/Makefile")
    f=$d/$(printf '%s\n' $files | grep -v _main.cu | head -1)
    [ "$f" = "$d/" ] && f=$d/$(printf '%s\n' $files | head -1)
    nb=$(sed -n 's/^NBLOCKS *?= *//p' "$d/Makefile")
    tp=$(sed -n 's/^NTHREADS *?= *//p' "$d/Makefile")
    args=(--grid-dim "$nb" --block-dim "$tp" --compiler-arg=-I"$d"
      --compiler-arg=-DNBLOCKS="$nb" --compiler-arg=-DNTHREADS="$tp")
    run safe "$f" "${args[@]}"
    run race "$f" "${args[@]}" --compiler-arg=-DRACEY
  done
  ;;
indigo)
  cd "$copy/indigo" || exit 2
  for f in $(find indigo_sources -name '*.cu' | sort | sample); do
    bugs=$(basename "$f" .cu | grep -o '[a-z]*Bug' | sort -u | tr '\n' ' ')
    if [ -z "$bugs" ]; then
      label=safe
    elif [ "$bugs" = "boundsBug " ]; then
      label=bounds
    else
      label=race
    fi
    run "$label" "$f" --compiler-arg=-Iindigo_include
  done
  ;;
*)
  echo "suites.sh: unknown suite '$suite' (gpuverify, scor, scor-apps or indigo)" >&2
  exit 2
  ;;
esac
wait
flush
