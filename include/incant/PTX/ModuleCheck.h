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

namespace incant::ptx {

/// Whether \p Name is a PTX special register (%tid.x, %laneid, %clock64,
/// %envreg3, ...).
bool isSpecialRegister(std::string_view Name);

/// False, with the first error (`file:line:col`) in \p Diags, if \p M has
/// a name no declaration gives (a register beyond its range `%r<N>`), a
/// branch to a label its function lacks, a label defined twice, a direct
/// call to no function of the module, or `.reqntid`/`.maxntid` beyond 1024
/// threads.
bool checkModule(const Module &M, DiagnosticEngine &Diags);

} // namespace incant::ptx

#endif // INCANT_PTX_MODULECHECK_H
