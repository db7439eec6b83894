#!/usr/bin/env bash
# Prints bench/DynRace/run.sh's list lines for the Indigo programs of the
# HiRace artifact (JohnJacobsonIII/HiRace-Artifact-SC24) and the race-free
# programs of burtscher/Indigo2Suite, run as the artifact and the suite run
# them (docs/race.md, "Dynamic"):
#
#   bench/DynRace/indigo-list.sh HIRACE INDIGO2 [K] > indigo.list
#
# HIRACE and INDIGO2 are copies of the two repositories, given as paths
# relative to the folder run.sh will run in (nothing of them is committed
# here). Every Indigo program of indigo/indigo_sources but those whose name
# says boundsBug (left out as the artifact's table leaves them out), labelled
# racy when its name has "Bug" (HiRace's labels), on input/DAG_100n_200e.egr
# with 256 threads x 1024 blocks; and every K-th (default 10) CUDA code of
# Indigo2Suite's codes/cuda in sorted order, from the first, labelled
# race-free, on small-inputs/undirected_all_possible_graph_63_3n_6e.egr
# (bfs and sssp from vertex 0 with verification, pr as it is, the others
# with verification), with -DclockRate=major -DmemoryClockRate=minor (CUDA
# 13 dropped those two cudaDeviceProp fields, which the codes only print).
set -euo pipefail
[ $# -eq 2 ] || [ $# -eq 3 ] || { sed -n 2,20p "$0" >&2; exit 2; }
hirace=$1 indigo2=$2 every=${3:-10}
[[ $every =~ ^[1-9][0-9]*$ ]] || { echo "indigo-list.sh: K must be a positive number" >&2; exit 2; }
for d in "$hirace/indigo/indigo_sources" "$indigo2/codes/cuda"; do
  [ -d "$d" ] || { echo "indigo-list.sh: no folder $d" >&2; exit 2; }
done
graph=$hirace/indigo/input/DAG_100n_200e.egr
(cd "$hirace/indigo" && find indigo_sources -name '*.cu' | sort) |
  grep -v boundsBug | while read -r f; do
  label=race-free
  case $f in *Bug*) label=racy ;; esac
  echo "h_$(basename "$f" .cu)|$label|$hirace/indigo/$f|-I$hirace/indigo/indigo_include|$graph 256 1024"
done
egr=$indigo2/small-inputs/undirected_all_possible_graph_63_3n_6e.egr
(cd "$indigo2" && find codes/cuda -name '*.cu' | sort) |
  awk -v k="$every" '(NR - 1) % k == 0' | while read -r f; do
  case $f in
  */bfs-cuda/* | */sssp-cuda/*) args="$egr 0 1" ;;
  */pr-cuda/*) args=$egr ;;
  *) args="$egr 1" ;;
  esac
  echo "i2_$(basename "$f" .cu)|race-free|$indigo2/$f|-I$indigo2/include,-DclockRate=major,-DmemoryClockRate=minor|$args"
done
