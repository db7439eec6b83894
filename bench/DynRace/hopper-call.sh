#!/bin/bash
# The Hopper-era case studies (bench/DynRace/hopper.list) on one GPU
# machine in one device call, from the repository root:
#
#   bench/DynRace/hopper-call.sh XBIN WORK
#
# XBIN: a carried folder with bin/incant, lib/incant/libincant-inject.so
# and the Debian libraries in lib/ (libz3.so.4 gzipped). WORK: scratch.
# 1. bench/DynRace/run.sh over the list (plain build and pass race with
#    the static pruning; the plain run, `incant race --dynamic` with the
#    addr and the stmt scheme, compute-sanitizer racecheck);
# 2. every plain binary with --repeat 100 (its post-condition, natively);
# 3. the racy twins built through incant (build-env) under `incant stress`
#    (sys- and sys+, 10 runs each: failed/runs per environment).
# Prints one table last; results.tsv, the logs and reports go to $OUT.
set -u
xbin=$(cd "${1:?XBIN}" && pwd) work=${2:?WORK}
out=${OUT:-$work/out}
mkdir -p "$work" "$out"
for f in "$xbin"/lib/*.gz; do [ -e "$f" ] && gunzip -f "$f"; done
export LD_LIBRARY_PATH=$xbin/lib PATH=/usr/local/cuda/bin:$PATH
export INCANT=$xbin/bin/incant INCANT_INJECT_LIB=$xbin/lib/incant/libincant-inject.so
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nvcc --version | tail -1
date -u
JOBS=16 VARIANTS="addr stmt racecheck" RUN_TIMEOUT=60 RC_TIMEOUT=60 \
  DEADLINE=150 bench/DynRace/run.sh bench/DynRace/hopper.list "$work/dyn" \
  >"$work/dyn.log" 2>&1
echo "run.sh rc $?"; tail -3 "$work/dyn.log"
date -u
# Natively, 100 runs each.
: >"$work/native.tsv"
for b in "$work"/dyn/bin/*.plain; do
  n=$(basename "$b" .plain)
  args=$(awk -F'|' -v n="$n" '$1 == n { print $5 }' bench/DynRace/hopper.list)
  # shellcheck disable=SC2086
  line=$(timeout 60 "$b" ${args:---size 262144 --timeout-ms 200} --repeat 100 2>&1 | tail -1)
  printf '%s\t%s\t%s\n' "$n" "$?" "$line" >>"$work/native.tsv"
done
date -u
# The racy twins under incant stress.
: >"$work/stress.tsv"
(
  eval "$("$INCANT" build-env)"
  for a in warpsum clustersum namedbar asyncpipe tmapipe; do
    nvcc -O3 -arch=sm_90 -lineinfo -std=c++17 -Iapps/common -DAPP_NF \
      "apps/$a/$a.cu" -o "$work/$a-nf.stress" >"$work/$a-nf.stress.log" 2>&1 &
  done
  wait
)
for a in warpsum clustersum namedbar asyncpipe tmapipe; do
  [ -x "$work/$a-nf.stress" ] || { printf '%s\tbuild-failed\n' "$a-nf" >>"$work/stress.tsv"; continue; }
  # The program's arguments in the list (its -nf line).
  args=$(awk -F'|' -v n="app_$a-nf" '$1 == n { print $5 }' bench/DynRace/hopper.list)
  # shellcheck disable=SC2086
  timeout 60 "$INCANT" stress --env sys-,sys+ --runs 10 --timeout 10 \
    -- "$work/$a-nf.stress" ${args:---size 262144 --timeout-ms 200} \
    >"$work/$a-nf.stress.txt" 2>"$work/$a-nf.stress.err"
  rc=$?
  # The table's rows: env runs fail hang crash ...: failed (all three) of runs.
  cells=$(awk '$1 ~ /^sys/ {printf "%s%s %d/%s", sep, $1, $3 + $4 + $5, $2; sep = "; "}' \
            "$work/$a-nf.stress.txt")
  printf '%s\t%s\t%s\n' "$a-nf" "$rc" "${cells:-no table}" >>"$work/stress.tsv"
done
date -u
(cd "$work" && tar -czf "$out/hopper.tgz" dyn/results.tsv dyn/logs native.tsv \
   stress.tsv dyn.log *.stress.txt *.stress.err *.stress.log 2>/dev/null)
cp "$work/dyn/results.tsv" "$out/results.tsv"
python3 bench/DynRace/hopper-table.py "$work/dyn/results.tsv" \
  "$work/native.tsv" "$work/stress.tsv"
