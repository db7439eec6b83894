#!/bin/bash
# One device call: the Hopper-era case studies again (hopper-call.sh), then
# a launch the driver refuses (kernels/refused_launch.cu) under `incant
# race --dynamic` with both schemes, which must end "not checked" (exit 3)
# rather than clean. From the repository root:
#
#   bench/DynRace/h200-recheck.sh XBIN WORK
#
# XBIN as for hopper-call.sh (bin/incant and bin/incant-all, the injected
# library in lib/incant/, the Debian libraries in lib/, libz3.so.4
# gzipped). Prints the case studies' table, then the refused launch's.
set -u
xbin=$(cd "${1:?XBIN}" && pwd) work=${2:?WORK}
out=${OUT:-$work/out}
mkdir -p "$work" "$out"
bash bench/DynRace/hopper-call.sh "$xbin" "$work/hopper" >"$out/hopper.txt" 2>&1
echo "hopper-call.sh rc $?"
export LD_LIBRARY_PATH=$xbin/lib PATH=/usr/local/cuda/bin:$PATH
export INCANT_INJECT_LIB=$xbin/lib/incant/libincant-inject.so
incant=$xbin/bin/incant
(eval "$("$incant" build-env --passes race)"
 nvcc -O3 -arch=sm_90 -lineinfo -std=c++17 bench/DynRace/kernels/refused_launch.cu \
   -o "$work/refused.race") >"$out/refused.build.log" 2>&1
echo "refused_launch build rc $?"
printf '\n| scheme | exit | report |\n|---|---|---|\n' >"$out/refused.md"
for s in addr stmt; do
  timeout 120 "$incant" race --dynamic --scheme $s -- "$work/refused.race" \
    >"$out/refused.$s.txt" 2>&1
  rc=$?
  printf '| %s | %s | %s |\n' $s $rc \
    "$(grep -o 'did not start ([^)]*)\|summary:.*' "$out/refused.$s.txt" | head -1)" \
    >>"$out/refused.md"
done
tail -n 20 "$out/hopper.txt"
cat "$out/refused.md"
