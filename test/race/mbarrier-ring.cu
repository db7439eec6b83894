// Warp specialisation on a ring of two stages: warp 0's lane 0 produces
// (count 1 "full" barriers, expect_tx and a bulk copy), warps 1 and 2
// consume (count 64 "empty" barriers, every consumer thread arrives).
// Each side waits on the other's barrier with the parity of its use of the
// stage; the producer's first wait on each "empty" barrier has parity 1
// (the phase before the first, complete from the start). The threads that
// arrive on a barrier are found from the branch conditions and proved to
// be exactly its count; neither side waits on its own barrier between two
// arrivals, which is proved through the other side's waits (every arrival
// on "empty" comes after a wait on "full" at that phase, and back).
// REQUIRES: nvcc
// RUN: %incant race --optimized --block-dim 96 %s > %t; test $? -eq 1
// RUN: FileCheck %s < %t

__device__ unsigned smem(const void *p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ void init_bar(unsigned long long *bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem(bar)),
               "r"(count)
               : "memory");
}

__device__ void arrive(unsigned long long *bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(bar))
               : "memory");
}

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

constexpr unsigned kConsumers = 64;

// CHECK-LABEL: kernel _Z4ringPiPKii
// CHECK-NOT:   race:
// CHECK-NOT:   unknown:
// CHECK:       summary: 0 races, 0 divergent barriers; pairs: 0 race, 3 safe, 0 unknown
__global__ void ring(int *out, const int *in, int n) {
  __shared__ alignas(128) int stage[2][64];
  __shared__ alignas(8) unsigned long long full[2], empty[2];
  unsigned t = threadIdx.x;
  if (t == 0) {
    init_bar(&full[0], 1);
    init_bar(&full[1], 1);
    init_bar(&empty[0], kConsumers);
    init_bar(&empty[1], kConsumers);
  }
  __syncthreads();
  int sum = 0;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
    unsigned s = i % 2, ph = (i / 2) % 2;
    if (t < 32) {
      if (t == 0) {
        wait_parity(&empty[s], ph ^ 1);
        load_tile(stage[s], in + i * 64, &full[s]);
      }
    } else {
      wait_parity(&full[s], ph);
      sum += stage[s][(t - 31) % 64];
      arrive(&empty[s]);
    }
  }
  if (t >= 32)
    out[blockIdx.x * 64 + t - 32] = sum;
}

// The consumers free the stage before they read it: the producer's copy
// two tiles later may overwrite it under the read. Not safe.
// CHECK-LABEL: kernel _Z10ring_earlyPiPKii
// CHECK-NOT:   safe
// CHECK:       unknown: 1 pair: the asynchronous copy at mbarrier-ring.cu:{{[0-9]+}} completes on an mbarrier phase{{.*}}no mbarrier phase, copy group or barrier within 3 iterations of the two accesses orders them
__global__ void ring_early(int *out, const int *in, int n) {
  __shared__ alignas(128) int stage[2][64];
  __shared__ alignas(8) unsigned long long full[2], empty[2];
  unsigned t = threadIdx.x;
  if (t == 0) {
    init_bar(&full[0], 1);
    init_bar(&full[1], 1);
    init_bar(&empty[0], kConsumers);
    init_bar(&empty[1], kConsumers);
  }
  __syncthreads();
  int sum = 0;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
    unsigned s = i % 2, ph = (i / 2) % 2;
    if (t < 32) {
      if (t == 0) {
        wait_parity(&empty[s], ph ^ 1);
        load_tile(stage[s], in + i * 64, &full[s]);
      }
    } else {
      wait_parity(&full[s], ph);
      arrive(&empty[s]);
      sum += stage[s][(t - 31) % 64];
    }
  }
  if (t >= 32)
    out[blockIdx.x * 64 + t - 32] = sum;
}

// "empty" counts 32 arrivals but 64 threads arrive: its phases may
// complete before every consumer read the stage.
// CHECK-LABEL: kernel _Z10ring_countPiPKii
// CHECK-NOT:   safe
// CHECK:       unknown: 1 pair: {{.*}}the mbarrier phases are not followed: mbarrier.init.shared::cta.b64 {{.*}}: a count of 32, but more threads than the 32 of linear ids 32, 33, ..., 63 may arrive on it (linear id {{[0-9]+}})
__global__ void ring_count(int *out, const int *in, int n) {
  __shared__ alignas(128) int stage[2][64];
  __shared__ alignas(8) unsigned long long full[2], empty[2];
  unsigned t = threadIdx.x;
  if (t == 0) {
    init_bar(&full[0], 1);
    init_bar(&full[1], 1);
    init_bar(&empty[0], 32);
    init_bar(&empty[1], 32);
  }
  __syncthreads();
  int sum = 0;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
    unsigned s = i % 2, ph = (i / 2) % 2;
    if (t < 32) {
      if (t == 0) {
        wait_parity(&empty[s], ph ^ 1);
        load_tile(stage[s], in + i * 64, &full[s]);
      }
    } else {
      wait_parity(&full[s], ph);
      sum += stage[s][(t - 31) % 64];
      arrive(&empty[s]);
    }
  }
  if (t >= 32)
    out[blockIdx.x * 64 + t - 32] = sum;
}

// The producer does not wait for the stage to be freed: its copy races
// with the consumers' reads.
// CHECK-LABEL: kernel _Z11ring_nowaitPiPKii
// CHECK:       race: write-read on shared memory, stage, between threads of one block
// CHECK:         write at mbarrier-ring.cu:{{[0-9]+}}  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes
__global__ void ring_nowait(int *out, const int *in, int n) {
  __shared__ alignas(128) int stage[2][64];
  __shared__ alignas(8) unsigned long long full[2], empty[2];
  unsigned t = threadIdx.x;
  if (t == 0) {
    init_bar(&full[0], 1);
    init_bar(&full[1], 1);
    init_bar(&empty[0], kConsumers);
    init_bar(&empty[1], kConsumers);
  }
  __syncthreads();
  int sum = 0;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
    unsigned s = i % 2, ph = (i / 2) % 2;
    if (t < 32) {
      if (t == 0) {
        load_tile(stage[s], in + i * 64, &full[s]);
      }
    } else {
      wait_parity(&full[s], ph);
      sum += stage[s][(t - 31) % 64];
      arrive(&empty[s]);
    }
  }
  if (t >= 32)
    out[blockIdx.x * 64 + t - 32] = sum;
}

// The consumers wait on the wrong phase of "full" (parity 1 first: it
// succeeds at once). Not safe.
// CHECK-LABEL: kernel _Z11ring_parityPiPKii
// CHECK-NOT:   safe
// CHECK:       unknown: 1 pair: {{.*}}the parity of mbarrier.try_wait.parity{{.*}}may not be that of its phase
__global__ void ring_parity(int *out, const int *in, int n) {
  __shared__ alignas(128) int stage[2][64];
  __shared__ alignas(8) unsigned long long full[2], empty[2];
  unsigned t = threadIdx.x;
  if (t == 0) {
    init_bar(&full[0], 1);
    init_bar(&full[1], 1);
    init_bar(&empty[0], kConsumers);
    init_bar(&empty[1], kConsumers);
  }
  __syncthreads();
  int sum = 0;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
    unsigned s = i % 2, ph = (i / 2) % 2;
    if (t < 32) {
      if (t == 0) {
        wait_parity(&empty[s], ph ^ 1);
        load_tile(stage[s], in + i * 64, &full[s]);
      }
    } else {
      wait_parity(&full[s], ph ^ 1);
      sum += stage[s][(t - 31) % 64];
      arrive(&empty[s]);
    }
  }
  if (t >= 32)
    out[blockIdx.x * 64 + t - 32] = sum;
}

// One consumer thread per warp (lanes 0 of warps 1 and 2: linear ids 32
// and 64) reads and frees the stage: "empty" counts 2.
// CHECK-LABEL: kernel _Z10ring_lanesPiPKii
// CHECK-NOT:   race:
// CHECK-NOT:   unknown:
// CHECK:       summary: 0 races
__global__ void ring_lanes(int *out, const int *in, int n) {
  __shared__ alignas(128) int stage[2][64];
  __shared__ alignas(8) unsigned long long full[2], empty[2];
  unsigned t = threadIdx.x;
  if (t == 0) {
    init_bar(&full[0], 1);
    init_bar(&full[1], 1);
    init_bar(&empty[0], 2);
    init_bar(&empty[1], 2);
  }
  __syncthreads();
  int sum = 0;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
    unsigned s = i % 2, ph = (i / 2) % 2;
    if (t < 32) {
      if (t == 0) {
        wait_parity(&empty[s], ph ^ 1);
        load_tile(stage[s], in + i * 64, &full[s]);
      }
    } else if (t % 32 == 0) {
      wait_parity(&full[s], ph);
      sum += stage[s][t / 32];
      arrive(&empty[s]);
    }
  }
  if (t >= 32)
    out[blockIdx.x * 64 + t - 32] = sum;
}
