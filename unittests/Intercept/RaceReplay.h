//===- RaceReplay.h - Replaying access logs through the race checker ------===//
//
// Runs the dynamic race checker's own algorithms (runtime/incant_race_shadow.h,
// the code the device runs) on the host, over an access log written as
// text, one event per line:
//
//   launch 64 2                 threads per block (x[,y,z]) and blocks (x[,y])
//   w0 write global 4 0x1000 site=1 lanes=0,3 [scope=gpu] [release] [atomic]
//                               warp 0's lanes 0 and 3 run one instruction:
//                               read|write|atomic|red, global|shared, bytes,
//                               the address (lane i adds i * step with
//                               step=N), its site
//   bar 1                       every thread of block 1 passes a barrier
//   syncwarp 3                  the lanes of warp 3 pass __syncwarp()
//   fence gpu 5                 thread 5 runs a fence (cta|gpu)
//
// Warps are numbered across the grid (block * warps per block + warp).
// The device's warp intrinsics are replaced by what they compute: lanes of
// one instruction with the same address are grouped as __match_any_sync
// groups them, and the first lane of a group is its leader.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_UNITTESTS_RACEREPLAY_H
#define INCANT_UNITTESTS_RACEREPLAY_H

#include "runtime/incant_race_shadow.h"

#include <cstdint>
#include <string>
#include <vector>

namespace incant::racetest {

/// Plain host memory: the replay is sequential.
struct HostMem {
  static incant_u64 ld64(const incant_u64 *P) { return *P; }
  static void st64(incant_u64 *P, incant_u64 V) { *P = V; }
  static void ld128(const incant_u64 *P, incant_u64 *W0, incant_u64 *W1) {
    *W0 = P[0];
    *W1 = P[1];
  }
  static void st128(incant_u64 *P, incant_u64 W0, incant_u64 W1) {
    P[0] = W0;
    P[1] = W1;
  }
  static incant_u64 cas64(incant_u64 *P, incant_u64 C, incant_u64 V) {
    incant_u64 O = *P;
    if (O == C)
      *P = V;
    return O;
  }
  static incant_u64 add64(incant_u64 *P, incant_u64 V) {
    incant_u64 O = *P;
    *P += V;
    return O;
  }
  static incant_u32 ld32(const incant_u32 *P) { return *P; }
  static void st32(incant_u32 *P, incant_u32 V) { *P = V; }
  static incant_u32 add32(incant_u32 *P, incant_u32 V) {
    incant_u32 O = *P;
    *P += V;
    return O;
  }
  static incant_u32 exch32(incant_u32 *P, incant_u32 V) {
    incant_u32 O = *P;
    *P = V;
    return O;
  }
  static incant_u32 cas32(incant_u32 *P, incant_u32 C, incant_u32 V) {
    incant_u32 O = *P;
    if (O == C)
      *P = V;
    return O;
  }
  static void max32(incant_u32 *P, incant_u32 V) {
    if (V > *P)
      *P = V;
  }
  static void fence() {}
};

/// A race the replay found: both sites, the hazard (INCANT_RACE_RAW, ...),
/// the space, how often, and the first occurrence's threads.
struct Found {
  uint32_t SiteA = 0, SiteB = 0, Hazard = 0, Space = 0;
  uint64_t Count = 0;
  uint32_t TidA = 0, TidB = 0;
};

struct ReplayOptions {
  unsigned Scheme = INCANT_RACE_SCHEME_ADDR;
  uint32_t ShadowEntries = 1u << 12;
  uint32_t MaxProbe = 64;
  uint32_t Hits = 256;
  uint32_t LogEntries = 4096;
  uint32_t Walk = 4096;
};

struct ReplayResult {
  std::vector<Found> Races;
  incant_u64 Counters[INCANT_RACE_COUNTERS] = {};
  std::string Error; ///< A malformed log line.
};

/// Replays \p Log (the format above) through the checker.
ReplayResult replay(const std::string &Log, const ReplayOptions &O);

} // namespace incant::racetest

#endif // INCANT_UNITTESTS_RACEREPLAY_H
