#!/bin/bash
# A cold campaign of the `campaign` preset with two builds of incant (an
# A/B of a harness change; issue 19, docs/campaign.md calls 9 and 10), on
# the device machine, in one call:
#   1. how fast the machine is now (a fixed piece of Python work);
#   2. CPU a test on one thread, split: incant-cuda-compile --threads 1
#      --batch 32 on the first SPLIT_TESTS tests of the preset with ptxas and
#      cuobjdump run through wrappers that log each run's user and system
#      time (so the rest is NVRTC's share, code generation, splicing and
#      optcheck), for each build;
#   3. the cold campaign of the whole preset (5,880 tests) with each build,
#      --batch 32 --jobs 15, a fresh compile cache each (new first), then
#      each again from its own cache (warm: a second sample of the same
#      harness's weak outcomes, and the rate without compiling); with
#      NDF=1 also the new build with INCANT_CUDA_DISASSEMBLER=nvdisasm
#      (nvdisasm -ndf for optcheck; its CPU split too) and the time of
#      each disassembler on one module of the new build's cache;
#   4. the A/B of weak outcomes (bench/cuda/ab-campaign.py) over the
#      databases, and a table of the campaigns last.
# The cold databases come back xz-compressed (Python's lzma).
#
# Usage, from the repository root:
#   bench/cuda/cold-ab-h100.sh NEW_BIN_DIR OLD_BIN_DIR OUTDIR PROFILE
# (each BIN_DIR holds incant, incant-all and incant-cuda-compile).
# Environment: SPLIT_TESTS (128; 0: no split), SPLITS (the builds split,
# "new old"), CAMPAIGNS ("cold-new cold-old warm-new warm-old"), NDF (0),
# LIMIT (each campaign's timeout, 150 s).
set -u
NEW=${1:?new build dir}
OLD=${2:?old build dir}
O=${3:?output dir}
P=${4:?profile}
T=${TMPDIR:-/tmp}/incant-ab-tests
C=${TMPDIR:-/tmp}/incant-ab-cache
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$O"
rm -rf "$T" "$C"-*
echo "== machine"
nproc
lscpu | grep -E 'Model name|Hypervisor'
uptime
timeout 60 python3 "$(dirname "$0")/machine-speed.py"
timeout 60 "$NEW/incant" gen --preset campaign -o "$T" | tail -1

if [ "${SPLIT_TESTS:-128}" -gt 0 ]; then
  W=$(mktemp -d)
  for tool in ptxas cuobjdump nvdisasm; do
    [ -x /usr/local/cuda/bin/$tool ] || continue
    cat > "$W/$tool" <<WRAP
#!/bin/bash
TIMEFORMAT='%U %S'
{ time /usr/local/cuda/bin/$tool "\$@" 2>&3 ; } 3>&2 2>>"$W/log.$tool"
WRAP
    chmod +x "$W/$tool"
  done
  splits=(${SPLITS:-new old})
  [ "${NDF:-0}" = 1 ] && splits+=(ndf)
  for b in "${splits[@]}"; do
    D=$NEW; [ $b = old ] && D=$OLD
    Dis=cuobjdump; [ $b = ndf ] && Dis=nvdisasm
    rm -f "$W"/log.*
    echo "== CPU a test, one thread, $b: incant-cuda-compile --threads 1 --batch 32 --tests ${SPLIT_TESTS:-128}"
    INCANT_CUDA_DISASSEMBLER=$Dis PATH=$W:$PATH timeout 100 \
      "$D/incant-cuda-compile" --tests "${SPLIT_TESTS:-128}" \
      --batch 32 --threads 1 "$T" | tail -1 |
      awk -v b=$b '{print b ": all: " $2 " s CPU a test (sys " $3 "), wall " $4 " s"}' |
      tee "$O/split-$b.txt"
    for tool in ptxas cuobjdump nvdisasm; do
      [ -f "$W/log.$tool" ] || continue
      awk -v t=$tool -v n="${SPLIT_TESTS:-128}" '{u += $1; s += $2; k++}
        END {printf "%s: %d runs, %.2f s user, %.2f s sys, %.4f s a test\n",
             t, k, u, s, (u + s) / n}' "$W/log.$tool" | tee -a "$O/split-$b.txt"
    done
  done
fi

camp() { # NAME BIN_DIR CACHE TESTS...
  local N=$1 D=$2 K=$3; shift 3
  echo "== campaign $N"
  timeout -s TERM "${LIMIT:-150}" "$D/incant" campaign "$@" --backend cuda \
    --iterations 100 --profile "$P" --compile-cache "$K" --jobs 15 \
    --batch 32 --no-progress --db "$O/$N.sqlite" > "$O/$N.txt" 2>&1
  echo "rc=$?"
  tail -2 "$O/$N.txt"
}
runs=(${CAMPAIGNS:-cold-new cold-old warm-new warm-old})
[ "${NDF:-0}" = 1 ] && runs=("${runs[0]}" cold-ndf "${runs[@]:1}")
for n in "${runs[@]}"; do
  case $n in
    *-new) camp "$n" "$NEW" "$C-new" "$T" ;;
    *-old) camp "$n" "$OLD" "$C-old" "$T" ;;
    *-ndf) INCANT_CUDA_DISASSEMBLER=nvdisasm camp "$n" "$NEW" "$C-ndf" "$T" ;;
  esac
done
if [ "${NDF:-0}" = 1 ]; then
  echo "== disassembling one module of the new build's cache (wall user sys)"
  TIMEFORMAT='%R %U %S'
  M=$(ls "$C-new"/*.cubin | head -1)
  X=/usr/local/cuda/bin
  echo "$(stat -c %s "$M") bytes"
  for v in "cuobjdump -sass" "nvdisasm" "nvdisasm -ndf" "nvdisasm -c -ndf"; do
    set -- $v
    echo "$v: $( { time timeout 60 "$X/$1" "${@:2}" "$M" > "$O/sass.txt" 2>/dev/null; } 2>&1 )," \
      "$(wc -l < "$O/sass.txt") lines"
  done
  rm -f "$O/sass.txt"
fi

echo "== A/B of weak outcomes (bench/cuda/ab-campaign.py)"
args=()
for n in "${runs[@]}"; do
  [ -f "$O/$n.sqlite" ] && args+=("$n=$O/$n.sqlite")
done
timeout 120 python3 "$HERE/ab-campaign.py" "${args[@]}" | tee "$O/ab.txt"
timeout 120 python3 - "$O" <<'PY'
import lzma, shutil, sys
for n in ("cold-new", "cold-old", "cold-ndf"):
    try:
        with open(f"{sys.argv[1]}/{n}.sqlite", "rb") as i, \
             lzma.open(f"{sys.argv[1]}/{n}.sqlite.xz", "wb", preset=3) as o:
            shutil.copyfileobj(i, o)
    except OSError as e:
        pass
PY
echo "== campaigns (the summaries' figures)"
printf '%-10s %6s %8s %8s %10s\n' run tests seconds tests/s compile_s
for n in "${runs[@]}"; do
  f=$O/$n.txt
  [ -f "$f" ] || continue
  awk -v n="$n" '
    /^campaign: .* run,/ { for (i = 1; i <= NF; ++i) {
        if ($(i+1) == "run,") r = $i
        if ($i == "in" && $(i+2) == "s") s = $(i+1)
        if ($(i+1) == "tests/s") t = $i } }
    /^time:/ { for (i = 1; i <= NF; ++i) if ($i == "compile") c = $(i+1) }
    END { printf "%-10s %6s %8s %8s %10s\n", n, r, s, t, c }' "$f"
done
cat "$O"/split-*.txt 2>/dev/null
