//===- Profile.h - A chip profile: tuned stress parameters -------*- C++ -*-===//
//
// `incant tune` writes what it found for one chip as a JSON profile;
// `incant run --profile` (and later commands) apply it to RunParams. The
// schema is in docs/tune.md. Parameters use the names of `incant run`'s
// options without the leading "--" ("stress-seq", "stress-patch", ...), so
// options given on the command line override the profile key of the same
// name. Reading never throws: a malformed profile is a diagnostic.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_HARNESS_PROFILE_H
#define INCANT_HARNESS_PROFILE_H

#include "incant/Harness/Params.h"
#include "incant/Support/Diagnostic.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace incant::harness {

/// One parameter value of a profile: an unsigned number, a bool or, for
/// "stress-seq", a sequence.
struct ProfileValue {
  enum Kind { Number, Bool, Sequence } K = Number;
  uint64_t Num = 0;
  bool Flag = false;
  std::vector<StressAccess> Seq;
  static ProfileValue number(uint64_t V) { return {Number, V, false, {}}; }
  static ProfileValue boolean(bool V) { return {Bool, 0, V, {}}; }
  static ProfileValue sequence(std::vector<StressAccess> S) {
    return {Sequence, 0, false, std::move(S)};
  }
  friend bool operator==(const ProfileValue &, const ProfileValue &) = default;
};

/// What one tuning mode found (patch, sequence, spread, random): a few
/// named numbers and strings for docs/tune.md's Table 2, plus the mode's
/// data in JSON text (distances, offsets, scores) for later plotting.
struct ProfileFinding {
  std::string Mode;
  std::map<std::string, std::string> Summary;
  double Seconds = 0;
  uint64_t Measurements = 0;
  std::string DataJson = "null";
  friend bool operator==(const ProfileFinding &, const ProfileFinding &) =
      default;
};

struct Profile {
  static constexpr int CurrentVersion = 1;
  /// "budget_s" is at most this (the longest duration tune accepts).
  static constexpr double MaxBudgetSeconds = 1e7;
  int Version = CurrentVersion;
  std::string Chip;     ///< Device name, e.g. "NVIDIA H100 80GB HBM3".
  std::string Backend;  ///< "cuda", "opencl".
  /// The chip's architecture family, for chips with no profile of their
  /// own: "sm_90" on CUDA (empty: none recorded).
  std::string Arch;
  std::string Driver;
  std::string Date;     ///< ISO 8601, UTC.
  std::string Tool;     ///< "incant 0.1.0".
  uint64_t Seed = 0;
  double BudgetSeconds = 0; ///< Sum over the modes that ran.
  std::vector<std::string> Tests;
  /// The winners, applied to RunParams by applyProfile.
  std::map<std::string, ProfileValue> Params;
  std::vector<ProfileFinding> Findings;
  friend bool operator==(const Profile &, const Profile &) = default;
};

/// The parameter names a profile may set (the `incant run` option names).
const std::vector<std::string> &profileParamNames();

/// The profile's value for \p Name taken from \p P (every name of
/// profileParamNames() has one).
std::optional<ProfileValue> paramValue(const RunParams &P,
                                       const std::string &Name);

/// Sets \p Name in \p P; false for an unknown name or a value of the wrong
/// kind.
bool setParam(RunParams &P, const std::string &Name, const ProfileValue &V);

/// Applies every parameter of \p Prof to \p P except those named in
/// \p Keep (options the user gave explicitly).
void applyProfile(const Profile &Prof, RunParams &P,
                  const std::set<std::string> &Keep = {});

std::string profileToJson(const Profile &Prof);
/// Parses profile text; errors (with line and column of the JSON) go to
/// \p Diags against \p File.
std::optional<Profile> profileFromJson(std::shared_ptr<const SourceFile> File,
                                       DiagnosticEngine &Diags);
std::optional<Profile> readProfile(const std::string &Path,
                                   DiagnosticEngine &Diags);
bool writeProfile(const Profile &Prof, const std::string &Path,
                  std::string &Error);

/// A profile shipped with incant (Support/DataFiles.h), where it is, and
/// whether it was made on the chip itself (else on another chip of the
/// same architecture family).
struct ShippedProfile {
  std::string Path;
  Profile Prof;
  bool OwnChip = true;
};

/// The first shipped profile for \p Backend made on a device named \p Chip;
/// failing that, the first one (in file-name order) whose architecture is
/// \p Arch (when \p Arch is not empty). Read once; nullopt if none
/// (malformed files are passed over).
std::optional<ShippedProfile> findShippedProfile(const std::string &Chip,
                                                 const std::string &Backend,
                                                 const std::string &Arch = {});

} // namespace incant::harness

#endif // INCANT_HARNESS_PROFILE_H
