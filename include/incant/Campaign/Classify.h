//===- Classify.h - A test's family and scope, for grouping results -*- C++ -*-===//
//
// The report groups results by family (the shape a test's name starts with:
// MP, SB, 2+2W, ...) and by scope (how far apart its threads sit in the
// scope tree, and where its locations live), in the library's spelling:
// `cta-global` is threads in different CTAs sharing global memory.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_CAMPAIGN_CLASSIFY_H
#define INCANT_CAMPAIGN_CLASSIFY_H

#include "incant/Litmus/Program.h"

#include <string>

namespace incant::campaign {

/// The name up to its first '+', keeping a leading count with what follows
/// it ("2+2W+membar.gl" -> "2+2W", "MP+cta-global" -> "MP").
std::string familyOf(const std::string &TestName);

/// "<level>-<region>": level is the widest place two threads differ
/// (device, cta, warp; same-warp when all share one warp), region is global,
/// shared or mixed (no locations: none).
std::string scopeOf(const litmus::Program &P);

} // namespace incant::campaign

#endif // INCANT_CAMPAIGN_CLASSIFY_H
