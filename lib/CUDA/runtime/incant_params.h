/*===- incant_params.h - Launch parameters shared by host and device -----===//
 *
 * Included both by the host (lib/CUDA/Launch.cpp, plain C++) and by the
 * generated harness (compiled by NVRTC or nvcc). Only fixed-size integer
 * members, so the layout is the same on both sides: the host passes one
 * IncantParams by value as the kernels' only argument.
 *
 *===----------------------------------------------------------------------===*/
#ifndef INCANT_PARAMS_H
#define INCANT_PARAMS_H

/* Incantation switches (IncantParams::flags). */
#define INCANT_F_STRESS      0x1u  /* memory stress by non-testing blocks   */
#define INCANT_F_BANK        0x2u  /* general bank conflicts (shadow lanes)  */
#define INCANT_F_BARRIER     0x4u  /* bounded spin barrier before the test  */
#define INCANT_F_PRESTRESS   0x8u  /* testing threads stress just before    */
#define INCANT_F_SINGLE     0x10u  /* one instance per launch (thesis mode) */
#define INCANT_F_NOCOUNT    0x20u  /* histogram kernel: only reset memory   */
#define INCANT_F_STRESS_TEST 0x40u /* stress the test's memory at an offset */

/* Bank-conflict pattern of the shadow lanes for one launch. */
#define INCANT_BANK_PARALLEL  0u
#define INCANT_BANK_BROADCAST 1u
#define INCANT_BANK_CONFLICT  2u

/* Histogram hash table: capacity (a power of two) and probe bound. */
#define INCANT_HIST_CAP 1024u
#define INCANT_HIST_PROBES 64u

/* Global locations whose slot offset the host computes (IncantParams). */
#define INCANT_GOFF_CAP 16u

struct IncantParams {
  unsigned long long mem;     /* u32 words: global test locations          */
  unsigned long long out;     /* u32 per instance: observed values          */
  unsigned long long histKey; /* u64[INCANT_HIST_CAP]; 0 = empty            */
  unsigned long long histCnt; /* u64[INCANT_HIST_CAP]; [CAP] = overflow     */
  unsigned long long histTup; /* u32[INCANT_HIST_CAP * numOut]              */
  unsigned long long scratch; /* u32 words: stress scratchpad               */
  unsigned long long shadow;  /* u32 words: bank-conflict shadow region     */
  unsigned long long sync;    /* u32 [0] arrivals; u64 [1] barrier timeouts  */
  /* incant_magic64 of the run-time divisors of the harness's remainders */
  unsigned long long instMagic;  /* instances                               */
  unsigned long long totalMagic; /* totalBlocks                             */
  unsigned long long qMagic;     /* testBlocks / cluster size               */
  unsigned long long warpsMagic; /* warps                                   */
  unsigned long long lanesMagic; /* lanes                                   */
  unsigned long long blockStrideMagic; /* blockStride                       */
  unsigned long long warpStrideMagic;  /* warpStride                        */
  unsigned int testBlocks;    /* B: blocks that run test instances          */
  unsigned int totalBlocks;   /* B + stress blocks                          */
  unsigned int warps;         /* W: warps per block                         */
  unsigned int lanes;         /* L: testing lanes per warp (32 unless bank) */
  unsigned int instances;     /* N = B * W * L                              */
  unsigned int stride;        /* words between location slots               */
  unsigned int locPerm;       /* multiplier of the location permutation     */
  unsigned int blockStride;   /* S: distance between CTA groups, in blocks  */
  unsigned int warpStride;    /* distance between warp groups, in warps     */
  unsigned int lanePerm;      /* odd multiplier permuting lanes             */
  unsigned int lanePermInv;   /* its inverse modulo L                       */
  unsigned int blockPerm;     /* multiplier shuffling block ids (coprime)   */
  unsigned int blockOff;      /* offset shuffling block ids                 */
  unsigned int seed;
  unsigned int flags;
  unsigned int stressIters;   /* per stress thread                          */
  unsigned int stressLines;   /* scratchpad locations stressed              */
  unsigned int stressPattern; /* 2 bits per access: 0 end, 1 ld, 2 st       */
  unsigned int stressSpread;  /* words between stressed locations           */
  unsigned int preStressIters;
  unsigned int barrierPolls;
  unsigned int bankMode;
  unsigned int sharedStride;  /* words between shared-memory slots          */
  unsigned int locDist;       /* !0: words between an instance's locations  */
  unsigned int instWords;     /* words per instance region when locDist     */
  unsigned int stressOffset;  /* words past an instance's first location    */
  unsigned int ctaStressWarps; /* warps after W in a testing block: stress  */
  unsigned int gWords;         /* words between an instance's locations g   */
  unsigned long long slotWords; /* words between location slots (g = 0)    */
  /* gOff[g]: slot offset of global location g, g * 7919 mod N (0 with
   * locDist); locations from INCANT_GOFF_CAP on compute it (incant_gword) */
  unsigned int gOff[INCANT_GOFF_CAP];
};

/* Remainders by run-time divisors without a division instruction (the
 * harness's `%` by run-time values made ptxas's and the disassembler's
 * work on every test kernel about a third larger). For a divisor d >= 1
 * the host passes m = incant_magic64(d) = floor(2^64 / d) (2^64 - 1 for
 * d = 1); then q = floor(x * m / 2^64) is floor(x / d) or one less, for
 * every 64-bit x, so x - q * d lies in [0, 2d) and one subtraction gives
 * exactly x % d. incant_mod32 and incant_div32 do the same with 2^32 and
 * floor(2^32 / d) = m >> 32. Host and device compute the same
 * (unittests/CUDA/ParamsTest.cpp checks it against %). */
#if defined(__CUDACC__)
#define INCANT_PARAMS_FN __device__ __forceinline__
#define INCANT_MULHI64(a, b) __umul64hi((a), (b))
#define INCANT_MULHI32(a, b) __umulhi((a), (b))
#else
#define INCANT_PARAMS_FN static inline
static inline unsigned long long incant_mulhi64_host(unsigned long long a,
                                                     unsigned long long b) {
  unsigned long long al = a & 0xFFFFFFFFull, ah = a >> 32;
  unsigned long long bl = b & 0xFFFFFFFFull, bh = b >> 32;
  unsigned long long lh = al * bh, hl = ah * bl;
  unsigned long long mid =
      ((al * bl) >> 32) + (lh & 0xFFFFFFFFull) + (hl & 0xFFFFFFFFull);
  return ah * bh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}
#define INCANT_MULHI64(a, b) incant_mulhi64_host((a), (b))
#define INCANT_MULHI32(a, b)                                                  \
  ((unsigned)(((unsigned long long)(a) * (unsigned long long)(b)) >> 32))

/* floor(2^64 / d) (2^64 - 1 for d = 1; 0 for d = 0, never used). */
static inline unsigned long long incant_magic64(unsigned int d) {
  if (d <= 1)
    return d ? ~0ull : 0ull;
  const unsigned long long M = ~0ull; /* 2^64 - 1 */
  return M / d + (M % d == d - 1u ? 1u : 0u);
}
#endif

/* x % d, m = incant_magic64(d). */
INCANT_PARAMS_FN unsigned long long incant_mod64(unsigned long long x,
                                                 unsigned int d,
                                                 unsigned long long m) {
  unsigned long long r = x - INCANT_MULHI64(x, m) * d;
  return r >= d ? r - d : r;
}
/* x / d for a 32-bit x, m = incant_magic64(d). */
INCANT_PARAMS_FN unsigned int incant_div32(unsigned int x, unsigned int d,
                                           unsigned long long m) {
  unsigned int q = INCANT_MULHI32(x, (unsigned int)(m >> 32));
  return x - q * d >= d ? q + 1u : q;
}
/* x % d for a 32-bit x, m = incant_magic64(d). */
INCANT_PARAMS_FN unsigned int incant_mod32(unsigned int x, unsigned int d,
                                           unsigned long long m) {
  unsigned int r = x - INCANT_MULHI32(x, (unsigned int)(m >> 32)) * d;
  return r >= d ? r - d : r;
}

#endif /* INCANT_PARAMS_H */
