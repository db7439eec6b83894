#!/bin/sh
# table5.sh INCANT APPS OUT BUDGET [ENVS] [NAMES] - the PLDI'16 paper's
# Table 5 for this GPU: every case-study application in APPS (built through
# incant, build-apps.sh), fenced and -nf, under `incant stress` in each
# environment; BUDGET per cell is incant stress's "--runs N" or "--time 5s".
# Appends one JSON line per application to OUT/table5.jsonl and prints the
# table (table5.py) last.
set -u
INCANT=$1 APPS=$2 OUT=$3 BUDGET=$4
ENVS=${5:-all}
NAMES=${6:-"dot hashtable reduction scan octree taskqueue barneshut ticketlock semaphore pipeline stack gridbarrier"}
mkdir -p "$OUT"
for A in $NAMES; do
  for V in "" -nf; do
    B=$APPS/$A$V
    [ -x "$B" ] || continue
    # shellcheck disable=SC2086
    "$INCANT" stress --env "$ENVS" $BUDGET --timeout 8 --json \
      --no-progress --label "$A$V" -- "$B" >>"$OUT/table5.jsonl" 2>>"$OUT/table5.err"
  done
done
python3 "$(dirname "$0")/table5.py" "$OUT/table5.jsonl"
