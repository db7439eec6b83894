#!/bin/bash
# The SASS around the first try_wait (SYNCS.PHASECHK) of each cubin in
# sass/ (see hopper-h200-spare.sh), with cuobjdump. Usage: OUTDIR
O=${1:?output dir}; mkdir -p $O
for f in sass/MP+mbarrier.cubin sass/WR+tma+completion.cubin sass/MP+mbarrier+loop.cubin; do
  echo "=== $f"
  /usr/local/cuda/bin/cuobjdump -sass $f | grep -E "^\s+/\*[0-9a-f]{4}\*/" | sed 's#/\* 0x[0-9a-f]* \*/##' > $O/all.txt
  n=$(grep -n "PHASECHK" $O/all.txt | head -1 | cut -d: -f1)
  sed -n "$((n-45)),$((n+8))p" $O/all.txt
done > $O/sass-window.txt 2>&1
rm -f $O/all.txt
cat $O/sass-window.txt | cut -c1-90
