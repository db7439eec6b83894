#!/bin/bash
# RaceFuzzer and RepairFuzzer side by side on a machine with more cores
# (eight fork-mode jobs each), from a carried folder:
#
#   fuzz/device-run.sh DIR SECONDS
#
# DIR holds RaceFuzzer.gz and RepairFuzzer.gz (built as docs/fuzzing.md
# says), libz3.so.4.gz and libfmt.so.9, and corpus/ (the seed modules).
# Writes each target's log and any crashing input to $OUT (or DIR/out) and
# prints one line per target last: seconds, inputs run, corpus size,
# crashes, timeouts, out-of-memory inputs.
set -u
dir=$(cd "${1:?DIR}" && pwd) secs=${2:?SECONDS}
out=${OUT:-$dir/out}
work=$(mktemp -d)
mkdir -p "$out"
for f in RaceFuzzer RepairFuzzer libz3.so.4; do
  gunzip -c "$dir/$f.gz" >"$work/$f" && chmod +x "$work/$f"
done
cp "$dir/libfmt.so.9" "$work/"
export LD_LIBRARY_PATH=$work
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1
nproc; date -u
for t in RaceFuzzer RepairFuzzer; do
  mkdir -p "$work/$t.corpus" "$out/$t.art"
  cp "$dir"/corpus/* "$work/$t.corpus/"
  (cd "$work" && "./$t" -fork=8 -ignore_crashes=1 -print_funcs=0 \
     -max_total_time="$secs" -timeout=120 -rss_limit_mb=2048 -max_len=4096 \
     -artifact_prefix="$out/$t.art/" "$t.corpus" >"$out/$t.log" 2>&1) &
done
wait
date -u
for t in RaceFuzzer RepairFuzzer; do
  # fork mode's last status line: "#N: cov: C ft: F corp: K exec/s: E ..."
  last=$(grep -a '^#[0-9]*: cov:' "$out/$t.log" | tail -1)
  printf '%s\t%ss\tinputs %s\tcorpus %s\tcrashes %s\ttimeouts %s\toom %s\n' "$t" "$secs" \
    "$(sed 's/^#\([0-9]*\):.*/\1/' <<<"$last")" \
    "$(sed -n 's/.*corp: \([0-9]*\).*/\1/p' <<<"$last")" \
    "$(ls "$out/$t.art" | grep -c '^crash-')" \
    "$(ls "$out/$t.art" | grep -c '^timeout-')" \
    "$(ls "$out/$t.art" | grep -c '^oom-')"
done
