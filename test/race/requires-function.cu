// GPUVerify's __requires(f == g | f == h) on a function-pointer parameter:
// a call through f calls g or h, so their accesses are checked (nvcc
// leaves out device functions nothing calls directly, so incant builds
// relocatable device code to keep them). The report names the assumption.
// REQUIRES: nvcc, libclang
// RUN: %incant race %s > %t; test $? -eq 1
// RUN: FileCheck %s < %t
#define __requires(...) ((void)0)

__device__ float twice(float *v, unsigned i) { return v[i] *= 2.0f; }
__device__ float half(float *v, unsigned i) { return v[i] *= 0.5f; }
__device__ float first(float *v, unsigned i) { return v[0] = i; }

typedef float (*Op)(float *, unsigned);

// CHECK-LABEL: kernel _Z5scalePfPFfS_jE
// CHECK:       assuming f points to twice or half (__requires at requires-function.cu:[[@LINE+3]]): a call through it calls that function
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[0-9]+}} safe, 0 unknown
__global__ void scale(float *v, Op f) {
  __requires(f == twice | f == half);
  f(v, blockIdx.x * blockDim.x + threadIdx.x);
}

// Every thread's call writes v[0].
// CHECK-LABEL: kernel _Z4headPfPFfS_jE
// CHECK:       race: write-write on global memory, parameter 0
// CHECK:       assuming f points to first (__requires at requires-function.cu:[[@LINE+2]])
__global__ void head(float *v, Op f) {
  __requires(f == first);
  f(v, blockIdx.x * blockDim.x + threadIdx.x);
}

// Without a __requires the call stays a call: unknown, not safe.
// CHECK-LABEL: kernel _Z4anyfPfPFfS_jE
// CHECK:       unknown: {{[0-9]+}} pair{{s?}}: a call to indirect
__global__ void anyf(float *v, Op f) {
  f(v, blockIdx.x * blockDim.x + threadIdx.x);
}
