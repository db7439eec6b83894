#!/bin/sh
# search-one.sh NAME - one search of h100.sh (its environment: INCANT, APPS,
# W, SEARCH, ARGS, LIMIT; SEARCH_NAME and ARGS_NAME override SEARCH and
# ARGS for one application): incant fences on APPS/fences/NAME-nf,
# compared with APPS/fences/NAME; its report, JSON, sets and patch under W
# (a store W/NAME.sqlite already there is resumed); one line "NAME EXIT
# SECONDS" in W/searches.tsv.
set -u
A=$1 B=$APPS/fences/$1-nf
[ -x "$B" ] || exit 0
eval "S=\${SEARCH_$A:-\$SEARCH} X=\${ARGS_$A:-\$ARGS}"
T0=$(date +%s.%N)
# shellcheck disable=SC2086
timeout -k 5 "${LIMIT:-170}" "$INCANT" fences $S --db "$W/$A.sqlite" \
  --reference "$APPS/fences/$A" --save "$W/$A.set.json" \
  --patch "$W/$A.diff" --report-json "$W/$A.json" --label "$A-nf" \
  -- "$B" $X >"$W/$A.txt" 2>>"$W/$A.err"
RC=$?
T1=$(date +%s.%N)
echo "$A $RC $(awk -v a="$T0" -v b="$T1" 'BEGIN { printf "%.1f", b - a }')" \
  >>"$W/searches.tsv"
