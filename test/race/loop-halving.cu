// Loops whose counter halves each iteration (`d /= 2`, `d >>= 1`) are not
// induction variables: the counter is a loop-carried symbol, and encoding
// its start value adds the loop's iteration counter to the expression
// pool. That once moved the pool's storage under the encoder (a crash on
// GPURepair's 1-1-loop-intra and 2-1-loop-d2-intra); each kernel here must
// get a verdict.
// REQUIRES: nvcc
// RUN: %incant race %s --block-dim 32 --grid-dim 2 > %t; test $? -eq 1
// RUN: FileCheck %s < %t

// No barrier in the loop: a thread's read of a[i + d] in one iteration
// races with another thread's write of it in the next.
// CHECK-LABEL: kernel _Z6halvesPii
// CHECK:       race: read-write on global memory, parameter 0, between threads of one {{block|warp}}
// CHECK:       summary: 1 race, 0 divergent barriers
__global__ void halves(int *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int d = n / 2; d > 0; d = d / 2)
    if (i < d)
      a[i] += a[i + d];
}

// The same in a nested loop whose inner counter guards the access.
// CHECK-LABEL: kernel _Z6nestedPii
// CHECK:       race: read-write on global memory, parameter 0, between threads of one {{block|warp}}
// CHECK:       summary: 1 race, 0 divergent barriers
__global__ void nested(int *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int d = n / 2; d > 0; d /= 2)
    for (int k = 0; k < 50; ++k)
      if (i < d && k == 0)
        a[i] = a[i + d];
}

// A shared-memory tree reduction with a barrier in each step, halving
// with a shift: no race, and the barrier is reached by all threads.
// CHECK-LABEL: kernel _Z6reducePii
// CHECK:       summary: 0 races, 0 divergent barriers
__global__ void reduce(int *out, int n) {
  __shared__ int s[32];
  s[threadIdx.x] = out[blockIdx.x * 32 + threadIdx.x];
  __syncthreads();
  for (int d = blockDim.x / 2; d > 0; d >>= 1) {
    if (threadIdx.x < d)
      s[threadIdx.x] += s[threadIdx.x + d];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x * 32] = s[0];
}
