#!/bin/bash
# The case-study applications on a GPU machine: builds apps/ as a CMake
# project of its own (no other part of incant is needed), runs every
# application, fenced and -nf, REPEAT times in one process each (one
# post-condition check per repetition), and prints one table (also written
# to OUTDIR/table.md, with every program's output in OUTDIR/logs/).
#
#   bench/apps/run-apps.sh [REPEAT [OUTDIR [APP...]]]
#
# REPEAT defaults to 1000, OUTDIR to build-apps/results, the apps to all of
# them. Each bounded wait in the applications gets TIMEOUT_MS (default 200):
# a hung run costs that long, and no correct run here waits nearly as long.
set -u
repeat=${1:-1000}
out=${2:-build-apps/results}
shift $(( $# < 2 ? $# : 2 ))
apps=("$@")
build=${BUILD_DIR:-build-apps}
timeout_ms=${TIMEOUT_MS:-200}
mkdir -p "$out/logs"

if ! { cmake -S apps -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release &&
       cmake --build "$build" -j"$(nproc)"; } >"$out/logs/build.log" 2>&1; then
  tail -40 "$out/logs/build.log"
  exit 2
fi
if [ ${#apps[@]} -eq 0 ]; then
  apps=(dot hashtable reduction scan octree taskqueue barneshut ticketlock
        semaphore pipeline stack gridbarrier)
fi

device=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
{
  echo "device: ${device:-unknown}; nvcc: $(nvcc --version | tail -1)"
  echo "command: bench/apps/run-apps.sh $repeat (each: APP --repeat $repeat --timeout-ms $timeout_ms)"
  echo
  echo "| app | variant | runs | wrong | of which hung | median kernel ms | median run ms | process s | exit | first failure |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
} | tee "$out/table.md"

for app in "${apps[@]}"; do
  for variant in "" "-nf"; do
    bin="$build/$app$variant"
    log="$out/logs/$app$variant.log"
    t0=$(date +%s.%N)
    timeout 300 "$bin" --repeat "$repeat" --timeout-ms "$timeout_ms" >"$log" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    last=$(tail -1 "$log")
    kernel=$(sed -n 's/.*median kernel \([0-9.]*\) ms.*/\1/p' <<<"$last")
    runms=$(sed -n 's/.*, run \([0-9.]*\) ms).*/\1/p' <<<"$last")
    wrong=0 hung=0 first=""
    if [[ $last == *": WRONG: "* ]]; then
      wrong=$(sed -n 's/.*: WRONG: \([0-9]*\) of .*/\1/p' <<<"$last")
      hung=$(sed -n 's/.* runs wrong (\([0-9]*\) hung).*/\1/p' <<<"$last")
      first=$(sed -n 's/.*, the first: \(.*\) (median kernel.*/\1/p' <<<"$last")
    elif [[ $last != *": ok: "* ]]; then
      wrong="?" first="$last"
    fi
    printf '| %s | %s | %s | %s | %s | %s | %s | %.1f | %s | %s |\n' \
      "$app" "${variant:-fenced}" "$repeat" "$wrong" "$hung" "${kernel:-}" \
      "${runms:-}" "$(awk "BEGIN{print $t1 - $t0}")" "$rc" "${first//|/\\|}" |
      tee -a "$out/table.md"
  done
done
