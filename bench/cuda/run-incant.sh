#!/bin/bash
# `incant run --backend cuda` end to end on a GPU: histogram, model verdict
# (ptx), optcheck, JSON. Usage: bench/cuda/run-incant.sh INCANT OUTDIR
I=${1:?incant binary}; O=${2:?output dir}
mkdir -p "$O"
M="--models $PWD/models"
set -x
"$I" run --backend cuda $M --iterations 1000 litmus/MP/MP+cta-global.litmus litmus/SB/SB+cta-global.litmus litmus/LB/LB+cta-global.litmus
"$I" run --backend cuda $M --iterations 1000 --randomise --stride 1 litmus/MP/MP+cta-global.litmus
"$I" run --backend cuda $M --iterations 1000 --randomise --no-barrier --stride 1 litmus/SB/SB+membar.gl+cta-global.litmus litmus/CoRR/CoRR+cta-global.litmus litmus/IRIW/IRIW+cta-global.litmus
"$I" run --backend cuda $M --iterations 200 --instances 1 litmus/MP/MP+cta-global.litmus
"$I" run --backend cuda $M --iterations 200 --json litmus/MP/MP+warp-shared.litmus > "$O/run.jsonl"
"$I" devices
echo "rc=$?"
