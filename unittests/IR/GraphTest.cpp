//===- GraphTest.cpp - Dominators and loops on hand-made graphs -----------===//
#include "incant/IR/Graph.h"

#include <gtest/gtest.h>

using namespace incant::ir;

namespace {

Digraph make(unsigned N, std::vector<std::pair<unsigned, unsigned>> Edges) {
  Digraph G(N);
  for (auto [A, B] : Edges)
    G.addEdge(A, B);
  return G;
}

TEST(IRGraph, EdgesKeptOnce) {
  Digraph G = make(2, {{0, 1}, {0, 1}});
  EXPECT_EQ(G.succs(0).size(), 1u);
  EXPECT_EQ(G.preds(1).size(), 1u);
  Digraph R = G.reversed();
  EXPECT_TRUE(R.hasEdge(1, 0));
  EXPECT_FALSE(R.hasEdge(0, 1));
}

TEST(IRGraph, ReversePostOrder) {
  // 0 -> 1 -> 3, 0 -> 2 -> 3; 4 unreachable.
  Digraph G = make(5, {{0, 1}, {0, 2}, {1, 3}, {2, 3}});
  std::vector<unsigned> Want = {0, 2, 1, 3};
  EXPECT_EQ(reversePostOrder(G, 0), Want);
}

TEST(IRGraph, DominatorsOfDiamond) {
  Digraph G = make(5, {{0, 1}, {0, 2}, {1, 3}, {2, 3}});
  DominatorTree DT(G, 0);
  EXPECT_EQ(DT.idom(0), NoNode);
  EXPECT_EQ(DT.idom(1), 0u);
  EXPECT_EQ(DT.idom(2), 0u);
  EXPECT_EQ(DT.idom(3), 0u);
  EXPECT_FALSE(DT.reachable(4));
  EXPECT_TRUE(DT.dominates(0, 3));
  EXPECT_TRUE(DT.dominates(3, 3));
  EXPECT_FALSE(DT.strictlyDominates(3, 3));
  EXPECT_FALSE(DT.dominates(1, 3));
  EXPECT_FALSE(DT.dominates(0, 4));
  EXPECT_EQ(DT.commonDominator(1, 2), 0u);
  EXPECT_EQ(DT.depth(3), 1u);
  std::vector<unsigned> Kids = {1, 2, 3};
  EXPECT_EQ(DT.children(0), Kids);
}

// The example graph of Cooper, Harvey and Kennedy's figure 4, numbered from
// 0: the entry 5 becomes 0, and the others keep their postorder names.
TEST(IRGraph, DominatorsNeedSeveralPasses) {
  // entry -> 4, entry -> 3; 4 -> 1; 3 -> 2; 1 -> 2; 2 -> 1.
  Digraph G = make(5, {{0, 4}, {0, 3}, {4, 1}, {3, 2}, {1, 2}, {2, 1}});
  DominatorTree DT(G, 0);
  for (unsigned N = 1; N < 5; ++N)
    EXPECT_EQ(DT.idom(N), 0u) << N;
}

TEST(IRGraph, DominatorsOfChainAndLoop) {
  // 0 -> 1 -> 2 -> 3 -> 1, 2 -> 4.
  Digraph G = make(5, {{0, 1}, {1, 2}, {2, 3}, {3, 1}, {2, 4}});
  DominatorTree DT(G, 0);
  EXPECT_EQ(DT.idom(1), 0u);
  EXPECT_EQ(DT.idom(2), 1u);
  EXPECT_EQ(DT.idom(3), 2u);
  EXPECT_EQ(DT.idom(4), 2u);
  EXPECT_TRUE(DT.dominates(1, 4));
  EXPECT_EQ(DT.commonDominator(3, 4), 2u);
}

TEST(IRGraph, PostDominators) {
  // Diamond 0 -> {1, 2} -> 3 -> exit 4; 5 loops forever from 2.
  Digraph G = make(7, {{0, 1}, {0, 2}, {1, 3}, {2, 3}, {3, 4}, {2, 5}, {5, 5},
                       {6, 6}});
  PostDominatorTree PDT(G);
  EXPECT_EQ(PDT.ipdom(0), 3u);
  EXPECT_EQ(PDT.ipdom(1), 3u);
  EXPECT_EQ(PDT.ipdom(2), 3u);
  EXPECT_EQ(PDT.ipdom(3), 4u);
  EXPECT_EQ(PDT.ipdom(4), NoNode);
  EXPECT_TRUE(PDT.postDominates(4, 0));
  EXPECT_FALSE(PDT.postDominates(1, 0));
  EXPECT_FALSE(PDT.reachesExit(5));
  EXPECT_FALSE(PDT.reachesExit(6));
  EXPECT_EQ(PDT.ipdom(5), NoNode);
}

TEST(IRGraph, PostDominatorsWithTwoExits) {
  // 0 -> 1 (exit), 0 -> 2 (exit): 0's post-dominator is the virtual exit.
  Digraph G = make(3, {{0, 1}, {0, 2}});
  PostDominatorTree PDT(G);
  EXPECT_EQ(PDT.ipdom(0), NoNode);
  EXPECT_TRUE(PDT.reachesExit(0));
  EXPECT_FALSE(PDT.postDominates(1, 0));
}

TEST(IRGraph, NestedLoops) {
  // 0 -> 1 (outer header) -> 2 (inner header) -> 3 -> 2, 3 -> 4 -> 1,
  // 4 -> 5 (exit).
  Digraph G =
      make(6, {{0, 1}, {1, 2}, {2, 3}, {3, 2}, {3, 4}, {4, 1}, {4, 5}});
  DominatorTree DT(G, 0);
  LoopInfo LI(G, DT);
  ASSERT_EQ(LI.loops().size(), 2u);
  const Loop &Outer = LI.loops()[0];
  const Loop &Inner = LI.loops()[1];
  EXPECT_EQ(Outer.Header, 1u);
  EXPECT_EQ(Outer.Nodes, (std::vector<unsigned>{1, 2, 3, 4}));
  EXPECT_EQ(Outer.Latches, std::vector<unsigned>{4});
  EXPECT_EQ(Outer.Depth, 1u);
  EXPECT_EQ(Outer.Parent, NoNode);
  EXPECT_EQ(Outer.Children, std::vector<unsigned>{1});
  EXPECT_EQ(Inner.Header, 2u);
  EXPECT_EQ(Inner.Nodes, (std::vector<unsigned>{2, 3}));
  EXPECT_EQ(Inner.Parent, 0u);
  EXPECT_EQ(Inner.Depth, 2u);
  EXPECT_EQ(LI.depth(0), 0u);
  EXPECT_EQ(LI.depth(1), 1u);
  EXPECT_EQ(LI.depth(3), 2u);
  EXPECT_EQ(LI.depth(5), 0u);
  EXPECT_EQ(LI.loopFor(3), 1u);
  EXPECT_EQ(LI.loopFor(4), 0u);
  EXPECT_EQ(LI.loopWithHeader(2), 1u);
  EXPECT_EQ(LI.loopWithHeader(3), NoNode);
  EXPECT_TRUE(LI.irreducibleEdges().empty());
}

TEST(IRGraph, LoopsOfOneHeaderMerge) {
  // Two back edges into 1: from 2 and from 3.
  Digraph G = make(5, {{0, 1}, {1, 2}, {1, 3}, {2, 1}, {3, 1}, {1, 4}});
  DominatorTree DT(G, 0);
  LoopInfo LI(G, DT);
  ASSERT_EQ(LI.loops().size(), 1u);
  EXPECT_EQ(LI.loops()[0].Latches, (std::vector<unsigned>{2, 3}));
  EXPECT_EQ(LI.loops()[0].Nodes, (std::vector<unsigned>{1, 2, 3}));
}

TEST(IRGraph, SelfLoopAndSiblings) {
  // 0 -> 1 (self loop) -> 2 -> 3 -> 2 (sibling loop) -> 4.
  Digraph G = make(5, {{0, 1}, {1, 1}, {1, 2}, {2, 3}, {3, 2}, {3, 4}});
  DominatorTree DT(G, 0);
  LoopInfo LI(G, DT);
  ASSERT_EQ(LI.loops().size(), 2u);
  for (const Loop &L : LI.loops()) {
    EXPECT_EQ(L.Depth, 1u);
    EXPECT_EQ(L.Parent, NoNode);
  }
  EXPECT_EQ(LI.depth(1), 1u);
  EXPECT_EQ(LI.depth(2), 1u);
  EXPECT_NE(LI.loopFor(1), LI.loopFor(2));
}

TEST(IRGraph, IrreducibleEdgesAreNotLoops) {
  // 0 -> 1, 0 -> 2, 1 <-> 2: a cycle with two entries.
  Digraph G = make(3, {{0, 1}, {0, 2}, {1, 2}, {2, 1}});
  DominatorTree DT(G, 0);
  LoopInfo LI(G, DT);
  EXPECT_TRUE(LI.loops().empty());
  EXPECT_EQ(LI.irreducibleEdges().size(), 1u);
}

TEST(IRGraph, UnreachableNodesIgnored) {
  // 2 -> 1 is an edge from an unreachable node into a loop.
  Digraph G = make(4, {{0, 1}, {1, 1}, {2, 1}, {3, 3}});
  DominatorTree DT(G, 0);
  LoopInfo LI(G, DT);
  ASSERT_EQ(LI.loops().size(), 1u);
  EXPECT_EQ(LI.loops()[0].Nodes, std::vector<unsigned>{1});
  EXPECT_EQ(LI.depth(3), 0u);
}

TEST(IRGraph, DeepChainDoesNotOverflow) {
  const unsigned N = 200000;
  Digraph G(N);
  for (unsigned I = 0; I + 1 < N; ++I)
    G.addEdge(I, I + 1);
  G.addEdge(N - 1, 0);
  DominatorTree DT(G, 0);
  EXPECT_EQ(DT.idom(N - 1), N - 2);
  LoopInfo LI(G, DT);
  ASSERT_EQ(LI.loops().size(), 1u);
  EXPECT_EQ(LI.loops()[0].Nodes.size(), N);
  PostDominatorTree PDT(G);
  EXPECT_FALSE(PDT.reachesExit(0));
}

} // namespace
