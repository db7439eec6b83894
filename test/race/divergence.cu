// Barrier divergence: a barrier some threads of a block reach and others
// do not, including threads that have exited, and a loop whose trip count
// depends on the thread.
// REQUIRES: nvcc
// RUN: %incant race %s > %t; test $? -eq 1
// RUN: FileCheck %s < %t

// CHECK-LABEL: kernel _Z4halfPi
// CHECK:       barrier divergence: bar.sync 0 at divergence.cu:[[@LINE+6]]
// CHECK-NEXT:    [[@LINE+5]] | __syncthreads();
// CHECK-NEXT:    thread ({{[0-9]+}},0,0) of block ([[B:[0-9]+]],0,0) {{.*}} reaches it; thread ({{[0-9]+}},0,0) of block ([[B]],0,0) {{.*}} does not: it branches around the barrier at divergence.cu:[[@LINE+3]]
// CHECK:       summary: 0 races, 1 divergent barrier
__global__ void half(int *A) {
  if (threadIdx.x < 16)
    __syncthreads();
  A[blockIdx.x * blockDim.x + threadIdx.x] = 0;
}

// compute-sanitizer's synccheck misses this one: the other threads exit.
// CHECK-LABEL: kernel _Z4tailPii
// CHECK:       barrier divergence: bar.sync 0 at divergence.cu:[[@LINE+9]]
// CHECK:         does not: it has exited (the branch at divergence.cu:[[@LINE+5]] returns) before the barrier
// CHECK:       summary: 0 races, 1 divergent barrier
__global__ void tail(int *A, int n) {
  __shared__ int s[1024];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  s[threadIdx.x] = A[i];
  __syncthreads();
  A[i] = s[blockDim.x - 1 - threadIdx.x];
}

// CHECK-LABEL: kernel _Z5tripsPi
// CHECK:       barrier divergence: bar.sync 0 at divergence.cu:[[@LINE+7]]
// CHECK:         does not: it has left the loop (at divergence.cu:[[@LINE+4]]) after fewer iterations
// CHECK:       summary: 0 races, 1 divergent barrier
__global__ void trips(int *A) {
  __shared__ int s[1024];
  for (unsigned k = 0; k < threadIdx.x % 4; ++k) {
    s[threadIdx.x] = k;
    __syncthreads();
  }
  A[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x];
}

// The same barrier under a condition every thread of a block agrees on.
// CHECK-LABEL: kernel _Z7uniformPii
// CHECK:       summary: 0 races, 0 divergent barriers
__global__ void uniform(int *A, int n) {
  __shared__ int s[1024];
  s[threadIdx.x] = A[blockIdx.x * blockDim.x + threadIdx.x];
  if (n > 4 && blockIdx.x % 2 == 0)
    __syncthreads();
  A[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x] + n;
}

// A loop whose condition is a CTA-wide reduction (__syncthreads_or): every
// thread of the block gets the same answer, so all leave the loop together,
// though each thread's own index differs (Indigo's block-per-vertex loops).
// CHECK-LABEL: kernel _Z7anyleftPKiPii
// CHECK:       summary: 0 races, 0 divergent barriers
__global__ void anyleft(const int *nindex, int *out, int n) {
  int beg = nindex[blockIdx.x], end = nindex[blockIdx.x + 1];
  int sum = 0;
  for (int j = beg + threadIdx.x; __syncthreads_or(j < end); j += blockDim.x)
    sum += __syncthreads_count(j < end && j % 2 == 0);
  if (threadIdx.x == 0)
    out[blockIdx.x] = sum + n;
}
