// A thread's load returns its own earlier store when nothing but fences and
// at most one barrier lies between them: another thread's write between
// would not be ordered with the store or with the load, a pair decided on
// its own. With two barriers between, another thread may write in between
// without a race, and the load is any value.
// REQUIRES: nvcc
// RUN: %incant race %s --optimized > %t; test $? -eq 1
// RUN: FileCheck %s < %t

// threadFenceReduction's last block: thread 0 keeps its ticket's verdict in
// shared memory across the barrier, and only the last block writes.
// CHECK-LABEL: kernel _Z8last_sumPjPi
// CHECK-NEXT:  summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[0-9]+}} safe, 0 unknown
__global__ void last_sum(unsigned *count, int *out) {
  __shared__ bool last;
  if (threadIdx.x == 0) {
    unsigned t = atomicInc(count, gridDim.x - 1);
    last = t == gridDim.x - 1;
    __threadfence();
  }
  __syncthreads();
  if (last && threadIdx.x == 0)
    out[0] = 1;
}

// Thread 1 sets the flag between two barriers: every block's thread 0 may
// then write.
// CHECK-LABEL: kernel _Z9overwritePjPi
// CHECK:       race: write-write on global memory, parameter 1, between threads of different blocks
// CHECK:       witness: thread (0,0,0) of block
__global__ void overwrite(unsigned *count, int *out) {
  __shared__ bool last;
  if (threadIdx.x == 0) {
    unsigned t = atomicInc(count, gridDim.x - 1);
    last = t == gridDim.x - 1;
  }
  __syncthreads();
  if (threadIdx.x == 1)
    last = true;
  __syncthreads();
  if (last && threadIdx.x == 0)
    out[0] = blockIdx.x;
}

// Thread 1 sets it with one barrier between: that write races with thread
// 0's load.
// CHECK-LABEL: kernel _Z6racingPjPi
// CHECK:       race: write-read on shared memory, {{.*}}last, between threads of one block
// CHECK:       witness: thread
__global__ void racing(unsigned *count, int *out) {
  __shared__ bool last;
  if (threadIdx.x == 0) {
    unsigned t = atomicInc(count, gridDim.x - 1);
    last = t == gridDim.x - 1;
  }
  __syncthreads();
  if (threadIdx.x == 1)
    last = true;
  if (last && threadIdx.x == 0)
    out[0] = 1;
}
