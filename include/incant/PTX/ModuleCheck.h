//===- ModuleCheck.h - What ptxas would refuse in a parsed module -*- C++ -*-===//
//
// parseModule reads the syntax; checkModule then refuses what ptxas would in
// a module that parses. Every command runs it on the modules a user gives
// it (incant ptx, race, repair, instrument); modules incant writes itself
// need not pass through it.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_PTX_MODULECHECK_H
#define INCANT_PTX_MODULECHECK_H

#include "incant/PTX/Module.h"

#include <string_view>
#include <utility>

namespace incant::ptx {

/// Whether \p Name is a PTX special register (%tid.x, %laneid, %clock64,
/// %envreg3, ...).
bool isSpecialRegister(std::string_view Name);

/// The first function of \p M defined (with a body) a second time, and its
/// first definition; nulls where none is (a function may be declared more
/// than once, ptxas refuses a second definition).
std::pair<const Function *, const Function *> redefinition(const Module &M);

/// False, with the first error (`file:line:col`) in \p Diags, if \p M has
/// a name no declaration gives (a register beyond its range `%r<N>`), a
/// branch to a label its function lacks, a label or function defined
/// twice, a direct call to no function of the module, or
/// `.reqntid`/`.maxntid` beyond 1024 threads.
bool checkModule(const Module &M, DiagnosticEngine &Diags);

} // namespace incant::ptx

#endif // INCANT_PTX_MODULECHECK_H
