#!/bin/bash
# Hopper's features on the H200, in device calls of at most 10 minutes.
#
# Usage, from the repository root:
#   bench/cuda/hopper-h200.sh INCANT OUTDIR tune
#     `incant tune --quick` (the H200 profile: OUTDIR/nvidia-h200.json), then
#     every test of litmus/Hopper once (does each kind run at all, and what
#     it shows), then the library's MP tests under the new profile against
#     the built-in defaults.
#   bench/cuda/hopper-h200.sh INCANT OUTDIR campaign
#     the Hopper campaign (bench/cuda/hopper-tests.sh's families plus
#     litmus/Hopper) under profiles/nvidia-h200.json, its report, and the
#     library's MP tests with no --profile (the H200 uses its shipped
#     profile by default).
# Environment: WORKERS (8), ITERATIONS (100), LIMIT (campaign seconds, 400),
# TUNE_BUDGET (tune --quick's budget, 240s).
set -u
I=${1:?incant binary}
O=${2:?output dir}
MODE=${3:?tune or campaign}
mkdir -p "$O"
M="--models $PWD/models"
run() { echo "### incant $*"; "$I" "$@"; echo "rc=$?"; }
summ() { # test, model verdict, weak, instances, rate, forbidden seen
  python3 -c '
import json, sys
for line in sys.stdin:
    try: j = json.loads(line)
    except ValueError: continue
    w, n = j.get("positive"), j.get("instances")
    m = j.get("model") or {}
    fb = sum(f.get("count", 0) for f in m.get("forbidden_observed", []))
    v = "-" if not m else ("Ok" if m.get("ok") else "No")
    print("%-44s %3s %12s %14s %10s %s" % (j.get("test"), v, w, n,
          "%.3g" % (w / n) if w is not None and n else "-",
          "FORBIDDEN-SEEN %d" % fb if fb else ""))'
}
{
nvidia-smi -L
if [ "$MODE" = tune ]; then
  START=$(date +%s)
  run tune --quick --backend cuda --budget "${TUNE_BUDGET:-240s}" \
    --out "$O/nvidia-h200.json"
  echo "tune took $(( $(date +%s) - START )) s"
  for f in litmus/Hopper/*.litmus; do
    timeout 60 "$I" run --backend cuda $M --model ptx --iterations 50 --json "$f" \
      2>> "$O/hopper-stderr.txt"
  done > "$O/hopper-library.jsonl"
  # A sample of the generated families (distributed shared memory).
  T=${TMPDIR:-/tmp}/incant-hopper-tests
  rm -rf "$T"; bench/cuda/hopper-tests.sh "$I" "$T" > /dev/null
  for f in $(ls "$T"/dsmem/*.litmus | awk 'NR % 60 == 1'); do
    timeout 60 "$I" run --backend cuda $M --model ptx --iterations 50 --json "$f" \
      2>> "$O/hopper-stderr.txt"
  done >> "$O/hopper-library.jsonl"
  for f in litmus/MP/*.litmus; do
    timeout 60 "$I" run --backend cuda $M --model none --profile none \
      --iterations 200 --json "$f" >> "$O/mp-defaults.jsonl"
    timeout 60 "$I" run --backend cuda $M --model none \
      --profile "$O/nvidia-h200.json" --iterations 200 --json "$f" \
      >> "$O/mp-profile.jsonl"
  done
else
  W=${WORKERS:-8}
  T=${TMPDIR:-/tmp}/incant-hopper-tests
  rm -rf "$T"
  bench/cuda/hopper-tests.sh "$I" "$T"
  DB="$O/hopper.sqlite"
  devs=$(printf '0,%.0s' $(seq "$W")); devs=${devs%,}
  START=$(date +%s)
  timeout "${LIMIT:-400}" "$I" campaign "$T" --db "$DB" --backend cuda \
    --devices "$devs" --iterations "${ITERATIONS:-100}" $M \
    --profile profiles/nvidia-h200.json \
    2> "$O/progress.log"
  echo "campaign rc=$? after $(( $(date +%s) - START )) s"
  tail -3 "$O/progress.log"
  "$I" report --db "$DB" --text > "$O/report.txt"
  echo "report rc=$?"
  python3 bench/cuda/hopper-summary.py "$DB" > "$O/summary.md"
  for f in litmus/MP/*.litmus; do
    timeout 60 "$I" run --backend cuda $M --model none --iterations 200 \
      --json "$f" >> "$O/mp-shipped.jsonl" 2>> "$O/mp-shipped-stderr.txt"
  done
fi
} > "$O/session.txt" 2>&1
echo "== $MODE: last lines of the session"
tail -5 "$O/session.txt"
[ -e "$O/summary.md" ] && cat "$O/summary.md" | head -40
for f in "$O"/*.jsonl; do
  [ -e "$f" ] || continue
  echo "== $(basename "$f") (test, weak, instances, rate)"
  summ < "$f"
done
