#!/bin/sh
# h100.sh INCANT LIB APPS OUT - the case-study measurements of
# docs/stress.md in one device call: Table 5 (every app, fenced and -nf, the
# paper's eight environments), more runs of reduction-nf with the placement
# environments, and the overhead of the instrumenting build with everything
# off. APPS is build-apps.sh's output (instr/ and plain/). Writes under OUT
# and prints the tables last. Budgets come from the environment:
# T5 ("--runs 2"), RED ("--runs 8"), REPEAT (20), ROUNDS (1).
set -u
INCANT=$1 LIB=$2 APPS=$3 OUT=$4
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
sh "$HERE/table5.sh" "$INCANT" "$APPS/instr" "$OUT/t5" "${T5:---runs 2}" all \
  >"$OUT/table5.md" 2>&1
# shellcheck disable=SC2086
"$INCANT" stress --env none-,sys-,rand-,cache-,cache+,none-:spread1,rand-:spread1,cache-:spread1 \
  ${RED:---runs 8} --timeout 8 --json --no-progress --label reduction-nf \
  -- "$APPS/instr/reduction-nf" >"$OUT/reduction-nf.jsonl" 2>&1
python3 "$HERE/table5.py" "$OUT/reduction-nf.jsonl" >"$OUT/reduction-nf.md" 2>&1
ROUNDS=${ROUNDS:-1} sh "$HERE/overhead.sh" "$LIB" "$APPS" "${REPEAT:-20}" \
  >"$OUT/overhead.md" 2>&1
cat "$OUT/table5.md" "$OUT/reduction-nf.md" "$OUT/overhead.md"
