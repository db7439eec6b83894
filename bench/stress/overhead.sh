#!/bin/sh
# overhead.sh INCANT_LIB DIR REPEAT [NAMES] - what the instrumenting build
# costs with everything switched off. For each application DIR/plain/NAME
# and DIR/instr/NAME (build-apps.sh) run with ARGS "--repeat REPEAT", the
# total kernel time of all its launches, measured by the injected library
# (INCANT_TIME=1: CUDA events around every launch, the same in both
# builds; no stress, no randomisation), the best of ROUNDS alternating
# rounds ($ROUNDS, default 3); each run is cut at 30 s.
# NAMES is a comma-separated list; a name may carry arguments after a
# colon: "hs:spinMutex 10 264 10" (then no --repeat is added).
set -u
LIB=$1 DIR=$2 REPEAT=$3
NAMES=${4:-"dot,hashtable,reduction,scan,octree,taskqueue,barneshut,ticketlock,semaphore,pipeline,stack,gridbarrier"}
total() { python3 -c 'import json,sys; print(sum(k["ms"] for l in open(sys.argv[1]) for k in json.loads(l)["kernels"]))' "$1"; }
run() { # BIN ARGS... -> total kernel ms
  R=$(mktemp); rm -f "$R"
  LD_PRELOAD=$LIB INCANT_TIME=1 INCANT_REPORT=$R timeout 30 "$@" >/dev/null 2>&1
  [ -s "$R" ] && total "$R"; rm -f "$R"
}
printf '| app | plain ms | instrumented ms | overhead |\n|---|---|---|---|\n'
IFS_SAVED=$IFS
IFS=,
set -f
for N in $NAMES; do
  IFS=$IFS_SAVED
  A=${N%%:*}
  if [ "$A" = "$N" ]; then ARGS="--repeat $REPEAT"; else ARGS=${N#*:}; fi
  [ -x "$DIR/plain/$A" ] && [ -x "$DIR/instr/$A" ] || continue
  P=1e30 I=1e30
  for R in $(seq "${ROUNDS:-3}"); do
    P=$(awk -v a="$P" -v b="$(run "$DIR/plain/$A" $ARGS)" 'BEGIN{print (b!="" && b+0<a+0?b:a)}')
    I=$(awk -v a="$I" -v b="$(run "$DIR/instr/$A" $ARGS)" 'BEGIN{print (b!="" && b+0<a+0?b:a)}')
  done
  awk -v a="$N" -v p="$P" -v i="$I" 'BEGIN {
    if (p >= 1e29 || i >= 1e29) printf "| %s | (no run finished) | | |\n", a;
    else printf "| %s | %.3f | %.3f | %+.1f%% |\n", a, p, i, 100*(i/p-1) }'
  IFS=,
done
