//===- Printer.h - Print a litmus test in canonical form ---------*- C++ -*-===//
//
// The canonical text of a Test: one init item per line, program columns
// aligned, the scope tree, memory map and condition each on their own line.
// Registers and threads are written in the test's dialect (`0:r0=1` for
// GPU_PTX, `P0:r0 == 1` for PTX). Parsing the output and printing again
// gives the same text.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_LITMUS_PRINTER_H
#define INCANT_LITMUS_PRINTER_H

#include "incant/Litmus/AST.h"

#include <string>

namespace incant::litmus {

std::string printTest(const Test &T);
std::string printCondition(const Test &T, const CondExpr &C);

} // namespace incant::litmus

#endif // INCANT_LITMUS_PRINTER_H
