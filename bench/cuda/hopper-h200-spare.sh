#!/bin/bash
# The third H200 call: the mbarrier and bulk-copy outcomes ptx forbids that
# the campaign showed, again with 500 launches, against the same tests with
# the wait in a loop (the read after a successful try_wait) and with
# fence.acq_rel.cta; and the SASS around each test's try_wait (the cubins,
# compiled here with ptxas -arch=sm_90 from `incant run --emit`'s PTX, in
# sass/). Usage, from a folder holding inst/ (cmake --install), litmus/,
# models/ and sass/: bench/cuda/hopper-h200-spare.sh OUTDIR
I=${INCANT:-$PWD/inst/bin/incant}
O=${1:?output dir}; mkdir -p $O
M="--models $PWD/models"
for t in MP+mbarrier MP+mbarrier+loop MP+mbarrier+fence.acq_rel.cta MP+mbarrier+shared MP+tma+mbarrier MP+tma+mbarrier+loop WR+tma+completion WR+tma+completion+loop CoWW+fence.proxy.async+tma MP+st.async MP+mbarrier+remote; do
  timeout 60 $I run --backend cuda $M --model ptx --iterations 500 --json litmus/Hopper/$t.litmus 2>>$O/stderr.txt
done > $O/c.jsonl
{ command -v cuobjdump nvdisasm; ls /usr/local/cuda/bin 2>/dev/null | head -50; } > $O/tools.txt 2>&1
for f in sass/*.cubin; do
  echo "=== $f"; (cuobjdump -sass $f 2>/dev/null || /usr/local/cuda/bin/cuobjdump -sass $f 2>/dev/null || nvdisasm $f 2>/dev/null) | grep -E "SYNCS|LDG|LDS|STG|STS|PMEVENT|BRA|MEMBAR|FENCE|CCTL|UBLKCP|ARRIVES|ERRBAR|SEL" | head -60
done > $O/sass.txt 2>&1
python3 -c '
import json
for l in open("'$O'/c.jsonl"):
    j=json.loads(l); m=j.get("model") or {}
    fb=sum(f["count"] for f in m.get("forbidden_observed",[]))
    print("%-32s %3s weak %9d of %10d  forbidden-seen %d" % (j["test"], "Ok" if m.get("ok") else "No", j["positive"], j["instances"], fb))'
head -c 3000 $O/sass.txt
