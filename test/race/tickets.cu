// Atomic tickets: atomicAdd of a constant hands two threads different
// values at one address, so indexing with them is race-free. A race that
// needs particular ticket values is unknown, never a race or safe. A
// block counter reset before a barrier hands out tickets from the reset
// value up, one per thread and atomic.
// REQUIRES: nvcc
// RUN: %incant race %s --optimized > %t; test $? -eq 1
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

// A block's counter reset by thread 0 before a barrier, then one ticket
// per thread: the tickets count up from the reset.
// CHECK-LABEL: kernel _Z5resetPi
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[0-9]+}} safe, 0 unknown
__global__ void reset(int *A) {
  __shared__ unsigned count;
  if (threadIdx.x == 0)
    count = 0;
  __syncthreads();
  A[(size_t)blockIdx.x * 1024 + atomicAdd(&count, 1)] = threadIdx.x;
}

// A second reset with no barrier before the atomics that follow it: two
// threads may draw one ticket on either side of it.
// CHECK-LABEL: kernel _Z8rereset2Pi
// CHECK:       unknown: {{.*}}a race only for some values of atomic tickets
__global__ void rereset2(int *A) {
  __shared__ unsigned count;
  if (threadIdx.x == 0)
    count = 0;
  __syncthreads();
  A[(size_t)blockIdx.x * 2048 + atomicAdd(&count, 1)] = threadIdx.x;
  if (threadIdx.x == 0)
    count = 0;
  A[(size_t)blockIdx.x * 2048 + atomicAdd(&count, 1)] = threadIdx.x;
}

// Thread 5 resets: a block of fewer threads leaves the counter as it was,
// so its tickets may be any values.
// CHECK-LABEL: kernel _Z10thread5setPi
// CHECK:       unknown: {{.*}}a race only for some values of atomic tickets
__global__ void thread5set(int *A) {
  __shared__ unsigned count;
  if (threadIdx.x == 5)
    count = 0;
  __syncthreads();
  A[(size_t)blockIdx.x * 1024 + atomicAdd(&count, 1)] = threadIdx.x;
}
