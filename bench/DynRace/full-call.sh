#!/bin/bash
# The dynamic checker's whole benchmark on one GPU machine, in three device
# calls made back to back (the machine keeps WORK while it stays warm).
# Run in a carried folder holding xbin/ (incant, incant-all, the injected
# library and the Debian libraries, some gzipped), the copies the lists
# name, bench/DynRace and apps/:
#
#   bench/DynRace/full-call.sh build  WORK  # 1: build, then the boundsBug list
#   bench/DynRace/full-call.sh detect WORK  # 2: races found on dyn.list
#   bench/DynRace/full-call.sh sample WORK  # 3: slowdowns, one at a time
#
# dyn.list: bench/DynRace/project.list, then bench/DynRace/indigo-list.sh's
# lines (K = 10); bounds.list: the Indigo files whose names carry boundsBug,
# labelled as indigo-list.sh labels (racy when another "Bug" is in the
# name). 1 builds every program of both lists plain and with pass race (16
# at once), then runs bounds.list plain and under the addr scheme, 4
# programs at once. 2 runs dyn.list the same way (races found and reports
# on race-free programs; kernel times are not used, the GPU is shared).
# 3 runs sample.list (project.list and every 6th other line of dyn.list)
# one program at a time: plain, addr, stmt, the unpruned build with addr,
# and compute-sanitizer racecheck (the slowdown tables). Each leaves
# results.tsv, run.log and its reports in $OUT/PHASE.tgz.
set -u
phase=${1:?build, detect or sample} work=${2:?work folder}
for f in xbin/*.gz; do [ -e "$f" ] && gunzip -f "$f"; done
chmod +x xbin/incant xbin/incant-all
export LD_LIBRARY_PATH=$PWD/xbin PATH=/usr/local/cuda/bin:$PATH
export INCANT=$PWD/xbin/incant INCANT_INJECT_LIB=$PWD/xbin/libincant-inject.so
mkdir -p "$work/bin"
# PHASE-DIR LIST [VAR=VALUE...]: run.sh over LIST into WORK/PHASE-DIR, the
# binaries shared.
go() {
  local d=$1 list=$2
  shift 2
  mkdir -p "$work/$d" && ln -sfn "$work/bin" "$work/$d/bin"
  date -u
  env "$@" bench/DynRace/run.sh "$list" "$work/$d" >"$work/$d.log" 2>&1
  echo "run rc $?" >>"$work/$d.log"
  tail -2 "$work/$d.log"
}
# PHASE-DIR: its rows, log and reports into $OUT/PHASE-DIR.tgz.
keep() {
  (cd "$work" && tar -czf "$OUT/$1.tgz" "$1.log" "$1/results.tsv" \
     $(cd "$work" && ls "$1"/logs/*.json "$1"/logs/*.rep 2>/dev/null))
  bench/DynRace/summarize.py "$work/$1" project=k_,app_ indigo=h_ \
    indigo2=i2_ 2>/dev/null | head -12
}
case $phase in
build)
  cat dyn.list bounds.list >"$work/all.list"
  go build "$work/all.list" VARIANTS=addr JOBS=16 BUILD_ONLY=1
  (cd "$work" && tar -czf "$OUT/build-logs.tgz" build/logs)
  go bounds bounds.list VARIANTS=addr SKIP_BUILD=1 RUN_JOBS=4 \
    RUN_TIMEOUT=20 DEADLINE=${DEADLINE:-300}
  keep bounds
  ;;
detect)
  go detect dyn.list VARIANTS=addr SKIP_BUILD=1 RUN_JOBS=4 RUN_TIMEOUT=20 \
    DEADLINE=${DEADLINE:-480}
  keep detect
  ;;
sample)
  { grep -v '^\s*#' bench/DynRace/project.list | grep -v '^\s*$'
    grep -v '^\s*#' dyn.list | grep -v '^\s*$' | grep -v '^\(k\|app\)_' |
      awk 'NR % 6 == 1'; } >"$work/sample.list"
  go sample "$work/sample.list" VARIANTS="addr stmt all racecheck" JOBS=16 \
    RUN_TIMEOUT=15 RC_TIMEOUT=15 DEADLINE=${DEADLINE:-500}
  keep sample
  ;;
*) echo "full-call.sh: the phase is build, detect or sample" >&2; exit 2 ;;
esac
date -u
