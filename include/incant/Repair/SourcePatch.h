//===- SourcePatch.h - A repair as an edit of the kernel's source -*- C++ -*-=//
//
// Where a barrier the repair adds has a clean statement boundary in the
// source (the PTX position is where the statement at that `.loc` line
// starts, all of that line's code is in the same loop, and the line before
// ends a statement), the barrier statement goes on its own line before
// it; a removed barrier's line is deleted when it holds only the barrier
// call. Where those rules find no line, the source's statements (libclang)
// do. Anything else is not patched, and says why.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_REPAIR_SOURCEPATCH_H
#define INCANT_REPAIR_SOURCEPATCH_H

#include "incant/IR/FunctionIR.h"
#include "incant/Repair/Repair.h"
#include "incant/Source/Statements.h"
#include "incant/Support/PtxCompiler.h"

#include <string>
#include <vector>

namespace incant::repair {

/// One change as a source edit.
struct SourceEdit {
  std::string Kernel;
  bool Insert = true;       ///< Insert before Line, or delete Line.
  uint32_t Line = 0;        ///< 1-based; 0 when there is none.
  std::string Text;         ///< The statement inserted (or deleted).
  std::string Problem;      ///< Non-empty: not patched, and why.
  const Change *From = nullptr;
  /// The barrier goes inside the assignment at Line, between its reads and
  /// its store: `T v = (rhs); barrier; lhs = v;`.
  bool Split = false;
  /// A removed copy of a barrier whose line stays: another copy of it (an
  /// unrolled loop's) is kept, so the source keeps the line.
  bool Kept = false;
  /// Where not 0: the same statement goes before this line too (a barrier
  /// before a loop's condition: before the loop and at its body's end).
  uint32_t AlsoBefore = 0;
  /// Where not 0 (with Split): the statement at Line is a memcpy that the
  /// barrier splits after its first CopyBytes bytes, in two copies.
  uint64_t CopyBytes = 0;
};

struct SourcePatch {
  std::vector<SourceEdit> Edits;
  std::string Patched; ///< The source with every clean edit made.
  bool Complete = true; ///< Every change has an edit.
};

/// The edits for the repairs in \p R of a kernel source \p Path (its text
/// \p Source, language \p Lang), whose PTX (with its calls inlined, as the
/// repair saw it) is \p IR.
/// Where the line-based rules find no boundary, \p Stmts (the source's
/// statements, when libclang read them) places the barrier before the
/// statement of a block that holds the PTX position's `.loc`, or at the
/// end of the loop body whose header holds it; a barrier between the reads
/// and the store of one assignment alone on its line splits it in two.
/// With \p Outer, positions in code inlined from a function map to the
/// kernel's own lines (the call's), not to the function's body.
SourcePatch makeSourcePatch(const std::string &Path, const std::string &Source,
                            KernelLanguage Lang, const ModuleRepair &R,
                            const ir::ModuleIR &IR,
                            const source::Statements *Stmts = nullptr,
                            bool Outer = false);

/// A unified diff of \p Old and \p New, both named \p Path (a/ and b/).
std::string unifiedDiff(const std::string &Path, const std::string &Old,
                        const std::string &New);

} // namespace incant::repair

#endif // INCANT_REPAIR_SOURCEPATCH_H
