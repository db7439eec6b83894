// Shared memory within a block: a race between warps without a barrier,
// none with one; the reduction with the barrier in its loop.
// REQUIRES: nvcc
// RUN: %incant race %s > %t; test $? -eq 1
// RUN: FileCheck %s < %t

// CHECK-LABEL: kernel _Z8neighborPi
// CHECK:       race: write-read on shared memory, s, between threads of one block
// CHECK-NEXT:    write at shared.cu:[[@LINE+7]]
// CHECK:         read  at shared.cu:[[@LINE+7]]
// CHECK:         witness: thread
// CHECK:       summary: 1 race, 0 divergent barriers
__global__ void neighbor(int *out) {
  __shared__ int s[256];
  unsigned t = threadIdx.x;
  s[t] = t;
  out[blockIdx.x * blockDim.x + t] = s[(t + 1) % blockDim.x];
}

// CHECK-LABEL: kernel _Z9neighbor2Pi
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[0-9]+}} safe, 0 unknown
__global__ void neighbor2(int *out) {
  __shared__ int s[1024];
  unsigned t = threadIdx.x;
  s[t] = t;
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = s[(t + 1) % blockDim.x];
}

// CHECK-LABEL: kernel _Z6reducePfPKf
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[0-9]+}} safe, 0 unknown
__global__ void reduce(float *out, const float *in) {
  __shared__ float s[1024];
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

// The reduction without the barrier in its loop: a thread's next-iteration
// read of s[t + k] races with the write of another thread.
// CHECK-LABEL: kernel _Z7reduce2PfPKf
// CHECK:       race: {{.*}} on shared memory, s, between threads of one {{block|warp}}
// CHECK:         iteration {{[0-9]+}} of the loop
// CHECK:       summary: {{[1-9]}} race
__global__ void reduce2(float *out, const float *in) {
  __shared__ float s[1024];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned k = blockDim.x / 2; k > 0; k >>= 1)
    if (t < k)
      s[t] += s[t + k];
  __syncthreads();
  if (t == 0)
    out[blockIdx.x] = s[0];
}
