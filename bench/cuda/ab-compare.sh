#!/bin/bash
# The same library test through two builds of the CUDA bench program (e.g.
# before and after a refactoring), interleaved, for histogram shape and
# throughput. Usage: bench/cuda/ab-compare.sh OLD_BENCH NEW_BENCH OUTDIR
#   [TEST.litmus] [RUNS] [bench options...]
# Prints, per run, the histogram (states and counts) and a JSON line, then a
# table: build, run, instances, weak (the condition's states), weak share,
# instances/s.
A=${1:?old bench binary}; B=${2:?new bench binary}; O=${3:?output dir}
T=${4:-litmus/SB/SB+cta-global.litmus}; N=${5:-3}
shift 5 2>/dev/null || shift $#
OPTS=("$@")
[ ${#OPTS[@]} -eq 0 ] && OPTS=(--iterations 1000 --random)
mkdir -p "$O"
: > "$O/runs.jsonl"
for i in $(seq 1 "$N"); do
  for build in old new; do
    bin=$A; [ "$build" = new ] && bin=$B
    echo "### $build run $i: $bin $T ${OPTS[*]} --json"
    timeout 120 "$bin" "$T" "${OPTS[@]}" --json > "$O/$build-$i.txt" 2>&1
    echo "rc=$?"
    sed -n '/^Histogram/,/^Witnesses/p' "$O/$build-$i.txt"
    grep '^Instances\|^optcheck\|^Parameters' "$O/$build-$i.txt"
    grep '^JSON ' "$O/$build-$i.txt" | sed "s/^JSON {/{\"build\":\"$build\",\"run\":$i,/" >> "$O/runs.jsonl"
  done
done
echo "### build run instances weak weak-share instances/s"
sed -E 's/.*"build":"([a-z]+)","run":([0-9]+).*"instances":([0-9]+),"weak":([0-9]+),.*"instances_per_s":([0-9.e+]+).*/\1 \2 \3 \4 \5/' "$O/runs.jsonl" |
  awk '{ printf "%s %s %s %s %.3e %s\n", $1, $2, $3, $4, $4 / ($3 ? $3 : 1), $5 }'
