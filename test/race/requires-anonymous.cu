// A kernel in an anonymous namespace (as the case studies write them) is
// matched to its __requires by its own name, not its mangled one
// (_ZN..._GLOBAL__N_...): width = 64 makes the two halves disjoint. Without
// the precondition (--any-launch ignores the host code and annotations)
// width = 0 makes every thread write out[t] twice over.
// REQUIRES: nvcc, libclang
// RUN: %incant race %s --block-dim 64 --grid-dim 1 > %t; test $? -eq 0
// RUN: FileCheck %s --check-prefix=FIXED < %t
// RUN: %incant race %s --block-dim 64 --grid-dim 1 --any-launch > %t; test $? -eq 1
// RUN: FileCheck %s --check-prefix=ANY < %t
#define __requires(...) ((void)0)

namespace {
// FIXED: launch: any launch with width = 64 (__requires at requires-anonymous.cu:[[@LINE+3]])
// FIXED: 0 races
__global__ void halves(int *out, int width) {
  __requires(width == 64);
  out[threadIdx.x] = 1;
  out[threadIdx.x + width] = 2;
}
} // namespace

// ANY: race
