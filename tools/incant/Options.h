//===- Options.h - Numeric options, each with its range ---------*- C++ -*-===//
//
// The one way the tool adds a numeric option: with the range of its value
// (Support/Range.h), checked on the option's text before CLI11 converts it,
// so that `--iterations -1` or `--iterations 99999999999999999999` is a
// usage error (exit 2) rather than 2^64-1, and the range shows in --help.
// test/limits/ranges.test fails for a numeric option added without one.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_TOOL_OPTIONS_H
#define INCANT_TOOL_OPTIONS_H

#include "incant/Support/Range.h"

#include <CLI/CLI.hpp>
#include <string>

namespace incant::tool {

/// The validator's name; test/limits/ranges.test looks for it in --help.
inline const char *RangeValidatorName = "RANGE";

template <typename R> CLI::Validator inRange(R Range) {
  return CLI::Validator(
      [Range](std::string &Text) {
        std::string Error;
        return parseInRange(Text, Range, Error) ? std::string() : Error;
      },
      "in " + Range.describe(), RangeValidatorName);
}

/// Device indices within a backend (`incant devices` lists them).
inline constexpr IntRange DeviceIndexRange{0, 255};

/// Adds the option \p Name storing into \p Var, whose text must be a
/// number of \p Range.
template <typename T, typename R>
CLI::Option *addNumber(CLI::App *Sub, const std::string &Name, T &Var,
                       R Range, const std::string &Desc) {
  return Sub->add_option(Name, Var, Desc)->check(inRange(Range));
}

} // namespace incant::tool

#endif // INCANT_TOOL_OPTIONS_H
