//===- ParamRanges.h - The range of every run parameter ---------*- C++ -*-===//
//
// One table for the numeric run parameters, by their names (the keys of a
// chip profile's "params"): the tool's options (run, campaign, tune; the
// tool spells each as --NAME), a profile's values and the backends'
// parameters are checked against it, and tune checks the grids it builds
// (distances, offsets) with it. A value outside its range is an input
// error, never clamped. docs/limits.md lists the table.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_HARNESS_PARAMRANGES_H
#define INCANT_HARNESS_PARAMRANGES_H

#include "incant/Harness/Params.h"
#include "incant/Support/Range.h"

#include <string>
#include <string_view>
#include <vector>

namespace incant::harness {

struct ParamRange {
  const char *Name; ///< The parameter: "iterations", "stress-patch", ...
  IntRange Range;
  /// Reads the parameter from RunParams.
  uint64_t (*Get)(const RunParams &P);
};

/// Every numeric run parameter with its range.
const std::vector<ParamRange> &paramRanges();

/// The range of the parameter \p Name.
/// Every name of paramRanges() has one; any other name is a bug.
IntRange paramRange(std::string_view Name);

/// Checks every numeric parameter of \p P against its range. False with
/// \p Error ("the run parameter stress-patch must be from 1 to 65536, not
/// 1000000000") for
/// the first that is out of it.
bool checkParams(const RunParams &P, std::string &Error);

} // namespace incant::harness

#endif // INCANT_HARNESS_PARAMRANGES_H
