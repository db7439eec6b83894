//===- Lower.h - Check a litmus test and lower it to a Program ---*- C++ -*-===//
//
// lower() resolves names (registers, locations, labels, threads), places the
// threads in the GPU hierarchy, checks the test's semantics and maps each
// PTX instruction to a dialect-neutral Op (see Program.h). Every semantic
// error is reported with the location of the offending text.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_LITMUS_LOWER_H
#define INCANT_LITMUS_LOWER_H

#include "incant/Litmus/AST.h"
#include "incant/Litmus/Program.h"

#include <optional>

namespace incant::litmus {

/// nullopt if any error was reported.
std::optional<Program> lower(const Test &T, DiagnosticEngine &Diags);

} // namespace incant::litmus

#endif // INCANT_LITMUS_LOWER_H
