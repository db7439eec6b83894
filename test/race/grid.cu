// Inter-block ordering: only a grid-wide barrier (cooperative groups'
// grid.sync(), which CUDA 13 compiles to bar.sync, one thread's release
// atomic and acquire spin, bar.sync) orders threads of different blocks;
// __syncthreads() does not. grid.sync() under a block-dependent condition
// diverges between blocks.
// REQUIRES: nvcc
// RUN: %incant race %s > %t; test $? -eq 1
// RUN: FileCheck %s < %t

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// Each thread reads its neighbour's element after the grid barrier.
// CHECK-LABEL: kernel _Z8twophasePiS_
// CHECK-NOT:   race:
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, 3 safe, 0 unknown
__global__ void twophase(int *A, int *B) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned n = gridDim.x * blockDim.x;
  A[i] = i;
  cg::this_grid().sync();
  B[i] = A[(i + 1) % n];
}

// The same thread of the next block: __syncthreads() orders only a block.
// CHECK-LABEL: kernel _Z6nosyncPiS_
// CHECK:       race: write-read on global memory, parameter 0, between threads of different blocks
// CHECK-NEXT:    write at grid.cu:[[@LINE+11]]  st.global.u32
// CHECK-NEXT:          [[@LINE+10]] | A[i] = i;
// CHECK-NEXT:    read  at grid.cu:[[@LINE+11]]  ld.global.u32
// CHECK-NEXT:          [[@LINE+10]] | B[i] = A[(i + blockDim.x) % n];
// CHECK-NEXT:    witness: thread ([[#T:]],0,0) of block ([[#]],0,0)
// CHECK-NEXT:         and thread ([[#T]],0,0) of block ([[#]],0,0)
// CHECK:         hint: no barrier orders threads of different blocks
// CHECK:       summary: 1 race, 0 divergent barriers
__global__ void nosync(int *A, int *B) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned n = gridDim.x * blockDim.x;
  A[i] = i;
  __syncthreads();
  B[i] = A[(i + blockDim.x) % n];
}

// Even blocks wait at the grid barrier for odd blocks that never come.
// CHECK-LABEL: kernel _Z8halfgridPi
// CHECK:       barrier divergence: barrier.sync 0 at grid.cu:[[@LINE+7]]
// CHECK-NEXT:          [[@LINE+6]] | cg::this_grid().sync();
// CHECK-NEXT:    thread ({{[0-9]+}},0,0) of block ({{[0-9]*[02468]}},0,0) {{.*}} reaches it; thread ({{[0-9]+}},0,0) of block ({{[0-9]*[13579]}},0,0) {{.*}} does not: it branches around the barrier at grid.cu:[[@LINE+4]]
// CHECK:       summary: 0 races, 1 divergent barrier
__global__ void halfgrid(int *A) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (blockIdx.x % 2 == 0)
    cg::this_grid().sync();
  A[i] = 0;
}
