// cp.async.mbarrier.arrive.noinc: the arrive-on operation made once the
// thread's earlier cp.async copies are done is one of the barrier's count
// (no pending arrival is added for it), so each thread's copies are
// complete when the phase is. It orders the copies, not the thread's
// other accesses: a plain store before it is not handed on.
// REQUIRES: nvcc
// RUN: %incant race --optimized --block-dim 64 %s > %t; test $? -eq 1
// RUN: FileCheck %s < %t

__device__ unsigned smem(const void *p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ void copy4(int *dst, const int *src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(smem(dst)),
               "l"(src)
               : "memory");
}

// The arrival that completes once the thread's copies are done, one of
// the count's (.noinc: the count is not raised for it).
__device__ void arrive_noinc(unsigned long long *bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(
                   smem(bar))
               : "memory");
}

__device__ void arrive(unsigned long long *bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(bar))
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

// Every thread copies its word and arrives (.noinc) on a barrier of
// count 64: after the phase, the neighbour's word has landed.
// CHECK-LABEL: kernel _Z5noincPiPKii
// CHECK-NOT:   race:
// CHECK-NOT:   unknown:
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, 3 safe, 0 unknown
__global__ void noinc(int *out, const int *in, int n) {
  __shared__ int tile[64];
  __shared__ alignas(8) unsigned long long bar;
  unsigned t = threadIdx.x;
  if (t == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 64;" ::"r"(smem(&bar))
                 : "memory");
  __syncthreads();
  int sum = 0;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
    copy4(&tile[t], in + i * 64 + t);
    arrive_noinc(&bar);
    wait_parity(&bar, i % 2);
    sum += tile[(t + 1) % 64];
    __syncthreads();
  }
  out[blockIdx.x * 64 + t] = sum;
}

// The neighbour's word read before the wait: a race with its copy.
// CHECK-LABEL: kernel _Z11noinc_earlyPiPKii
// CHECK:       race: write-read on shared memory, tile, between threads of one block
// CHECK:         write at cp-async-noinc.cu:{{[0-9]+}}  cp.async.ca.shared.global
__global__ void noinc_early(int *out, const int *in, int n) {
  __shared__ int tile[64];
  __shared__ alignas(8) unsigned long long bar;
  unsigned t = threadIdx.x;
  if (t == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 64;" ::"r"(smem(&bar))
                 : "memory");
  __syncthreads();
  int sum = 0;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
    copy4(&tile[t], in + i * 64 + t);
    arrive_noinc(&bar);
    sum += tile[(t + 1) % 64];
    wait_parity(&bar, i % 2);
    __syncthreads();
  }
  out[blockIdx.x * 64 + t] = sum;
}

// A .noinc arrival and a plain one by each thread: two arrivals of one
// thread in a phase of count 64. Not followed.
// CHECK-LABEL: kernel _Z11noinc_twicePiPKii
// CHECK-NOT:   safe
// CHECK:       unknown: 1 pair: {{.*}}cp.async.mbarrier.arrive.noinc.shared::cta.b64 {{.*}} and mbarrier.arrive.shared::cta.b64 {{.*}} may arrive in one phase, or out of order, in one thread
__global__ void noinc_twice(int *out, const int *in, int n) {
  __shared__ int tile[64];
  __shared__ alignas(8) unsigned long long bar;
  unsigned t = threadIdx.x;
  if (t == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 64;" ::"r"(smem(&bar))
                 : "memory");
  __syncthreads();
  int sum = 0;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
    copy4(&tile[t], in + i * 64 + t);
    arrive_noinc(&bar);
    arrive(&bar);
    wait_parity(&bar, i % 2);
    sum += tile[(t + 1) % 64];
    __syncthreads();
  }
  out[blockIdx.x * 64 + t] = sum;
}

// A plain store before the .noinc arrival, read by the neighbour after
// the wait: not ordered by it (unknown, not safe); the copy's word is.
// CHECK-LABEL: kernel _Z11noinc_storePiPKii
// CHECK-NOT:   race:
// CHECK:       unknown: 1 pair: an mbarrier wait may order the pair, which barriers alone do not; no mbarrier phase, copy group or barrier within 3 iterations of the two accesses orders them
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, 4 safe, 1 unknown
__global__ void noinc_store(int *out, const int *in, int n) {
  __shared__ int tile[64], mine[64];
  __shared__ alignas(8) unsigned long long bar;
  unsigned t = threadIdx.x;
  if (t == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 64;" ::"r"(smem(&bar))
                 : "memory");
  __syncthreads();
  int sum = 0;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
    mine[t] = i;
    copy4(&tile[t], in + i * 64 + t);
    arrive_noinc(&bar);
    wait_parity(&bar, i % 2);
    sum += tile[(t + 1) % 64] + mine[(t + 1) % 64];
    __syncthreads();
  }
  out[blockIdx.x * 64 + t] = sum;
}
