/*===- incant_stress.h - The stressing kernel's arguments -----------------===//
 *
 * Shared by the stressing kernel (incant_stress.cu, compiled to PTX when
 * incant is built) and the injected library that launches it beside the
 * application's kernels. Fixed-size members only; passed by value.
 *
 *===----------------------------------------------------------------------===*/
#ifndef INCANT_STRESS_H
#define INCANT_STRESS_H

/* Stress modes (PLDI'16 section 4.2). */
#define INCANT_STRESS_NONE 0u
#define INCANT_STRESS_SYS 1u   /* chip profile: sequence at a few locations */
#define INCANT_STRESS_RAND 2u  /* random loads/stores over the scratchpad   */
#define INCANT_STRESS_CACHE 3u /* every block sweeps an L2-sized scratchpad */

#define INCANT_STRESS_MAX_LINES 16u
/* Slots of the stop ring: launch t's stressing blocks stop when slot
 * t % INCANT_STOP_SLOTS holds t, which the application's stream writes
 * right after the application's kernel. */
#define INCANT_STOP_SLOTS 1024u

struct IncantStressArgs {
  unsigned long long scratch; /* u32 words                                  */
  unsigned long long words;   /* scratchpad size in words                   */
  unsigned long long stop;    /* u32: this launch's slot of the stop ring   */
  unsigned long long capHits; /* u32: blocks that stopped at maxNs          */
  unsigned long long maxNs;   /* stop after this long in any case           */
  unsigned int ticket;        /* stop once *stop == ticket                  */
  unsigned int mode;
  unsigned int pattern;       /* sys: 2 bits per access, 1 ld, 2 st, 0 end  */
  unsigned int lines;         /* sys: locations stressed (spread)           */
  unsigned int seed;
  unsigned int pad;
  unsigned int offsets[INCANT_STRESS_MAX_LINES]; /* sys: word offsets       */
};

#endif /* INCANT_STRESS_H */
