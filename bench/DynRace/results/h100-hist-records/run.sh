#!/bin/bash
# Lead: histogram (cuda-samples, histogram64Kernel's byte counters) under
# incant race --dynamic --scheme addr, built with the shadow's records in
# two 8-byte accesses (old, repair16's build) and in one 16-byte access
# (new), three runs each.
cd "$(dirname "$0")"; R=$PWD
gunzip -f xbin/*.gz; chmod +x xbin/incant-all
export LD_LIBRARY_PATH=$PWD/xbin INCANT_INJECT_LIB=$PWD/xbin/libincant-inject.so
L=$OUT/h; mkdir -p $L
printf 'build\trun\trc\thazards\tfolded\taccesses\tkernel_ms\twall_s\n' > $L/t.tsv
for b in old new; do for r in 1 2 3; do
  s=$(date +%s.%N)
  (cd /tmp && INCANT_TIME=1 timeout 150 $R/xbin/incant race --dynamic --scheme addr --time-limit 120 --json -o $L/$b.$r.json -- $R/bin/hist.$b.race > $L/$b.$r.log 2>&1); rc=$?
  e=$(date +%s.%N)
  python3 - "$L/$b.$r.json" "$b" "$r" "$rc" "$s" "$e" >> $L/t.tsv <<'PY'
import json,sys
f,b,r,rc,s,e=sys.argv[1:]
try:
  d=json.load(open(f))
  c=d.get('counters',{})
  print('\t'.join([b,r,rc,str(d.get('hazards')),str(len(d.get('races',[]))),str(c.get('accesses')),'-','%.1f'%(float(e)-float(s))]))
except Exception as x:
  print('\t'.join([b,r,rc,'err',str(x)[:40],'-','-','%.1f'%(float(e)-float(s))]))
PY
done; done
cat $L/t.tsv
