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

struct IncantParams {
  unsigned long long mem;     /* u32 words: global test locations          */
  unsigned long long out;     /* u32 per instance: observed values          */
  unsigned long long histKey; /* u64[INCANT_HIST_CAP]; 0 = empty            */
  unsigned long long histCnt; /* u64[INCANT_HIST_CAP]; [CAP] = overflow     */
  unsigned long long histTup; /* u32[INCANT_HIST_CAP * numOut]              */
  unsigned long long scratch; /* u32 words: stress scratchpad               */
  unsigned long long shadow;  /* u32 words: bank-conflict shadow region     */
  unsigned long long sync;    /* u32 [0] arrivals; u64 [1] barrier timeouts  */
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
  unsigned int pad;
};

#endif /* INCANT_PARAMS_H */
