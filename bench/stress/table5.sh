#!/bin/sh
# table5.sh INCANT APPS OUT BUDGET [ENVS] [NAMES] - the PLDI'16 paper's
# Table 5 for this GPU: every case-study application in APPS (built through
# incant, build-apps.sh), fenced and -nf, under `incant stress` in each
# environment; BUDGET per cell is incant stress's "--runs N" or "--time 5s".
# LANES (default 1) applications run at once (each its own process; the GPU
# time-slices between processes, so each run's kernels and stressing blocks
# still have the GPU to themselves while they run). Appends one JSON line
# per application to OUT/table5.jsonl, in NAMES order, and prints the table
# (table5.py) last.
set -u
INCANT=$1 APPS=$2 OUT=$3 BUDGET=$4
ENVS=${5:-all}
NAMES=${6:-"dot hashtable reduction scan octree taskqueue barneshut ticketlock semaphore pipeline stack gridbarrier"}
mkdir -p "$OUT/rows"
export INCANT APPS OUT BUDGET ENVS
for A in $NAMES; do echo "$A"; echo "$A-nf"; done |
  xargs -P "${LANES:-1}" -n 1 sh -c '
    B=$APPS/$1
    [ -x "$B" ] || exit 0
    # shellcheck disable=SC2086
    "$INCANT" stress --env "$ENVS" $BUDGET --timeout 8 --json --no-progress \
      --label "$1" -- "$B" >"$OUT/rows/$1.json" 2>"$OUT/rows/$1.err"' row
for A in $NAMES; do
  for V in "" -nf; do
    [ -s "$OUT/rows/$A$V.json" ] && cat "$OUT/rows/$A$V.json" >>"$OUT/table5.jsonl"
    cat "$OUT/rows/$A$V.err" >>"$OUT/table5.err" 2>/dev/null
  done
done
python3 "$(dirname "$0")/table5.py" "$OUT/table5.jsonl"
