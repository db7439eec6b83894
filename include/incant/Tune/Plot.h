//===- Plot.h - Self-contained SVG plots of tuning data ----------*- C++ -*-===//
//
// The paper's figures for one chip, as SVG files that need nothing else:
// the patch map (Fig. 3: weak outcomes per stress offset and distance, one
// panel per test), the sequence ranking (Table 3: every sequence ranked per
// test, the chosen one marked) and the spread curve (Fig. 4: score per
// spread, one line per test).
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_TUNE_PLOT_H
#define INCANT_TUNE_PLOT_H

#include "incant/Tune/Tune.h"

#include <string>
#include <vector>

namespace incant::tune {

std::string patchMapSvg(const PatchData &D, const std::vector<std::string> &Tests,
                        uint64_t Epsilon);
std::string sequenceRankingSvg(const SequenceData &D,
                               const std::vector<std::string> &Tests);
std::string spreadCurveSvg(const SpreadData &D,
                           const std::vector<std::string> &Tests);
std::string randomSearchSvg(const RandomData &D,
                            const std::vector<std::string> &Tests);
/// Escapes text for SVG/XML content and attributes.
std::string xmlEscape(const std::string &S);

} // namespace incant::tune

#endif // INCANT_TUNE_PLOT_H
