// A value broadcast through memory and carried around a loop: thread 0
// takes the block's next chunk of a work queue and every thread reads it
// after the barrier that orders the write, so all threads of a block hold
// one chunk in each iteration (their updates of the tile do not meet),
// leave the loop together and meet at its barriers.
// REQUIRES: nvcc
// RUN: %incant race %s --optimized > %t; test $? -eq 1
// RUN: FileCheck %s < %t

// CHECK-LABEL: kernel _Z5chunkPii
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[0-9]+}} safe, 0 unknown
__global__ void chunk(int *head, int n) {
  __shared__ int base, tile[1024];
  if (threadIdx.x == 0)
    base = atomicAdd(&head[blockIdx.x], blockDim.x);
  __syncthreads();
  int b = base;
  while (b >= 0 && b < n) {
    unsigned i = b + threadIdx.x;
    if (i < 1024)
      tile[i] += 1;
    __syncthreads();
    if (threadIdx.x == 0)
      base = atomicAdd(&head[blockIdx.x], blockDim.x);
    __syncthreads();
    b = base;
  }
}

// Work stealing: the block whose queue it takes is carried through memory
// too, read back with an atomic that changes nothing. nvcc gives that
// index the register that thread 0's search loop used: the value the
// threads read after the barrier is the same for all of them. (The two
// unknown pairs are the search's atomics on head, whose index is read
// from memory, against those on owner.)
// CHECK-LABEL: kernel _Z5stealPiS_i
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[0-9]+}} safe, 2 unknown
__global__ void steal(int *head, int *owner, int n) {
  __shared__ int base, tile[1024];
  int bid = blockIdx.x;
  if (threadIdx.x == 0)
    base = atomicAdd(&head[bid], blockDim.x);
  __syncthreads();
  int b = base;
  while (b >= 0 && b < n) {
    unsigned i = b + threadIdx.x;
    if (i < 1024)
      tile[i] += bid;
    __syncthreads();
    if (threadIdx.x == 0) {
      int other = bid;
      for (int k = 1; k < 8; ++k) {
        other = (bid + k) % gridDim.x;
        if (atomicAdd(&head[other], 0) < n)
          break;
      }
      base = atomicAdd(&head[other], blockDim.x);
      atomicExch_block(&owner[blockIdx.x], other);
    }
    __syncthreads();
    bid = atomicAdd_block(&owner[blockIdx.x], 0);
    b = base;
  }
}

// The second barrier left out: thread 0 writes the chunk while the others
// read it, so they may disagree on it and on leaving the loop.
// CHECK-LABEL: kernel _Z10chunk_latePii
// CHECK:       race: {{read-write|write-read}} on shared memory, base, between threads of one block
// CHECK:       barrier divergence: bar.sync 0 at broadcast-loop.cu:{{[0-9]+}}
// CHECK:       summary: {{[1-9][0-9]*}} race{{s?}}, {{[1-9][0-9]*}} divergent barrier
__global__ void chunk_late(int *head, int n) {
  __shared__ int base, tile[1024];
  if (threadIdx.x == 0)
    base = atomicAdd(&head[blockIdx.x], blockDim.x);
  __syncthreads();
  int b = base;
  while (b >= 0 && b < n) {
    unsigned i = b + threadIdx.x;
    if (i < 1024)
      tile[i] += 1;
    __syncthreads();
    if (threadIdx.x == 0)
      base = atomicAdd(&head[blockIdx.x], blockDim.x);
    b = base;
  }
}
