//===- DynamicReport.h - Races a checked run found, as the user sees them -*- C++ -*-===//
//
// The injected library writes what a run checked and found as one JSON
// object (INCANT_RACE_OUT, inject_race.cpp): the scheme, counters, the
// units by slot, the kernels launched, and the races folded by their two
// sites, hazard and space, each with its count and first occurrence
// (address, both threads, launch geometry, kernel). This part reads that
// object, finds each site in its unit's manifest (source file, line and
// column, PTX instruction, variable, function), folds the races again by
// source lines (several PTX sites of one line are one race to the user,
// as compute-sanitizer folds by program counter), and prints them like
// compute-sanitizer's racecheck: hazard, space, both source lines with
// their text, both threads and blocks, the address and variable, and how
// often it was seen; or as JSON.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_DYNRACE_DYNAMICREPORT_H
#define INCANT_DYNRACE_DYNAMICREPORT_H

#include "incant/Intercept/Manifest.h"

#include <nlohmann/json_fwd.hpp>

#include <array>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace incant::dynrace {

/// One side of a race as the library reports it.
struct RawSide {
  std::string Unit;
  uint32_t Site = 0;
  uint32_t Tid = 0; ///< Global linear thread index in its launch.
};

/// A race the library folded by (site, site, hazard, space).
struct RawRace {
  std::string Hazard; ///< "RAW", "WAR", "WAW".
  std::string Space;  ///< "global", "shared".
  uint64_t Count = 0;
  uint64_t Address = 0; ///< Global address, or the shared encoding.
  RawSide A, B;         ///< A: the earlier access.
  std::array<uint32_t, 3> Ntid{1, 1, 1};
  std::array<uint32_t, 2> Nctaid{1, 1};
  std::string Kernel; ///< Of its first occurrence.
};

/// The library's output for one run.
struct RawRun {
  std::string Scheme;
  uint64_t CheckedLaunches = 0, UncheckedLaunches = 0;
  /// Why some launches' tables were not read back ("CUDA error 700"), or
  /// empty.
  std::string Lost;
  /// Launches of instrumented kernels that the driver refused (counted in
  /// UncheckedLaunches), and the first one's CUresult and kernel.
  uint64_t FailedLaunches = 0;
  int FailedError = 0;
  std::string FailedKernel;
  std::map<std::string, uint64_t> Counters;
  std::vector<std::string> Units; ///< By slot.
  std::vector<std::pair<std::string, uint64_t>> Kernels;
  std::vector<RawRace> Races;
};

/// Reads the library's JSON; nullopt with \p Error when malformed.
std::optional<RawRun> parseRawRun(std::string_view Json, std::string &Error);

/// The note for \p Run's launches that the driver refused (FailedLaunches
/// of them).
std::string failedLaunchesNote(const RawRun &Run);

/// A thread by its ids.
struct ThreadIds {
  std::array<uint32_t, 3> Thread{}, Block{};
};
/// The ids of global linear thread \p Tid of a launch.
ThreadIds threadIds(uint32_t Tid, const std::array<uint32_t, 3> &Ntid,
                    const std::array<uint32_t, 2> &Nctaid);

/// One side of a race with its source.
struct RaceSide {
  const intercept::Site *S = nullptr; ///< Null: the site was not found.
  std::string Unit;
  uint32_t SiteId = 0;
  ThreadIds Ids;
  std::string Access; ///< "read", "write", "atomic".
};

/// A race as reported: races of the same two source lines, hazard and
/// space folded together.
struct Race {
  std::string Hazard, Space, Kernel, Variable;
  RaceSide A, B;
  uint64_t Address = 0; ///< As RawRace (first occurrence).
  uint64_t Count = 0;   ///< Hazards seen.
  unsigned SitePairs = 0;
};

/// Static and dynamic counts (the GRace paper's Table 3).
struct Counts {
  unsigned StaticAccesses = 0;  ///< Access sites instrumented.
  unsigned PrunedAccesses = 0;  ///< Access sites proved safe, left alone.
  unsigned StaticLines = 0;     ///< Source lines with instrumented accesses.
  unsigned UncheckedSites = 0;  ///< Sites the static checker did not see.
  bool Pruning = false;         ///< Some unit has static verdicts.
  uint64_t DynamicAccesses = 0; ///< Thread accesses checked.
  uint64_t DynamicWarpAccesses = 0;
};

struct Report {
  std::string App;
  std::string Scheme;
  std::vector<Race> Races;
  uint64_t Hazards = 0;
  Counts C;
  uint64_t CheckedLaunches = 0, UncheckedLaunches = 0;
  std::string Lost; ///< As RawRun::Lost.
  std::vector<std::pair<std::string, uint64_t>> Kernels;
  std::map<std::string, uint64_t> Counters;
  /// What limited the check (full tables, unchecked launches, ...).
  std::vector<std::string> Notes;
  /// What the checker does not follow in the units that ran (their
  /// manifests' "race: not checked" notes; synchronisation whose phases
  /// were lost): the kernels were not fully checked.
  std::vector<std::string> NotChecked;
};

/// Builds the report from a run and the manifests of the application's
/// units (by unit id).
Report buildReport(const RawRun &Run,
                   const std::map<std::string, intercept::UnitManifest> &Units,
                   std::string App);

/// compute-sanitizer-like text; source lines are read from the files the
/// manifests name when they exist.
void printReport(const Report &R, std::ostream &OS);
nlohmann::json reportToJson(const Report &R);

} // namespace incant::dynrace

#endif // INCANT_DYNRACE_DYNAMICREPORT_H
