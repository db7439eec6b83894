#!/bin/sh
# stack-alone.sh DIST APPS OUT - the search of stack-nf, alone on the GPU,
# as docs/fences.md ("stack-nf: what its store shows") leaves it to do:
# `incant fences` with sys+ stress, one iteration per check, 24 runs for
# the stability checks, 50 computations a run; then, with the time left,
# `incant fences cost` of the set it found (RUNS runs per variant).
#   DIST: an installed incant (bin/, lib/ with the Debian libraries it
#   needs, some gzipped; share/); APPS: bench/stress/build-apps.sh's
#   output with VARIANTS=fences (APPS/fences/stack and stack-nf).
# From the environment: BUDGET (the search's --budget, 420s), LIMIT
# (seconds for the search, 450), RUNS (20; 0: no cost), RESUME (a store of
# an earlier call to go on from), JOBS (runs of a check at once, `--jobs`;
# unset for an incant older than that option).
set -u
DIST=$1 APPS=$2 OUT=$3
HERE=$(cd "$(dirname "$0")" && pwd)
for F in "$DIST"/lib/*.gz "$DIST"/bin/*.gz; do [ -e "$F" ] && gunzip -f "$F"; done
chmod +x "$DIST"/bin/*
export LD_LIBRARY_PATH=$DIST/lib PATH=/usr/local/cuda/bin:$PATH
W=/tmp/stack-alone
rm -rf "$W" && mkdir -p "$W" "$OUT"
[ -n "${RESUME:-}" ] && cp "$RESUME" "$W/stack.sqlite"
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit \
    --format=csv; } >"$OUT/machine.txt" 2>&1
INCANT=$DIST/bin/incant APPS=$APPS W=$W LIMIT=${LIMIT:-450} \
  SEARCH="--env sys+ --iterations 1 --stable-runs 24 --timeout 10 --budget ${BUDGET:-420s}${JOBS:+ --jobs $JOBS}" \
  ARGS="--repeat 50 --timeout-ms 1000" sh "$HERE/search-one.sh" stack
cat "$W/searches.tsv"
tail -30 "$W/stack.txt"
if [ -s "$W/stack.set.json" ] && [ "${RUNS:-20}" != 0 ]; then
  timeout -k 5 120 "$DIST/bin/incant" fences cost --all-runs --runs "${RUNS:-20}" \
    --timeout 10 --set "$W/stack.set.json" --results "$W/cost.jsonl" \
    --label stack-nf -- "$APPS/fences/stack-nf" --repeat 20 --timeout-ms 200 \
    >"$W/stack.cost.txt" 2>&1
  echo "cost exit $?"
  tail -8 "$W/stack.cost.txt"
fi
(cd /tmp && tar -czf "$OUT/stack-alone.tgz" stack-alone)
date -u
