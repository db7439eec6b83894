//===- Passes.h - The rewriting passes of the pipeline (private) ----------===//
#ifndef INCANT_LIB_INTERCEPT_PASSES_H
#define INCANT_LIB_INTERCEPT_PASSES_H

#include "incant/Intercept/Instrument.h"

#include <memory>

namespace incant::intercept {

/// "randomise": thread-id randomisation that keeps block and warp
/// membership (RandomiseIds.cpp).
std::unique_ptr<Pass> createRandomisePass();

} // namespace incant::intercept

#endif // INCANT_LIB_INTERCEPT_PASSES_H
