//===- Graph.h - Directed graphs, dominators and natural loops --*- C++ -*-===//
//
// Graph algorithms the PTX IR needs, over a plain directed graph whose nodes
// are the numbers 0..N-1. The IR's control-flow graph maps its basic blocks
// onto node numbers, so these algorithms know nothing of PTX and are tested
// on hand-made graphs.
//
//   - DominatorTree: Cooper, Harvey and Kennedy's iterative algorithm ("A
//     Simple, Fast Dominance Algorithm", 2001) over reverse post-order.
//   - PostDominatorTree: dominators of the reversed graph from a virtual exit
//     that every exit node leads to.
//   - LoopInfo: natural loops of back edges (an edge whose target dominates
//     its source), loops of one header merged, nested by containment.
//     Retreating edges that are not back edges (irreducible control flow)
//     are listed, not turned into loops.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_IR_GRAPH_H
#define INCANT_IR_GRAPH_H

#include <cstdint>
#include <utility>
#include <vector>

namespace incant::ir {

/// "No node" / "no loop".
inline constexpr unsigned NoNode = ~0u;

/// A directed graph on nodes 0..size()-1 with successor and predecessor
/// lists. Parallel edges are kept once.
class Digraph {
public:
  explicit Digraph(unsigned N = 0) : Succs(N), Preds(N) {}

  unsigned size() const { return static_cast<unsigned>(Succs.size()); }
  unsigned addNode();
  /// Adds From -> To unless it is already there.
  void addEdge(unsigned From, unsigned To);
  bool hasEdge(unsigned From, unsigned To) const;
  const std::vector<unsigned> &succs(unsigned N) const { return Succs[N]; }
  const std::vector<unsigned> &preds(unsigned N) const { return Preds[N]; }
  /// The same nodes with every edge turned round.
  Digraph reversed() const;

private:
  std::vector<std::vector<unsigned>> Succs;
  std::vector<std::vector<unsigned>> Preds;
};

/// Nodes reachable from \p Entry in reverse post-order of a depth-first
/// search that visits successors in list order.
std::vector<unsigned> reversePostOrder(const Digraph &G, unsigned Entry);

/// The dominator tree of the nodes reachable from one entry.
class DominatorTree {
public:
  DominatorTree() = default;
  DominatorTree(const Digraph &G, unsigned Entry);

  unsigned root() const { return Root; }
  unsigned size() const { return static_cast<unsigned>(IDom.size()); }
  bool reachable(unsigned N) const { return N < size() && Pre[N] != NoNode; }
  /// The immediate dominator; NoNode for the root and unreachable nodes.
  unsigned idom(unsigned N) const { return IDom[N]; }
  /// A dominates B (reflexive). False when either is unreachable.
  bool dominates(unsigned A, unsigned B) const;
  bool strictlyDominates(unsigned A, unsigned B) const {
    return A != B && dominates(A, B);
  }
  /// Nodes whose immediate dominator is \p N, in increasing order.
  const std::vector<unsigned> &children(unsigned N) const { return Kids[N]; }
  /// Depth in the tree (root 0); NoNode when unreachable.
  unsigned depth(unsigned N) const { return Depth[N]; }
  /// Nearest common dominator of two reachable nodes.
  unsigned commonDominator(unsigned A, unsigned B) const;

private:
  unsigned Root = NoNode;
  std::vector<unsigned> IDom;
  std::vector<std::vector<unsigned>> Kids;
  std::vector<unsigned> Depth;
  std::vector<unsigned> Pre, Post; ///< Tree DFS intervals for dominates().
};

/// Post-dominators: A post-dominates B if every path from B to an exit
/// passes through A. Exits are the nodes with no successors. Nodes from which
/// no exit can be reached (endless loops) have no post-dominator.
class PostDominatorTree {
public:
  PostDominatorTree() = default;
  explicit PostDominatorTree(const Digraph &G);

  /// Whether \p N reaches an exit.
  bool reachesExit(unsigned N) const { return Tree.reachable(N); }
  /// The immediate post-dominator; NoNode when it is the virtual exit (N
  /// is an exit, or its paths leave through several exits) or N reaches none.
  unsigned ipdom(unsigned N) const;
  bool postDominates(unsigned A, unsigned B) const {
    return Tree.dominates(A, B);
  }

private:
  DominatorTree Tree; ///< Over the reversed graph plus a virtual exit node.
  unsigned Exit = NoNode;
};

/// One natural loop.
struct Loop {
  unsigned Header = NoNode;
  /// Sources of the back edges into the header, in increasing order.
  std::vector<unsigned> Latches;
  /// The loop's nodes in increasing order, header included.
  std::vector<unsigned> Nodes;
  /// Index of the enclosing loop in LoopInfo::loops(), or NoNode.
  unsigned Parent = NoNode;
  /// Indices of the loops directly inside this one.
  std::vector<unsigned> Children;
  /// 1 for an outermost loop.
  unsigned Depth = 1;

  bool contains(unsigned N) const;
};

/// The natural loops of a graph and their nesting.
class LoopInfo {
public:
  LoopInfo() = default;
  LoopInfo(const Digraph &G, const DominatorTree &DT);

  /// Every loop; a loop comes after the loop that encloses it.
  const std::vector<Loop> &loops() const { return Loops; }
  /// Index of the innermost loop containing \p N, or NoNode.
  unsigned loopFor(unsigned N) const { return Innermost[N]; }
  /// How many loops contain \p N (0 outside all loops).
  unsigned depth(unsigned N) const;
  /// Index of the loop whose header is \p N, or NoNode.
  unsigned loopWithHeader(unsigned N) const;
  /// Retreating edges whose target does not dominate their source: a sign
  /// of irreducible control flow, which forms no natural loop here.
  const std::vector<std::pair<unsigned, unsigned>> &irreducibleEdges() const {
    return Irreducible;
  }

private:
  std::vector<Loop> Loops;
  std::vector<unsigned> Innermost;
  std::vector<std::pair<unsigned, unsigned>> Irreducible;
};

} // namespace incant::ir

#endif // INCANT_IR_GRAPH_H
