//===- Time.h - Wall-clock time as text ---------------------------*- C++ -*-===//
#ifndef INCANT_SUPPORT_TIME_H
#define INCANT_SUPPORT_TIME_H

#include <string>

namespace incant {

/// The current UTC time in ISO 8601, to the second: "2026-11-21T04:40:19Z".
/// Stored in campaign databases and chip profiles.
std::string utcNowIso();

} // namespace incant

#endif // INCANT_SUPPORT_TIME_H
