//===- CostResult.h - What fences cost an application -----------*- C++ -*-===//
//
// The result of `incant fences cost` for one application: each variant
// (no fences, all of them, the reduced set) with its kernel time and
// energy; as JSON lines (--results) and as the PLDI'16 paper's Figure 5
// (SVG, over many applications).
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_FENCES_COSTRESULT_H
#define INCANT_FENCES_COSTRESULT_H

#include <cstdint>
#include <string>
#include <vector>

namespace incant::fences {

struct VariantCost {
  std::string Name;      ///< "no", "cons", "emp"
  unsigned Fences = 0;
  uint64_t Runs = 0, Passed = 0;
  uint64_t Counted = 0;  ///< Runs measured: the passing ones (or all).
  double MedianMs = 0;   ///< Kernel time per run, median of those counted.
  double EnergyJ = 0;    ///< Per run: the sum over counted runs / runs.
  uint64_t EnergyChanges = 0; ///< Counter steps seen over those runs.
  bool EnergyOk = false;
};

struct AppCost {
  std::string App;
  std::vector<VariantCost> Variants;
};

/// Figure 5 for \p Apps as an SVG document.
std::string costPlotSvg(const std::vector<AppCost> &Apps);
/// One result as the JSON line --results appends, and back.
std::string appCostJson(const AppCost &A);
bool appCostFromJson(const std::string &Line, AppCost &A, std::string &Error);

/// How many more runs a variant needs so that its energy counter moves
/// \p Target times, having moved \p Steps times over \p Runs runs.
uint64_t moreEnergyRuns(uint64_t Steps, uint64_t Runs, uint64_t Target);

} // namespace incant::fences

#endif // INCANT_FENCES_COSTRESULT_H
