#!/bin/bash
# run-start-h200.sh INCANT OUT - where one test's `incant run` spends its
# time on a GPU machine: litmus/MP/MP+cta-global.litmus, 5 runs each of
#   cold  --compile-cache none (NVRTC and the SASS check every time)
#   warm  --compile-cache OUT/cc filled by one run before (both skipped)
# at --iterations 1 and at the default 1,000 launches, alternating; the
# process's wall time measured around it (date +%s%N), and --timings'
# phases. Prints the medians last; the runs' outputs go to OUT.
set -u
I=${1:?incant} O=${2:?out}
T=litmus/MP/MP+cta-global.litmus
mkdir -p "$O"
: >"$O/start.tsv"
"$I" run --backend cuda --iterations 1 --compile-cache "$O/cc" "$T" >/dev/null 2>&1
for rep in 1 2 3 4 5; do
  for mode in cold warm; do
    for it in 1 1000; do
      cc=none
      [ $mode = warm ] && cc=$O/cc
      f=$O/$mode-$it-$rep
      s=$(date +%s%N)
      "$I" run --backend cuda --timings --iterations $it --compile-cache "$cc" "$T" >"$f.out" 2>"$f.err"
      rc=$?
      e=$(date +%s%N)
      printf '%s\t%s\t%s\t%s\t%s\n' $mode $it $rep $rc $(( (e - s) / 1000000 )) >>"$O/start.tsv"
    done
  done
done
echo "mode iterations: process wall ms (5 runs, median), exit codes"
for mode in cold warm; do
  for it in 1 1000; do
    awk -v m=$mode -v i=$it '$1 == m && $2 == i { print $5 }' "$O/start.tsv" | sort -n |
      awk -v m=$mode -v i=$it '{ v[NR] = $1; s = s " " $1 } END { printf "%s %s: median %d ms (%s)\n", m, i, v[int((NR + 1) / 2)], s }'
  done
done
echo "phases, median of the 5 runs (s):"
for mode in cold warm; do
  for it in 1 1000; do
    cat "$O"/$mode-$it-*.err | grep '^timings:' | sed 's/^timings: //' |
      awk -v tag="$mode $it" '{ n = $0; sub(/ +[0-9.]+ s.*$/, "", n); match($0, /[0-9]+\.[0-9]+ s/); v = substr($0, RSTART, RLENGTH - 2); k[n] = k[n] " " v; if (!(n in o)) { o[n] = ++c } }
        END { for (n in o) print o[n] "\t" n "\t" k[n] }' | sort -n |
      while IFS=$'\t' read -r _ name vals; do
        med=$(printf '%s\n' $vals | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
        printf '%-6s %-5s %-34s %s\n' "$mode" "$it" "$name" "$med"
      done
  done
done
