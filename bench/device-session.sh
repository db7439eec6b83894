#!/bin/bash
# One device call: the OpenCL (PoCL) TSO runs of issue 4 on the GPU machine's
# CPU, and the CUDA runs of issue 3 that earlier calls did not reach
# (parallel vs --instances 1, incant devices, JSON). Usage, from the repo root:
#   bench/device-session.sh INCANT OUTDIR
I=${1:?incant binary}; O=${2:?output dir}
mkdir -p "$O"
M="--models $PWD/models"
run() { echo "### incant $*"; timeout 120 "$I" "$@"; echo "rc=$?"; }
{
nvidia-smi -L
run devices
# Issue 4 on the GPU machine's PoCL (CPU): SB weak seen, MP/LB/CoRR never.
for t in SB/SB+cta-global MP/MP+cta-global LB/LB+cta-global CoRR/CoRR+cta-global; do
  run run --backend opencl $M --no-barrier litmus/$t.litmus
done
# Issue 3: weak outcomes per second, parallel against one instance per
# launch, for the same test and incantations in one run.
for t in MP/MP+cta-global SB/SB+cta-global LB/LB+cta-global; do
  run run --backend cuda $M --iterations 1000 --randomise --stride 1 litmus/$t.litmus
  run run --backend cuda $M --iterations 200000 --instances 1 --randomise litmus/$t.litmus
done
run run --backend cuda $M --iterations 200 --json litmus/MP/MP+cta-global.litmus
} 2>&1 | tee "$O/session.txt"
