//===- Time.h - Wall-clock time and durations as text -------------*- C++ -*-===//
#ifndef INCANT_SUPPORT_TIME_H
#define INCANT_SUPPORT_TIME_H

#include <string>

namespace incant {

/// The current UTC time in ISO 8601, to the second: "2026-11-21T04:40:19Z".
/// Stored in campaign databases and chip profiles.
std::string utcNowIso();

/// A duration: "5m", "90s", "1h", "2.5min", "300" (seconds); false on
/// anything else (negative, unknown unit, more than 10^7 s).
bool parseDuration(const std::string &Text, double &Seconds);

} // namespace incant

#endif // INCANT_SUPPORT_TIME_H
