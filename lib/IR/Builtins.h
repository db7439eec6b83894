//===- Builtins.h - Definitions of built-ins compilers leave as calls -----===//
//
// Private to lib/IR (the inliner uses it). Some built-ins reach PTX as
// calls to functions the module only declares:
//
//   - nvcc without optimisation (-Xcicc -O0): the atomics (__uAtomicAdd,
//     __iAtomicCAS_block, ...), __threadfence*, __trap, __[u]mul24;
//   - clang's OpenCL C without a library: the work-item functions
//     (get_local_id, get_global_id, ...), barrier, work_group_barrier,
//     mem_fence, and the atomic_* and atom_* functions on int and
//     unsigned.
//
// builtinDefinition gives a PTX definition of such a function (parsed from
// text, source ranges cleared), for the inliner to inline like any other.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_LIB_IR_BUILTINS_H
#define INCANT_LIB_IR_BUILTINS_H

#include "incant/PTX/Module.h"

#include <string>

namespace incant::ir {

/// The definition of the built-in \p Name, or null if it is not one.
const ptx::Function *builtinDefinition(const std::string &Name);

} // namespace incant::ir

#endif // INCANT_LIB_IR_BUILTINS_H
