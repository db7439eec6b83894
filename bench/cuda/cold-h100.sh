#!/bin/bash
# Where a cold CUDA campaign's time goes on the device machine (issue 19):
# the CPUs the process may use, after a fixed piece of Python work that
# says how fast the machine is now; incant-cuda-compile --compare-whole on
# a spread of the `campaign` preset (spliced and whole modules hold the
# same machine code and optcheck verdicts; CUDA/Splice.h); incant-cuda-compile
# on 15 threads with --keep-memory (as a campaign prepares), spliced (the
# default) for batches of COMPILE_BATCHES and, with INCANT_CUDA_SPLICE=0,
# whole through NVRTC (CPU per test, the disassembler's and ptxas's
# included); a cold campaign of the `campaign` preset for each --batch and
# --jobs in RUNS, each with a fresh compile cache and stopped by SIGTERM
# after SECONDS_COLD (its summary's phases); with WARM=1 the tests the
# first one compiled again from its cache; with DISASM=1 the
# disassemblers' cost on one module the first one compiled. A table of the
# campaigns last.
#
# Usage, from the repository root:
#   bench/cuda/cold-h100.sh INCANT INCANT-CUDA-COMPILE OUTDIR PROFILE
# Environment: SECONDS_COLD (each campaign's time, 30), RUNS (their
# --batch:--jobs, "16:15 32:15"), COMPARE_TESTS (64; 0: none),
# COMPILE_TESTS (480) and COMPILE_BATCHES ("16,32") for the spliced
# compile, WHOLE_TESTS (240; 0: none) for the whole one, WARM (0), DISASM
# (1).
set -u
I=${1:?incant binary}
CC=${2:?incant-cuda-compile binary}
O=${3:?output dir}
P=${4:?profile}
T=${TMPDIR:-/tmp}/incant-cold-tests
mkdir -p "$O"
rm -rf "$T" "$T-spread" "${TMPDIR:-/tmp}"/incant-cold-cache-*
echo "== CPUs"
nproc
grep Cpus_allowed_list /proc/self/status
lscpu | grep -E 'Model name|Hypervisor'
grep -E 'nr_throttled' /sys/fs/cgroup/cpu.stat 2>/dev/null
uptime
# A fixed piece of work, to compare the machine's speed between calls.
python3 "$(dirname "$0")/machine-speed.py"
"$I" gen --preset campaign -o "$T" | tail -1
if [ "${COMPARE_TESTS:-64}" -gt 0 ]; then
  echo "== spliced and whole modules: the same code? (${COMPARE_TESTS:-64} tests, spread)"
  mkdir -p "$T-spread"
  N=$(ls "$T"/*.litmus | wc -l)
  ls "$T"/*.litmus | LC_ALL=C sort |
    awk -v s=$((N / ${COMPARE_TESTS:-64})) 'NR % s == 1' |
    head -"${COMPARE_TESTS:-64}" | xargs -I{} ln -s {} "$T-spread"/
  timeout 240 "$CC" --batch 16 --tests "${COMPARE_TESTS:-64}" --compare-whole \
    "$T-spread" | tail -20
fi
echo "== incant-cuda-compile, spliced, 15 threads, --keep-memory"
timeout 120 stdbuf -oL "$CC" --tests "${COMPILE_TESTS:-480}" \
  --batch "${COMPILE_BATCHES:-16,32}" --threads 15 --keep-memory "$T"
if [ "${WHOLE_TESTS:-240}" -gt 0 ]; then
  echo "== incant-cuda-compile, whole (INCANT_CUDA_SPLICE=0), 15 threads, --keep-memory"
  INCANT_CUDA_SPLICE=0 timeout 120 stdbuf -oL "$CC" --tests "${WHOLE_TESTS:-240}" \
    --batch 16 --threads 15 --keep-memory "$T"
fi
camp() { # NAME CACHE BATCH JOBS TESTS...
  local N=$1 C=$2 B=$3 J=$4; shift 4
  timeout -s TERM "${SECONDS_COLD:-30}" "$I" campaign "$@" --backend cuda \
    --iterations 100 --profile "$P" --compile-cache "$C" --jobs "$J" \
    --batch "$B" --no-progress --db "$O/$N.sqlite" > "$O/$N.txt" 2>&1
  echo "rc=$?"
  tail -4 "$O/$N.txt"
}
read -r -a Runs <<< "${RUNS:-16:15 32:15}"
for R in "${Runs[@]}"; do
  B=${R%:*} J=${R#*:}
  echo "== cold campaign, --batch $B --jobs $J, SIGTERM after ${SECONDS_COLD:-30} s"
  camp "cold-b$B-j$J" "${TMPDIR:-/tmp}/incant-cold-cache-$B-$J" "$B" "$J" "$T"
done
B=${Runs[0]%:*} J=${Runs[0]#*:}
C=${TMPDIR:-/tmp}/incant-cold-cache-$B-$J
if [ "${WARM:-0}" = 1 ]; then
  # The batches the first cold campaign compiled are its first ones (in
  # sorted order): the same tests again, from the compile cache.
  K=$(ls "$C"/*.opt | wc -l)
  mapfile -t First < <(ls "$T"/*.litmus | LC_ALL=C sort | head -$((B * K)))
  echo "== warm campaign: the first ${#First[@]} tests, --batch $B --jobs $J"
  camp "warm-b$B-j$J" "$C" "$B" "$J" "${First[@]}"
fi
if [ "${DISASM:-1}" = 1 ]; then
  echo "== disassembling a module of --batch $B (wall user sys)"
  TIMEFORMAT='%R %U %S'
  M=$(ls "$C"/*.cubin | head -1)
  X=/usr/local/cuda/bin
  dis() { # LABEL COMMAND...
    local L=$1; shift
    echo "$L: $({ time "$@" > "$O/sass.txt" 2> "$O/sass.err"; } 2>&1)," \
      "$(wc -l < "$O/sass.txt") lines, $(grep -c 'Function :' "$O/sass.txt")" \
      "functions, $(grep -c . "$O/sass.err") error lines"
  }
  echo "$(stat -c %s "$M") bytes a module"
  dis "cuobjdump -sass, one module" "$X/cuobjdump" -sass "$M"
  dis "nvdisasm, one module" "$X/nvdisasm" "$M"
  rm -f "$O/sass.txt" "$O/sass.err"
fi
echo "== the campaigns' databases"
for d in "$O"/*.sqlite; do
  [ -f "$d" ] || continue
  python3 - "$d" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
q = lambda s: c.execute(s).fetchall()
print(sys.argv[1].rsplit("/", 1)[-1], "results by status, optcheck kind:",
      q("SELECT status, substr(optcheck, 1, 13), count(*) FROM results GROUP BY 1, 2"),
      "instances:", q("SELECT min(instances), max(instances) FROM results"),
      "barrier timeouts:", q("SELECT sum(barrier_timeouts) FROM results"),
      "tests with the condition's outcome:",
      q("SELECT count(*) FROM results WHERE positive > 0"))
PY
done
echo "== campaigns (the summaries' figures)"
printf '%-12s %6s %8s %8s %10s %8s\n' run tests seconds tests/s compile_s model_s
for f in "$O"/cold-*.txt "$O"/warm-*.txt; do
  [ -f "$f" ] || continue
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
