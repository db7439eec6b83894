/*===- incant_stress.cu - The stressing kernel of `incant stress` ---------===//
 *
 * Runs beside an application kernel, in blocks of its own (a separate grid
 * on a stream of its own), touching only its scratchpad, until the
 * application's kernel has finished (the library writes the launch's
 * ticket into its stop slot after it, in the application's stream) or
 * maxNs has passed. Compiled to PTX when
 * incant is built and embedded in the injected library.
 *
 *===----------------------------------------------------------------------===*/
#include "incant_stress.h"

__device__ __forceinline__ unsigned long long incant_clock_ns() {
  unsigned long long T;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(T));
  return T;
}

extern "C" __global__ void incant_stress_kernel(IncantStressArgs A) {
  volatile unsigned *S = (volatile unsigned *)A.scratch;
  volatile unsigned *Stop = (volatile unsigned *)A.stop;
  const unsigned Tid = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned long long T0 = incant_clock_ns();
  unsigned Acc = 0;
  unsigned X = (A.seed ^ (Tid * 0x9E3779B9u)) | 1u;
  /* sys: each thread works at one of the chosen locations. */
  volatile unsigned *P =
      S + (A.lines ? A.offsets[Tid % A.lines] : 0u);
  /* cache: each block sweeps the whole scratchpad, from its own start. */
  unsigned long long Pos =
      (A.words / gridDim.x) * blockIdx.x + threadIdx.x;
  for (unsigned It = 0;; ++It) {
    if ((It & 15u) == 0u) {
      if (*Stop == A.ticket)
        break;
      if (incant_clock_ns() - T0 > A.maxNs) {
        if (threadIdx.x == 0)
          atomicAdd((unsigned *)A.capHits, 1u);
        break;
      }
    }
    if (A.mode == INCANT_STRESS_SYS) {
      for (unsigned Pat = A.pattern; Pat; Pat >>= 2) {
        if ((Pat & 3u) == 1u)
          Acc += *P;
        else if ((Pat & 3u) == 2u)
          *P = It;
      }
    } else if (A.mode == INCANT_STRESS_RAND) {
      X ^= X << 13;
      X ^= X >> 17;
      X ^= X << 5;
      volatile unsigned *Q = S + (X % (unsigned)A.words);
      if (X & 0x80000000u)
        *Q = It;
      else
        Acc += *Q;
    } else {
      Pos %= A.words;
      Acc += S[Pos];
      S[Pos] = Acc;
      Pos += blockDim.x;
    }
  }
  if (Acc == 0xFFFFFFFFu)
    S[A.words - 1] = Acc; /* keeps the loads alive */
}
