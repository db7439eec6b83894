#!/bin/bash
# One device call of the dynamic checker over a list, addr scheme only,
# for races found (kernel times are not valid: 4 programs share the GPU).
# Run in a carried folder holding xbin/ (incant, incant-all, the injected
# library and the Debian libraries, some gzipped), the copies the list
# names, and bench/DynRace:
#
#   bench/DynRace/addr-call.sh LIST WORKDIR
#
# Builds every program plain and with pass race (16 at once), runs each
# plain and under `incant race --dynamic --scheme addr` (4 at once,
# 20 s each, no new program after DEADLINE s, default 470), and leaves
# results.tsv, run.log and the reports (reports.tgz) in $OUT/dyn.
set -u
list=$1 work=$2
for f in xbin/*.gz; do [ -e "$f" ] && gunzip -f "$f"; done
chmod +x xbin/incant-all
export LD_LIBRARY_PATH=$PWD/xbin PATH=/usr/local/cuda/bin:$PATH
export INCANT=$PWD/xbin/incant INCANT_INJECT_LIB=$PWD/xbin/libincant-inject.so
mkdir -p "$work" "$OUT/dyn"
date -u
VARIANTS="addr" JOBS=16 RUN_JOBS=4 RUN_TIMEOUT=20 DEADLINE=${DEADLINE:-470} \
  bench/DynRace/run.sh "$list" "$work/dyn" >"$work/run.log" 2>&1
echo "run rc $?" >>"$work/run.log"
cp "$work/dyn/results.tsv" "$work/run.log" "$OUT/dyn/"
(cd "$work/dyn" && tar -czf "$OUT/dyn/reports.tgz" logs/*.json logs/*.rep \
   logs/*.build-* 2>/dev/null)
date -u; tail -3 "$work/run.log"
bench/DynRace/summarize.py "$work/dyn" project=k_,app_ indigo=h_ \
  indigo2=i2_ 2>/dev/null | head -8
