// Spin locks taken with an exchange: `while (atomicExch(&m, 1) != 0)` takes
// the lock when the exchange returns 0 (an exchange of 1 into a held lock
// leaves it held), and the holder releases it with a fenced write of 0.
// Two threads inside critical sections of one lock are ordered; with
// locks of their own they are not known to be, and outside the lock they
// race.
// REQUIRES: nvcc
// RUN: %incant race %s --optimized -v > %t; test $? -eq 1
// RUN: FileCheck %s < %t

__device__ int mutex;
__device__ int locks[64];

// CHECK-LABEL: kernel _Z6lockedPi
// CHECK:       safe: lock-exch.cu:[[@LINE+9]] and lock-exch.cu:[[@LINE+9]]: ordered through memory: both accesses hold the lock mutex (exchange at lock-exch.cu:[[@LINE+6]] and lock-exch.cu:[[@LINE+6]], released after a fence)
// CHECK-NOT:   unknown:
// CHECK-NOT:   race:
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[0-9]+}} safe, 0 unknown
__global__ void locked(int *total) {
  if (threadIdx.x == 0) {
    while (atomicExch(&mutex, 1) != 0) {
    }
    __threadfence();
    total[0] += blockIdx.x;
    __threadfence();
    atomicExch(&mutex, 0);
  }
}

// One lock per block index modulo 64: blocks 0 and 1 do not share one,
// and the fences may or may not order them: unknown, never safe.
// CHECK-LABEL: kernel _Z16locked_per_blockPi
// CHECK:       unknown: 2 pairs: may be ordered through the fence or atomic
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, 3 safe, 2 unknown
__global__ void locked_per_block(int *total) {
  if (threadIdx.x == 0) {
    int *l = &locks[blockIdx.x % 64];
    while (atomicExch(l, 1) != 0) {
    }
    __threadfence();
    total[0] += blockIdx.x;
    __threadfence();
    atomicExch(l, 0);
  }
}

// The lock is given back before the update.
// CHECK-LABEL: kernel _Z14released_earlyPi
// CHECK:       race: {{.*}} on global memory, parameter 0, between threads of different blocks
// CHECK:       witness: thread (0,0,0) of block
__global__ void released_early(int *total) {
  if (threadIdx.x == 0) {
    while (atomicExch(&mutex, 1) != 0) {
    }
    __threadfence();
    atomicExch(&mutex, 0);
    total[0] += blockIdx.x;
  }
}
