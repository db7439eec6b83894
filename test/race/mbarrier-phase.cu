// mbarrier objects as phased barriers. A phase completes once its count of
// arrivals (and the bytes expect_tx announced) have come; a wait on its
// token or its parity succeeds after that, so what a thread did before
// its arrival (or a copy that completes on the barrier) is ordered before
// what another thread does after its successful wait on the same phase.
// The phases are matched through the loop's iterations; a wait whose
// parity is not that of its phase proves nothing.
// REQUIRES: nvcc
// RUN: %incant race --optimized --block-dim 64 %s > %t; test $? -eq 1
// RUN: FileCheck %s < %t
#include <cuda/barrier>

__device__ unsigned smem(const void *p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ void init_one(unsigned long long *bar) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(bar))
               : "memory");
}

// Thread 0: announce 256 bytes on `bar`, copy them into `dst`.
__device__ void load_tile(int *dst, const int *src, unsigned long long *bar) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 256;" ::"r"(
                   smem(bar))
               : "memory");
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::"
               "bytes [%0], [%1], 256, [%2];" ::"r"(smem(dst)),
               "l"(src), "r"(smem(bar))
               : "memory");
}

__device__ void wait_parity(unsigned long long *bar, unsigned parity) {
  unsigned done = 0;
  while (!done)
    asm volatile("{\n\t.reg .pred p;\n\t"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                 "selp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(done)
                 : "r"(smem(bar)), "r"(parity)
                 : "memory");
}

// One stage and one barrier used again in every iteration: phase i has
// parity i % 2, and the __syncthreads() frees the stage for the next copy.
// CHECK-LABEL: kernel _Z5reusePiPKii
// CHECK-NOT:   race:
// CHECK-NOT:   unknown:
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[0-9]+}} safe, 0 unknown
__global__ void reuse(int *out, const int *in, int n) {
  __shared__ alignas(128) int tile[64];
  __shared__ alignas(8) unsigned long long full;
  unsigned t = threadIdx.x;
  if (t == 0)
    init_one(&full);
  __syncthreads();
  int sum = 0;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
    if (t == 0)
      load_tile(tile, in + i * 64, &full);
    wait_parity(&full, i % 2);
    sum += tile[63 - t];
    __syncthreads();
  }
  out[blockIdx.x * 64 + t] = sum;
}

// The same, reading the stage before the wait: a race with the copy.
// CHECK-LABEL: kernel _Z11reuse_earlyPiPKii
// CHECK:       race: write-read on shared memory, tile, between threads of one block
// CHECK:         write at mbarrier-phase.cu:{{[0-9]+}}  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes
__global__ void reuse_early(int *out, const int *in, int n) {
  __shared__ alignas(128) int tile[64];
  __shared__ alignas(8) unsigned long long full;
  unsigned t = threadIdx.x;
  if (t == 0)
    init_one(&full);
  __syncthreads();
  int sum = 0;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
    if (t == 0)
      load_tile(tile, in + i * 64, &full);
    sum += tile[63 - t];
    wait_parity(&full, i % 2);
    __syncthreads();
  }
  out[blockIdx.x * 64 + t] = sum;
}

// A wait on the wrong phase: parity (i + 1) % 2 succeeds at once in
// iteration 0 (the phase before the first has "completed"). Not safe.
// CHECK-LABEL: kernel _Z11wrong_phasePiPKii
// CHECK-NOT:   safe
// CHECK:       unknown: {{[0-9]+}} {{pairs?}}: the asynchronous copy at mbarrier-phase.cu:{{[0-9]+}} completes on an mbarrier phase{{.*}}the parity of mbarrier.try_wait.parity{{.*}}may not be that of its phase
__global__ void wrong_phase(int *out, const int *in, int n) {
  __shared__ alignas(128) int tile[64];
  __shared__ alignas(8) unsigned long long full;
  unsigned t = threadIdx.x;
  if (t == 0)
    init_one(&full);
  __syncthreads();
  int sum = 0;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
    if (t == 0)
      load_tile(tile, in + i * 64, &full);
    wait_parity(&full, (i + 1) % 2);
    sum += tile[63 - t];
    __syncthreads();
  }
  out[blockIdx.x * 64 + t] = sum;
}

using Barrier = cuda::barrier<cuda::thread_scope_block>;

// Plain stores handed on through cuda::barrier (count: the block's size;
// mbarrier.arrive, then a wait on its token): every thread's store comes
// before its arrival, every read after the wait of the same phase.
// CHECK-LABEL: kernel _Z6handedPiPKi
// CHECK-NOT:   race:
// CHECK-NOT:   unknown:
// CHECK:       summary: 0 races
__global__ void handed(int *out, const int *in) {
  __shared__ int buf[64];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ Barrier bar;
  unsigned t = threadIdx.x;
  if (t == 0)
    init(&bar, blockDim.x);
  __syncthreads();
  buf[t] = in[blockIdx.x * 64 + t];
  bar.arrive_and_wait();
  out[blockIdx.x * 64 + t] = buf[(t + 1) % 64];
}

// The neighbour's word read before the arrival: a race.
// CHECK-LABEL: kernel _Z12handed_earlyPiPKi
// CHECK:       race: write-read on shared memory, buf, between threads of one block
__global__ void handed_early(int *out, const int *in) {
  __shared__ int buf[64];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ Barrier bar;
  unsigned t = threadIdx.x;
  if (t == 0)
    init(&bar, blockDim.x);
  __syncthreads();
  buf[t] = in[blockIdx.x * 64 + t];
  int v = buf[(t + 1) % 64];
  bar.arrive_and_wait();
  out[blockIdx.x * 64 + t] = v;
}
