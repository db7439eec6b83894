#!/bin/sh
# h100-lanes.sh DIST APPS REAL OUT - the third device call of docs/stress.md
# and docs/fences.md: everything in one call, in lanes, against one
# deadline (DEADLINE seconds from the start, default 500):
#   lanes 1-2   incant fences on stack-nf and taskqueue-nf (search-one.sh,
#               SEARCH options, LIMIT s each), each followed by the cost of
#               its reduced set (COST_RUNS runs a variant) if it ended;
#   lanes 3-    Table 5: every case-study app, fenced and -nf, in the
#               paper's eight environments and the same eight with
#               :spread1 (T5 budget per cell, T5_LANES apps at once);
#   last lane   CUDA by Example's hash table (REAL/cbe-ht, and cbe-ht-nf:
#               lock.h without its two fences) under stress;
#   then alone  the overhead of the instrumented build with everything off
#               for OVERHEAD_NAMES (bench/stress/overhead.sh, ROUNDS=3).
# Other knobs: SEARCH_NAMES, ARGS_<name> (search-one.sh), T5_ENVS,
# T5_NAMES, REAL_ENVS, REAL_RUNS, REAL_LIMIT, OVERHEAD_NAMES ("none":
# skip). A store WORK/NAME.sqlite already there is resumed.
# DIST: bin/incant, lib/ (libincant-inject.so under incant/, and the
# libraries incant links), share/incant/profiles. APPS: build-apps.sh's
# plain/, instr/, fences/. Logs and tables under OUT; the tables last.
set -u
DIST=$1 APPS=$2 REAL=$3 OUT=$4
HERE=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$DIST/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
INCANT=$DIST/bin/incant LIB=$DIST/lib/incant/libincant-inject.so
START=$(date +%s) DEADLINE=${DEADLINE:-500}
left() { echo $((START + DEADLINE - $(date +%s))); }
W=${WORK:-/tmp/h100-work}
mkdir -p "$OUT" "$W"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv \
  >"$OUT/machine.txt" 2>&1

# Lanes 1-2: the searches, then their cost.
SEARCH=${SEARCH:-"--env sys+ --iterations 1 --stable-runs 24 --timeout 10 --budget 330s"}
ARGS=${ARGS:-"--repeat 50 --timeout-ms 200"}
LIMIT=${LIMIT:-390}
export INCANT APPS W SEARCH ARGS LIMIT
for A in ${SEARCH_NAMES:-stack taskqueue}; do
  (
    sh "$HERE/fences/search-one.sh" "$A"
    T=$(($(left) - 75))
    if awk -v a="$A" '$1 == a { rc = $2 } END { exit rc == "0" ? 0 : 1 }' \
        "$W/searches.tsv" && [ "$T" -gt 10 ]; then
      # shellcheck disable=SC2086
      timeout -k 5 "$T" "$INCANT" fences cost --all-runs \
        --runs "${COST_RUNS:-20}" --timeout 10 --set "$W/$A.set.json" \
        --results "$W/$A.cost.jsonl" --label "$A-nf" \
        -- "$APPS/fences/$A-nf" $ARGS >"$W/$A.cost.txt" 2>&1
      echo "$A cost rc $?" >>"$W/cost.rc"
    fi
  ) &
done

# Lanes 3-: Table 5 with and without placement.
SPREAD=none-:spread1,none+:spread1,sys-:spread1,sys+:spread1,rand-:spread1,rand+:spread1,cache-:spread1,cache+:spread1
# shellcheck disable=SC2086
LANES=${T5_LANES:-6} timeout -k 5 "$(($(left) - 100))" sh "$HERE/stress/table5.sh" \
  "$INCANT" "$APPS/instr" "$W/t5" "${T5:---runs 10 --time 4s}" "${T5_ENVS:-all,$SPREAD}" \
  ${T5_NAMES:+"$T5_NAMES"} >"$W/table5.md" 2>&1 &

# Last lane: CUDA by Example's hash table, with and without its fences.
(
  for B in cbe-ht cbe-ht-nf; do
    timeout -k 5 "${REAL_LIMIT:-120}" "$INCANT" stress \
      --env "${REAL_ENVS:-none-,sys+,rand+,cache+,none-:spread1,cache+:spread1}" \
      --runs "${REAL_RUNS:-5}" --timeout 30 --json --no-progress \
      --expect-stdout "All [0-9]+ elements found" --label "$B" \
      -- "$REAL/$B" >>"$W/real.jsonl" 2>>"$W/real.err"
    echo "$B rc $?" >>"$W/real.rc"
  done
  python3 "$HERE/stress/table5.py" "$W/real.jsonl" >"$W/real.md" 2>&1
  # Then SPREAD_NAMES again in the placement environments alone.
  for A in ${SPREAD_NAMES:-}; do
    timeout -k 5 60 "$INCANT" stress --env "$SPREAD" --runs "${SPREAD_RUNS:-3}" \
      --timeout 8 --json --no-progress --label "$A" -- "$APPS/instr/$A" \
      >>"$W/spread.jsonl" 2>>"$W/spread.err"
  done
  [ -s "$W/spread.jsonl" ] && python3 "$HERE/stress/table5.py" "$W/spread.jsonl" >"$W/spread.md" 2>&1
) &
wait

# Alone on the GPU: the overhead with everything off.
T=$(($(left) - 5))
[ "$T" -gt 10 ] && [ "${OVERHEAD_NAMES:-}" != none ] && ROUNDS=${ROUNDS:-3} timeout -k 5 "$T" sh "$HERE/stress/overhead.sh" \
  "$LIB" "$APPS" "${REPEAT:-100}" "${OVERHEAD_NAMES:-pipeline,stack,gridbarrier}" \
  >"$W/overhead.md" 2>&1

python3 "$HERE/fences/table.py" "$W" /dev/null >"$W/fences.md" 2>&1
cp "$W/t5/table5.jsonl" "$W/real.jsonl" "$W/spread.jsonl" "$OUT/" 2>/dev/null
cat "$W"/*.cost.jsonl >"$OUT/cost.jsonl" 2>/dev/null
tar czf "$OUT/logs.tgz" -C "$W" .
echo "elapsed $(($(date +%s) - START)) s"
cat "$OUT/machine.txt" "$W/searches.tsv" "$W/cost.rc" "$W/fences.md" \
  "$W/real.rc" "$W/real.md" "$W/spread.md" "$W/overhead.md" "$W/table5.md" 2>/dev/null
