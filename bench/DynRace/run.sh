#!/bin/bash
# The dynamic race checker's benchmark on a GPU machine (docs/race.md,
# "Dynamic"): builds every program of a list three ways (plain nvcc; through
# incant with pass race, pruned by the static checker where incant has it;
# and with every access instrumented), runs each plain, under `incant race
# --dynamic` with both schemes (and the unpruned build with addr), and under
# compute-sanitizer racecheck, and writes one result line per program.
#
#   bench/DynRace/run.sh LIST OUTDIR
#
# LIST: one program a line, fields separated by '|':
#   NAME|LABEL|SOURCE.cu|NVCC FLAGS|ARGUMENTS
# LABEL is racy or race-free; relative paths (sources, -I, arguments)
# start in the current folder (the repository root for project.list);
# '#' starts a comment line. The environment: INCANT (the incant
# binary), INCANT_INJECT_LIB (its injected library), JOBS (parallel builds,
# default nproc), DEADLINE (seconds after which no new program is run,
# default 3600), RUN_TIMEOUT (seconds per run, default 60), RC_TIMEOUT
# (seconds per racecheck run, default 30), VARIANTS (which of addr, stmt,
# all (the unpruned build with addr) and racecheck run, default all four;
# "all" is built only when it runs), RACECHECK_EVERY=K (racecheck on every
# K-th program of the list only, from the first; default 1), RUN_JOBS=N (N
# programs run at once, each one's variants one after another; default 1:
# with more, the GPU is shared and kernel times can include other
# processes' kernels). OUTDIR/results.tsv gets
#   name label variant rc found kernel_ms launches wall_s report
# and OUTDIR/logs/ every build and run log; bench/DynRace/summarize.py
# turns them into the tables.
set -u
list=$1
root=$PWD
mkdir -p "$2" && out=$(cd "$2" && pwd)
incant=${INCANT:?set INCANT to the incant binary}
inject=${INCANT_INJECT_LIB:?set INCANT_INJECT_LIB}
jobs=${JOBS:-$(nproc)}
deadline=${DEADLINE:-3600}
run_timeout=${RUN_TIMEOUT:-60}
rc_timeout=${RC_TIMEOUT:-30}
variants=" ${VARIANTS:-addr stmt all racecheck} "
rc_every=${RACECHECK_EVERY:-1}
run_jobs=${RUN_JOBS:-1}
for v in $variants; do
  case $v in addr | stmt | all | racecheck) ;;
  *) echo "run.sh: unknown variant '$v' in VARIANTS" >&2; exit 2 ;;
  esac
done
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
sanitizer=$(command -v compute-sanitizer ||
            echo /usr/local/cuda/bin/compute-sanitizer)
mkdir -p "$out/logs" "$out/bin"
start=$SECONDS

# The environment that routes nvcc through incant with pass race.
race_env=$("$incant" build-env --passes race) || exit 2

build_one() { # NAME SOURCE FLAGS
  local name=$1 src=$2 flags=$3
  local f=()
  read -r -a f <<<"${flags//,/ }"
  local common=(-O3 -arch=sm_90 -lineinfo "${f[@]}" "$src")
  # VARIANT [ENV...]: one build, kept where an earlier run made it (a
  # binary appears only once nvcc has finished it).
  one() {
    local v=$1 bin=$out/bin/$name.$1
    shift
    [ -x "$bin" ] && return
    (for e in "$@"; do eval "$e"; done
     "$nvcc" "${common[@]}" -o "$bin.tmp") >"$out/logs/$name.build-$v" 2>&1 &&
      mv "$bin.tmp" "$bin"
  }
  one plain
  one race "$race_env"
  [[ $variants == *" all "* ]] && one all "$race_env" "export INCANT_RACE_ALL=1"
  return 0
}
export -f build_one
export out root nvcc race_env variants

# Binaries that OUTDIR/bin holds from an earlier run are kept (an
# interrupted build goes on where it stopped; a fresh OUTDIR rebuilds all).
# SKIP_BUILD=1 builds nothing; BUILD_ONLY=1 stops after building.
[ "${SKIP_BUILD:-0}" = 1 ] ||
grep -v '^\s*#' "$list" | grep -v '^\s*$' | while IFS='|' read -r n l s f a; do
  printf '%s\0%s\0%s\0' "$n" "$s" "$f"
done | xargs -0 -n3 -P"$jobs" bash -c 'build_one "$0" "$1" "$2"'
echo "built in $((SECONDS - start)) s" >&2
[ "${BUILD_ONLY:-0}" = 1 ] && exit 0

# Kernel milliseconds and launches from the injected library's report
# (INCANT_TIME=1): the sum over the process's kernels.
kernel_ms() {
  [ -s "$1" ] || { echo "- -"; return; }
  grep '"kernels":\[{' "$1" | tail -1 |
    sed 's/},{/}\n{/g' | sed -n 's/.*"launches":\([0-9]*\),"ms":\([0-9.]*\).*/\1 \2/p' |
    awk '{l += $1; m += $2} END {if (NR) printf "%.6f %d\n", m, l; else print "- -"}'
}

results=$out/results.tsv
printf 'name\tlabel\tvariant\trc\tfound\tkernel_ms\tlaunches\twall_s\treport\n' \
  >"$results"
mkdir -p "$out/rows"
t0=0
tick() { t0=$(date +%s.%N); }
row() { # NAME LABEL VARIANT RC FOUND REPORTFILE JSON: a line of $rows
  read -r ms launches < <(kernel_ms "$6")
  local wall
  wall=$(echo "$(date +%s.%N) $t0" | awk '{printf "%.3f", $1 - $2}')
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" \
    "$ms" "$launches" "$wall" "$7" >>"$rows"
}

# run_one INDEX NAME LABEL ARGUMENTS: every variant of one program, its
# lines into rows/INDEX.
run_one() {
  local i=$1 n=$2 l=$3 a=$4
  rows=$out/rows/$i
  : >"$rows"
  if (($(date +%s) - start_epoch > deadline)); then
    echo "deadline: $n not run" >&2
    printf '%s\t%s\tskipped\t-\t-\t-\t-\t-\t-\n' "$n" "$l" >>"$rows"
    return
  fi
  local args
  read -r -a args <<<"$a"
  local b=$out/bin/$n
  if [ ! -x "$b.plain" ] || [ ! -x "$b.race" ]; then
    row "$n" "$l" build-failed - - /dev/null -
    return
  fi
  # Uninstrumented, timed by the injected library.
  rm -f "$out/logs/$n.plain.rep"
  tick
  LD_PRELOAD=$inject INCANT_TIME=1 INCANT_REPORT=$out/logs/$n.plain.rep \
    timeout "$run_timeout" "$b.plain" "${args[@]}" </dev/null >"$out/logs/$n.plain.log" 2>&1
  row "$n" "$l" plain $? - "$out/logs/$n.plain.rep" -
  # incant race --dynamic: both schemes on the pruned build, addr on the
  # unpruned one.
  local v bin scheme rep json rc found
  for v in addr stmt all; do
    [[ $variants == *" $v "* ]] || continue
    bin=$b.race scheme=$v
    [ $v = all ] && bin=$b.all scheme=addr
    [ -x "$bin" ] || { row "$n" "$l" $v build-failed - /dev/null -; continue; }
    rep=$out/logs/$n.$v.rep json=$out/logs/$n.$v.json
    rm -f "$rep" "$json"
    tick
    INCANT_TIME=1 INCANT_REPORT=$rep "$incant" race --dynamic --scheme $scheme \
      --json -o "$json" --time-limit "$run_timeout" -- "$bin" "${args[@]}" \
      </dev/null >"$out/logs/$n.$v.log" 2>&1
    rc=$?
    # The races of the report, not the exit status: an application that
    # fails on its own (a racy -nf app's wrong result) also exits 1.
    found=$(python3 -c 'import json, sys
try:
    print(len(json.load(open(sys.argv[1])).get("races", [])))
except (OSError, ValueError):
    print("-")' "$json")
    row "$n" "$l" $v $rc $found "$rep" "$json"
  done
  # compute-sanitizer racecheck on the plain build.
  [[ $variants == *" racecheck "* ]] && ((i % rc_every == 0)) || return 0
  rep=$out/logs/$n.racecheck.rep
  rm -f "$rep"
  tick
  LD_PRELOAD=$inject INCANT_TIME=1 INCANT_REPORT=$rep \
    timeout "$rc_timeout" "$sanitizer" --tool racecheck "$b.plain" "${args[@]}" \
    </dev/null >"$out/logs/$n.racecheck.log" 2>&1
  rc=$?
  found=$(sed -n 's/.*RACECHECK SUMMARY: \([0-9]*\) hazard.*/\1/p' \
            "$out/logs/$n.racecheck.log" | tail -1)
  [ $rc -eq 124 ] && found="timeout"
  row "$n" "$l" racecheck $rc "${found:-?}" "$rep" -
}
export -f run_one row tick kernel_ms
export incant inject run_timeout rc_timeout rc_every deadline sanitizer
export start_epoch=$(($(date +%s) - SECONDS + start))

grep -v '^\s*#' "$list" | grep -v '^\s*$' | {
  i=0
  while IFS='|' read -r n l s f a; do
    printf '%s\0%s\0%s\0%s\0' "$i" "$n" "$l" "$a"
    i=$((i + 1))
  done
} | xargs -0 -n4 -P"$run_jobs" bash -c 'run_one "$0" "$1" "$2" "$3"'
count=$(grep -v '^\s*#' "$list" | grep -cv '^\s*$')
for ((i = 0; i < count; i++)); do cat "$out/rows/$i"; done >>"$results"
echo "ran in $((SECONDS - start)) s" >&2
