/*===- incant_harness.cuh - The device side of incant's CUDA harness -----===//
 *
 * Real CUDA, compiled at run time by NVRTC (or by nvcc in CI) together with
 * the code that lib/CUDA/Codegen.cpp generates for one litmus test. The
 * generated file defines, before including this one:
 *
 *   INCANT_NUM_ROLES, INCANT_NUM_GLOBAL, INCANT_NUM_SHARED, INCANT_NUM_OUT,
 *   INCANT_CLUSTER (blocks per cluster; 1 = no cluster launch),
 *   incant_test(P, vb, w, ln, smem, shadow): every role of this thread,
 *   incant_copy_shared(P, vb, w, ln, smem): observed shared finals to out,
 *   incant_observe(P, i, tup) and incant_reset(P, i) for instance i.
 *
 * Two kernels: incant_test_kernel runs the instances (testing blocks) and
 * the memory stress (non-testing blocks); incant_hist_kernel counts every
 * instance's outcome into an on-GPU hash histogram and re-initialises the
 * instance's memory for the next launch. Only the histogram is copied back.
 *
 * Several tests can share one module (lib/CUDA/Batch.cpp): each test's code
 * and its copy of this file then sit in a namespace of their own, the
 * kernels' names end in INCANT_KERNEL_SUFFIX (_0, _1, ...), and the batch
 * undefines the test's macros and INCANT_HARNESS_CUH between tests. Alone,
 * the kernels keep their bare names.
 *
 *===----------------------------------------------------------------------===*/
#ifndef INCANT_HARNESS_CUH
#define INCANT_HARNESS_CUH

#include "incant_params.h"

#ifndef INCANT_HAS_BARRIER
#define INCANT_HAS_BARRIER 0 /* the test has bar.sync (generated code) */
#endif
#ifndef INCANT_CLUSTER_SHARED
#define INCANT_CLUSTER_SHARED 0 /* CTAs reach each other's shared memory */
#endif

/* The whole cluster meets: every thread of its CTAs (not .aligned, as the
 * lanes of a warp may come from different paths). */
__device__ __forceinline__ void incant_cluster_sync() {
  asm volatile("barrier.cluster.arrive.release;\n\t"
               "barrier.cluster.wait.acquire;" ::: "memory");
}

typedef unsigned long long incant_u64;

#ifndef INCANT_KERNEL_SUFFIX
#define INCANT_KERNEL_SUFFIX
#endif
#define INCANT_PASTE_(a, b) a##b
#define INCANT_PASTE(a, b) INCANT_PASTE_(a, b)
#define INCANT_KERNEL(name) INCANT_PASTE(name, INCANT_KERNEL_SUFFIX)

/* Index of the global word that holds location g of instance i: instances
 * are spread by a permutation (i * locPerm mod N, locPerm coprime with N)
 * and a stride; locations of one instance are G slots apart. With locDist
 * set, each instance owns a region of instWords words and its locations
 * sit locDist words apart in it (the distance d of `incant tune patch`). */
__device__ __forceinline__ incant_u64 incant_gword(const IncantParams &P,
                                                   unsigned i, unsigned g) {
  if (P.locDist)
    return ((incant_u64)i * P.locPerm % P.instances) * P.instWords +
           (incant_u64)g * P.locDist;
  incant_u64 slot = ((incant_u64)i * P.locPerm + (incant_u64)g * 7919u) %
                    P.instances;
  return (slot * INCANT_NUM_GLOBAL + g) * P.stride;
}

__device__ __forceinline__ incant_u64 incant_gaddr(const IncantParams &P,
                                                   unsigned i, unsigned g) {
  return P.mem + 4ull * incant_gword(P, i, g);
}

/* Word index in dynamic shared memory of shared location s for the
 * instance whose coordinates in its own block are (iw, il). */
__device__ __forceinline__ unsigned incant_sword(const IncantParams &P,
                                                 unsigned s, unsigned iw,
                                                 unsigned il) {
  return ((s * P.warps + iw) * P.lanes + il) * P.sharedStride;
}

/* Which instance this thread (virtual block vb, warp w, lane ln) plays for
 * a role whose offsets are (cq: cluster group, ck: block in cluster,
 * d: warp group, e: lane group). The maps are bijections on instances, so
 * every instance gets every role exactly once; roles with different
 * offsets land in different blocks / warps / lanes (see docs/cuda.md). */
__device__ __forceinline__ bool incant_instance(const IncantParams &P,
                                                unsigned vb, unsigned w,
                                                unsigned ln, unsigned cq,
                                                unsigned ck, unsigned d,
                                                unsigned e, unsigned *inst,
                                                unsigned *iw, unsigned *il) {
  const unsigned K = INCANT_CLUSTER;
  const unsigned Q = P.testBlocks / K;
  unsigned q = vb / K, k = vb % K;
  unsigned iq = (q + Q - (unsigned)(((incant_u64)cq * P.blockStride) % Q)) % Q;
  unsigned ik = (k + K - ck % K) % K;
  unsigned ib = iq * K + ik;
  *iw = (w + P.warps - (unsigned)(((incant_u64)d * P.warpStride) % P.warps)) %
        P.warps;
  *il = (unsigned)((((incant_u64)((ln + P.lanes - e % P.lanes) % P.lanes)) *
                    P.lanePermInv) %
                   P.lanes);
  *inst = (ib * P.warps + *iw) * P.lanes + *il;
  if (P.flags & INCANT_F_SINGLE)
    return *inst == 0;
  return true;
}

/* Address of location j for a shadow lane (general bank conflicts): the
 * warp-mates of testing lanes run the same instructions on a region of
 * their own, all on one word (broadcast), on consecutive words (parallel)
 * or on words 32 apart, i.e. one shared-memory bank (conflict). */
__device__ __forceinline__ incant_u64 incant_shadow_addr(const IncantParams &P,
                                                         unsigned vb,
                                                         unsigned w,
                                                         unsigned ln,
                                                         unsigned j) {
  incant_u64 wg = (incant_u64)vb * P.warps + w;
  incant_u64 base = (wg * (INCANT_NUM_GLOBAL + INCANT_NUM_SHARED) + j) * 1024u;
  incant_u64 off = 0;
  if (P.bankMode == INCANT_BANK_PARALLEL)
    off = ln;
  else if (P.bankMode == INCANT_BANK_CONFLICT)
    off = (incant_u64)ln * 32u;
  return P.shadow + 4ull * (base + off);
}

/* Memory stress: loop over a few scratchpad locations, spread apart, with
 * the access sequence in P.stressPattern (2 bits per access). */
__device__ __noinline__ void incant_stress(const IncantParams &P,
                                           unsigned iters, unsigned who) {
  volatile unsigned *s = (volatile unsigned *)P.scratch;
  unsigned lines = P.stressLines ? P.stressLines : 1;
  volatile unsigned *p = s + (incant_u64)(who % lines) * P.stressSpread;
  if (P.flags & INCANT_F_STRESS_TEST) /* the test's memory, at an offset */
    p = (volatile unsigned *)P.mem +
        incant_gword(P, (who / lines) % P.instances, 0) + P.stressOffset +
        (incant_u64)(who % lines) * P.stressSpread;
  unsigned acc = 0;
  for (unsigned i = 0; i < iters; ++i) {
    for (unsigned pat = P.stressPattern; pat; pat >>= 2) {
      if ((pat & 3u) == 1u)
        acc += *p;
      else if ((pat & 3u) == 2u)
        *p = i;
    }
  }
  if (acc == 0xFFFFFFFFu)
    s[1] = acc; /* keeps the loads alive */
}

/* Bounded spin barrier over the testing blocks: one thread per block
 * arrives and polls at most P.barrierPolls times; blocks have no
 * forward-progress guarantee, so the barrier gives up rather than hang.
 * A block whose wait gave up is counted in the 64-bit word at P.sync + 8
 * (RunResult::BarrierTimeouts; the histogram kernel resets only the
 * arrival counter, so the count adds up over launches). */
__device__ __forceinline__ void incant_barrier(const IncantParams &P) {
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned *c = (unsigned *)P.sync;
    atomicAdd(c, 1u);
    unsigned i = 0;
    for (; i < P.barrierPolls; ++i)
      if (*(volatile unsigned *)c >= P.testBlocks)
        break;
    if (i == P.barrierPolls)
      atomicAdd((incant_u64 *)P.sync + 1, 1ull);
  }
  __syncthreads();
}

#undef INCANT_CLUSTER_ATTR
#if INCANT_CLUSTER > 1
#define INCANT_CLUSTER_ATTR __cluster_dims__(INCANT_CLUSTER, 1, 1)
#else
#define INCANT_CLUSTER_ATTR
#endif

extern "C" __global__ void INCANT_CLUSTER_ATTR __launch_bounds__(1024)
INCANT_KERNEL(incant_test_kernel)(const __grid_constant__ IncantParams P) {
  extern __shared__ __align__(16) unsigned incant_smem[];
  unsigned vb = INCANT_CLUSTER > 1
                    ? blockIdx.x
                    : (unsigned)(((incant_u64)blockIdx.x * P.blockPerm +
                                  P.blockOff) %
                                 P.totalBlocks);
  if (vb >= P.testBlocks) {
    if (P.flags & INCANT_F_STRESS)
      incant_stress(P, P.stressIters, vb * blockDim.x + threadIdx.x);
    return;
  }
  unsigned w = threadIdx.x / 32u, ln = threadIdx.x % 32u;
  if (INCANT_NUM_SHARED > 0) {
    incant_init_shared(P, incant_smem);
    /* Other CTAs of the cluster may reach this one's shared memory. */
    if (INCANT_CLUSTER_SHARED)
      incant_cluster_sync();
    else
      __syncthreads();
  }
  if (P.flags & INCANT_F_PRESTRESS)
    incant_stress(P, P.preStressIters, vb * blockDim.x + threadIdx.x);
  if (P.flags & INCANT_F_BARRIER)
    incant_barrier(P);
  if (w >= P.warps) {
    /* Stress warps of a testing block (never in tests with bar.sync). */
    incant_stress(P, P.stressIters, vb * blockDim.x + threadIdx.x);
  } else {
  bool shadow = ln >= P.lanes;
  /* With bar.sync in the test, every thread of the block must meet its
   * barriers: idle shadow lanes run incant_test too (only the barriers). */
  if (!shadow || (P.flags & INCANT_F_BANK) || INCANT_HAS_BARRIER)
    incant_test(P, vb, w, ln, incant_smem, shadow);
  }
  if (INCANT_NUM_SHARED > 0) {
    /* With distributed shared memory, the cluster's accesses to this CTA's
     * shared memory are done before it is read out and before it exits. */
    if (INCANT_CLUSTER_SHARED)
      incant_cluster_sync();
    else
      __syncthreads();
    if (w < P.warps && ln < P.lanes)
      incant_copy_shared(P, vb, w, ln, incant_smem);
  }
}

__device__ __forceinline__ incant_u64 incant_hash(const unsigned *t) {
  incant_u64 h = 0xcbf29ce484222325ull;
  for (unsigned k = 0; k < INCANT_NUM_OUT; ++k) {
    h ^= t[k];
    h *= 0x100000001b3ull;
    h ^= h >> 29;
  }
  return h | 1ull; /* 0 marks an empty slot */
}

__device__ void incant_hist_add(const IncantParams &P, incant_u64 key,
                                const unsigned *t, unsigned n) {
  incant_u64 *keys = (incant_u64 *)P.histKey;
  incant_u64 *cnt = (incant_u64 *)P.histCnt;
  unsigned *tup = (unsigned *)P.histTup;
  unsigned slot = (unsigned)(key >> 32) & (INCANT_HIST_CAP - 1u);
#pragma unroll 1
  for (unsigned p = 0; p < INCANT_HIST_PROBES; ++p) {
    incant_u64 prev = atomicCAS(keys + slot, 0ull, key);
    if (prev == 0ull) {
      for (unsigned k = 0; k < INCANT_NUM_OUT; ++k)
        tup[slot * INCANT_NUM_OUT + k] = t[k];
      atomicAdd(cnt + slot, (incant_u64)n);
      return;
    }
    if (prev == key) {
      atomicAdd(cnt + slot, (incant_u64)n);
      return;
    }
    slot = (slot + 1u) & (INCANT_HIST_CAP - 1u);
  }
  atomicAdd(cnt + INCANT_HIST_CAP, (incant_u64)n); /* overflow */
}

extern "C" __global__ void __launch_bounds__(256)
INCANT_KERNEL(incant_hist_kernel)(const __grid_constant__ IncantParams P) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0)
    ((unsigned *)P.sync)[0] = 0u;
  if (i >= P.instances)
    return;
  bool counted = !(P.flags & INCANT_F_NOCOUNT) &&
                 (!(P.flags & INCANT_F_SINGLE) || i == 0);
  unsigned t[INCANT_NUM_OUT > 0 ? INCANT_NUM_OUT : 1];
  incant_observe(P, i, t);
  incant_reset(P, i);
  if (!counted)
    return;
  incant_u64 key = incant_hash(t);
  /* Warp aggregation: one atomic per distinct outcome per warp. */
  unsigned mask = __match_any_sync(__activemask(), key);
  if ((threadIdx.x % 32u) == (unsigned)(__ffs(mask) - 1))
    incant_hist_add(P, key, t, __popc(mask));
}

#endif /* INCANT_HARNESS_CUH */
