// Asynchronous copies (cp.async) read before they are complete: a block
// barrier after the copy's issue does not order it; the repair adds
// cp.async.wait_all before a block barrier (cost 2·10^depth + 1), which
// completes the thread's copies whatever tracks them (a cp.async group, or
// the cuda::barrier of cuda::memcpy_async), and the source patch has the
// wait as inline PTX before __syncthreads(). The race-free twins wait
// first: nothing to repair.
// REQUIRES: nvcc
// RUN: %incant repair %s --kernel early --block-dim 64 --grid-dim 2 --patch %t.diff > %t.out; test $? -eq 0
// RUN: FileCheck %s --check-prefix=EARLY < %t.out
// RUN: FileCheck %s --check-prefix=EARLY-DIFF < %t.diff
// RUN: %incant repair %s --kernel waited --block-dim 64 --grid-dim 2 > %t3; test $? -eq 0
// RUN: FileCheck %s --check-prefix=CLEAN < %t3

// EARLY:      kernel _Z5earlyPiPKi (early(int*, int const*)): repaired
// EARLY-NEXT:   add cp.async wait and block barrier before async-copy.cu:[[@LINE+24]] ({{.*}}), loop depth 0, cost 3
// EARLY-NEXT:     source: insert 'asm volatile("cp.async.wait_all;" ::: "memory"); __syncthreads();' before line [[@LINE+23]]
// EARLY:        before: 1 race, 0 divergent barriers, 0 unknown pairs; after: 0 races, 0 divergent barriers, 0 unknown pairs
// EARLY:      repaired PTX: checked again by incant race: no race, no divergent barrier
// EARLY:      source patch (compiled again and checked by incant race):
// EARLY-DIFF:                      cuda::aligned_size_t<4>(sizeof(int)), bar);
// EARLY-DIFF-NEXT: +  asm volatile("cp.async.wait_all;" ::: "memory"); __syncthreads();
// EARLY-DIFF-NEXT:    int v = tile[(t + 1) % 64];
// CLEAN:      kernel _Z6waitedPiPKi (waited(int*, int const*)): nothing to repair
#include <cuda/barrier>

// cuda::memcpy_async completing on a cuda::barrier (cp.async and
// cp.async.mbarrier.arrive), the neighbour's word read before
// arrive_and_wait().
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

__device__ unsigned smem(const void *p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// cp.async, then cp.async.wait_all and a barrier before the read.
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

