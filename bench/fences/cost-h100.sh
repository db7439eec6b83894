#!/bin/sh
# cost-h100.sh LEAD OUT - `incant fences cost` of every -nf application with
# a reduced set, one at a time on the GPU, then (with the time left) how
# long stack-nf stays correct under sys+ stress with every fence on.
#   LEAD: a folder with dist.tar.xz, apps.tar.xz and libincant-inject.so
#   (docs/stress.md: the dist/ and the case-study builds; unpacked to
#   /tmp/dist and /tmp/apps, the paths the sets were made for);
#   the sets: results/h100/sets/NAME.set.json (the reduced sets of
#   docs/fences.md, on the site ids of that apps/ build).
# From the environment: NAMES, RUNS (20, per variant), JOBS (runs at once,
# 1; their kernels one process at a time: `fences cost --jobs`), COST_ARGS
# (more options of `fences cost`, e.g. --energy-steps 50), APP_LIMIT
# (seconds per application, 80), DEADLINE (seconds from the start for the
# costs, 560), END (seconds from the start for everything, 585).
# Writes OUT/cost.jsonl, OUT/fig5.svg, OUT/NAME.cost.txt, OUT/cost.rc
# ("NAME EXIT SECONDS"), OUT/stack-all.txt and OUT/machine.txt.
set -u
LEAD=$1 OUT=$2
HERE=$(cd "$(dirname "$0")" && pwd)
SETS=$HERE/results/h100/sets
NAMES=${NAMES:-"octree barneshut gridbarrier dot ticketlock hashtable pipeline reduction scan semaphore taskqueue"}
RUNS=${RUNS:-20} JOBS=${JOBS:-1} APP_LIMIT=${APP_LIMIT:-80} DEADLINE=${DEADLINE:-560} END=${END:-585}
T0=$(date +%s)
left() { echo $(($1 - ($(date +%s) - T0))); }
mkdir -p /tmp/dist /tmp/apps /tmp/cost-work
tar xJf "$LEAD/dist.tar.xz" -C /tmp/dist &&
  cp "$LEAD/libincant-inject.so" /tmp/dist/lib/incant/ &&
  tar xJf "$LEAD/apps.tar.xz" -C /tmp/apps || exit 3
export LD_LIBRARY_PATH=/tmp/dist/lib
INCANT=/tmp/dist/bin/incant
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit \
    --format=csv; } >"$OUT/machine.txt" 2>&1
for A in $NAMES; do
  L=$(left "$DEADLINE")
  [ "$L" -gt 20 ] || { echo "$A skipped: deadline" >>"$OUT/cost.rc"; continue; }
  [ "$L" -lt "$APP_LIMIT" ] || L=$APP_LIMIT
  X="--repeat 20 --timeout-ms 200"
  [ "$A" = semaphore ] && X="--repeat 5 --timeout-ms 1000"
  T1=$(date +%s)
  # shellcheck disable=SC2086
  timeout -k 5 "$L" "$INCANT" fences cost --all-runs --runs "$RUNS" --jobs "$JOBS" ${COST_ARGS:-} \
    --timeout 10 --set "$SETS/$A.set.json" --results "$OUT/cost.jsonl" \
    --label "$A-nf" -- "/tmp/apps/fences/$A-nf" $X >"$OUT/$A.cost.txt" 2>&1
  echo "$A $? $(($(date +%s) - T1))" >>"$OUT/cost.rc"
done
"$INCANT" fences cost --results "$OUT/cost.jsonl" --plot "$OUT/fig5.svg" \
  >>"$OUT/cost.rc" 2>&1
# stack-nf with every fence on, sys+ stress, alone: each search's first
# check runs up to 200 runs of 50 computations and stops at the first
# failure; --budget 1s then ends the search.
S=1
while [ "$(left "$END")" -gt 15 ]; do
  timeout -k 5 "$(($(left "$END") - 5))" "$INCANT" fences --env sys+ \
    --iterations 1 --stable-runs 200 --timeout 10 --budget 1s --seed $S \
    --db "/tmp/cost-work/stack-all-$S.sqlite" --json --label stack-nf \
    -- /tmp/apps/fences/stack-nf --repeat 50 --timeout-ms 1000 \
    >"/tmp/cost-work/stack-all-$S.json" 2>"/tmp/cost-work/stack-all-$S.err"
  RC=$?
  python3 - "$S" "$RC" "/tmp/cost-work/stack-all-$S.sqlite" >>"$OUT/stack-all.txt" <<'PY'
import sqlite3, sys
try:
    r = sqlite3.connect(sys.argv[3]).execute(
        "select runs, failures, seconds, first_failure from checks where seq = 0").fetchone()
    print(f"seed {sys.argv[1]} exit {sys.argv[2]}: all fences: {r[0]} runs, {r[1]} failed, "
          f"{r[2]:.1f} s {r[3][:120]}")
except Exception as e:
    print(f"seed {sys.argv[1]} exit {sys.argv[2]}: no check stored ({e})")
PY
  S=$((S + 1))
done
cp /tmp/cost-work/stack-all-* "$OUT/" 2>/dev/null
cat "$OUT/cost.rc" "$OUT/stack-all.txt"
for A in $NAMES; do tail -4 "$OUT/$A.cost.txt" 2>/dev/null; done
