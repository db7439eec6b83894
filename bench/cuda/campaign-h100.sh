#!/bin/bash
# The issue-5 campaign in one device call: generate the `campaign` preset
# (5,880 tests), run it with the CUDA backend under a chip profile, with
# WORKERS workers sharing GPU 0 (they compile and optcheck in parallel; the
# launches of one context never overlap), and write the report.
#
# Usage, from the repository root:
#   bench/cuda/campaign-h100.sh INCANT OUTDIR [PROFILE]
# Environment: WORKERS (12), ITERATIONS (100), LIMIT (seconds for the
# campaign itself, 480), RESUME_DB (a database of an earlier, cut-off call
# to continue). Whatever is done when LIMIT strikes stays in the database;
# run again with RESUME_DB to finish.
set -u
I=${1:?incant binary}
O=${2:?output dir}
PROFILE=${3:-}
W=${WORKERS:-12}
IT=${ITERATIONS:-100}
T=${TMPDIR:-/tmp}/incant-campaign-tests
mkdir -p "$O"
DB="$O/campaign.sqlite"
rm -rf "$T"
"$I" gen --preset campaign -o "$T" | tail -1
resume=()
if [ -n "${RESUME_DB:-}" ]; then
  cp "$RESUME_DB" "$DB"
  resume=(--resume)
fi
devs=$(printf '0,%.0s' $(seq "$W")); devs=${devs%,}
prof=()
[ -n "$PROFILE" ] && prof=(--profile "$PROFILE")
START=$(date +%s)
timeout "${LIMIT:-480}" "$I" campaign "$T" --db "$DB" "${resume[@]}" \
  --backend cuda --devices "$devs" --iterations "$IT" "${prof[@]}" \
  --models "$PWD/models" 2> "$O/progress.log"
echo "campaign rc=$? after $(( $(date +%s) - START )) s"
tail -3 "$O/progress.log"
"$I" report --db "$DB" --html "$O/report.html" --text > "$O/report.txt"
echo "report rc=$?"
