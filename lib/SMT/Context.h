//===- Context.h - The process-wide Z3 context (private to lib/SMT) -------===//
#ifndef INCANT_LIB_SMT_CONTEXT_H
#define INCANT_LIB_SMT_CONTEXT_H

#include <z3.h>

#include <string>

namespace incant::smt {

/// The one Z3 context (reference-counted terms), made on first use. Z3
/// reports errors through a handler that records them here instead of
/// aborting; lastError() gives and clears the latest one.
Z3_context ctx();

/// The message of the latest Z3 error since the last call, or "".
std::string takeError();

} // namespace incant::smt

#endif // INCANT_LIB_SMT_CONTEXT_H
