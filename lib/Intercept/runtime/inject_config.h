//===- inject_config.h - What the injected library is asked to do -*- C++ -*-===//
//
// `incant stress` tells the library what to do through the environment of
// the program it runs (docs/stress.md lists the variables):
//
//   INCANT_STRESS=none|sys|rand|cache   stressing work beside each launch
//   INCANT_RANDOMISE=1                  permute block ids and warps
//   INCANT_RANDOMISE_SKIP=K1,K2         kernels whose ids stay as they are
//   INCANT_SEED=N                       seed of every random choice
//   INCANT_STRESS_PATTERN, _LINES, _PATCH, _REGIONS, _MIN_PCT, _MAX_PCT,
//   _MAX_MS                             sys stress and stressing-block count
//   INCANT_SPREAD=K                     at most K application blocks per SM
//                                       (dynamic shared memory is padded)
//   INCANT_TIME=1                       time every kernel with CUDA events
//   INCANT_RACE=addr|stmt               check instrumented kernels for data
//                                       races (pass "race", inject_race.h)
//   INCANT_RACE_OUT=FILE                write the races found, as JSON, at exit
//   INCANT_RACE_SHADOW_MB, _LOG_MB, _HITS, _WALK, _PROBE
//                                       sizes of the checker's tables
//   INCANT_FENCES=UNIT:ITEM,...;...     switchable fences to turn on (pass
//                                       "fences"): UNIT is a unit id or *,
//                                       ITEM is all, S or S-T (site ids),
//                                       each optionally /KIND (sc.gpu,
//                                       acq_rel.gpu, sc.cta, acq_rel.cta)
//   INCANT_FENCE_IMAGES=UNIT=FILE;...   load FILE (PTX) instead of any
//                                       module image that carries UNIT
//   INCANT_ENERGY=1                     NVML energy of every kernel (each
//                                       launch is made synchronous)
//   INCANT_REPORT=FILE                  append one JSON line at exit
//   INCANT_VERBOSE=1                    notes on stderr as they happen
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_INJECT_CONFIG_H
#define INCANT_INJECT_CONFIG_H

#include <cstdint>
#include <string>
#include <vector>

namespace incant_inject {

/// What `incant race --dynamic` asks of the library (inject_race.h).
struct RaceConfig {
  unsigned Scheme = 0; ///< INCANT_RACE_SCHEME_*; 0: off.
  std::string Out;
  unsigned ShadowMB = 256; ///< addr shadow entries (64 bytes each).
  unsigned LogMB = 512;    ///< stmt log (544 bytes per warp access).
  unsigned Hits = 4096;    ///< Folded races kept (rounded to a power of 2).
  unsigned Walk = 4096;    ///< stmt: comparisons per access at most.
  unsigned Probe = 64;     ///< Shadow slots tried per access.
};

/// Sites First..Last of a unit's switchable fences, of one kind.
struct FenceRange {
  uint32_t First = 0, Last = 0;
  unsigned Kind = 0;
};

/// The fences INCANT_FENCES turns on in one unit ("*": every unit).
struct FenceEntry {
  std::string Unit;
  std::vector<FenceRange> Ranges;
};

struct Config {
  unsigned Stress = 0; ///< INCANT_STRESS_* (incant_stress.h).
  bool Randomise = false;
  std::vector<std::string> Skip;
  uint64_t Seed = 0;
  unsigned Pattern = 1; ///< 2 bits per access: 1 ld, 2 st.
  unsigned Lines = 1;
  unsigned Patch = 32;
  unsigned Regions = 64;
  double MinFraction = 0.15, MaxFraction = 0.50;
  uint64_t MaxNs = 10000000000ull;
  unsigned Spread = 0;
  bool Time = false;
  bool Energy = false;
  /// INCANT_GPU_LOCK: a file locked (flock) from the first launch to the
  /// exit, so that processes started together run their kernels one at a
  /// time (`incant fences cost --jobs`).
  std::string GpuLock;
  std::vector<FenceEntry> Fences;
  /// Unit id -> PTX file loaded in place of images that carry the unit.
  std::vector<std::pair<std::string, std::string>> Images;
  bool Verbose = false;
  std::string Report;
  RaceConfig Race;
  std::vector<std::string> Errors; ///< Malformed variables.
};

/// Reads the environment.
Config readConfig();

/// Parses an INCANT_FENCES value into \p Out; false with \p Error set.
bool parseFences(const std::string &Text, std::vector<FenceEntry> &Out,
                 std::string &Error);
/// Sets the bits of \p E in \p Mask, a unit's fence mask of
/// INCANT_FENCE_KINDS * Words words (runtime/incant_control.h); sites
/// beyond the mask are ignored.
void addFenceBits(const FenceEntry &E, uint32_t Words,
                  std::vector<uint32_t> &Mask);

} // namespace incant_inject

#endif // INCANT_INJECT_CONFIG_H
