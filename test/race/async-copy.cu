// Asynchronous copies into shared memory (cp.async, cp.async.bulk): the
// copy writes at some time between its issue and its completion, so a
// __syncthreads() after the issue does not order it. A read that no wait
// of the copy precedes races with it; a read after the wait that observes
// the copy's completion (its group's wait, its mbarrier phase) is safe.
// REQUIRES: nvcc
// RUN: %incant race --optimized --block-dim 64 %s > %t; test $? -eq 1
// RUN: FileCheck %s < %t
#include <cuda/barrier>

__device__ unsigned smem(const void *p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// cp.async, then cp.async.wait_all and a barrier before the neighbour's
// word is read: the copy's thread observes its completion, then releases
// it to the others through the barrier.
// CHECK-LABEL: kernel _Z6waited
// CHECK-NOT:   race:
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, 3 safe, 0 unknown
__global__ void waited(int *out, const int *in) {
  __shared__ int tile[64];
  unsigned t = threadIdx.x;
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(smem(&tile[t])),
               "l"(in + blockIdx.x * 64 + t)
               : "memory");
  asm volatile("cp.async.wait_all;" ::: "memory");
  __syncthreads();
  out[blockIdx.x * 64 + t] = tile[(t + 1) % 64];
}

// The same read before the wait: the barrier orders the issue only, and
// the wait comes after the read (unknown: a witness of a race would need
// the copy to be late, which the analysis does not show; never safe).
// CHECK-LABEL: kernel _Z8unwaited
// CHECK:       unknown: 1 pair: the asynchronous copy at async-copy.cu:{{[0-9]+}} completes on a cp.async group, observed by cp.async.wait_all
__global__ void unwaited(int *out, const int *in) {
  __shared__ int tile[64];
  unsigned t = threadIdx.x;
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(smem(&tile[t])),
               "l"(in + blockIdx.x * 64 + t)
               : "memory");
  __syncthreads();
  out[blockIdx.x * 64 + t] = tile[(t + 1) % 64];
  asm volatile("cp.async.wait_all;" ::: "memory");
}

// cuda::memcpy_async completing on a cuda::barrier (cp.async,
// cp.async.mbarrier.arrive), the stage read before arrive_and_wait():
// no wait between, a race.
// CHECK-LABEL: kernel _Z5early
// CHECK:       race: write-read on shared memory, tile, between threads of one block
// CHECK:         write at async-copy.cu:{{[0-9]+}}  cp.async.ca.shared.global
__global__ void early(int *out, const int *in) {
  __shared__ int tile[64];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  unsigned t = threadIdx.x;
  if (t == 0)
    init(&bar, blockDim.x);
  __syncthreads();
  cuda::memcpy_async(&tile[t], &in[blockIdx.x * 64 + t],
                     cuda::aligned_size_t<4>(sizeof(int)), bar);
  int v = tile[(t + 1) % 64];
  bar.arrive_and_wait();
  out[blockIdx.x * 64 + t] = v;
}

// A bulk copy (TMA) completing on an mbarrier's transaction count, read
// after the phase completed (parity 0: the first phase): safe; read
// before: a race.
// CHECK-LABEL: kernel _Z4bulkPiPKib
// CHECK:       race: write-read on shared memory, tile, between threads of one block
// CHECK:         write at async-copy.cu:{{[0-9]+}}  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes
// CHECK-NOT:   unknown:
// CHECK:       summary: 1 race, 0 divergent barriers; pairs: 1 race, 3 safe, 0 unknown
__global__ void bulk(int *out, const int *in, bool before) {
  __shared__ alignas(128) int tile[64];
  __shared__ alignas(8) unsigned long long full;
  unsigned t = threadIdx.x;
  if (t == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&full))
                 : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (t == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 256;" ::"r"(
                     smem(&full))
                 : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::"
                 "bytes [%0], [%1], 256, [%2];" ::"r"(smem(tile)),
                 "l"(in + blockIdx.x * 64), "r"(smem(&full))
                 : "memory");
  }
  int v = before ? tile[63 - t] : 0;
  unsigned done = 0;
  while (!done)
    asm volatile("{\n\t.reg .pred p;\n\t"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n\t"
                 "selp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(done)
                 : "r"(smem(&full))
                 : "memory");
  out[blockIdx.x * 64 + t] = before ? v : tile[63 - t];
}
