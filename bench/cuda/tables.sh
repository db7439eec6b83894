#!/bin/bash
# The papers' tables (thesis Table 3.1, ASPLOS'15 Tables 4.x and 6) for the
# CUDA backend, in one go, sized for about five minutes of an H100:
#  1. for MP, SB, LB, CoRR (between CTAs; one CTA, global; one CTA,
#     shared), IRIW, WRC, 2+2W, R, S, cas-sl, exch-sl, sl-future, dlb-mp,
#     dlb-lb and mp-volatile (litmus/<T>/<T>+cta-global.litmus): no
#     incantation, each incantation alone, all of them, and the membar.gl
#     variant (plus fence.sc.gpu where the library has it) with thread
#     randomisation;
#  2. intra-CTA placements under each incantation and stress warps inside
#     the CTA (--cta-stress-warps);
#  3. bar.sync, 64-bit and the tests whose SASS needs a lower ptxas level;
#  4. parallel testing against one instance per launch (--single), same
#     test and incantations, weak outcomes per second as a ratio
#     (SINGLE_SECONDS: time budget of each single-instance run, default 45).
# Usage, from the repository root:
#   bench/cuda/tables.sh [BENCH] OUTDIR
# BENCH is the incant-cuda-litmus program; without it the script builds it
# once (Release) in build-tables/. SECTIONS (default "1 2 3 4") and IT
# (launches per run, default 100) select and size the runs. Results: one
# JSON line per run in OUTDIR/runs.jsonl; the markdown tables are printed
# last (bench/cuda/tables.py).
set -u
if [ $# -ge 2 ]; then B=$1; O=$2; else B=""; O=${1:?output dir}; fi
if [ -z "$B" ]; then
  cmake -S . -B build-tables -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DINCANT_BENCH=ON > "$O.cmake.log" 2>&1 &&
    ninja -C build-tables incant-cuda-litmus > "$O.build.log" 2>&1 ||
    { echo "build failed (see $O.build.log)"; exit 2; }
  B=build-tables/bench/cuda/incant-cuda-litmus
fi
mkdir -p "$O"
IT=${IT:-100}
SECTIONS=${SECTIONS:-1 2 3 4}
J="$O/runs.jsonl"
: > "$J"
# run SECTION ROW COLUMN ARGS...: one run, its JSON line tagged.
run() {
  local s=$1 row=$2 col=$3; shift 3
  local line
  line=$(timeout 120 "$B" "$@" --json 2>&1 | grep '^JSON ' | tail -1)
  if [ -z "$line" ]; then
    echo "{\"section\":\"$s\",\"row\":\"$row\",\"col\":\"$col\",\"error\":true}" >> "$J"
    echo "run failed: $*" >&2
    return
  fi
  echo "{\"section\":\"$s\",\"row\":\"$row\",\"col\":\"$col\",${line#JSON \{}" >> "$J"
}
ALL="--stress --bank --random --barrier --prestress"
cols() { # SECTION ROW FILE FENCED-FILE
  local s=$1 row=$2 f=$3 ff=$4
  run "$s" "$row" none "$f" --iterations "$IT"
  for inc in stress bank random barrier prestress; do
    run "$s" "$row" "$inc" "$f" --iterations "$IT" "--$inc"
  done
  # shellcheck disable=SC2086
  run "$s" "$row" all "$f" --iterations "$IT" $ALL
  [ -n "$ff" ] && run "$s" "$row" "membar.gl" "$ff" --iterations "$IT" --random
}
nvidia-smi -L 2>/dev/null
T0=$SECONDS
for S in $SECTIONS; do
  case $S in
  1)
    for t in MP SB LB IRIW WRC 2+2W R S cas-sl exch-sl sl-future dlb-mp \
             dlb-lb mp-volatile; do
      cols 1 "$t" "litmus/$t/$t+cta-global.litmus" \
        "litmus/$t/$t+membar.gl+cta-global.litmus"
    done
    cols 1 "CoRR (CTAs, global)" litmus/CoRR/CoRR+cta-global.litmus \
      litmus/CoRR/CoRR+membar.gl+cta-global.litmus
    cols 1 "CoRR (one CTA, global)" litmus/CoRR/CoRR+warp-global.litmus \
      litmus/CoRR/CoRR+membar.gl+warp-global.litmus
    cols 1 "CoRR (one CTA, shared)" litmus/CoRR/CoRR+warp-shared.litmus \
      litmus/CoRR/CoRR+membar.gl+warp-shared.litmus
    run 1 SB fence.sc.gpu litmus/PTX/SB+fence.sc.gpu+cta-diff.litmus \
      --iterations "$IT" --random
    run 1 IRIW fence.sc.gpu litmus/PTX/IRIW+fence.sc.gpu+cta-diff.litmus \
      --iterations "$IT" --random
    ;;
  2)
    for t in MP SB LB; do
      for m in global shared; do
        f=litmus/$t/$t+warp-$m.litmus
        row="$t (warps, $m)"
        run 2 "$row" none "$f" --iterations "$IT"
        for inc in stress bank random; do
          run 2 "$row" "$inc" "$f" --iterations "$IT" "--$inc"
        done
        run 2 "$row" cta-stress "$f" --iterations "$IT" --cta-stress-warps 4
        # shellcheck disable=SC2086
        run 2 "$row" "all+cta-stress" "$f" --iterations "$IT" $ALL \
          --cta-stress-warps 4
      done
    done
    for t in MP SB; do
      # shellcheck disable=SC2086
      run 2 "$t (one warp, global)" "all" "$t" --place lane \
        --iterations "$IT" $ALL
    done
    ;;
  3)
    for f in litmus/bar/*.litmus litmus/CoRR/CoRR+cta-global.litmus \
             litmus/CoRR/CoRR+warp-global.litmus \
             litmus/CoRR/CoRR+warp-shared.litmus \
             litmus/PTX/CoRR+weak+cta-diff.litmus litmus/PTX/CoWR+weak.litmus \
             litmus/sanity/CoRR+forall+warp-global.litmus \
             unittests/CUDA/Inputs/MP+u64-pointer.litmus \
             unittests/CUDA/Inputs/SB+bar.sync+u64+cta.litmus; do
      b=$(basename "$f" .litmus)
      run 3 "$b" random "$f" --iterations "$IT" --random
    done
    ;;
  4)
    # The same test and incantations in both modes, the single mode run for
    # a time budget. SB with relaxed.gpu accesses (hand-built), where the
    # spin barrier lines up the two testing blocks just before the test;
    # then with memory stress as well. (Run 1 of docs/cuda.md: no weak
    # outcome in 2e5 single launches with --random, none with stress in
    # the test's own memory.)
    run 4 "SB barrier" parallel SB --barrier --iterations 1000
    run 4 "SB barrier" single SB --single --barrier --iterations 100000000 \
      --max-seconds "${SINGLE_SECONDS:-45}"
    run 4 "SB stress+barrier" parallel SB --stress --barrier --iterations 200
    run 4 "SB stress+barrier" single SB --single --stress --barrier \
      --iterations 100000000 --max-seconds "${SINGLE_SECONDS:-45}"
    ;;
  esac
  echo "section $S done at $((SECONDS - T0)) s" >&2
done
python3 "$(dirname "$0")/tables.py" "$J"
