// Two plain reads of one location by one thread, with nothing synchronising
// between them, return one value unless another thread writes there
// between, and that write races with the reads: a pair the check decides
// on its own. A pair that races only if such reads disagree is safe; with
// a fence between the reads it stays unknown, and a write that changes the
// location is a race of its own.
// REQUIRES: nvcc
// RUN: %incant race %s --optimized --block-dim 8,8 --grid-dim 1 > %t; test $? -eq 1
// RUN: FileCheck %s < %t
// RUN: %incant race %s --optimized --block-dim 8,8 --grid-dim 1 --kernel closure > /dev/null

// A step of a transitive closure: thread (y,x) writes only its own cell,
// when it reads 0 there and non-zero at (y,k) and (k,x); thread (y,k)'s
// own write would need its cell to read both 0 and non-zero.
// CHECK-LABEL: kernel _Z7closurePj
// CHECK-NOT:   unknown:
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[0-9]+}} safe, 0 unknown
__global__ void closure(unsigned *g) {
  __shared__ unsigned b[8][8];
  unsigned y = threadIdx.y, x = threadIdx.x;
  b[y][x] = g[y * 8 + x];
  __syncthreads();
#pragma unroll
  for (unsigned k = 0; k < 8; ++k) {
    if (b[y][x] == 0 && b[y][k] != 0 && b[k][x] != 0)
      b[y][x] = k + 2;
    __syncthreads();
  }
  g[y * 8 + x] = b[y][x];
}

// A fence between the two reads (of a location another thread stored):
// not taken to agree.
// CHECK-LABEL: kernel _Z6fencedPj
// CHECK:       unknown: {{[0-9]+ pairs?}}: a race only if another thread changes a location between two reads by one thread
// CHECK:       summary: 0 races
__global__ void fenced(unsigned *g) {
  __shared__ unsigned s[64];
  unsigned t = threadIdx.y * 8 + threadIdx.x;
  s[(t + 1) % 64] = g[t];
  __syncthreads();
  unsigned a = s[t];
  __threadfence_block();
  unsigned b = s[t];
  if (a == 0 && b != 0)
    s[(t + 1) % 64] = 1;
  __syncthreads();
  g[t] = s[t];
}

// The racy twin: another thread does write the location between the reads;
// that write is the race.
// CHECK-LABEL: kernel _Z7changedPj
// CHECK:       race: write-read on shared memory, s, between threads of one block
// CHECK:       witness: thread
// CHECK:       summary: {{[1-9][0-9]* races?}},
__global__ void changed(unsigned *g) {
  __shared__ unsigned s[64];
  unsigned t = threadIdx.y * 8 + threadIdx.x;
  s[t] = g[t];
  __syncthreads();
  unsigned a = s[t];
  s[(t + 1) % 64] = 7;
  unsigned b = s[t];
  if (a == 0 && b != 0)
    g[t] = 1;
  __syncthreads();
  g[t] = s[t];
}
