// Every thread writes one counter: no barrier orders that (it needs an
// atomic), so the kernel cannot be repaired.
// REQUIRES: nvcc
// RUN: %incant repair %s --grid-dim 1 > %t; test $? -eq 1
// RUN: FileCheck %s < %t

// CHECK:      kernel _Z5countPi (count(int*)): cannot be repaired
// CHECK-NEXT:   cannot repair: {{.*}} atomic.cu:[[@LINE+3]] and atomic.cu:[[@LINE+3]]: no barrier between the accesses orders them (a fence, an atomic or a change to the code is needed)
// CHECK-NOT:  add
__global__ void count(int *c) {
  c[0] = c[0] + 1;
}
