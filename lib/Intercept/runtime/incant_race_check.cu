/*===- incant_race_check.cu - The stmt scheme's checking kernels ----------===//
 *
 * Compiled to PTX when incant is built and loaded by the injected library,
 * which launches both kernels on the application's stream right after
 * every instrumented launch under the stmt scheme (GRace checks at each
 * barrier; here the launch's end is the barrier, and the barrier counts
 * logged with every access keep the intervals apart):
 *
 *   incant_race_bucket  puts every logged lane access on its 16-byte
 *                       chunk's chains (plain writes, strong writes, reads);
 *   incant_race_pairs   compares every lane access with the earlier ones
 *                       of its chunk it can race with.
 *
 *===----------------------------------------------------------------------===*/
#include "incant_race_device.h"

/* Runs \p Step on every lane entry of the log (index, its log entry). */
template <void (IncantRaceDeviceChecker::*Step)(incant_u32, unsigned) const>
__device__ void incant_race_over_log(IncantRaceState *S) {
  IncantRaceDeviceChecker C = {S};
  incant_u32 N = S->logCount < S->logCap ? S->logCount : S->logCap;
  for (incant_u32 I = blockIdx.x * blockDim.x + threadIdx.x; I < N * 32;
       I += gridDim.x * blockDim.x)
    (C.*Step)(I, I / 32);
}

extern "C" __global__ void incant_race_bucket(IncantRaceState *S) {
  incant_race_over_log<&IncantRaceDeviceChecker::bucket>(S);
}

extern "C" __global__ void incant_race_pairs(IncantRaceState *S) {
  incant_race_over_log<&IncantRaceDeviceChecker::pairs>(S);
}
