// A plain access at `c ? A : B` (selp of two addresses: a double buffer's
// halves, a pointer chosen by a flag) is an access of A when c holds and of
// B when not, each checked with its condition: race-free when the two
// threads' choices keep them apart, a race with its witness when not.
// REQUIRES: nvcc
// RUN: %incant race %s --optimized > %t; test $? -eq 1
// RUN: FileCheck %s < %t

// The flag is the same for every thread: source and destination differ.
// CHECK-LABEL: kernel _Z6chosenPiS_b
// CHECK-NOT:   unknown:
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[0-9]+}} safe, 0 unknown
__global__ void chosen(int *a, int *b, bool flip) {
  int *src = flip ? a : b;
  int *dst = flip ? b : a;
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  dst[t] = src[t] + 1;
}

// Shared double buffering: each step reads one half and writes the other.
// CHECK-LABEL: kernel _Z13double_bufferPfi
// CHECK-NOT:   unknown:
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[0-9]+}} safe, 0 unknown
__global__ void double_buffer(float *out, int steps) {
  __shared__ float buf0[256], buf1[256];
  buf0[threadIdx.x] = threadIdx.x;
  __syncthreads();
  for (int s = 0; s < steps; ++s) {
    float *src = (s & 1) ? buf1 : buf0;
    float *dst = (s & 1) ? buf0 : buf1;
    dst[threadIdx.x] = src[(threadIdx.x + 1) % blockDim.x] * 0.5f;
    __syncthreads();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = buf0[threadIdx.x];
}

// Each thread picks by its own id: threads 0 and 2 both write b[0],
// threads 1 and 3 a[0].
// CHECK-LABEL: kernel _Z6by_tidPiS_
// CHECK:       race: write-write on global memory, parameter [[P:[01]]], between threads of one warp
// CHECK:       witness: thread
// CHECK:       both touch byte {{[0-9]+}} of parameter [[P]]
__global__ void by_tid(int *a, int *b) {
  int *dst = (threadIdx.x & 1) ? a : b;
  dst[threadIdx.x / 4] = threadIdx.x;
}

// The racy twin of chosen: both pointers are the same half.
// CHECK-LABEL: kernel _Z4samePiS_b
// CHECK:       race: {{read-write|write-read}} on global memory, parameter {{[01]}}, between threads
// CHECK:       witness: thread
__global__ void same(int *a, int *b, bool flip) {
  int *src = flip ? a : b;
  int *dst = flip ? a : b;
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  dst[t] = src[t + 1] + 1;
}
