#!/bin/bash
# Issue 19 in one device call: the `campaign` preset of `incant gen` (5,880
# tests) under the profile and launches of the issue-5 campaign
# (docs/campaign.md: 131,072 instances a launch, 100 launches a test), cold
# (nothing compiled before), then its first 1,472 tests again from the
# compile cache (the same batches of 16); then `incant run`'s device and
# end-to-end rates for MP, SB and LB at the defaults (the shipped H100
# profile, 1,000 launches) and at one launch.
#
# Usage, from the repository root:
#   bench/cuda/e2e-h100.sh INCANT OUTDIR PROFILE
# Environment: LIMIT (seconds for each campaign, 60).
set -u
I=${1:?incant binary}
O=${2:?output dir}
P=${3:?profile}
T=${TMPDIR:-/tmp}/incant-e2e-tests
C=${TMPDIR:-/tmp}/incant-e2e-cache
mkdir -p "$O"
rm -rf "$T" "$C"
now() { date +%s%N; }
ms() { echo "$(( ($(now) - $1) / 1000000 ))"; }
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "cpus $(nproc):$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
"$I" gen --preset campaign -o "$T" | tail -1
} > "$O/machine.txt" 2>&1

camp() { # NAME ARGS...
  local N=$1; shift
  local S=$(now)
  timeout "${LIMIT:-60}" "$I" campaign "$@" --backend cuda --iterations 100 \
    --profile "$P" --compile-cache "$C" > "$O/$N.txt" 2> "$O/$N.err"
  echo "rc=$? wall=$(ms "$S") ms" >> "$O/$N.txt"
}
camp cold "$T" --db "$O/cold.sqlite"
# The first 92 batches of the cold campaign (its sorted order, 16 a batch).
mapfile -t First < <(ls "$T"/*.litmus | LC_ALL=C sort | head -1472)
camp warm "${First[@]}" --db "$O/warm.sqlite"

for t in MP SB LB; do
  f=litmus/$t/$t+cta-global.litmus
  S=$(now)
  "$I" run --backend cuda --json "$f" > "$O/run-$t.json" 2>> "$O/run.err"
  echo "run-$t.json process $(ms "$S") ms" >> "$O/wall.txt"
  S=$(now)
  "$I" run --backend cuda --json --iterations 1 "$f" > "$O/run1-$t.json" \
    2>> "$O/run.err"
  echo "run1-$t.json process $(ms "$S") ms" >> "$O/wall.txt"
done
"$I" run --backend cuda litmus/SB/SB+cta-global.litmus > "$O/run-SB.txt" 2>&1
for d in cold warm; do
  xz -T0 "$O/$d.sqlite" 2>/dev/null || gzip "$O/$d.sqlite"
done

cat "$O/machine.txt"
echo "== campaigns"
for n in cold warm; do echo "-- $n"; cat "$O/$n.txt"; tail -2 "$O/$n.err"; done
echo "== runs: instances, device rate, end-to-end rate, barrier timeouts"
for f in "$O"/run-*.json "$O"/run1-*.json; do
  python3 -c 'import json,sys
try: j=json.loads(open(sys.argv[1]).readline()); r=j["rates"]
except Exception as e: sys.exit(sys.argv[1].split("/")[-1] + ": no result")
print(sys.argv[1].split("/")[-1], j["instances"],
      "device %.3g/s (%.3g s)" % (r["device"]["instances_per_s"], r["device"]["seconds"]),
      "e2e %.3g/s (%.3g s)" % (r["end_to_end"]["instances_per_s"], r["end_to_end"]["seconds"]),
      "barrier %d/%d" % (j["barrier_timeouts"], j["barrier_waits"]), j.get("optcheck", ""))' "$f"
done
cat "$O/wall.txt"
