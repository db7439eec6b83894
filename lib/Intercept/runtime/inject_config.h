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
  bool Verbose = false;
  std::string Report;
  std::vector<std::string> Errors; ///< Malformed variables.
};

/// Reads the environment.
Config readConfig();

} // namespace incant_inject

#endif // INCANT_INJECT_CONFIG_H
