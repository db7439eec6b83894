#!/bin/sh
# h100-session.sh DIST APPS OUT - everything docs/fences.md and the follow-up
# of docs/stress.md measured on the H100, in one device call:
#   1. incant fences and incant fences cost on the case-study applications
#      (bench/fences/h100.sh: the searches, LANES at a time, then the cost);
#   2. Table 5 rows of reduction-nf and reduction with T5_RUNS runs per
#      cell (as bench/stress/table5.sh makes them);
#   3. the overhead of the instrumenting build with everything off
#      (bench/stress/overhead.sh, ROUNDS=3, --repeat 100).
# DIST holds bin/incant, lib/incant/libincant-inject.so and the libraries
# incant needs (fmt, sqlite3), share/incant/profiles; APPS holds plain/,
# instr/ and fences/ (VARIANTS="plain instr fences" bench/stress/build-apps.sh).
# Every stage has its own time limit; tables go to OUT (at most 8 files).
set -u
DIST=$1 APPS=$2 OUT=$3
HERE=$(cd "$(dirname "$0")" && pwd)
STRESS=$HERE/../stress
export LD_LIBRARY_PATH="$DIST/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
INCANT=$DIST/bin/incant
LIB=$DIST/lib/incant/libincant-inject.so
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv \
  >"$OUT/machine.txt" 2>&1

# 1. Fences (writes OUT/fences.md, OUT/cost.jsonl, OUT/fig5.svg,
#    OUT/fences-logs.tgz).
timeout -k 10 "${FENCES_LIMIT:-340}" sh "$HERE/h100.sh" "$INCANT" "$APPS" "$OUT" \
  >"$OUT/fences-stage.log" 2>&1

# 2. Table 5 for reduction-nf, then reduction (as table5.sh runs them).
W=${WORK:-/tmp/fences-work}
mkdir -p "$W/t5"
for A in reduction-nf reduction; do
  timeout -k 10 "${T5_LIMIT:-70}" "$INCANT" stress --env all \
    --runs "${T5_RUNS:-20}" --timeout 8 --json --no-progress --label "$A" \
    -- "$APPS/instr/$A" >>"$W/t5/table5.jsonl" 2>>"$W/t5/table5.err"
done
python3 "$STRESS/table5.py" "$W/t5/table5.jsonl" >"$W/table5.md" 2>&1

# 3. Overhead with everything off.
ROUNDS=${ROUNDS:-3} timeout -k 10 "${OVERHEAD_LIMIT:-80}" sh "$STRESS/overhead.sh" \
  "$LIB" "$APPS" "${REPEAT:-100}" >"$W/overhead.md" 2>&1

cat "$W/table5.md" "$W/overhead.md" >"$OUT/stress.md"
cp "$W/t5/table5.jsonl" "$OUT/table5.jsonl" 2>/dev/null
tar czf "$OUT/fences-logs.tgz" -C "$W" .
cat "$OUT/machine.txt" "$OUT/fences.md" "$OUT/stress.md"
