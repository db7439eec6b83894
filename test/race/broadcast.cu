// A value broadcast through memory: every thread of a block loads one
// address after the barrier that orders the write to it, so all of them
// read one value. A barrier under a condition on it is not divergent.
// REQUIRES: nvcc
// RUN: %incant race %s --optimized > %t; test $? -eq 1
// RUN: FileCheck %s < %t

// CHECK-LABEL: kernel _Z4flagPiPKi
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[0-9]+}} safe, 0 unknown
__global__ void flag(int *out, const int *in) {
  __shared__ int n;
  if (threadIdx.x == 0)
    n = in[blockIdx.x];
  __syncthreads();
  if (n > 0) {
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = n;
  }
}

// Written after the barrier: a race on n, and the threads may disagree on
// reaching the second barrier.
// CHECK-LABEL: kernel _Z9flag_latePiPKi
// CHECK:       race: {{read-write|write-read}} on shared memory, {{.*}}, between threads of one block
// CHECK:       barrier divergence: bar.sync 0 at broadcast.cu:{{[0-9]+}}
// CHECK-NEXT:    {{[0-9]+}} | __syncthreads();
// CHECK-NEXT:    thread ({{[0-9]+}},0,0) of block ([[B:[0-9]+]],0,0) {{.*}} reaches it; thread ({{[0-9]+}},0,0) of block ([[B]],0,0) {{.*}} does not
// CHECK:       summary: {{[0-9]+}} race{{s?}}, 1 divergent barrier
__global__ void flag_late(int *out, const int *in) {
  __shared__ int n;
  __syncthreads();
  if (threadIdx.x == 0)
    n = in[blockIdx.x];
  if (n > 0) {
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = n;
  }
}
