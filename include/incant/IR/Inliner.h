//===- Inliner.h - Calls replaced by the bodies they call -------*- C++ -*-===//
//
// For analyses that follow one function (race checking): a copy of a PTX
// module in which every direct call to a function the module defines is
// replaced by that function's body, so that a kernel built without
// inlining (nvcc -Xcicc -O0, __noinline__, clang -O0) reads as one body.
//
//   - The callee's registers, labels and body-level .param/.local variables
//     get names unique to the call site; `ret` becomes a branch to a label
//     after the inlined body; `exit` stays.
//   - Arguments and results keep PTX's protocol: the caller stores each
//     argument into a .param variable and the callee loads its parameter;
//     the inlined body loads from the caller's variable instead, and stores
//     its results into the caller's result variables. ThreadValues follows
//     the stored value to the load (st.param then ld.param of one
//     variable).
//   - An indirect call through a register that holds only known functions
//     (moved or selected names, or a kernel parameter whose functions the
//     caller names) becomes a choice of direct calls. Recursive calls,
//     other indirect calls and calls to declared-only functions stay
//     calls. Inlining repeats until no call can be inlined, up to a
//     depth and a size bound.
//
// The result is for analysis, not for ptxas: shared variables declared in
// an inlined function keep their name (one object per CTA, however many
// call sites), so the module may declare them twice.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_IR_INLINER_H
#define INCANT_IR_INLINER_H

#include "incant/PTX/Module.h"

#include <map>
#include <string>
#include <vector>

namespace incant::ir {

/// Where an item of an inlined function came from.
struct Origin {
  std::string Function; ///< The function whose body held it.
  unsigned Item = 0;    ///< Its body index there.
  /// The call sites it was inlined through, outermost first: (function,
  /// body index of the call).
  std::vector<std::pair<std::string, unsigned>> Calls;
};

struct Inlined {
  ptx::Module M;
  /// Per function that had calls inlined: the origin of each body item.
  std::map<std::string, std::vector<Origin>> Origins;
  /// Calls left alone, per function: (body index, why).
  std::map<std::string, std::vector<std::pair<unsigned, std::string>>> Kept;
};

/// The function named \p Name that has a body (a module may declare a
/// function before it defines it), else its declaration, else null.
const ptx::Function *definitionOf(const ptx::Module &M, std::string_view Name);

/// For kernels (PTX names): parameters (PTX names) that hold function
/// pointers, with the functions (PTX names) each may point to, as the
/// program's own assumptions fix them (GPUVerify's `__requires(f == g)`).
using ParamFunctions =
    std::map<std::string, std::map<std::string, std::vector<std::string>>>;

/// \p M with calls inlined (see above). \p MaxDepth bounds nesting and
/// \p MaxItems the size a function may grow to. An indirect call through
/// a kernel parameter that \p Params names calls one of its functions.
Inlined inlineCalls(const ptx::Module &M, unsigned MaxDepth = 8,
                    size_t MaxItems = 200000,
                    const ParamFunctions &Params = {});

} // namespace incant::ir

#endif // INCANT_IR_INLINER_H
