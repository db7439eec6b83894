#!/bin/bash
# gb4: app_gridbarrier under addr, pruned build: old pass (hooks called) vs
# new pass (each hook call in a never-taken loop polling the unit word), and
# the new unpruned build; 8 runs each, alone on the GPU.
R=/work/main; X=$R/.dev/gb4/xbin; G=$R/.dev/gb4
cd $G
for f in $X/*.gz; do gunzip -f "$f"; done; chmod +x $X/incant $X/incant-all
export LD_LIBRARY_PATH=$X PATH=/usr/local/cuda/bin:$PATH
I=$X/incant L=$X/libincant-inject.so W=/tmp/gb; rm -rf $W; mkdir -p $W $OUT/gb
cp $G/gb.old $W/gb.old
b() { ( eval "$($I build-env --passes race)"; export "$@"; S=$SECONDS; timeout 200 nvcc -O3 -arch=sm_90 -lineinfo apps/gridbarrier/gridbarrier.cu -o $W/gb.$V; echo "build $V rc $? $((SECONDS-S)) s" ) >> $W/build.log 2>&1; }
V=new b INCANT_RACE_ALL=0 & V=newall b INCANT_RACE_ALL=1 & (nvcc -O3 -arch=sm_90 -lineinfo apps/gridbarrier/gridbarrier.cu -o $W/gb.plain; echo "build plain rc $?" >> $W/build.log) & wait
cat $W/build.log | tee $OUT/gb/runs.txt
for v in plain; do timeout 20 $W/gb.$v 2>&1 | tail -1 | tee -a $OUT/gb/runs.txt; done
declare -A hung
for i in 1 2 3 4 5 6 7 8; do
  for v in old new newall; do
    [ "${hung[$v]:-0}" -ge 2 ] && continue
    S=$(date +%s.%N)
    INCANT_INJECT_LIB=$L timeout 25 $I race --dynamic --scheme addr --json -o $W/$v.$i.json -- $W/gb.$v > $W/$v.$i.log 2>&1
    rc=$?; E=$(date +%s.%N)
    [ $rc = 124 ] && hung[$v]=$(( ${hung[$v]:-0} + 1 ))
    echo "$v $i rc $rc $(python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print('races',len(j['races']),'lost',j.get('lost'))" $W/$v.$i.json 2>&1 | tail -1) | $(grep -h "gridbarrier:" $W/$v.$i.log | tail -1 | cut -c1-100) wall $(python3 -c "print(round($E-$S,2))")" | tee -a $OUT/gb/runs.txt
  done
done
for i in 1 2; do INCANT_INJECT_LIB=$L timeout 25 $I race --dynamic --scheme stmt --json -o $W/s.$i.json -- $W/gb.new > $W/s.$i.log 2>&1; echo "stmt new $i rc $? | $(grep -h "gridbarrier:" $W/s.$i.log | tail -1 | cut -c1-100)" | tee -a $OUT/gb/runs.txt; done
cp $W/*.1.log $W/build.log $OUT/gb/ 2>/dev/null
cuobjdump -sass $W/gb.new > $OUT/gb/new.sass 2>/dev/null; gzip $OUT/gb/new.sass
echo done
