//===- Range.h - The range of a number read from a user ---------*- C++ -*-===//
//
// Every number incant reads from a user (a command-line option, a field of
// a chip profile) has a range, and a number outside it is an input error
// (exit 2), never wrapped, clamped or truncated. The tool checks options
// with these (tools/incant/Options.h); the readers of files check their
// fields with the same ranges. docs/limits.md lists them all.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_SUPPORT_RANGE_H
#define INCANT_SUPPORT_RANGE_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace incant {

/// A range of whole numbers, both ends included.
struct IntRange {
  uint64_t Min = 0;
  uint64_t Max = UINT64_MAX;
  bool contains(uint64_t V) const { return V >= Min && V <= Max; }
  /// "1 to 1000000000".
  std::string describe() const;
};

/// A range of real numbers (seconds), both ends included.
struct RealRange {
  double Min = 0;
  double Max = 0;
  bool contains(double V) const { return V >= Min && V <= Max; }
  std::string describe() const;
};

/// Parses \p Text as a whole number in \p R: decimal digits only (no sign,
/// no spaces, no hex), without overflow. Nullopt with \p Error ("expected a
/// whole number from 1 to 1000, got '-1'") otherwise.
std::optional<uint64_t> parseInRange(std::string_view Text, IntRange R,
                                     std::string &Error);

/// Parses \p Text as a finite decimal number ("2", "0.5", "1e3") in \p R.
std::optional<double> parseInRange(std::string_view Text, RealRange R,
                                   std::string &Error);

/// The message for a value out of range: "must be from 1 to 1000, not
/// 4000000000".
std::string outOfRange(IntRange R, uint64_t V);

} // namespace incant

#endif // INCANT_SUPPORT_RANGE_H
