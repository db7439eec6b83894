// Atomic tickets: atomicAdd of a constant hands two threads different
// values at one address, so indexing with them is race-free. A race that
// needs particular ticket values is unknown, never a race or safe.
// REQUIRES: nvcc
// RUN: %incant race %s --optimized > %t; test $? -eq 4
// RUN: FileCheck %s < %t

// CHECK-LABEL: kernel _Z6ticketPjPi
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, 2 safe, 0 unknown
__global__ void ticket(unsigned *c, int *A) {
  unsigned j = atomicAdd(c, 1);
  A[j] = threadIdx.x;
}

// Two tickets share an element.
// CHECK-LABEL: kernel _Z4halfPjPi
// CHECK:       unknown: 1 pair: a race only for some values of atomic tickets
// CHECK:       pairs: 0 race, 1 safe, 1 unknown
__global__ void half(unsigned *c, int *A) {
  unsigned j = atomicAdd(c, 1);
  A[j / 2] = threadIdx.x;
}

// Adding 0 hands out one value to all.
// CHECK-LABEL: kernel _Z4zeroPjPi
// CHECK:       unknown: 1 pair: the offset depends on a loaded value
__global__ void zero(unsigned *c, int *A) {
  unsigned j = atomicAdd(c, 0);
  A[j] = threadIdx.x;
}
