#!/bin/bash
# The families of `incant gen --preset hopper` on the H200, in one device
# call: mbarrier message passing (Mbar edges), st.async / red.async into
# another CTA completing on its mbarrier (Tx), barrier.cluster (Cbar) and
# bulk copies against generic accesses, each with and without what should
# forbid the weak outcome (docs/gen.md, "Hopper's synchronisation").
#
# Usage, from the repository root:
#   bench/cuda/hopper-gen-h200.sh INCANT OUTDIR
# writes OUTDIR/hopper-gen.sqlite.gz (the campaign's database),
# report.txt.gz (`incant report --text`), summary.md
# (bench/cuda/hopper-summary.py: weak rates per feature and variant, and
# the outcomes ptx forbids that the chip showed), repro.tgz (the source of
# each such test) and repro.jsonl (each of them run again with 500
# launches, as the summary's reproducer says).
# Environment: WORKERS (8), ITERATIONS (200), LIMIT (campaign seconds,
# 170), REPRO_LIMIT (seconds for the reruns, 50).
set -u
I=${1:?incant binary}
O=${2:?output dir}
mkdir -p "$O"
M="--models $PWD/models"
W=${WORKERS:-8}
T=${TMPDIR:-/tmp}/incant-hopper-gen
{
nvidia-smi -L
rm -rf "$T"
"$I" gen --preset hopper -o "$T/gen"
DB="$O/hopper-gen.sqlite"
devs=$(printf '0,%.0s' $(seq "$W")); devs=${devs%,}
START=$(date +%s)
timeout "${LIMIT:-170}" "$I" campaign "$T" --db "$DB" --backend cuda \
  --devices "$devs" --iterations "${ITERATIONS:-200}" $M \
  --profile profiles/nvidia-h200.json 2> "$O/progress.log"
echo "campaign rc=$? after $(( $(date +%s) - START )) s"
tail -3 "$O/progress.log"
"$I" report --db "$DB" --text > "$O/report.txt"
echo "report rc=$?"
R=$T/repro
python3 bench/cuda/hopper-summary.py "$DB" --repro "$R" > "$O/summary.md"
END=$(( $(date +%s) + ${REPRO_LIMIT:-50} ))
for f in "$R"/*.litmus; do
  [ -e "$f" ] || break
  left=$(( END - $(date +%s) ))
  [ "$left" -gt 5 ] || { echo "reruns stopped at the time limit"; break; }
  timeout "$left" "$I" run --backend cuda $M --model ptx --iterations 500 \
    --profile profiles/nvidia-h200.json --json "$f" >> "$O/repro.jsonl"
done
[ -d "$R" ] && tar czf "$O/repro.tgz" -C "$T" repro
gzip -f "$DB" "$O/report.txt"
} > "$O/session.txt" 2>&1
echo "== last lines of the session"
tail -6 "$O/session.txt"
head -60 "$O/summary.md"
