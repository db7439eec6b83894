//===- Classify.h - A test's family and scope, for grouping ---*- C++ -*-===//
//
// The report groups results by family (the shape a test's name starts with:
// MP, SB, 2+2W, ...) and by scope (how far apart its threads sit in the
// scope tree, and where its locations live): `inter-cta/global` is threads
// in different CTAs sharing global memory (the library's `+cta-global`,
// gen's `+gpu-global`; the two name tests by different conventions, so the
// scope is computed from the scope tree, not read from the name).
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

/// "<level>/<region>": level is the widest place two threads differ
/// (inter-device, inter-cta, inter-warp; intra-warp when all share one
/// warp), region is global, shared or mixed (no locations: none).
std::string scopeOf(const litmus::Program &P);

} // namespace incant::campaign

#endif // INCANT_CAMPAIGN_CLASSIFY_H
