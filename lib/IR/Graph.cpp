//===- Graph.cpp - Directed graphs, dominators and natural loops ----------===//
#include "incant/IR/Graph.h"

#include <algorithm>
#include <cassert>

namespace incant::ir {

unsigned Digraph::addNode() {
  Succs.emplace_back();
  Preds.emplace_back();
  return size() - 1;
}

bool Digraph::hasEdge(unsigned From, unsigned To) const {
  assert(From < size() && To < size());
  const auto &S = Succs[From];
  return std::find(S.begin(), S.end(), To) != S.end();
}

void Digraph::addEdge(unsigned From, unsigned To) {
  if (hasEdge(From, To))
    return;
  Succs[From].push_back(To);
  Preds[To].push_back(From);
}

Digraph Digraph::reversed() const {
  Digraph R(size());
  for (unsigned N = 0; N < size(); ++N)
    for (unsigned S : Succs[N])
      R.addEdge(S, N);
  return R;
}

std::vector<unsigned> reversePostOrder(const Digraph &G, unsigned Entry) {
  std::vector<unsigned> PostOrder;
  if (Entry >= G.size())
    return PostOrder;
  std::vector<bool> Seen(G.size(), false);
  // Iterative DFS: (node, index of the next successor to visit).
  std::vector<std::pair<unsigned, unsigned>> Stack;
  Stack.emplace_back(Entry, 0);
  Seen[Entry] = true;
  while (!Stack.empty()) {
    auto &[N, Next] = Stack.back();
    const auto &S = G.succs(N);
    if (Next < S.size()) {
      unsigned M = S[Next++];
      if (!Seen[M]) {
        Seen[M] = true;
        Stack.emplace_back(M, 0);
      }
      continue;
    }
    PostOrder.push_back(N);
    Stack.pop_back();
  }
  std::reverse(PostOrder.begin(), PostOrder.end());
  return PostOrder;
}

DominatorTree::DominatorTree(const Digraph &G, unsigned Entry)
    : Root(Entry), IDom(G.size(), NoNode), Kids(G.size()),
      Depth(G.size(), NoNode), Pre(G.size(), NoNode), Post(G.size(), NoNode) {
  std::vector<unsigned> Order = reversePostOrder(G, Entry);
  if (Order.empty()) {
    Root = NoNode;
    return;
  }
  std::vector<unsigned> Rpo(G.size(), NoNode);
  for (unsigned I = 0; I < Order.size(); ++I)
    Rpo[Order[I]] = I;

  auto Intersect = [&](unsigned A, unsigned B) {
    while (A != B) {
      while (Rpo[A] > Rpo[B])
        A = IDom[A];
      while (Rpo[B] > Rpo[A])
        B = IDom[B];
    }
    return A;
  };
  IDom[Entry] = Entry;
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (unsigned I = 1; I < Order.size(); ++I) {
      unsigned B = Order[I];
      unsigned New = NoNode;
      for (unsigned P : G.preds(B)) {
        if (Rpo[P] == NoNode || IDom[P] == NoNode)
          continue;
        New = New == NoNode ? P : Intersect(P, New);
      }
      assert(New != NoNode && "a reachable node has a processed predecessor");
      if (IDom[B] != New) {
        IDom[B] = New;
        Changed = true;
      }
    }
  }
  IDom[Entry] = NoNode;
  for (unsigned N = 0; N < G.size(); ++N)
    if (IDom[N] != NoNode)
      Kids[IDom[N]].push_back(N);

  // Number the tree in DFS pre- and post-order for O(1) dominates().
  unsigned Clock = 0;
  std::vector<std::pair<unsigned, unsigned>> Stack;
  Stack.emplace_back(Entry, 0);
  Depth[Entry] = 0;
  Pre[Entry] = Clock++;
  while (!Stack.empty()) {
    auto &[N, Next] = Stack.back();
    if (Next < Kids[N].size()) {
      unsigned C = Kids[N][Next++];
      Depth[C] = Depth[N] + 1;
      Pre[C] = Clock++;
      Stack.emplace_back(C, 0);
      continue;
    }
    Post[N] = Clock++;
    Stack.pop_back();
  }
}

bool DominatorTree::dominates(unsigned A, unsigned B) const {
  if (!reachable(A) || !reachable(B))
    return false;
  return Pre[A] <= Pre[B] && Post[B] <= Post[A];
}

unsigned DominatorTree::commonDominator(unsigned A, unsigned B) const {
  assert(reachable(A) && reachable(B));
  while (Depth[A] > Depth[B])
    A = IDom[A];
  while (Depth[B] > Depth[A])
    B = IDom[B];
  while (A != B) {
    A = IDom[A];
    B = IDom[B];
  }
  return A;
}

PostDominatorTree::PostDominatorTree(const Digraph &G) {
  Digraph R = G.reversed();
  Exit = R.addNode();
  for (unsigned N = 0; N < G.size(); ++N)
    if (G.succs(N).empty())
      R.addEdge(Exit, N);
  Tree = DominatorTree(R, Exit);
}

unsigned PostDominatorTree::ipdom(unsigned N) const {
  if (!Tree.reachable(N))
    return NoNode;
  unsigned P = Tree.idom(N);
  return P == Exit ? NoNode : P;
}

bool Loop::contains(unsigned N) const {
  return std::binary_search(Nodes.begin(), Nodes.end(), N);
}

LoopInfo::LoopInfo(const Digraph &G, const DominatorTree &DT)
    : Innermost(G.size(), NoNode) {
  if (DT.root() == NoNode)
    return;
  std::vector<unsigned> Order = reversePostOrder(G, DT.root());
  std::vector<unsigned> Rpo(G.size(), NoNode);
  for (unsigned I = 0; I < Order.size(); ++I)
    Rpo[Order[I]] = I;

  // Back edges grouped by header, headers in reverse post-order.
  std::vector<Loop> Found;
  for (unsigned H : Order) {
    Loop L;
    L.Header = H;
    for (unsigned P : G.preds(H)) {
      if (Rpo[P] == NoNode || Rpo[P] < Rpo[H])
        continue; // unreachable, or a forward edge
      if (DT.dominates(H, P))
        L.Latches.push_back(P);
      else
        Irreducible.emplace_back(P, H);
    }
    if (L.Latches.empty())
      continue;
    std::sort(L.Latches.begin(), L.Latches.end());
    // The body: the header and everything that reaches a latch without
    // passing through the header.
    std::vector<bool> In(G.size(), false);
    In[H] = true;
    std::vector<unsigned> Work;
    for (unsigned P : L.Latches)
      if (!In[P]) {
        In[P] = true;
        Work.push_back(P);
      }
    while (!Work.empty()) {
      unsigned N = Work.back();
      Work.pop_back();
      for (unsigned P : G.preds(N))
        if (Rpo[P] != NoNode && !In[P]) {
          In[P] = true;
          Work.push_back(P);
        }
    }
    for (unsigned N = 0; N < G.size(); ++N)
      if (In[N])
        L.Nodes.push_back(N);
    Found.push_back(std::move(L));
  }
  std::sort(Irreducible.begin(), Irreducible.end());

  // Larger loops first: an enclosing loop is strictly larger than the loops
  // inside it, so parents come before children.
  std::stable_sort(Found.begin(), Found.end(),
                   [](const Loop &A, const Loop &B) {
                     return A.Nodes.size() > B.Nodes.size();
                   });
  Loops = std::move(Found);
  for (unsigned I = 0; I < Loops.size(); ++I) {
    Loop &L = Loops[I];
    for (unsigned J = I; J-- > 0;)
      if (Loops[J].contains(L.Header)) {
        // The latest such loop is the smallest that contains this one.
        if (L.Parent == NoNode ||
            Loops[J].Nodes.size() < Loops[L.Parent].Nodes.size())
          L.Parent = J;
      }
    if (L.Parent != NoNode) {
      L.Depth = Loops[L.Parent].Depth + 1;
      Loops[L.Parent].Children.push_back(I);
    }
    for (unsigned N : L.Nodes)
      Innermost[N] = I;
  }
}

unsigned LoopInfo::depth(unsigned N) const {
  unsigned L = Innermost[N];
  return L == NoNode ? 0 : Loops[L].Depth;
}

unsigned LoopInfo::loopWithHeader(unsigned N) const {
  for (unsigned I = 0; I < Loops.size(); ++I)
    if (Loops[I].Header == N)
      return I;
  return NoNode;
}

} // namespace incant::ir
