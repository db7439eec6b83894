// tile2d.cu's shared-memory transpose, launched by main with its width n
// fixed (a const int, and the grid computed from it): checked with that
// launch, it is race-free; with n and the geometry left open
// (--any-launch), two threads write one element when n = -2. The racy
// twin (-DWIDE): main launches blocks twice as wide as the tile, so two
// threads of a block write one tile element.
// REQUIRES: nvcc, libclang
// RUN: %incant race %s | FileCheck %s
// RUN: %incant race %s --any-launch > %t; test $? -eq 1
// RUN: FileCheck %s --check-prefix=ANY < %t
// RUN: %incant race %s -X -DWIDE > %t; test $? -eq 1
// RUN: FileCheck %s --check-prefix=WIDE < %t

#include "tile2d.cu"

int main() {
  const int n = 256;
  float *in, *out;
  cudaMalloc(&in, n * n * sizeof(float));
  cudaMalloc(&out, n * n * sizeof(float));
#ifdef WIDE
  dim3 block(2 * TILE, TILE), grid(n / TILE, n / TILE);
#else
  dim3 block(TILE, TILE), grid(n / TILE, n / TILE);
#endif
  transpose<<<grid, block>>>(out, in, n);
  cudaDeviceSynchronize();
  return 0;
}

// CHECK: launch: host-launch-transpose.cu:26:3 (transpose<<<...>>>): gridDim (16,16,1), blockDim (16,16,1), n = 256
// CHECK: summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[0-9]+}} safe, 0 unknown
// ANY-NOT: launch:
// ANY: race: write-write on global memory, parameter 0, between threads of one {{block|warp}}
// ANY: parameter 2 = -2
// WIDE: launch: host-launch-transpose.cu:26:3 (transpose<<<...>>>): gridDim (16,16,1), blockDim (32,16,1), n = 256
// WIDE: race: write-write on shared memory, tile, between threads of one {{block|warp}}
