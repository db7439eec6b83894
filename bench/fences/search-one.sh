#!/bin/sh
# search-one.sh NAME - one search of h100.sh (its environment: INCANT, APPS,
# W, SEARCH, ARGS, LIMIT): incant fences on APPS/fences/NAME-nf, compared
# with APPS/fences/NAME, its report, sets and patch under W, then its JSON
# replayed from the store; one line "NAME EXIT SECONDS" in W/searches.tsv.
set -u
A=$1 B=$APPS/fences/$1-nf
[ -x "$B" ] || exit 0
T0=$(date +%s.%N)
# shellcheck disable=SC2086
timeout -k 5 "${LIMIT:-170}" "$INCANT" fences $SEARCH --db "$W/$A.sqlite" \
  --reference "$APPS/fences/$A" --save "$W/$A.set.json" \
  --patch "$W/$A.diff" --label "$A-nf" -- "$B" $ARGS \
  >"$W/$A.txt" 2>"$W/$A.err"
RC=$?
T1=$(date +%s.%N)
if [ "$RC" -le 1 ]; then
  # shellcheck disable=SC2086
  timeout -k 5 60 "$INCANT" fences $SEARCH --db "$W/$A.sqlite" \
    --reference "$APPS/fences/$A" --label "$A-nf" --json --no-progress \
    -- "$B" $ARGS >"$W/$A.json" 2>>"$W/$A.err"
fi
echo "$A $RC $(awk -v a="$T0" -v b="$T1" 'BEGIN { printf "%.1f", b - a }')" \
  >>"$W/searches.tsv"
