#!/bin/bash
# Measurements of the CUDA backend for docs/cuda.md, in one go.
# Usage: bench/cuda/run-h100.sh BENCH_BINARY OUTDIR [quick|full]
# BENCH_BINARY is build/bench/cuda/incant-cuda-litmus. Each line that starts
# with "JSON" is one run; the script also copies one SASS listing to OUTDIR.
B=${1:?bench binary}
O=${2:?output dir}
MODE=${3:-quick}
mkdir -p "$O"
IT=${IT:-1000}
run() {
  echo "### $*"
  timeout 60 "$B" "$@" --json 2>&1 | tee -a "$O/log.txt"
  echo "rc=${PIPESTATUS[0]}"
}
nvidia-smi -L; nvidia-smi --query-gpu=driver_version,clocks.sm,clocks.max.sm --format=csv
which cuobjdump nvdisasm
"$B" MP --emit "$O/emit-mp" && cp "$O/emit-mp/test.sass" "$O/mp.sass" 2>/dev/null
"$B" SB --fence fence.sc.gpu --emit "$O/emit-sbf" && cp "$O/emit-sbf/test.sass" "$O/sb-fence.sass" 2>/dev/null
for T in MP SB LB; do
  run $T --iterations $IT
  run $T --iterations $IT --fence fence.sc.gpu
  run $T --iterations $IT --fence membar.gl
  run $T --iterations $IT --stress
  run $T --iterations $IT --bank
  run $T --iterations $IT --random
  run $T --iterations $IT --barrier
  run $T --iterations $IT --prestress
  run $T --iterations $IT --stress --bank --random --barrier --prestress
  run $T --iterations 20000 --single
  run $T --iterations 5000 --single --stress --barrier
done
for P in "--place warp" "--place warp --shared" "--place lane" "--place lane --shared" "--place cluster"; do
  run MP --iterations $IT $P
  run SB --iterations $IT $P
done
if [ "$MODE" = full ]; then
  for T in MP SB LB; do
    run $T --iterations 20000 --fence fence.sc.gpu --stress --random
  done
  for TH in 128 512 1024; do run MP --iterations $IT --threads $TH; done
  for S in 4 32; do run MP --iterations $IT --stride $S; done
fi
grep '^JSON' "$O/log.txt" > "$O/results.jsonl"
