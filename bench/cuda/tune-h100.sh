#!/bin/bash
# The H100 chip profile and its check, in one device call (~8 minutes):
# incant tune patch, sequence, spread and random in turn, each starting from
# the profile the one before wrote, then weak outcomes per second of MP, LB
# and SB under `incant run` with the tuned profile against the untuned
# defaults, printed as a table last. Plots and the profile go to OUTDIR.
#
# Usage, from the repository root:
#   bench/cuda/tune-h100.sh INCANT OUTDIR [h100|pocl]
# h100 (default): the sizes below; on the H100 they took 26 s of tuning
#       (the budgets are upper bounds).
# long: ten times the launches per point (about 4 minutes on the H100).
# pocl: a scaled-down run on the OpenCL CPU device, to check the script
#       (PoCL ignores distances and offsets: its choices mean nothing).
set -u
I=${1:?incant binary}
O=${2:?output dir}
SIZE=${3:-h100}
mkdir -p "$O"
P="$O/profile.json"
rm -f "$P" "$O/compare.txt"
SEED=${SEED:-1}
if [ "$SIZE" = pocl ]; then
  B="--backend opencl"
  PATCH="--distances 1,32 --offsets 4:64:8 --iterations 1 --budget 60s"
  SEQ="--max-length 2 --distances 32 --max-offset 40 --iterations 1 --budget 60s"
  SPREAD="--max-spread 3 --samples 1 --distances 32 --iterations 1 --budget 30s"
  RSEARCH="--candidates 3 --rounds 1 --iterations 1 --budget 60s"
  CMP_IT=50
else
  B="--backend cuda"
  # patch: 9 distances x 32 offsets x 3 tests = 864 points of 10 launches.
  PATCH="--distances 1,32:257:32 --offsets 4:256:8 --iterations 10 --budget 120s"
  # sequence: 63 (62 + no stress) x 3 tests x 2 distances x 4 offsets.
  SEQ="--distances 64,192 --max-offset 128 --iterations 5 --budget 150s"
  # spread: m = 1..16, 3 region sets per (m, d), 2 distances.
  SPREAD="--max-spread 16 --samples 3 --distances 64,192 --iterations 5 --budget 45s"
  # random: up to 150 candidates (most decided after one round) of up to 3
  # rounds of 20 launches per test; the budget usually ends it first.
  RSEARCH="--candidates 150 --rounds 3 --iterations 20 --budget 90s"
  CMP_IT=1000
  if [ "$SIZE" = long ]; then
    PATCH="--distances 1,32:257:32 --offsets 4:256:8 --iterations 100 --budget 150s"
    SEQ="--distances 64,192 --max-offset 128 --iterations 40 --budget 150s"
    SPREAD="--max-spread 16 --samples 3 --distances 64,192 --iterations 40 --budget 60s"
    RSEARCH="--candidates 150 --rounds 3 --iterations 100 --budget 120s"
    CMP_IT=2000
  fi
fi
run() { echo "### incant $*"; "$I" "$@"; echo "rc=$?"; }
{
command -v nvidia-smi >/dev/null && nvidia-smi -L
START=$(date +%s)
run tune patch $B --seed $SEED $PATCH --out "$P" --plots "$O"
run tune sequence $B --seed $SEED $SEQ --profile "$P" --out "$P" --plots "$O"
run tune spread $B --seed $SEED $SPREAD --profile "$P" --out "$P" --plots "$O"
run tune random $B --seed $SEED $RSEARCH --profile "$P" --out "$P"
echo "tuning took $(( $(date +%s) - START )) s"
for t in MP LB SB; do
  f=litmus/$t/$t+cta-global.litmus
  echo "### incant run $t: defaults, then --profile"
  echo "JSON default $t $("$I" run $B --model none --iterations $CMP_IT --json "$f")" >> "$O/compare.txt"
  echo "JSON tuned $t $("$I" run $B --model none --iterations $CMP_IT --profile "$P" --json "$f")" >> "$O/compare.txt"
done
} 2>&1 | tee "$O/session.txt"

# The summary: Table 2's row and weak/s tuned against default.
if ! command -v python3 >/dev/null; then
  echo "no python3: weak/s per run (default, tuned for MP, LB, SB):"
  sed -E 's/^JSON ([a-z]+) ([A-Z]+) .*"positive_per_s":([^,]*).*/\2 \1 \3/' "$O/compare.txt"
  exit 0
fi
python3 - "$O/compare.txt" "$P" <<'PY'
import json, sys
rows = {}
for line in open(sys.argv[1]):
    if line.startswith("JSON "):
        _, kind, test, js = line.split(" ", 3)
        try:
            rows.setdefault(test, {})[kind] = json.loads(js)
        except ValueError:
            rows.setdefault(test, {})[kind] = None
try:
    prof = json.load(open(sys.argv[2]))
except (OSError, ValueError):
    prof = {"findings": [], "params": {}}
f = {x["mode"]: x for x in prof.get("findings", [])}
s = lambda m, k: f.get(m, {}).get("summary", {}).get(k, "-")
mins = sum(x.get("seconds", 0) for x in prof.get("findings", [])) / 60
print()
print("chip: %s (%s, driver %s)" % (prof.get("chip"), prof.get("backend"), prof.get("driver")))
print("Table 2 row: critical patch %s (chosen %s) | sequence %s | spread %s | %.1f min"
      % (s("patch", "critical_patch") or "none", s("patch", "chosen_patch"),
         s("sequence", "sequence") or "-", s("spread", "spread") or "-", mins))
print("profile params:", json.dumps(prof.get("params", {}), sort_keys=True))
print()
print("%-4s %14s %14s %8s" % ("test", "default weak/s", "tuned weak/s", "ratio"))
wins = 0
for t in ["MP", "LB", "SB"]:
    d = (rows.get(t, {}).get("default") or {}).get("positive_per_s")
    u = (rows.get(t, {}).get("tuned") or {}).get("positive_per_s")
    if d is None or u is None:
        print("%-4s %14s %14s %8s" % (t, d, u, "-"))
        continue
    wins += u > d
    ratio = "%.2fx" % (u / d) if d else ("inf" if u else "-")
    print("%-4s %14.4g %14.4g %8s" % (t, d, u, ratio))
print("tuned wins on %d of 3" % wins)
PY
