//===- FenceReport.h - What `incant fences` found, printed ------*- C++ -*-===//
//
// The result of a fence search on an application (its candidates, the
// search, a reference build's own orderings) as the text report, JSON, a
// unified diff of the fences to add, and the fence set `incant fences
// cost --set` reads.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_FENCES_FENCEREPORT_H
#define INCANT_FENCES_FENCEREPORT_H

#include "incant/Fences/Candidates.h"
#include "incant/Fences/Reduction.h"
#include "incant/Intercept/Manifest.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace incant::fences {

struct FenceReportInput {
  std::string Label;
  std::string Envs;
  const CandidateList *Candidates = nullptr;
  const SearchResult *Search = nullptr;
  /// Manifests of the reference build (--reference), if any.
  const std::vector<intercept::UnitManifest> *Reference = nullptr;
  std::string ReferenceName;
  std::string NoFences; ///< What the first failing run without fences said.
};

/// The text report and the JSON object of `incant fences`.
void printFenceReport(const FenceReportInput &In, std::ostream &OS);
std::string fenceReportJson(const FenceReportInput &In);
/// A unified diff that adds the reduced fences to the sources ("" if no
/// source file of theirs can be read).
std::string fencePatch(const FenceReportInput &In);
/// The file `incant fences cost --set` reads: per unit, the reduced
/// ("emp") and the conservative ("cons") sets as site lists.
std::string fenceSetJson(const FenceReportInput &In);

} // namespace incant::fences

#endif // INCANT_FENCES_FENCEREPORT_H
