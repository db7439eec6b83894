//===- Passes.h - The rewriting passes of the pipeline (private) ----------===//
#ifndef INCANT_LIB_INTERCEPT_PASSES_H
#define INCANT_LIB_INTERCEPT_PASSES_H

#include "incant/Intercept/Instrument.h"

#include <memory>
#include <string>
#include <vector>

namespace incant::intercept {

/// "randomise": thread-id randomisation that keeps block and warp
/// membership (RandomiseIds.cpp).
std::unique_ptr<Pass> createRandomisePass();

/// "race": access logging for the dynamic race checker (RaceAccesses.cpp,
/// runtime/incant_race.h).
std::unique_ptr<Pass> createRacePass();

/// "fences": a switchable fence after every global and generic access
/// (SwitchableFences.cpp, incant/Intercept/Fences.h).
std::unique_ptr<Pass> createFencesPass();

/// The callee operand of a call instruction, or null.
const ptx::Operand *calleeOperand(const ptx::Instruction &I);
/// The functions \p F calls: names of functions defined in \p M, and "*"
/// for an indirect call or one of a function defined elsewhere.
std::vector<std::string> directCalls(const ptx::Module &M,
                                     const ptx::Function &F);

} // namespace incant::intercept

#endif // INCANT_LIB_INTERCEPT_PASSES_H
