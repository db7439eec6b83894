// An indirect call whose target register only ever holds known functions
// (nvcc's `selp`/`mov` of their names) is checked as a choice of direct
// calls, each inlined; one through a pointer loaded from memory stays
// unknown, naming the call.
// REQUIRES: nvcc
// RUN: %incant race %s > %t; test $? -eq 1
// RUN: FileCheck %s < %t

// CHECK-LABEL: kernel _Z5applyPfi
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, 7 safe, 0 unknown
// CHECK-LABEL: kernel _Z10apply_racyPfi
// CHECK:       race: read-write on global memory, parameter 0, between threads of one block
// CHECK:       write at indirect-call.cu:21
// CHECK:       summary: 1 race
// CHECK-LABEL: kernel _Z12apply_loadedPfPPFvS_jEi
// CHECK:       unknown: 2 pairs: a call to indirect %rd{{[0-9]+}} left a call (an indirect call), whose accesses are not followed
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, 0 safe, 2 unknown

__device__ void twice(float *v, unsigned i) { v[i] *= 2.0f; }
__device__ void half(float *v, unsigned i) { v[i] *= 0.5f; }
__device__ void shift(float *v, unsigned i) { v[i + 1] = v[i]; }

typedef void (*Op)(float *, unsigned);

__global__ void apply(float *v, int which) {
  Op f = which == 1 ? twice : half;
  f(v, blockIdx.x * blockDim.x + threadIdx.x);
}

__global__ void apply_racy(float *v, int which) {
  Op f = which == 1 ? twice : shift;
  f(v, blockIdx.x * blockDim.x + threadIdx.x);
}

__global__ void apply_loaded(float *v, Op *table, int which) {
  table[which](v, blockIdx.x * blockDim.x + threadIdx.x);
}
