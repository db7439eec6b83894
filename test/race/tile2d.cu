// Two-dimensional blocks: a shared-memory transpose, safe when launched as
// written (16x16 blocks over a matrix of 16x16 tiles), racy when the block
// is wider than the tile.
// REQUIRES: nvcc
// RUN: %incant race %s --block-dim 16,16 --grid-dim 8,8 --param 2=128 | FileCheck %s --check-prefix=OK
// RUN: %incant race %s --block-dim 32,16 --grid-dim 8,8 --param 2=128 > %t; test $? -eq 1
// RUN: FileCheck %s --check-prefix=WIDE < %t

#define TILE 16
__global__ void transpose(float *out, const float *in, int n) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * n + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  out[y * n + x] = tile[threadIdx.x][threadIdx.y];
}

// OK: summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[0-9]+}} safe, 0 unknown
// WIDE: race: write-write on shared memory, tile, between threads of one {{block|warp}}
// WIDE: blockDim (32,16,1), gridDim (8,8,1), parameter 2 = 128
