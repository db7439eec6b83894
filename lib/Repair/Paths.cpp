//===- Paths.cpp - Instruction-level paths for repair clauses -------------===//
#include "Paths.h"

namespace incant::repair {

std::vector<unsigned> InstGraph::firstInsts(unsigned Block) const {
  // The first instruction of Block, or of the blocks an empty one leads to.
  std::vector<unsigned> Out;
  std::vector<unsigned> Work = {Block};
  std::set<unsigned> Seen;
  while (!Work.empty()) {
    unsigned B = Work.back();
    Work.pop_back();
    if (!Seen.insert(B).second)
      continue;
    const ir::BasicBlock &BB = F->blocks()[B];
    if (!BB.Insts.empty()) {
      Out.push_back(BB.Insts.front());
      continue;
    }
    for (unsigned S : F->cfg().succs(B))
      Work.push_back(S);
  }
  return Out;
}

InstGraph::InstGraph(const ir::FunctionIR &F) : F(&F) {
  size_t N = F.function().Body.size();
  Succ.resize(N);
  Pred.resize(N);
  for (unsigned B = 0; B < F.blocks().size(); ++B) {
    const std::vector<unsigned> &Insts = F.blocks()[B].Insts;
    for (size_t K = 0; K + 1 < Insts.size(); ++K)
      Succ[Insts[K]].push_back(Insts[K + 1]);
    if (Insts.empty())
      continue;
    for (unsigned S : F.cfg().succs(B))
      for (unsigned I : firstInsts(S))
        Succ[Insts.back()].push_back(I);
  }
  for (unsigned I = 0; I < N; ++I)
    for (unsigned S : Succ[I])
      Pred[S].push_back(I);
}

bool InstGraph::isBackEdge(unsigned I, unsigned S,
                           const std::set<unsigned> &Loops) const {
  for (unsigned L : Loops) {
    const ir::Loop &Lp = F->loops().loops()[L];
    if (F->blockOf(S) == Lp.Header && Lp.contains(F->blockOf(I)) &&
        F->blockOf(I) != F->blockOf(S))
      return true;
    if (F->blockOf(S) == Lp.Header && F->blockOf(I) == Lp.Header && S <= I)
      return true; // a loop of one block
  }
  return false;
}

std::set<unsigned> InstGraph::between(unsigned From, unsigned To,
                                      const std::set<unsigned> &Stops,
                                      const std::set<unsigned> &Loops) const {
  // Forward from the instructions after From, stopping at barriers.
  std::set<unsigned> Fwd;
  std::vector<unsigned> Work;
  for (unsigned S : Succ[From])
    if (!isBackEdge(From, S, Loops))
      Work.push_back(S);
  while (!Work.empty()) {
    unsigned I = Work.back();
    Work.pop_back();
    if (!Fwd.insert(I).second || Stops.count(I))
      continue;
    for (unsigned S : Succ[I])
      if (!isBackEdge(I, S, Loops))
        Work.push_back(S);
  }
  // Backward from To: positions from which To is reached with no barrier
  // between (a barrier at P itself stops the path).
  std::set<unsigned> Bwd;
  Work = {To};
  while (!Work.empty()) {
    unsigned I = Work.back();
    Work.pop_back();
    if (!Bwd.insert(I).second)
      continue;
    for (unsigned P : Pred[I])
      if (!Stops.count(P) && !isBackEdge(P, I, Loops))
        Work.push_back(P);
  }
  std::set<unsigned> Out;
  for (unsigned I : Fwd)
    if (Bwd.count(I))
      Out.insert(I);
  return Out;
}

} // namespace incant::repair
