//===- Paths.h - Instruction-level paths for repair clauses -----*- C++ -*-===//
//
// The instructions of a kernel as a graph (the next instruction of a block,
// the first of each successor block), and the positions between two
// instructions on paths that pass no barrier: where a barrier would
// separate them.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_LIB_REPAIR_PATHS_H
#define INCANT_LIB_REPAIR_PATHS_H

#include "incant/IR/FunctionIR.h"

#include <set>
#include <vector>

namespace incant::repair {

class InstGraph {
public:
  explicit InstGraph(const ir::FunctionIR &F);

  /// Instructions (body indices) after which no barrier in \p Stops lies
  /// on the way: positions P such that a path runs from \p From (after it)
  /// through P to \p To (P == To included), passing no instruction of
  /// \p Stops other than at its ends.
  /// With \p Loops, the back edges of those loops (indices into
  /// LoopInfo::loops()) are not taken: paths within one iteration.
  std::set<unsigned> between(unsigned From, unsigned To,
                             const std::set<unsigned> &Stops,
                             const std::set<unsigned> &Loops = {}) const;

private:
  std::vector<unsigned> firstInsts(unsigned Block) const;
  /// Whether I -> S is a back edge of one of \p Loops.
  bool isBackEdge(unsigned I, unsigned S, const std::set<unsigned> &Loops) const;
  const ir::FunctionIR *F;
  std::vector<std::vector<unsigned>> Succ, Pred; ///< per body index
};

} // namespace incant::repair

#endif // INCANT_LIB_REPAIR_PATHS_H
