//===- ModuleCheck.h - What a parsed PTX module must satisfy ----*- C++ -*-===//
//
// The checks parseModule makes once a module has parsed, which ptxas would
// refuse too: every name an instruction uses is declared (registers in the
// function, ranges `%r<N>` to N-1, variables, parameters, functions), every
// branch target is a label of its function and no label is defined twice,
// a direct call names a function of the module, and `.reqntid`/`.maxntid`
// ask for a block CUDA can launch.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_LIB_PTX_MODULECHECK_H
#define INCANT_LIB_PTX_MODULECHECK_H

#include "incant/PTX/Module.h"

namespace incant::ptx {

/// False, with the first error reported to \p Diags, if \p M breaks one of
/// the rules above.
bool checkModule(const Module &M, DiagnosticEngine &Diags);

} // namespace incant::ptx

#endif // INCANT_LIB_PTX_MODULECHECK_H
