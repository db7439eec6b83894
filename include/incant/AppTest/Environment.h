//===- Environment.h - The testing environments of `incant stress` -*- C++ -*-===//
//
// An environment is what the injected library does beside the application
// in one run (PLDI'16 section 4.2): a stress kind (none, sys from the chip
// profile, rand, cache) and thread randomisation on (+) or off (-): the
// paper's eight. incant adds placement: `:spreadK` lets at most K of the
// application's blocks share an SM (its dynamic shared memory is padded),
// which moves communicating blocks onto different SMs.
//
//   none- none+ sys- sys+ rand- rand+ cache- cache+   (also "all": these 8)
//   sys+:spread1                                       placement on top
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_APPTEST_ENVIRONMENT_H
#define INCANT_APPTEST_ENVIRONMENT_H

#include "incant/Harness/Params.h"

#include <optional>
#include <string>
#include <vector>

namespace incant::apptest {

enum class StressKind { None, Sys, Rand, Cache };
const char *stressKindName(StressKind K); ///< "none", "sys", ...

struct Environment {
  StressKind Stress = StressKind::None;
  bool Randomise = false;
  unsigned Spread = 0; ///< 0: placement as the hardware chooses.
  /// "sys+", "none-", "sys+:spread1".
  std::string name() const;
  friend bool operator==(const Environment &, const Environment &) = default;
};

/// Parses a comma-separated list of environment names ("all" expands to
/// the eight of the paper); a name without + or - takes \p Randomise.
/// Nullopt with \p Error set on a bad name.
std::optional<std::vector<Environment>>
parseEnvironments(const std::string &Text, bool Randomise, std::string &Error);

/// What the sys environment takes from a chip profile.
struct SysStress {
  std::vector<harness::StressAccess> Seq = {{true, 0}, {false, 1}};
  uint32_t Locs = 2;
  uint32_t Patch = 64;
};
SysStress sysStressFrom(const harness::Incantations &Inc);

/// Knobs of the stressing blocks, the same for every environment.
struct StressKnobs {
  SysStress Sys;
  unsigned MinPercent = 15, MaxPercent = 50; ///< Of the application's blocks.
  unsigned MaxStressMs = 0; ///< 0: the run's timeout.
  std::vector<std::string> KeepIds; ///< Kernels not randomised.
};

/// The variables that tell the injected library (runtime/inject_config.h)
/// to make environment \p E for one run with seed \p Seed.
std::vector<std::string> libraryVariables(const Environment &E,
                                          const StressKnobs &K,
                                          uint64_t Seed);

} // namespace incant::apptest

#endif // INCANT_APPTEST_ENVIRONMENT_H
