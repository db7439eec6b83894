// Blocks exchange data through global memory: only a grid barrier orders
// them. Without --grid-level the kernel cannot be repaired (exit 1); with
// it, a grid barrier (cost 2 + 24) and cooperative groups in the patch.
// REQUIRES: nvcc
// RUN: %incant repair %s > %t; test $? -eq 1
// RUN: FileCheck %s --check-prefix=BLOCK < %t
// RUN: %incant repair %s --grid-level --patch %t.diff -o %t.ptx > %t2; test $? -eq 0
// RUN: FileCheck %s --check-prefix=GRID < %t2
// RUN: FileCheck %s --check-prefix=DIFF < %t.diff
// RUN: FileCheck %s --check-prefix=ASM < %t.ptx

// BLOCK:      kernel _Z8exchangePiS_ (exchange(int*, int*)): cannot be repaired
// BLOCK-NEXT:   cannot repair: write-read on global memory, {{.*}} grid.cu:[[@LINE+15]] and grid.cu:[[@LINE+16]]: threads of two blocks race: only a grid barrier orders them (--grid-level)
// GRID:       kernel _Z8exchangePiS_ (exchange(int*, int*)): repaired
// GRID-NEXT:    add grid barrier before grid.cu:[[@LINE+14]] ({{.*}}), loop depth 0, cost 26
// GRID-NEXT:      source: insert 'cooperative_groups::this_grid().sync();' before line [[@LINE+13]]
// GRID:       repaired PTX: checked again by incant race: no race, no divergent barrier
// DIFF:       +#include <cooperative_groups.h>
// DIFF:          a[g] = g;
// DIFF-NEXT:  +  cooperative_groups::this_grid().sync();
// DIFF-NEXT:     b[g] = a[(g + blockDim.x) % n];
// ASM:        .global .align 4 .u32 incant_grid_barrier;
// ASM:        atom.add.release.gpu.global.u32
// ASM:        ld.acquire.gpu.global.u32
__global__ void exchange(int *a, int *b) {
  unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned n = gridDim.x * blockDim.x;
  a[g] = g;
  b[g] = a[(g + blockDim.x) % n];
}
