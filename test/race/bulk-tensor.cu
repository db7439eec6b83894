// A tensor copy (cp.async.bulk.tensor, TMA) into shared memory completes
// its bytes on an mbarrier like a bulk copy. Its size is its tensor map's
// box, which the PTX does not say: the pairs it orders are safe assuming
// the bytes expect_tx announces are the box's, and say so. Read before
// the wait, the tile is not proved safe (with the size unknown, not a race
// either). What it reads of global memory through the tensor map is not
// known: its pair with the output stays unknown.
// REQUIRES: nvcc
// RUN: %incant race -v --optimized --block-dim 64 %s > %t; test $? -eq 4
// RUN: FileCheck %s < %t
#include <cuda.h>

__device__ unsigned smem(const void *p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ int load(const CUtensorMap *map, int *tile, unsigned long long *full,
                    bool before) {
  unsigned t = threadIdx.x;
  if (t == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(full))
                 : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (t == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 256;" ::"r"(
                     smem(full))
                 : "memory");
    asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::"
                 "complete_tx::bytes [%0], [%1, {%2}], [%3];" ::"r"(smem(tile)),
                 "l"(map), "r"(int(blockIdx.x * 64)), "r"(smem(full))
                 : "memory");
  }
  int v = before ? tile[63 - t] : 0;
  unsigned done = 0;
  while (!done)
    asm volatile("{\n\t.reg .pred p;\n\t"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n\t"
                 "selp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(done)
                 : "r"(smem(full))
                 : "memory");
  return before ? v : tile[63 - t];
}

// CHECK-LABEL: kernel _Z6waited
// CHECK:       mbarrier.try_wait.parity{{.*}}: safe: an mbarrier operation: orders the threads of its phases
// CHECK-NOT:   race:
// CHECK:       unknown: 1 pair: cp.async reaches global memory through a tensor map
// CHECK:       safe: {{.*}}ordered by mbarrier phases, copy groups and barriers{{.*}}assuming each tensor copy's box has the bytes its expect_tx announces
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, 3 safe, 1 unknown
__global__ void waited(const __grid_constant__ CUtensorMap map, int *out) {
  __shared__ alignas(128) int tile[64];
  __shared__ alignas(8) unsigned long long full;
  out[blockIdx.x * 64 + threadIdx.x] = load(&map, tile, &full, false);
}

// CHECK-LABEL: kernel _Z5early
// CHECK-NOT:   ordered by mbarrier phases
// CHECK:       unknown: 1 pair: the access size is not known
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, 2 safe, 2 unknown
__global__ void early(const __grid_constant__ CUtensorMap map, int *out) {
  __shared__ alignas(128) int tile[64];
  __shared__ alignas(8) unsigned long long full;
  out[blockIdx.x * 64 + threadIdx.x] = load(&map, tile, &full, true);
}
