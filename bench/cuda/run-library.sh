#!/bin/bash
# Every test of litmus/ (but bar/: bar.sync is not supported) through the
# CUDA backend, plus the fence check over 1e9 instances and the intra-CTA
# placements. Usage: bench/cuda/run-library.sh BENCH OUTDIR [ITERATIONS]
B=${1:?bench binary}; O=${2:?output dir}; IT=${3:-100}
mkdir -p "$O"
for f in $(find litmus -name '*.litmus' | sort | grep -v '^litmus/bar/'); do
  echo "### $f"
  timeout 30 "$B" "$f" --iterations "$IT" --random --json 2>&1 | tr -d '\0' >> "$O/library.txt"
  echo "rc=${PIPESTATUS[0]} $f" >> "$O/library.txt"
done
grep '^JSON' "$O/library.txt" > "$O/library.jsonl"
for T in MP SB LB; do
  for F in fence.sc.gpu membar.gl; do
    timeout 60 "$B" $T --fence $F --random --iterations 4000 --json | tee -a "$O/fence.txt"
  done
  for P in "--place warp" "--place lane" "--place warp --shared" "--place lane --shared" "--place cluster"; do
    timeout 60 "$B" $T $P --iterations 1000 --json | tee -a "$O/place.txt"
    timeout 60 "$B" $T $P --random --iterations 1000 --json | tee -a "$O/place.txt"
  done
done
