// Comparisons read the registers' bits: `threadIdx.x - 1u < 1u` holds for
// thread 1 alone (thread 0's difference is 2^32 - 1 as an unsigned
// number), so one thread writes. Compared as integers, thread 0 would pass
// too and the two writes would look like a race (each block writes its
// own element).
// REQUIRES: nvcc
// RUN: %incant race %s --optimized > %t; test $? -eq 1
// RUN: FileCheck %s < %t

// CHECK-LABEL: kernel _Z3onePi
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, 1 safe, 0 unknown
__global__ void one(int *out) {
  if (threadIdx.x - 1u < 1u)
    out[blockIdx.x] = threadIdx.x;
}

// Threads 1 and 2 pass: a race, and the witness names two of them.
// CHECK-LABEL: kernel _Z3twoPi
// CHECK:       race: write-write on global memory, parameter 0, between threads of one warp
// CHECK:       witness: thread ({{[12]}},0,0) of block ([[B:[0-9]+]],0,0)
// CHECK-NEXT:       and thread ({{[12]}},0,0) of block ([[B]],0,0)
__global__ void two(int *out) {
  if (threadIdx.x - 1u < 2u)
    out[0] = threadIdx.x;
}
