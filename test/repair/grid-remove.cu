// A programmer's grid.sync() that orders nothing (each thread reads and
// writes its own element) is taken out whole: the line in the patch, and
// in the PTX the sequence from its first bar.sync to its last (its arrival
// atomic and its spin loop go with it). One that orders an exchange
// between blocks stays (tried: two checks, and kept).
// REQUIRES: nvcc, ptxas
// RUN: %incant repair %s --kernel own --grid-level --block-dim 32 --grid-dim 2 --patch %t.diff -o %t.ptx > %t.out
// RUN: FileCheck %s --check-prefix=OWN < %t.out
// RUN: FileCheck %s --check-prefix=DIFF < %t.diff
// RUN: FileCheck %s --check-prefix=ASM < %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %incant repair %s --kernel exchange --grid-level --block-dim 32 --grid-dim 2 --json | FileCheck %s --check-prefix=KEEP

// OWN:      kernel _Z3ownPi (own(int*)): repaired (0 rounds, 2 checks)
// OWN-NEXT:   remove grid barrier at grid-remove.cu:[[@LINE+20]] ({{.*}}): unnecessary
// OWN-NEXT:     source: delete line [[@LINE+19]]
// OWN:      repaired PTX: checked again by incant race: no race, no divergent barrier
// DIFF:          int t = a[i] + 1;
// DIFF-NEXT:  -  grid.sync();
// DIFF-NEXT:     a[i] = t;
// ASM-LABEL:  .entry _Z3ownPi
// ASM-NOT:    atom.add.release.gpu
// ASM-NOT:    barrier.sync
// ASM:        ret;
// KEEP:       "checks":2,
// KEEP-SAME:  "removed":[],"result":"clean"
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__global__ void own(int *a) {
  cg::grid_group grid = cg::this_grid();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int t = a[i] + 1;
  grid.sync();
  a[i] = t;
}

__global__ void exchange(int *a, int *b) {
  cg::grid_group grid = cg::this_grid();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  a[i] = i;
  grid.sync();
  b[i] = a[i ^ 32];
}
