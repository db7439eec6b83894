#!/bin/sh
# probe.sh INCANT INJECT_LIB OUT - first look at the injected library on a
# GPU (bench/intercept): randomisation checks, the static and the shared
# CUDA runtime, stress smoke runs, launch cost of LD_PRELOAD and of CUPTI,
# kernel time of the plain and the instrumented build. Prints a table last.
set -u
INCANT=$1 LIB=$2 OUT=$3
HERE=$(cd "$(dirname "$0")" && pwd)
export PATH=/usr/local/cuda/bin:$PATH
W=$OUT/work
mkdir -p "$W"
log() { echo "== $*"; }
log builds
nvcc -arch=sm_90 "$HERE/ids.cu" -o "$W/ids-plain" || exit 2
$INCANT nvcc -arch=sm_90 "$HERE/ids.cu" -o "$W/ids" || exit 2
$INCANT nvcc -arch=sm_90 -cudart shared "$HERE/ids.cu" -o "$W/ids-shared" || exit 2
$INCANT nvcc -arch=sm_90 -rdc=true "$HERE/ids.cu" -o "$W/ids-rdc" || exit 2
nvcc -arch=sm_90 "$HERE/launches.cu" -o "$W/launches-plain" || exit 2
$INCANT nvcc -arch=sm_90 "$HERE/launches.cu" -o "$W/launches" || exit 2
CUPTI_INC=/usr/local/cuda/include CUPTI_LIB=/usr/local/cuda/lib64
[ -f /usr/local/cuda/extras/CUPTI/include/cupti.h ] && CUPTI_INC=/usr/local/cuda/extras/CUPTI/include CUPTI_LIB=/usr/local/cuda/extras/CUPTI/lib64
g++ -shared -fPIC -O2 "$HERE/cupti_probe.cpp" -I$CUPTI_INC -L$CUPTI_LIB -lcupti \
  -Wl,-rpath,$CUPTI_LIB -o "$W/libcupti_probe.so" || echo "no CUPTI build"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader

log "ids: no library, library with randomisation off, on (two seeds), shared cudart, rdc"
"$W/ids"; echo "rc=$?"
LD_PRELOAD=$LIB INCANT_REPORT=$W/r0.json "$W/ids"; echo "rc=$?"; cat $W/r0.json
LD_PRELOAD=$LIB INCANT_RANDOMISE=1 INCANT_SEED=1 INCANT_REPORT=$W/r1.json "$W/ids"; echo "rc=$?"; cat $W/r1.json
LD_PRELOAD=$LIB INCANT_RANDOMISE=1 INCANT_SEED=2 "$W/ids"; echo "rc=$?"
LD_PRELOAD=$LIB INCANT_RANDOMISE=1 INCANT_SEED=3 INCANT_REPORT=$W/r2.json "$W/ids-shared"; echo "rc=$?"; cat $W/r2.json
LD_PRELOAD=$LIB INCANT_RANDOMISE=1 INCANT_SEED=4 INCANT_REPORT=$W/r3.json "$W/ids-rdc"; echo "rc=$?"; cat $W/r3.json

log "stress smoke: sys, rand, cache beside ids"
for S in sys rand cache; do
  LD_PRELOAD=$LIB INCANT_STRESS=$S INCANT_RANDOMISE=1 INCANT_VERBOSE=1 INCANT_REPORT=$W/s-$S.json "$W/ids" >/dev/null; echo "$S rc=$?"; cat $W/s-$S.json
done
LD_PRELOAD=$LIB INCANT_SPREAD=1 INCANT_VERBOSE=1 INCANT_REPORT=$W/sp.json "$W/ids" >/dev/null; echo "spread rc=$?"; cat $W/sp.json

log "launch cost and kernel time"
for V in plain plain+lib plain+cupti instr instr+lib instr+lib+time; do
  case $V in
    plain) R=$("$W/launches-plain") ;;
    plain+lib) R=$(LD_PRELOAD=$LIB "$W/launches-plain") ;;
    plain+cupti) R=$(CUDA_INJECTION64_PATH=$W/libcupti_probe.so "$W/launches-plain" 2>&1 | tr '\n' ' ') ;;
    instr) R=$("$W/launches") ;;
    instr+lib) R=$(LD_PRELOAD=$LIB "$W/launches") ;;
    instr+lib+time) R=$(LD_PRELOAD=$LIB INCANT_TIME=1 INCANT_REPORT=$W/t.json "$W/launches") ;;
  esac
  echo "$V: $R" | tee -a $W/launch-table.txt
done
cat $W/t.json

log "incant stress on ids (all eight environments, 3 runs each)"
$INCANT stress --env all --runs 3 --timeout 20 -- "$W/ids" ; echo "rc=$?"
log "table"
cat $W/launch-table.txt
