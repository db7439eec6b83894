// Synchronisation through memory as the PTX ISA orders it: a release
// (a release store, or a fence and a strong write) read by an acquire (an
// acquire load, or a strong read and a fence) orders what comes before the
// release before what follows the acquire; a CTA barrier passes such an
// order on to the whole CTA; a compare-and-swap spin lock with fences
// orders its critical sections. Each proof has a racy twin that stays a
// race (relaxed or too narrow a scope) or unknown (a second writer of the
// flag, a lock per block, no barrier after the acquire): never safe.
// REQUIRES: nvcc
// RUN: %incant race %s --block-dim 256 -v > %t; test $? -eq 1
// RUN: FileCheck %s < %t

// CHECK-LABEL: kernel _Z7handoffPi
// CHECK:       safe: sync-memory.cu:59 and sync-memory.cu:54: ordered through memory: the read of ready at sync-memory.cu:57 waits for a value that only the release at sync-memory.cu:55 writes, after the other access (assuming ready is 0 at launch)
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, 7 safe, 0 unknown
// CHECK-LABEL: kernel _Z15handoff_relaxedPi
// CHECK:       race: read-write on global memory, parameter 0, between threads of different blocks
// CHECK:       summary: 1 race
// CHECK-LABEL: kernel _Z13handoff_blockPi
// CHECK:       race: read-write on global memory, ready, between threads of different blocks
// CHECK:       race: read-write on global memory, parameter 0, between threads of different blocks
// CHECK:       summary: 2 races
// CHECK-LABEL: kernel _Z11two_writersPi
// CHECK:       unknown: 1 pair: may be ordered through the fence or atomic at {{.*}}, but no flag hand-off or lock that the analysis follows orders every execution of the pair
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, 10 safe, 1 unknown
// CHECK-LABEL: kernel _Z6lockedPi
// CHECK:       safe: sync-memory.cu:108 and sync-memory.cu:108: ordered through memory: both accesses hold the lock mutex (compare-and-swap at sync-memory.cu:105 and sync-memory.cu:105, released after a fence)
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, 5 safe, 0 unknown
// CHECK-LABEL: kernel _Z16locked_per_blockPi
// CHECK:       unknown: 2 pairs: may be ordered
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, 3 safe, 2 unknown
// CHECK-LABEL: kernel _Z17locked_by_elementPiPKi
// CHECK:       safe: sync-memory.cu:131 and sync-memory.cu:131: ordered through memory: both accesses hold the lock locks
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, 5 safe, 0 unknown
// CHECK-LABEL: kernel _Z13publish_blockPi
// CHECK:       safe: sync-memory.cu:153 and sync-memory.cu:140: ordered through memory: thread 0 of the block: the read of published at sync-memory.cu:148 waits for a value that only the release at sync-memory.cu:144 writes, after the other access (assuming published is 0 at launch); the barrier at sync-memory.cu:152 passes it on
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, 8 safe, 0 unknown
// CHECK-LABEL: kernel _Z18publish_no_barrierPi
// CHECK:       unknown: 1 pair: may be ordered
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, 7 safe, 1 unknown
// CHECK-LABEL: kernel _Z17unlock_by_anotherPi
// CHECK:       unknown: 2 pairs: may be ordered
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[0-9]+}} safe, 2 unknown
#include <cuda/atomic>

__device__ int ready;
__device__ int mutex;
__device__ int flag2;
__device__ int locks[64];

__global__ void handoff(int *data) {
  cuda::atomic_ref<int, cuda::thread_scope_device> f(ready);
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    data[0] = 42;
    f.store(1, cuda::memory_order_release);
  } else if (blockIdx.x == 1 && threadIdx.x == 0) {
    while (f.load(cuda::memory_order_acquire) != 1) {
    }
    data[1] = data[0];
  }
}

__global__ void handoff_relaxed(int *data) {
  cuda::atomic_ref<int, cuda::thread_scope_device> f(ready);
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    data[0] = 42;
    f.store(1, cuda::memory_order_relaxed);
  } else if (blockIdx.x == 1 && threadIdx.x == 0) {
    while (f.load(cuda::memory_order_relaxed) != 1) {
    }
    data[1] = data[0];
  }
}

__global__ void handoff_block(int *data) {
  cuda::atomic_ref<int, cuda::thread_scope_block> f(ready);
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    data[0] = 42;
    f.store(1, cuda::memory_order_release);
  } else if (blockIdx.x == 1 && threadIdx.x == 0) {
    while (f.load(cuda::memory_order_acquire) != 1) {
    }
    data[1] = data[0];
  }
}

__global__ void two_writers(int *data) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    data[0] = 1;
    __threadfence();
    atomicExch(&flag2, 1);
  }
  if (threadIdx.x == 0 && blockIdx.x == 2)
    atomicExch(&flag2, 1);
  if (threadIdx.x == 0 && blockIdx.x == 1) {
    while (atomicAdd(&flag2, 0) == 0) {
    }
    __threadfence();
    data[1] = data[0];
  }
}

__global__ void locked(int *total) {
  if (threadIdx.x == 0) {
    while (atomicCAS(&mutex, 0, 1) != 0) {
    }
    __threadfence();
    total[0] += blockIdx.x;
    __threadfence();
    atomicExch(&mutex, 0);
  }
}

__global__ void locked_per_block(int *total) {
  if (threadIdx.x == 0) {
    int *l = &locks[blockIdx.x % 64];
    while (atomicCAS(l, 0, 1) != 0) {
    }
    __threadfence();
    total[0] += blockIdx.x;
    __threadfence();
    atomicExch(l, 0);
  }
}

__global__ void locked_by_element(int *bins, const int *keys) {
  int k = threadIdx.x % 64;
  while (atomicCAS(&locks[k], 0, 1) != 0) {
  }
  __threadfence();
  bins[k] += 1;
  __threadfence();
  atomicExch(&locks[k], 0);
}

__device__ int published;

__global__ void publish_block(int *data) {
  if (blockIdx.x == 0) {
    data[threadIdx.x] = threadIdx.x;
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence();
      atomicExch(&published, 1);
    }
  } else if (blockIdx.x == 1) {
    if (threadIdx.x == 0) {
      while (atomicAdd(&published, 0) == 0) {
      }
      __threadfence();
    }
    __syncthreads();
    data[256 + threadIdx.x] = data[255 - threadIdx.x];
  }
}

__global__ void publish_no_barrier(int *data) {
  if (blockIdx.x == 0) {
    data[threadIdx.x] = threadIdx.x;
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence();
      atomicExch(&published, 1);
    }
  } else if (blockIdx.x == 1) {
    if (threadIdx.x == 0) {
      while (atomicAdd(&published, 0) == 0) {
      }
      __threadfence();
    }
    data[256 + threadIdx.x] = data[255 - threadIdx.x];
  }
}

// A thread that frees a lock it does not hold lets two holders in.
__global__ void unlock_by_another(int *total) {
  if (threadIdx.x == 0) {
    while (atomicCAS(&mutex, 0, 1) != 0) {
    }
    __threadfence();
    total[0] += blockIdx.x;
    __threadfence();
    atomicExch(&mutex, 0);
  }
  if (threadIdx.x == 1)
    atomicExch(&mutex, 0);
}
