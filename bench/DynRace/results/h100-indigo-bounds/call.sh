#!/bin/bash
# Lead's call: the 144 boundsBug programs of the Indigo artifact
# (bounds.list), built and run plain and under incant race --dynamic (addr),
# 4 programs at once (kernel times not used: the GPU is shared).
cd "$(dirname "$0")"
for f in xbin/*.gz; do gunzip -f "$f"; done; chmod +x xbin/incant-all
export LD_LIBRARY_PATH=$PWD/xbin PATH=/usr/local/cuda/bin:$PATH
export INCANT=$PWD/xbin/incant INCANT_INJECT_LIB=$PWD/xbin/libincant-inject.so
W=/tmp/indigo-bounds; mkdir -p $W $OUT/dyn
date -u
VARIANTS="addr" JOBS=16 RUN_JOBS=4 RUN_TIMEOUT=20 DEADLINE=${DEADLINE:-470} \
  bench/DynRace/run.sh bounds.list $W/dyn >$W/run.log 2>&1
echo "run rc $?" >>$W/run.log
cp $W/dyn/results.tsv $W/run.log $OUT/dyn/
(cd $W/dyn && tar -czf $OUT/dyn/reports.tgz logs/*.json logs/*.rep logs/*.build-* 2>/dev/null)
date -u; tail -3 $W/run.log
bench/DynRace/summarize.py $W/dyn project=k_,app_ indigo=h_ indigo2=i2_ 2>/dev/null | head -8
