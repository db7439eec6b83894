#!/bin/bash
# Where a cold CUDA campaign's time goes on the device machine (issue 19):
# the CPUs the process may really use (cgroup quota, affinity, a fixed
# amount of work on 1 to 16 processes), incant-cuda-compile on 1 and 15
# threads and in 15 processes (CPU per test, its system share, the share of
# the time on a CPU), with and without --keep-memory; a cold campaign of
# the `campaign` preset stopped by SIGTERM after SECONDS_COLD (its
# summary's phases), the same tests again from its compile cache (warm),
# and the disassemblers' cost on the batches that campaign compiled.
#
# Usage, from the repository root:
#   bench/cuda/cold-h100.sh INCANT INCANT-CUDA-COMPILE OUTDIR PROFILE
# Environment: SECONDS_COLD (the campaign's time, 25), JOBS (its --jobs, 15).
set -u
I=${1:?incant binary}
CC=${2:?incant-cuda-compile binary}
O=${3:?output dir}
P=${4:?profile}
T=${TMPDIR:-/tmp}/incant-cold-tests
C=${TMPDIR:-/tmp}/incant-cold-cache
mkdir -p "$O"
rm -rf "$T" "$C"
echo "== CPUs"
nproc
grep Cpus_allowed_list /proc/self/status
lscpu | grep -E 'Model name|Thread|Core|Socket|Hypervisor'
python3 - <<'EOF'
import time, multiprocessing as mp
def work(_):
    t = time.process_time(); s = 0
    for i in range(3_000_000): s += i
    return time.process_time() - t
for n in (1, 16):
    w = time.time()
    with mp.Pool(n) as p: c = p.map(work, range(n))
    print(f"{n:2} processes of the same work: wall {time.time()-w:.2f} s, "
          f"CPU each {sum(c)/n:.2f} s")
EOF
grep -E 'nr_throttled|throttled_usec' /sys/fs/cgroup/cpu.stat 2>/dev/null
"$I" gen --preset campaign -o "$T" | tail -1
echo "== incant-cuda-compile"
timeout 30 stdbuf -oL "$CC" --tests 16 --batch 16 --threads 1 "$T"
timeout 30 stdbuf -oL "$CC" --tests 240 --batch 16 --threads 15 "$T"
timeout 30 stdbuf -oL "$CC" --tests 240 --batch 16 --threads 15 --keep-memory "$T"
echo "-- 15 processes, 1 thread and 16 tests each"
S=$(date +%s%N)
for i in $(seq 15); do
  timeout 30 stdbuf -oL "$CC" --tests 16 --batch 16 --threads 1 "$T" > "$O/proc-$i.txt" &
done
wait
echo "wall $(( ($(date +%s%N) - S) / 1000000 )) ms; CPU s / test, sys:" \
  $(tail -qn1 "$O"/proc-*.txt | awk '{print $2, $3}')
rm -f "$O"/proc-*.txt
J=${JOBS:-15}
echo "== cold campaign, --jobs $J, SIGTERM after ${SECONDS_COLD:-25} s"
camp() { # NAME TESTS...
  local N=$1; shift
  timeout -s TERM "${SECONDS_COLD:-25}" "$I" campaign "$@" --backend cuda \
    --iterations 100 --profile "$P" --compile-cache "$C" --jobs "$J" \
    --no-progress --db "$O/$N.sqlite" > "$O/$N.txt" 2>&1
  echo "rc=$?"
  tail -4 "$O/$N.txt"
}
camp cold "$T"
grep -E 'nr_throttled|throttled_usec' /sys/fs/cgroup/cpu.stat 2>/dev/null
# The batches the cold campaign compiled are its first ones (16 tests each,
# in sorted order): the same tests again, from the compile cache.
K=$(ls "$C"/*.opt | wc -l)
mapfile -t First < <(ls "$T"/*.litmus | LC_ALL=C sort | head -$((16 * K)))
echo "== warm campaign: the first ${#First[@]} tests"
camp warm "${First[@]}"
echo "== disassembling one batch module (wall user sys)"
TIMEFORMAT='%R %U %S'
f=$(ls "$C"/*.cubin | head -1)
B=/usr/local/cuda/bin
echo "$(stat -c %s "$f") bytes"
for cmd in "$B/cuobjdump -sass" "$B/cuobjdump -sass -fun incant_test_kernel_0" \
           "$B/nvdisasm"; do
  echo "$cmd: $({ time $cmd "$f" > "$O/sass.txt"; } 2>&1), $(wc -l < "$O/sass.txt") lines"
done
rm -f "$O/sass.txt"
