// A bulk store out of shared memory (cp.async.bulk.global.shared::cta)
// reads the tile in the async proxy: the threads' generic writes of it
// are ordered before that read only with a fence.proxy.async between
// them (PTX ISA, Memory Consistency Model: proxies), here each writer's,
// then a barrier before thread 0 issues the copy. wait_group.read
// completes the copy's reads: the tile may be written again after it and
// a barrier.
// REQUIRES: nvcc
// RUN: %incant race --optimized --block-dim 64 --arch sm_90 %s > %t; test $? -eq 4
// RUN: FileCheck %s < %t

__device__ unsigned smem(const void *p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ void store_tile(int *dst, const int *tile) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 256;" ::"l"(
                   dst),
               "r"(smem(tile))
               : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
  asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}

// CHECK-LABEL: kernel _Z6fencedPi
// CHECK-NOT:   race:
// CHECK-NOT:   unknown:
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[0-9]+}} safe, 0 unknown
__global__ void fenced(int *out) {
  __shared__ alignas(128) int tile[64];
  unsigned t = threadIdx.x;
  tile[t] = 3 * t;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (t == 0)
    store_tile(out + blockIdx.x * 64, tile);
  __syncthreads();
  tile[t] = 0;
}

// Without the fence: the generic writes and the copy's reads are not
// ordered (unknown, naming the missing fence).
// CHECK-LABEL: kernel _Z8unfencedPi
// CHECK-NOT:   race:
// CHECK:       unknown: {{[0-9]+}} {{pairs?}}: the asynchronous copy at bulk-store.cu:{{[0-9]+}} completes on a bulk async-group{{.*}}(no fence.proxy.async between the write at bulk-store.cu:{{[0-9]+}} and the asynchronous copy at bulk-store.cu:{{[0-9]+}})
__global__ void unfenced(int *out) {
  __shared__ alignas(128) int tile[64];
  unsigned t = threadIdx.x;
  tile[t] = 3 * t;
  __syncthreads();
  if (t == 0)
    store_tile(out + blockIdx.x * 64, tile);
  __syncthreads();
  tile[t] = 0;
}
