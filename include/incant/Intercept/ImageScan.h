//===- ImageScan.h - Finding instrumented units in binaries -----*- C++ -*-===//
//
// A unit's manifest variable (runtime/incant_control.h) appears in an
// executable as raw bytes (the initialised data of each cubin: the magic,
// the manifest JSON, a NUL) and as PTX text (`__incant_unit_<ID>[N] =
// {73, 78, ...}`) when the fatbinary carries PTX. Either is found by
// scanning the file; a compressed fatbinary hides both, which is why the
// instrumenting build passes --no-compress.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_INTERCEPT_IMAGESCAN_H
#define INCANT_INTERCEPT_IMAGESCAN_H

#include "incant/Intercept/Manifest.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace incant::intercept {

struct FoundUnit {
  std::string Id;
  /// The manifest, if one copy of it could be read.
  std::optional<UnitManifest> Manifest;
  std::string Error; ///< Why no copy could be read.
};

/// Every unit named or carried in \p Bytes, once each, in order of first
/// appearance.
std::vector<FoundUnit> findUnits(std::string_view Bytes);

/// The PTX text of unit \p Id as a fatbinary in \p Bytes embeds it (an
/// uncompressed PTX entry that defines the unit's variable), or "" if there
/// is none (a SASS-only build, a compressed fatbinary).
std::string findUnitPtx(std::string_view Bytes, std::string_view Id);

} // namespace incant::intercept

#endif // INCANT_INTERCEPT_IMAGESCAN_H
