// cp.async copies complete in groups: cp.async.wait_group N lets its
// thread past once at most N of its committed groups are pending, so a
// copy is complete there when N younger groups were committed after its
// own; a CTA barrier after that wait hands the tile to the other threads.
// A count one too large leaves the copy possibly in flight: not safe.
// REQUIRES: nvcc
// RUN: %incant race --optimized --block-dim 64 %s > %t; test $? -eq 4
// RUN: FileCheck %s < %t

__device__ unsigned smem(const void *p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ void copy4(int *dst, const int *src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(smem(dst)),
               "l"(src)
               : "memory");
}

// Double buffering: the copy of tile i + 1 is in flight while tile i is
// read; wait_group 1 completes every group but the newest.
// CHECK-LABEL: kernel _Z13double_bufferPiPKii
// CHECK-NOT:   race:
// CHECK-NOT:   unknown:
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, {{[0-9]+}} safe, 0 unknown
__global__ void double_buffer(int *out, const int *in, int n) {
  __shared__ int tile[2][64];
  unsigned t = threadIdx.x;
  copy4(&tile[0][t], in + t);
  asm volatile("cp.async.commit_group;" ::: "memory");
  int sum = 0;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
    if (i + 1 < n)
      copy4(&tile[(i + 1) % 2][t], in + (i + 1) * 64 + t);
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.wait_group 1;" ::: "memory");
    __syncthreads();
    sum += tile[i % 2][(t + 1) % 64];
    __syncthreads();
  }
  out[blockIdx.x * 64 + t] = sum;
}

// wait_group 2: the group of tile i may still be pending when it is read.
// CHECK-LABEL: kernel _Z10off_by_onePiPKii
// CHECK-NOT:   race:
// CHECK:       unknown: {{[0-9]+}} {{pairs?}}: the asynchronous copy at cp-async-group.cu:{{[0-9]+}} completes on a cp.async group{{.*}}no mbarrier phase, copy group or barrier within 3 iterations of the two accesses orders them
__global__ void off_by_one(int *out, const int *in, int n) {
  __shared__ int tile[2][64];
  unsigned t = threadIdx.x;
  copy4(&tile[0][t], in + t);
  asm volatile("cp.async.commit_group;" ::: "memory");
  int sum = 0;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
    if (i + 1 < n)
      copy4(&tile[(i + 1) % 2][t], in + (i + 1) * 64 + t);
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.wait_group 2;" ::: "memory");
    __syncthreads();
    sum += tile[i % 2][(t + 1) % 64];
    __syncthreads();
  }
  out[blockIdx.x * 64 + t] = sum;
}
