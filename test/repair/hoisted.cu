// nvcc's optimiser runs the loop's body once (the same load and store each
// time): the optimised build's repair is one barrier between them, and a
// source patch with it alone leaves the race of one iteration's store with
// the next one's load in the unoptimised build, which incant race checks
// too. The patch is then that of the unoptimised build's repair, which
// keeps the loop: a barrier before the loop's condition (before the loop
// and at the end of its body) and one between the load and the store.
// REQUIRES: nvcc
// RUN: %incant repair %s --block-dim 64 --grid-dim 1 --patch %t.diff > %t; test $? -eq 0
// RUN: FileCheck %s < %t
// RUN: FileCheck %s --check-prefix=DIFF < %t.diff
// RUN: %incant repair %s --block-dim 64 --grid-dim 1 --json | FileCheck %s --check-prefix=JSON

// CHECK:      add block barrier before hoisted.cu:[[@LINE+17]] {{.*}}loop depth 0
// CHECK:      source patch: from the repair of nvcc's unoptimised build
// CHECK-NEXT:   insert '__syncthreads();' before line [[@LINE+13]] and before line [[@LINE+16]]
// CHECK-NEXT:   insert '__syncthreads();' before line [[@LINE+14]]
// CHECK:      source patch (compiled again and checked by incant race):
// DIFF:       +  __syncthreads();
// DIFF-NEXT:     for (int i = 0; i < n; ++i) {
// DIFF-NEXT:       int t = a[threadIdx.x + 1];
// DIFF-NEXT:  +    __syncthreads();
// DIFF-NEXT:       a[threadIdx.x] = t;
// DIFF-NEXT:  +    __syncthreads();
// DIFF-NEXT:     }
// JSON:       "build":"unoptimized"
// JSON-SAME:  "verified":true
__global__ void shift(int *a, int n) {
  for (int i = 0; i < n; ++i) {
    int t = a[threadIdx.x + 1];
    a[threadIdx.x] = t;
  }
}
