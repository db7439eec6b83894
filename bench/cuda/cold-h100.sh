#!/bin/bash
# Where a cold CUDA campaign's time goes on the device machine (issue 19):
# the CPUs the process may use; incant-cuda-compile on 15 threads with
# --keep-memory (as a campaign prepares) for batches of 16 and 64 tests
# (CPU per test, the disassembler's included), after a fixed piece of
# Python work that says how fast the machine is now; a cold campaign of the
# `campaign` preset for each --batch and --jobs in RUNS, each stopped by
# SIGTERM after SECONDS_COLD with a fresh compile cache (its summary's
# phases);
# the tests the first one compiled again from its cache (warm); and the
# disassemblers' cost on the modules the first one compiled: one module,
# four in one cuobjdump run, four in one fat binary (fatbinary, then
# cuobjdump), only the test kernels (-fun), nvdisasm. A
# table of the campaigns last.
#
# Usage, from the repository root:
#   bench/cuda/cold-h100.sh INCANT INCANT-CUDA-COMPILE OUTDIR PROFILE
# Environment: SECONDS_COLD (each campaign's time, 30), RUNS (their
# --batch:--jobs, "16:15 32:15 64:15 32:24"), COMPILE_TESTS (960) and
# COMPILE_BATCHES ("16,64") for incant-cuda-compile.
set -u
I=${1:?incant binary}
CC=${2:?incant-cuda-compile binary}
O=${3:?output dir}
P=${4:?profile}
T=${TMPDIR:-/tmp}/incant-cold-tests
mkdir -p "$O"
rm -rf "$T" "${TMPDIR:-/tmp}"/incant-cold-cache-*
echo "== CPUs"
nproc
grep Cpus_allowed_list /proc/self/status
lscpu | grep -E 'Model name|Hypervisor'
grep -E 'nr_throttled' /sys/fs/cgroup/cpu.stat 2>/dev/null
uptime
# A fixed piece of work, to compare the machine's speed between calls.
python3 - <<'PY'
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
PY
"$I" gen --preset campaign -o "$T" | tail -1
echo "== incant-cuda-compile, 15 threads, --keep-memory"
timeout 90 stdbuf -oL "$CC" --tests "${COMPILE_TESTS:-960}" \
  --batch "${COMPILE_BATCHES:-16,64}" --threads 15 --keep-memory "$T"
camp() { # NAME CACHE BATCH JOBS TESTS...
  local N=$1 C=$2 B=$3 J=$4; shift 4
  timeout -s TERM "${SECONDS_COLD:-30}" "$I" campaign "$@" --backend cuda \
    --iterations 100 --profile "$P" --compile-cache "$C" --jobs "$J" \
    --batch "$B" --no-progress --db "$O/$N.sqlite" > "$O/$N.txt" 2>&1
  echo "rc=$?"
  tail -4 "$O/$N.txt"
}
read -r -a Runs <<< "${RUNS:-16:15 32:15 64:15 32:24}"
for R in "${Runs[@]}"; do
  B=${R%:*} J=${R#*:}
  echo "== cold campaign, --batch $B --jobs $J, SIGTERM after ${SECONDS_COLD:-30} s"
  camp "cold-b$B-j$J" "${TMPDIR:-/tmp}/incant-cold-cache-$B-$J" "$B" "$J" "$T"
done
# The batches the first cold campaign compiled are its first ones (in
# sorted order): the same tests again, from the compile cache.
B=${Runs[0]%:*} J=${Runs[0]#*:}
C=${TMPDIR:-/tmp}/incant-cold-cache-$B-$J
K=$(ls "$C"/*.opt | wc -l)
mapfile -t First < <(ls "$T"/*.litmus | LC_ALL=C sort | head -$((B * K)))
echo "== warm campaign: the first ${#First[@]} tests, --batch $B --jobs $J"
camp "warm-b$B-j$J" "$C" "$B" "$J" "${First[@]}"
echo "== disassembling the modules of --batch $B (wall user sys)"
TIMEFORMAT='%R %U %S'
mapfile -t Mods < <(ls "$C"/*.cubin | head -4)
X=/usr/local/cuda/bin
Fun=$(seq -s, -f 'incant_test_kernel_%g' 0 $((B - 1)))
dis() { # LABEL COMMAND...
  local L=$1; shift
  echo "$L: $({ time "$@" > "$O/sass.txt" 2> "$O/sass.err"; } 2>&1)," \
    "$(wc -l < "$O/sass.txt") lines, $(grep -c 'Function :' "$O/sass.txt")" \
    "functions, $(grep -c . "$O/sass.err") error lines"
}
echo "$(stat -c %s "${Mods[0]}") bytes a module"
dis "cuobjdump -sass, one module" "$X/cuobjdump" -sass "${Mods[0]}"
dis "cuobjdump -sass, ${#Mods[@]} modules in one run" "$X/cuobjdump" -sass "${Mods[@]}"
head -c 300 "$O/sass.txt"; echo
# Several modules in one file for one cuobjdump run: a fat binary.
Img=(); for m in "${Mods[@]}"; do Img+=("--image3=kind=elf,sm=90,file=$m"); done
dis "fatbinary --create of ${#Mods[@]} modules" "$X/fatbinary" --create="$O/m.fatbin" "${Img[@]}"
dis "cuobjdump -sass of that fat binary" "$X/cuobjdump" -sass "$O/m.fatbin"
rm -f "$O/m.fatbin"
dis "cuobjdump -sass -fun (the $B test kernels)" "$X/cuobjdump" -sass -fun "$Fun" "${Mods[0]}"
dis "nvdisasm, one module" "$X/nvdisasm" "${Mods[0]}"
head -c 300 "$O/sass.err"
rm -f "$O/sass.txt" "$O/sass.err"
echo "== campaigns (the summaries' figures)"
printf '%-12s %6s %8s %8s %10s %8s\n' run tests seconds tests/s compile_s model_s
for f in "$O"/cold-*.txt "$O"/warm-*.txt; do
  awk -v n="$(basename "$f" .txt)" '
    /^campaign: .* run,/ { for (i = 1; i <= NF; ++i) {
        if ($(i+1) == "run,") r = $i
        if ($i == "in" && $(i+2) == "s") s = $(i+1)
        if ($(i+1) == "tests/s") t = $i } }
    /^time:/ { for (i = 1; i <= NF; ++i) {
        if ($i == "compile") c = $(i+1)
        if ($i == "model") m = $(i+1) } }
    END { printf "%-12s %6s %8s %8s %10s %8s\n", n, r, s, t, c, m }' "$f"
done
