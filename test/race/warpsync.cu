// The warp-synchronous idiom of old reductions: lanes of one warp read and
// write shared memory with no barrier between, relying on lockstep, which
// independent thread scheduling (sm_70 and later) no longer gives.
// REQUIRES: nvcc
// RUN: %incant race %s --block-dim 64 > %t; test $? -eq 1
// RUN: FileCheck %s < %t

// CHECK-LABEL: kernel _Z6legacyPfPKf
// CHECK:       race: write-read on shared memory, s, between threads of one warp
// CHECK:         witness: thread ({{[0-9]+}},0,0) of block ([[B:[0-9]+]],0,0) (warp 0, lane
// CHECK-NEXT:         and thread ({{[0-9]+}},0,0) of block ([[B]],0,0) (warp 0, lane
// CHECK:         hint: the two threads are lanes of one warp: under independent thread scheduling (sm_70 and later) lanes are not in lockstep, so this warp-synchronous code needs __syncwarp() between the accesses
__global__ void legacy(float *out, const float *in) {
  __shared__ float s[64];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * 64 + t];
  __syncthreads();
  if (t < 32) {
    volatile float *v = s;
    v[t] += v[t + 32];
    v[t] += v[t + 16];
    v[t] += v[t + 8];
    v[t] += v[t + 4];
    v[t] += v[t + 2];
    v[t] += v[t + 1];
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}

// The same with __syncwarp() between the steps.
// CHECK-LABEL: kernel _Z6modernPfPKf
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[0-9]+}} safe, 0 unknown
__global__ void modern(float *out, const float *in) {
  __shared__ float s[64];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * 64 + t];
  __syncthreads();
  if (t < 32) {
    float x = s[t] + s[t + 32];
    __syncwarp();
    s[t] = x;
    __syncwarp();
    for (unsigned k = 16; k > 0; k >>= 1) {
      x += s[t + k];
      __syncwarp();
      s[t] = x;
      __syncwarp();
    }
  }
  __syncthreads();
  if (t == 0)
    out[blockIdx.x] = s[0];
}
