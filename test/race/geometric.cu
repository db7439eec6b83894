// Loop variables that each iteration shifts by a constant (a tree
// reduction's stride, `s *= 2`, `k >>= 1`): iteration i holds the start
// shifted by i, so the interleaved reduction with its barrier is safe and
// without it races, with a witness in the iteration where two threads
// meet.
// REQUIRES: nvcc
// RUN: %incant race %s --block-dim 256 --grid-dim 4 --optimized > %t; test $? -eq 1
// RUN: FileCheck %s < %t

// CHECK-LABEL: kernel _Z11interleavedPiS_
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[0-9]+}} safe, 0 unknown
__global__ void interleaved(int *in, int *out) {
  extern __shared__ int s[];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned k = 1; k < blockDim.x; k *= 2) {
    if (t % (2 * k) == 0)
      s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}

// CHECK-LABEL: kernel _Z10sequentialPiS_
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[0-9]+}} safe, 0 unknown
__global__ void sequential(int *in, int *out) {
  extern __shared__ int s[];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
    if (t < k)
      s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}

// The barrier in the loop missing: a thread reads s[t + k] that another
// writes as its own s[t'] in an earlier iteration.
// CHECK-LABEL: kernel _Z8unsyncedPiS_
// CHECK:       race: {{.*}} on shared memory, dynamic shared memory, between threads of one block
// CHECK:       witness: thread
// CHECK-NOT:   assuming %r
// CHECK:       summary: {{[1-9][0-9]*}} race
__global__ void unsynced(int *in, int *out) {
  extern __shared__ int s[];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
    if (t < k)
      s[t] += s[t + k];
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}
