//===- Candidates.h - The fences a search may keep --------------*- C++ -*-===//
//
// The candidates of `incant fences` are the switchable fence sites (pass
// "fences", incant/Intercept/Fences.h) of the units whose kernels the
// application launched, in those kernels and in the device functions they
// call; sites of kernels it never launches stay off. They are numbered in
// code order (unit, then PTX line), which is the order the reduction splits
// and walks them in.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_FENCES_CANDIDATES_H
#define INCANT_FENCES_CANDIDATES_H

#include "incant/AppTest/AppUnderTest.h"
#include "incant/Fences/Reduction.h"
#include "incant/Intercept/Manifest.h"

#include <string>
#include <vector>

namespace incant::fences {

struct Candidate {
  std::string Unit;
  intercept::Site S; ///< The fence site: after the access at its location.
};

struct CandidateList {
  std::vector<Candidate> Fences;
  /// The manifests of the units the candidates come from.
  std::vector<intercept::UnitManifest> Units;
  /// Kernels launched whose unit has no switchable fences, or none known.
  std::vector<std::string> Uncovered;
};

/// The candidates among \p Units (the binary's manifests) for the kernels
/// in \p Launched (the library's report of one run).
CandidateList candidatesFor(const std::vector<intercept::UnitManifest> &Units,
                            const std::vector<apptest::KernelRecord> &Launched);

/// The INCANT_FENCES value that turns on exactly \p F of \p C.
std::string fenceVariable(const CandidateList &C, const FenceSet &F);

} // namespace incant::fences

#endif // INCANT_FENCES_CANDIDATES_H
