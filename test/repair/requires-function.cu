// Calls through function-pointer parameters that __requires names: repair
// follows them as incant race does (the functions kept by a relocatable
// build), and the barrier between the two calls is its repair, checked
// again in the patched source.
// REQUIRES: nvcc, libclang
// RUN: %incant repair %s --block-dim 128 --grid-dim 1 --patch %t.diff > %t; test $? -eq 0
// RUN: FileCheck %s < %t
// RUN: FileCheck %s --check-prefix=DIFF < %t.diff
#define __requires(...) ((void)0)
__device__ void put(float *v, unsigned i) { v[i] = i; }
__device__ float get(float *v, unsigned i) { return v[(i + 1) % 128]; }
typedef void (*Put)(float *, unsigned);
typedef float (*Get)(float *, unsigned);

// CHECK:      kernel {{.*}}: repaired
// CHECK-NEXT:   add block barrier before requires-function.cu:[[@LINE+11]] {{.*}}, loop depth 0, cost 2
// CHECK:        before: 1 race, 0 divergent barriers, 0 unknown pairs; after: 0 races, 0 divergent barriers, 0 unknown pairs
// CHECK:      source patch (compiled again and checked by incant race):
// DIFF:         f(s, threadIdx.x);
// DIFF-NEXT:  +  __syncthreads();
// DIFF-NEXT:     v[threadIdx.x] = g(s, threadIdx.x);
__global__ void k(float *v, Put f, Get g) {
  __requires(f == put);
  __requires(g == get);
  __shared__ float s[128];
  f(s, threadIdx.x);
  v[threadIdx.x] = g(s, threadIdx.x);
}
