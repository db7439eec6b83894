#!/bin/sh
# h100.sh INCANT APPS OUT - docs/fences.md's measurements in one device call.
#   1. incant fences on every -nf case-study application (APPS/fences, from
#      VARIANTS=fences bench/stress/build-apps.sh), LANES searches at a time, each with its
#      budget and a hard time limit, compared with the fenced build;
#   2. incant fences cost of each: no, cons and emp (one at a time).
# Writes logs under WORK (/tmp/fences-work; packed into OUT/fences-logs.tgz;
# a search whose store is there already resumes it), tables to OUT/fences.md and OUT/cost.jsonl,
# Figure 5 to OUT/fig5.svg, and prints the tables last.
# From the environment: NAMES (application names, searched in this order),
# LANES (4), SEARCH (incant fences options), ARGS (the applications'),
# SEARCH_<name> and ARGS_<name> (environment variables: for one
# application), COST_NAMES,
# LIMIT (seconds per search, 170), COST_RUNS (5), COST_ARGS, COST_LIMIT (60),
# STAGES ("search cost").
set -u
INCANT=$1 APPS=$2 OUT=$3
HERE=$(cd "$(dirname "$0")" && pwd)
NAMES=${NAMES:-"octree semaphore stack taskqueue barneshut scan gridbarrier dot ticketlock hashtable reduction pipeline"}
SEARCH=${SEARCH:-"--env sys+ --iterations 1 --stable-runs 8 --timeout 10 --budget 130s"}
ARGS=${ARGS:-"--repeat 20 --timeout-ms 200"}
W=${WORK:-/tmp/fences-work}
mkdir -p "$W"

case " ${STAGES:-search cost} " in *" search "*)
  export INCANT APPS W SEARCH ARGS LIMIT
  for A in $NAMES; do echo "$A"; done |
    xargs -P "${LANES:-4}" -n 1 sh "$HERE/search-one.sh"
;; esac

case " ${STAGES:-search cost} " in *" cost "*)
  for A in ${COST_NAMES:-$NAMES}; do
    # Only a search that ended with a stable reduced set (exit 0).
    awk -v a="$A" '$1 == a { rc = $2 } END { exit rc == "0" ? 0 : 1 }' \
      "$W/searches.tsv" || continue
    eval "X=\${ARGS_$A:-\$ARGS}"
    [ -f "$W/$A.set.json" ] || continue
    # shellcheck disable=SC2086
    timeout -k 5 "${COST_LIMIT:-60}" "$INCANT" fences cost --all-runs \
      --runs "${COST_RUNS:-5}" --timeout 10 --set "$W/$A.set.json" \
      --results "$OUT/cost.jsonl" --plot "$OUT/fig5.svg" --label "$A-nf" \
      -- "$APPS/fences/$A-nf" ${COST_ARGS:-$X} >"$W/$A.cost.txt" 2>&1
    echo "$A cost rc $?" >>"$W/cost.rc"
  done
;; esac

python3 "$HERE/table.py" "$W" "$OUT/cost.jsonl" >"$OUT/fences.md" 2>&1
tar czf "$OUT/fences-logs.tgz" -C "$W" .
cat "$OUT/fences.md"
