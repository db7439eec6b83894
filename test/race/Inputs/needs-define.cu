// Compiles only with -DTILE=N (from a compilation database, -p).
#ifndef TILE
#error "TILE is not defined"
#endif
#include "tile.h"
__global__ void tiled(int *out) {
  __shared__ int s[TILE];
  s[threadIdx.x % TILE] = threadIdx.x;
  out[threadIdx.x] = s[0] + OFFSET;
}
void launch(int *p) { tiled<<<1, 64>>>(p); }
