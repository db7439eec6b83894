#!/bin/sh
# nvcc, but answering no dry run: copied into a folder with no CUDA headers
# beside it, it stands for an installation whose headers clang cannot find.
case " $* " in *" -dryrun "*) exit 1 ;; esac
for n in "$(command -v nvcc)" /usr/local/cuda/bin/nvcc; do
  [ -n "$n" ] && [ -x "$n" ] && exec "$n" "$@"
done
exit 127
