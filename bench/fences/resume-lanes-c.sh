#!/bin/sh
# Resume the stack-nf and taskqueue-nf searches of call B from their stores,
# the two alone on the GPU, same options; then the cost of a reduced set.
# Run in a folder holding dist.tar.xz, apps.tar.xz, libincant-inject.so and
# the two stores: sh resume-lanes-c.sh OUT (BENCH: this bench/ folder).
# The stores resume only with the incant of that dist.tar.xz: an incant
# with the recheck (docs/fences.md) makes another search of the same
# options (its fingerprint names the algorithm).
set -u
OUT=$1 BENCH=${BENCH:-$(cd "$(dirname "$0")/.." && pwd)}
mkdir -p /tmp/dist /tmp/apps /tmp/h100-work
tar xJf dist.tar.xz -C /tmp/dist && cp libincant-inject.so /tmp/dist/lib/incant/ &&
tar xJf apps.tar.xz -C /tmp/apps && cp stack.sqlite taskqueue.sqlite /tmp/h100-work/ || exit 3
export LD_LIBRARY_PATH=/tmp/dist/lib INCANT=/tmp/dist/bin/incant APPS=/tmp/apps W=/tmp/h100-work
export SEARCH="--env sys+ --iterations 1 --stable-runs 24 --timeout 10 --budget 430s"
export ARGS="--repeat 50 --timeout-ms 200" ARGS_stack="--repeat 50 --timeout-ms 1000" LIMIT=470
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/machine.txt" 2>&1
for A in stack taskqueue; do
  ( sh "$BENCH/fences/search-one.sh" $A
    if awk -v a=$A '$1 == a { rc = $2 } END { exit rc == "0" ? 0 : 1 }' $W/searches.tsv; then
      eval "X=\${ARGS_$A:-\$ARGS}"
      timeout -k 5 60 $INCANT fences cost --all-runs --runs 20 --timeout 10 --set $W/$A.set.json \
        --results $W/$A.cost.jsonl --label $A-nf -- $APPS/fences/$A-nf $X > $W/$A.cost.txt 2>&1
      echo "$A cost rc $?" >> $W/cost.rc
    fi ) &
done
wait
cp -r $W "$OUT/work"
cat $W/searches.tsv; cat $W/cost.rc 2>/dev/null
for A in stack taskqueue; do echo "== $A"; head -4 $W/$A.txt; grep -E "^(reduced|the reduced|so far)" $W/$A.txt; tail -3 $W/$A.cost.txt 2>/dev/null; done
