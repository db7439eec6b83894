// Shared tiles: the neighbour's element and a 2D transpose tile, each
// without the barrier between the store and the load.
// REQUIRES: nvcc
// RUN: %incant repair %s --grid-dim 1 --kernel neighbor --patch %t.diff > %t; test $? -eq 0
// RUN: FileCheck %s --check-prefix=NEIGHBOR < %t
// RUN: FileCheck %s --check-prefix=DIFF < %t.diff
// RUN: %incant repair %s --block-dim 16,16 --grid-dim 1 --kernel tile > %t2; test $? -eq 0
// RUN: FileCheck %s --check-prefix=TILE < %t2

// NEIGHBOR:      kernel _Z8neighborPi (neighbor(int*)): repaired
// NEIGHBOR-NEXT:   add block barrier before shared.cu:[[@LINE+12]] ({{.*}}), loop depth 0, cost 2
// NEIGHBOR-NEXT:     source: insert '__syncthreads();' before line [[@LINE+11]]
// NEIGHBOR:      repaired PTX: checked again by incant race: no race, no divergent barrier
// NEIGHBOR:      source patch (compiled again and checked by incant race):
// DIFF:          --- a/shared.cu
// DIFF:            s[t] = t;
// DIFF-NEXT:     +  __syncthreads();
// DIFF-NEXT:       out[t] = s[(t + 1) % blockDim.x];
__global__ void neighbor(int *out) {
  __shared__ int s[1024];
  unsigned t = threadIdx.x;
  s[t] = t;
  out[t] = s[(t + 1) % blockDim.x];
}

// TILE:      kernel _Z4tilePfPKf (tile(float*, float const*)): repaired
// TILE-NEXT:   add block barrier before shared.cu:[[@LINE+8]] ({{.*}}), loop depth 0, cost 2
// TILE-NOT:    add
// TILE:        before: 1 race, {{.*}}; after: 0 races, 0 divergent barriers, 0 unknown pairs
__global__ void tile(float *out, const float *in) {
  __shared__ float t[16][17];
  unsigned x = threadIdx.x, y = threadIdx.y;
  unsigned bx = blockIdx.x * 16, by = blockIdx.y * 16;
  t[y][x] = in[(by + y) * 1024 + bx + x];
  out[(bx + y) * 1024 + by + x] = t[x][y];
}
