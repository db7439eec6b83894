//===- ParamRanges.h - The range of every run parameter ---------*- C++ -*-===//
//
// One table for the numeric run parameters, by the name of their `incant
// run` option (without "--"): the tool's options (run, campaign, tune) and
// the "params" of a chip profile are checked against it, and tune checks
// the grids it builds (distances, offsets) with it. A value outside its
// range is an input error, never clamped. docs/limits.md lists the table.
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
  const char *Name; ///< The option name: "iterations", "stress-patch", ...
  IntRange Range;
  /// Reads the parameter from RunParams.
  uint64_t (*Get)(const RunParams &P);
};

/// Every numeric run parameter with its range.
const std::vector<ParamRange> &paramRanges();

/// The range of the parameter \p Name (an option name without "--").
/// Every name of paramRanges() has one; any other name is a bug.
IntRange paramRange(std::string_view Name);

/// Checks every numeric parameter of \p P against its range. False with
/// \p Error ("--stress-patch must be from 1 to 65536, not 1000000000") for
/// the first that is out of it.
bool checkParams(const RunParams &P, std::string &Error);

} // namespace incant::harness

#endif // INCANT_HARNESS_PARAMRANGES_H
