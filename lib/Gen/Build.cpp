//===- Build.cpp - One litmus test from one concrete cycle -----------------===//
//
// The steps, as in diy: rotate the cycle so that it starts at the start of a
// thread; cut it into threads at external edges and into locations at edges
// between different locations; place the threads in the GPU hierarchy from
// the scope relation of each external edge; order the writes of each
// location (coherence) from the communication edges and give them the
// values 1, 2, ... in that order; ask, in the final condition, for the value
// each read must see and for the last write of each location with more than
// one write. Then emit PTX instructions for events, fences and dependencies.
//
//===----------------------------------------------------------------------===//
#include "GenImpl.h"

#include "incant/Litmus/Printer.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <numeric>

using namespace incant;
using namespace incant::gen;
using litmus::Scope;

namespace {

/// One event of the test, in its thread.
struct GEvent {
  Dir D = Dir::R;
  int Loc = 0;
  Access A;
  int WVal = 0;  ///< For writes: the value written (its coherence rank).
  int RVal = -1; ///< For reads: the value the condition asks for (-1: none).
  /// The edge to the next event of the same thread; null for the last one.
  const Edge *Next = nullptr;
};

/// The test, before it is written as PTX.
struct GTest {
  std::vector<std::vector<GEvent>> Threads;
  /// Per thread, the synchronisation edge (Mbar, Tx, Cbar) that enters it
  /// before its first event and the one that leaves it after its last.
  std::vector<const Edge *> In, Out;
  /// Per thread, its warp, CTA and cluster (ids; equal ids share the unit).
  std::vector<std::array<int, 3>> Units;
  bool ClusterNodes = false;
  int NumLocs = 0;
  std::vector<bool> Shared;
  /// Per location in distributed shared memory: the rank in its cluster of
  /// the CTA whose shared memory holds it, else -1; per thread, the CTA's
  /// own rank (CTAs of a cluster ranked in the order of their first thread).
  std::vector<int> HomeRank;
  std::vector<int> RankOf;
  std::vector<int> Final; ///< Per location, the final value asked (-1: none).
};

struct UnionFind {
  std::vector<int> P;
  explicit UnionFind(size_t N) : P(N) { std::iota(P.begin(), P.end(), 0); }
  int find(int X) { return P[X] == X ? X : P[X] = find(P[X]); }
  void unite(int A, int B) { P[find(A)] = find(B); }
};

std::string locName(int L) {
  static const char *Names[] = {"x", "y", "z", "a", "b", "c"};
  return L < 6 ? Names[L] : fmt::format("l{}", L);
}

char accessCode(const Access &A) {
  static const char Codes[] = "wvraltb";
  return Codes[A.K];
}

std::string edgeCode(const Edge *E) {
  if (!E)
    return "";
  switch (E->K) {
  case Edge::Fenced: return "F" + printFence(*E->F);
  case Edge::DpAddr: return "a";
  case Edge::DpData: return "d";
  case Edge::DpCtrl: return "c";
  default: return "p";
  }
}

/// The canonical key: the least serialization over thread permutations,
/// locations and hierarchy units renamed in order of first use.
std::string keyOf(const GTest &G) {
  size_t N = G.Threads.size();
  std::vector<size_t> Perm(N);
  std::iota(Perm.begin(), Perm.end(), size_t(0));
  // Every permutation up to 7 threads; beyond, the rotations only (they
  // still catch the rotations of one cycle).
  bool AllPerms = N <= 7;
  size_t Rot = 0;
  std::string Best;
  bool First = true;
  do {
    std::vector<int> LocMap(G.NumLocs, -1);
    std::array<std::map<int, int>, 3> UnitMap;
    int NextLoc = 0;
    std::string S = G.ClusterNodes ? "C" : "N";
    for (size_t T : Perm) {
      S += '[';
      for (const Edge *X : {G.In[T], G.Out[T]})
        S += (X ? printEdge(*X) : "") + "|";
      for (unsigned U = 0; U != 3; ++U) {
        auto It = UnitMap[U].try_emplace(G.Units[T][U],
                                         int(UnitMap[U].size())).first;
        S += fmt::format("{},", It->second);
      }
      for (const GEvent &E : G.Threads[T]) {
        int &L = LocMap[E.Loc];
        if (L < 0)
          L = NextLoc++;
        S += fmt::format("{}{}{}{}{}{};", E.D == Dir::R ? 'R' : 'W', L,
                         accessCode(E.A), int(E.A.Sc),
                         E.D == Dir::W ? E.WVal : E.RVal, edgeCode(E.Next));
      }
      S += ']';
    }
    std::vector<std::pair<int, int>> Locs; // renamed loc -> original
    for (int L = 0; L != G.NumLocs; ++L)
      Locs.emplace_back(LocMap[L], L);
    std::sort(Locs.begin(), Locs.end());
    for (auto [Renamed, L] : Locs)
      S += fmt::format("{}{}{}|", Renamed,
                       G.HomeRank[L] >= 0 ? 'd' : G.Shared[L] ? 's' : 'g',
                       G.Final[L]);
    if (First || S < Best)
      Best = std::move(S);
    First = false;
    if (!AllPerms) {
      if (++Rot == N)
        break;
      std::rotate(Perm.begin(), Perm.begin() + 1, Perm.end());
      continue;
    }
  } while (!AllPerms ? true
                     : std::next_permutation(Perm.begin(), Perm.end()));
  return Best;
}

//===----------------------------------------------------------------------===//
// Writing the test as a litmus AST.

ptx::Operand operand(ptx::Operand::Kind K, const std::string &Name,
                     int64_t Value = 0) {
  ptx::Operand O;
  O.K = K;
  O.Name = Name;
  O.Value = Value;
  return O;
}
ptx::Operand reg(const std::string &Name) {
  return operand(ptx::Operand::Reg, Name);
}
ptx::Operand imm(int64_t V) { return operand(ptx::Operand::Imm, "", V); }
ptx::Operand addrOf(const std::string &Base) {
  return operand(ptx::Operand::Address, Base);
}
ptx::Operand label(const std::string &Name) {
  return operand(ptx::Operand::Label, Name);
}

ptx::Instruction inst(const std::string &Name,
                      const std::vector<std::string> &Mods,
                      std::vector<ptx::Operand> Ops) {
  ptx::Instruction I;
  I.Name = Name;
  for (const std::string &M : Mods)
    I.Mods.push_back({M, {}});
  I.Ops = std::move(Ops);
  return I;
}

std::string scopeMod(Scope S) {
  switch (S) {
  case Scope::CTA: return ".cta";
  case Scope::Cluster: return ".cluster";
  case Scope::GPU: return ".gpu";
  case Scope::Sys: return ".sys";
  case Scope::None: break;
  }
  return "";
}

/// Locations a test needs beside the cycle's: mbarriers and the other end
/// of bulk copies.
struct ExtraLoc {
  std::string Name;
  bool Shared = false;
  int Init = 0; ///< For an mbarrier, the arrivals it expects.
};

/// What a thread does for the synchronisation edges at its ends.
struct SyncEnds {
  const Edge *In = nullptr, *Out = nullptr;
  std::string InBar;  ///< The mbarrier of this thread's CTA it waits on.
  std::string OutBar; ///< The mbarrier it arrives or completes on.
  int OutRank = -1;   ///< OutBar's CTA's rank when another CTA's, else -1.
};

/// Registers of one thread, numbered in order of first use.
class ThreadWriter {
public:
  /// \p Remote: the locations this thread reaches in another CTA's shared
  /// memory, with that CTA's rank in the cluster. \p Shared: per location,
  /// whether it is in shared memory. \p Extras receives the locations the
  /// thread's bulk copies need.
  ThreadWriter(int Tid, litmus::Test &T, std::map<int, int> Remote,
               const std::vector<bool> &Shared, SyncEnds Ends,
               std::vector<ExtraLoc> &Extras)
      : Tid(Tid), T(T), Remote(std::move(Remote)), Shared(Shared),
        Ends(std::move(Ends)), Extras(Extras) {}

  std::string newReg(ptx::Type Ty, int Loc = -1) {
    std::string Name = fmt::format("r{}", NumRegs++);
    litmus::InitItem I;
    I.K = litmus::InitItem::RegDecl;
    I.Thread = Tid;
    I.Ty = Ty;
    I.Name = Name;
    if (Loc >= 0) {
      litmus::ValueExpr V;
      V.IsLoc = true;
      V.Loc = locName(Loc);
      I.Init = V;
    }
    T.Init.push_back(std::move(I));
    return Name;
  }

  std::string addrReg(int Loc) {
    auto It = AddrRegs.find(Loc);
    if (It != AddrRegs.end())
      return It->second;
    auto R = Remote.find(Loc);
    if (R == Remote.end())
      return AddrRegs[Loc] = newReg(B64, Loc);
    return AddrRegs[Loc] = mapa(locName(Loc), R->second);
  }

  /// Another CTA's shared memory: the address of \p Name there, from mapa.
  std::string mapa(const std::string &Name, int Rank) {
    std::string Reg = newReg(B32);
    ptx::Operand X;
    X.K = ptx::Operand::Symbol;
    X.Name = Name;
    emit(inst("mapa", {".shared::cluster", ".u32"}, {reg(Reg), X, imm(Rank)}));
    return Reg;
  }

  void emit(ptx::Instruction I) {
    ptx::Statement S;
    if (!PendingLabel.empty()) {
      S.Labels.push_back({PendingLabel, {}});
      PendingLabel.clear();
    }
    S.Inst = std::move(I);
    Code.push_back(std::move(S));
  }

  /// Emits the thread's code; returns the destination register of each read
  /// (empty for writes).
  std::vector<std::string> write(const std::vector<GEvent> &Events) {
    std::vector<std::string> Dst(Events.size());
    if (Ends.In)
      syncIn(*Ends.In);
    for (size_t I = 0; I != Events.size(); ++I) {
      const GEvent &E = Events[I];
      const Edge *Prev = I ? Events[I - 1].Next : nullptr;
      bool AsyncStore =
          I + 1 == Events.size() && Ends.Out && Ends.Out->K == Edge::Tx;
      // A bulk copy names its locations (no address register).
      std::string Addr = E.A.K == Access::Bulk && !AsyncStore
                             ? std::string()
                             : addrReg(E.Loc);
      ptx::Operand Val = imm(E.WVal);
      if (Prev && Prev->K == Edge::Fenced) {
        const Fence &F = *Prev->F;
        switch (F.Kind) {
        case litmus::FenceKind::Membar:
          emit(inst("membar", {F.Sc == Scope::GPU ? ".gl" : scopeMod(F.Sc)},
                    {}));
          break;
        case litmus::FenceKind::FenceSC:
          emit(inst("fence", {".sc", scopeMod(F.Sc)}, {}));
          break;
        case litmus::FenceKind::FenceAcqRel:
          emit(inst("fence", {".acq_rel", scopeMod(F.Sc)}, {}));
          break;
        case litmus::FenceKind::Proxy:
          emit(inst("fence", {".proxy", ".async"}, {}));
          break;
        }
      } else if (Prev && (Prev->K == Edge::DpAddr || Prev->K == Edge::DpData)) {
        // A false dependency, as in the thesis: and with 0.
        std::string Zero = newReg(B32);
        emit(inst("and", {".b32"}, {reg(Zero), reg(Dst[I - 1]), imm(0)}));
        if (Prev->K == Edge::DpAddr) {
          std::string Wide = newReg(U64);
          emit(inst("cvt", {".u64", ".u32"}, {reg(Wide), reg(Zero)}));
          std::string NewAddr = newReg(B64);
          emit(inst("add", {".s64"}, {reg(NewAddr), reg(Addr), reg(Wide)}));
          Addr = NewAddr;
        } else {
          std::string V = newReg(S32);
          emit(inst("add", {".s32"}, {reg(V), reg(Zero), imm(E.WVal)}));
          Val = reg(V);
        }
      } else if (Prev && Prev->K == Edge::DpCtrl) {
        std::string P = newReg(Pred);
        emit(inst("setp", {".ne", ".s32"}, {reg(P), reg(Dst[I - 1]), imm(0)}));
        std::string L = fmt::format("L{}", NumLabels++);
        ptx::Instruction Bra = inst("bra", {}, {label(L)});
        Bra.G = ptx::Guard{P, false, {}};
        emit(std::move(Bra));
        PendingLabel = L;
      }
      if (AsyncStore)
        asyncStore(*Ends.Out, Addr, Val);
      else if (E.A.K == Access::Bulk)
        bulkAccess(E, Dst[I]);
      else
        emitAccess(E, Addr, Val, Dst[I]);
    }
    if (Ends.Out && Ends.Out->K != Edge::Tx)
      syncOut(*Ends.Out);
    return Dst;
  }

  std::vector<ptx::Statement> Code;
  /// The predicates of the waits of synchronisation edges: the condition
  /// asks each to be 1 (the wait saw the phase complete).
  std::vector<std::string> WaitPreds;

private:
  /// Waits on \p Bar for the phase of parity 0: once, or until it
  /// completes. Returns the predicate.
  std::string wait(const std::string &Bar, const Sync &Y) {
    std::string P = newReg(Pred);
    std::string L;
    if (Y.Loop) {
      L = fmt::format("L{}", NumLabels++);
      PendingLabel = L;
    }
    emit(inst("mbarrier",
              {Y.TestWait ? ".test_wait" : ".try_wait", ".parity",
               Y.AcqWait ? ".acquire" : ".relaxed", scopeMod(Y.Sc),
               ".shared::cta", ".b64"},
              {reg(P), addrOf(Bar), imm(0)}));
    if (Y.Loop) {
      ptx::Instruction Bra = inst("bra", {}, {label(L)});
      Bra.G = ptx::Guard{P, true, {}};
      emit(std::move(Bra));
    }
    return P;
  }

  void clusterBarrier(const Sync &Y) {
    std::vector<std::string> Mods = {".cluster", ".arrive"};
    if (!Y.RelArrive)
      Mods.push_back(".relaxed");
    emit(inst("barrier", Mods, {}));
    emit(inst("barrier", {".cluster", ".wait"}, {}));
  }

  void syncIn(const Edge &X) {
    switch (X.K) {
    case Edge::Tx:
      // This thread's own arrival announces the async store's 4 bytes.
      emit(inst("mbarrier",
                {".arrive", ".expect_tx", ".relaxed", scopeMod(X.S.Sc),
                 ".shared::cta", ".b64"},
                {reg("_"), addrOf(Ends.InBar), imm(4)}));
      [[fallthrough]];
    case Edge::Mbar: WaitPreds.push_back(wait(Ends.InBar, X.S)); break;
    case Edge::Cbar: clusterBarrier(X.S); break;
    default: break;
    }
  }

  void syncOut(const Edge &X) {
    if (X.K == Edge::Cbar) {
      clusterBarrier(X.S);
      return;
    }
    bool Far = Ends.OutRank >= 0;
    std::string Bar = Far ? mapa(Ends.OutBar, Ends.OutRank) : Ends.OutBar;
    emit(inst("mbarrier",
              {".arrive", X.S.RelArrive ? ".release" : ".relaxed",
               scopeMod(X.S.Sc), Far ? ".shared::cluster" : ".shared::cta",
               ".b64"},
              {reg("_"), addrOf(Bar)}));
  }

  /// The write of a Tx edge: st.async (red.async.add of 1, which gives the
  /// write's rank from its predecessor's) completing on the reader's
  /// mbarrier.
  void asyncStore(const Edge &X, const std::string &Addr,
                  const ptx::Operand &Val) {
    std::string Bar = mapa(Ends.OutBar, Ends.OutRank);
    if (X.S.Red)
      emit(inst("red",
                {".async", ".relaxed", ".cluster", ".shared::cluster",
                 ".mbarrier::complete_tx::bytes", ".add", ".u32"},
                {addrOf(Addr), imm(1), addrOf(Bar)}));
    else
      emit(inst("st",
                {".async", ".shared::cluster", ".mbarrier::complete_tx::bytes",
                 ".b32"},
                {addrOf(Addr), Val, addrOf(Bar)}));
  }

  std::string extra(bool InShared, int Init) {
    std::string Name = fmt::format("{}{}", InShared ? "s" : "g", Extras.size());
    Extras.push_back({Name, InShared, Init});
    return Name;
  }

  /// A bulk copy into shared memory from global \p Src, completing on a
  /// fresh mbarrier that the thread then waits for until it completes.
  void copyToShared(const std::string &Dst, const std::string &Src) {
    std::string Bar = fmt::format("m{}", Extras.size());
    Extras.push_back({Bar, true, 1});
    emit(inst("mbarrier",
              {".arrive", ".expect_tx", ".relaxed", ".cta", ".shared::cta",
               ".b64"},
              {reg("_"), addrOf(Bar), imm(16)}));
    emit(inst("cp", {".async", ".bulk", ".shared::cluster", ".global",
                     ".mbarrier::complete_tx::bytes"},
              {addrOf(Dst), addrOf(Src), imm(16), addrOf(Bar)}));
    Sync Y;
    Y.Loop = true;
    wait(Bar, Y);
  }

  /// A bulk copy from shared \p Src to global memory, waited for.
  void copyToGlobal(const std::string &Dst, const std::string &Src) {
    emit(inst("cp", {".async", ".bulk", ".global", ".shared::cta",
                     ".bulk_group"},
              {addrOf(Dst), addrOf(Src), imm(16)}));
    emit(inst("cp", {".async", ".bulk", ".commit_group"}, {}));
    emit(inst("cp", {".async", ".bulk", ".wait_group"}, {imm(0)}));
  }

  /// An access in the async proxy: a bulk copy of the location to (a read)
  /// or from (a write, of a location holding the value) another location,
  /// waited for; a read then reads the copy.
  void bulkAccess(const GEvent &E, std::string &Dst) {
    std::string X = locName(E.Loc);
    bool Sh = Shared[E.Loc];
    if (E.D == Dir::W) {
      std::string Src = extra(!Sh, E.WVal);
      Sh ? copyToShared(X, Src) : copyToGlobal(X, Src);
      return;
    }
    std::string Copy = extra(!Sh, 0);
    Sh ? copyToGlobal(Copy, X) : copyToShared(Copy, X);
    Dst = newReg(S32);
    emit(inst("ld", {Sh ? ".cg" : ".shared", ".s32"},
              {reg(Dst), addrOf(Copy)}));
  }

  void emitAccess(const GEvent &E, const std::string &Addr,
                  const ptx::Operand &Val, std::string &Dst) {
    std::vector<std::string> Mods;
    // Remote shared memory: .shared::cluster, no cache operator.
    bool Dsm = Remote.count(E.Loc) > 0;
    switch (E.A.K) {
    case Access::Weak:
      if (!Dsm)
        Mods = {".cg"};
      break;
    case Access::Volatile: Mods = {".volatile"}; break;
    case Access::Bulk: break; // bulkAccess writes these
    case Access::Relaxed: Mods = {".relaxed", scopeMod(E.A.Sc)}; break;
    case Access::Acquire: Mods = {".acquire", scopeMod(E.A.Sc)}; break;
    case Access::Release: Mods = {".release", scopeMod(E.A.Sc)}; break;
    case Access::Atomic: {
      // Reads are atom.add of 0 (they write back what they read, which
      // keeps the final values meaningful); writes are atom.exch.
      std::vector<std::string> Sp;
      if (Dsm)
        Sp = {".shared::cluster"};
      auto With = [&](std::vector<std::string> M) {
        M.insert(M.begin() + 2, Sp.begin(), Sp.end());
        return M;
      };
      if (E.D == Dir::R) {
        Dst = newReg(S32);
        emit(inst("atom", With({".relaxed", scopeMod(E.A.Sc), ".add", ".s32"}),
                  {reg(Dst), addrOf(Addr), imm(0)}));
      } else {
        std::string Old = newReg(B32);
        emit(inst("atom",
                  With({".relaxed", scopeMod(E.A.Sc), ".exch", ".b32"}),
                  {reg(Old), addrOf(Addr), Val}));
      }
      return;
    }
    }
    if (Dsm)
      Mods.push_back(".shared::cluster");
    if (E.D == Dir::R) {
      Dst = newReg(S32);
      Mods.push_back(".s32");
      emit(inst("ld", Mods, {reg(Dst), addrOf(Addr)}));
    } else {
      Mods.push_back(".s32");
      emit(inst("st", Mods, {addrOf(Addr), Val}));
    }
  }

  static constexpr ptx::Type S32{ptx::Type::S, 32};
  static constexpr ptx::Type B32{ptx::Type::B, 32};
  static constexpr ptx::Type B64{ptx::Type::B, 64};
  static constexpr ptx::Type U64{ptx::Type::U, 64};
  static constexpr ptx::Type Pred{ptx::Type::Pred, 1};

  int Tid;
  litmus::Test &T;
  int NumRegs = 0;
  int NumLabels = 0;
  std::string PendingLabel;
  std::map<int, std::string> AddrRegs;
  std::map<int, int> Remote;
  const std::vector<bool> &Shared;
  SyncEnds Ends;
  std::vector<ExtraLoc> &Extras;
};

litmus::ScopeNode node(litmus::ScopeLevel L) {
  litmus::ScopeNode N;
  N.Level = L;
  return N;
}

/// (device (kernel [(cluster] (cta (warp T..) ..) ..)): units in order of
/// their first thread.
litmus::ScopeNode scopeTree(const GTest &G) {
  litmus::ScopeNode Dev = node(litmus::ScopeLevel::Device);
  litmus::ScopeNode Ker = node(litmus::ScopeLevel::Kernel);
  std::map<int, size_t> ClusterIdx, CtaIdx, WarpIdx;
  std::vector<litmus::ScopeNode> Clusters;
  // Build bottom-up with explicit indices into nested vectors.
  struct Cta {
    int Cluster;
    litmus::ScopeNode N;
    std::map<int, size_t> Warps;
  };
  std::vector<Cta> Ctas;
  for (size_t T = 0; T != G.Threads.size(); ++T) {
    auto [Warp, CtaId, Cl] = G.Units[T];
    auto [It, New] = CtaIdx.try_emplace(CtaId, Ctas.size());
    if (New)
      Ctas.push_back({Cl, node(litmus::ScopeLevel::CTA), {}});
    Cta &C = Ctas[It->second];
    auto [WIt, WNew] = C.Warps.try_emplace(Warp, C.N.Kids.size());
    if (WNew)
      C.N.Kids.push_back(node(litmus::ScopeLevel::Warp));
    litmus::ScopeNode Leaf;
    Leaf.IsThread = true;
    Leaf.Thread = int32_t(T);
    C.N.Kids[WIt->second].Kids.push_back(Leaf);
  }
  if (!G.ClusterNodes) {
    for (Cta &C : Ctas)
      Ker.Kids.push_back(std::move(C.N));
  } else {
    for (Cta &C : Ctas) {
      auto [It, New] = ClusterIdx.try_emplace(C.Cluster, Clusters.size());
      if (New)
        Clusters.push_back(node(litmus::ScopeLevel::Cluster));
      Clusters[It->second].Kids.push_back(std::move(C.N));
    }
    Ker.Kids = std::move(Clusters);
  }
  Dev.Kids.push_back(std::move(Ker));
  return Dev;
}

litmus::Test writeTest(const GTest &G, const std::string &Name,
                       const std::string &Comment) {
  litmus::Test T;
  T.A = litmus::Arch::GPU_PTX;
  T.Name = Name;
  T.Comments = {Comment};
  std::vector<std::vector<ptx::Statement>> Code;
  std::vector<litmus::CondExpr> Atoms;
  std::vector<ExtraLoc> Extras;
  size_t NT = G.Threads.size();
  auto Eq = [](litmus::StateRef Ref, int64_t V) {
    litmus::CondExpr C;
    C.K = litmus::CondExpr::Eq;
    C.Lhs = litmus::CondTerm::ref(std::move(Ref));
    litmus::ValueExpr Val;
    Val.Int = V;
    C.Rhs = litmus::CondTerm::value(Val);
    return C;
  };
  for (size_t Tid = 0; Tid != NT; ++Tid) {
    std::map<int, int> Remote;
    for (int L = 0; L != G.NumLocs; ++L)
      if (G.HomeRank[L] >= 0 && G.HomeRank[L] != G.RankOf[Tid])
        Remote[L] = G.HomeRank[L];
    // The mbarrier of a Mbar or Tx edge lives in the waiter's CTA (the
    // next thread of the cycle).
    SyncEnds Ends;
    Ends.In = G.In[Tid];
    Ends.Out = G.Out[Tid];
    Ends.InBar = fmt::format("bar{}", Tid);
    size_t Next = (Tid + 1) % NT;
    Ends.OutBar = fmt::format("bar{}", Next);
    if (G.Units[Tid][1] != G.Units[Next][1])
      Ends.OutRank = G.RankOf[Next];
    ThreadWriter W(int(Tid), T, std::move(Remote), G.Shared, Ends, Extras);
    std::vector<std::string> Dst = W.write(G.Threads[Tid]);
    if (Ends.In && Ends.In->K != Edge::Cbar)
      Extras.push_back({Ends.InBar, true, 1});
    for (const std::string &P : W.WaitPreds) {
      litmus::StateRef Reg;
      Reg.Thread = int32_t(Tid);
      Reg.Name = P;
      Atoms.push_back(Eq(std::move(Reg), 1));
    }
    for (size_t I = 0; I != Dst.size(); ++I) {
      if (G.Threads[Tid][I].D != Dir::R || G.Threads[Tid][I].RVal < 0)
        continue;
      litmus::StateRef Reg;
      Reg.Thread = int32_t(Tid);
      Reg.Name = Dst[I];
      Atoms.push_back(Eq(std::move(Reg), G.Threads[Tid][I].RVal));
    }
    Code.push_back(std::move(W.Code));
    litmus::ThreadHeader H;
    H.Id = int32_t(Tid);
    T.Threads.push_back(H);
  }
  auto AddLocation = [&](const std::string &Loc, bool Shared, int Init) {
    litmus::InitItem I;
    I.K = litmus::InitItem::LocInit;
    I.Name = Loc;
    I.Init = litmus::ValueExpr{};
    I.Init->Int = Init;
    T.Init.push_back(std::move(I));
    litmus::MemMapEntry M;
    M.Name = Loc;
    M.R = Shared ? litmus::Region::Shared : litmus::Region::Global;
    T.MemMap.push_back(std::move(M));
  };
  for (int L = 0; L != G.NumLocs; ++L) {
    AddLocation(locName(L), G.Shared[L], 0);
    if (G.Final[L] >= 0) {
      litmus::StateRef Loc;
      Loc.Name = locName(L);
      Atoms.push_back(Eq(std::move(Loc), G.Final[L]));
    }
  }
  for (const ExtraLoc &X : Extras)
    AddLocation(X.Name, X.Shared, X.Init);
  size_t Rows = 0;
  for (const auto &C : Code)
    Rows = std::max(Rows, C.size());
  for (size_t R = 0; R != Rows; ++R) {
    litmus::Row Row;
    for (const auto &C : Code) {
      litmus::Cell Cell;
      if (R < C.size())
        Cell.Stmt = C[R];
      Row.Cells.push_back(std::move(Cell));
    }
    T.Rows.push_back(std::move(Row));
  }
  T.Scopes = scopeTree(G);
  T.Q = litmus::Quantifier::Exists;
  if (Atoms.size() == 1) {
    T.Condition = std::move(Atoms[0]);
  } else {
    T.Condition.K = litmus::CondExpr::And;
    T.Condition.Kids = std::move(Atoms);
  }
  return T;
}

//===----------------------------------------------------------------------===//
// Names.

std::string poAnnot(const Edge &E) {
  switch (E.K) {
  case Edge::Fenced: return printFence(*E.F);
  case Edge::DpAddr: return "addr";
  case Edge::DpData: return "data";
  case Edge::DpCtrl: return "ctrl";
  default: return "po";
  }
}

std::string skeleton(const Edge &E) {
  if (!E.isCom() && !E.isSync())
    return std::string(E.SameLoc ? "Pos" : "Pod") +
           (E.Src == Dir::R ? 'R' : 'W') + (E.Dst == Dir::R ? 'R' : 'W');
  Edge B = E;
  B.Lvl.reset();
  return printEdge(B);
}

template <typename T>
std::string joinOrOne(const std::vector<T> &Items, const char *Sep,
                      std::string (*Str)(const T &)) {
  std::string S;
  bool Same = true;
  for (size_t I = 0; I != Items.size(); ++I)
    Same = Same && Str(Items[I]) == Str(Items[0]);
  if (Same && !Items.empty())
    return Str(Items[0]);
  for (size_t I = 0; I != Items.size(); ++I)
    S += (I ? Sep : "") + Str(Items[I]);
  return S;
}

std::string levelStr(const Level &L) { return printLevel(L); }
std::string accessStr(const Access &A) { return printAccess(A); }

/// The name of the cycle \p E (rotated so that it starts at a thread),
/// with event kinds \p A.
std::string nameOf(const std::vector<Edge> &E, const std::vector<Access> &A,
                   const std::string &Region, const std::string &AccessName) {
  size_t N = E.size();
  std::string Best;
  auto Consider = [&](std::string S) {
    if (Best.empty() || S < Best)
      Best = std::move(S);
  };
  auto Suffix = [&](size_t Rot) {
    std::vector<Level> Lv;
    std::vector<Access> Ac;
    for (size_t I = 0; I != N; ++I) {
      const Edge &X = E[(Rot + I) % N];
      if (X.External)
        Lv.push_back(*X.Lvl);
      Ac.push_back(A[(Rot + I) % N]);
    }
    std::string S = "+" + joinOrOne(Lv, ".", levelStr) + "-" + Region;
    std::string Acc = AccessName.empty() ? joinOrOne(Ac, "_", accessStr)
                                         : AccessName;
    if (Acc != "weak")
      S += "+" + Acc;
    return S;
  };
  for (const ShapeInfo &Sh : shapeInfos()) {
    if (Sh.Edges.size() != N)
      continue;
    for (size_t Rot = 0; Rot != N; ++Rot) {
      bool Match = true;
      for (size_t I = 0; I != N && Match; ++I)
        Match = skeleton(E[(Rot + I) % N]) == skeleton(Sh.Edges[I]);
      if (!Match)
        continue;
      std::vector<Edge> Po;
      for (size_t I = 0; I != N; ++I)
        if (!E[(Rot + I) % N].isCom())
          Po.push_back(E[(Rot + I) % N]);
      std::string Annot = joinOrOne(Po, "+", poAnnot);
      std::string S = Sh.Name;
      if (Annot != "po")
        S += "+" + Annot;
      Consider(S + Suffix(Rot));
    }
    if (!Best.empty())
      return Best;
  }
  for (size_t Rot = 0; Rot != N; ++Rot) {
    if (!E[(Rot + N - 1) % N].External)
      continue;
    std::string S;
    for (size_t I = 0; I != N; ++I) {
      Edge X = E[(Rot + I) % N];
      X.Lvl.reset();
      S += (I ? "+" : "") + printEdge(X);
    }
    Consider(S + Suffix(Rot));
  }
  return Best;
}

/// The dsmem variant: every location whose users share one cluster is
/// shared, in the CTA of its first user (in thread order); false (with
/// \p Why) when no location has users in two CTAs of one cluster.
bool placeDsmem(GTest &G, const std::vector<int> &Thr,
                const std::vector<int> &Loc, std::string &Region,
                std::string &Why) {
  int Remote = 0, Local = 0;
  for (int Lc = 0; Lc != G.NumLocs; ++Lc) {
    int First = -1, Cluster = -2;
    bool OneCta = true;
    for (size_t I = 0; I != Thr.size(); ++I) {
      if (Loc[I] != Lc)
        continue;
      int T = Thr[I];
      if (First < 0 || T < First)
        First = T;
      int Cl = G.Units[T][2];
      Cluster = Cluster == -2 || Cluster == Cl ? Cl : -1;
    }
    for (size_t I = 0; I != Thr.size(); ++I)
      if (Loc[I] == Lc && G.Units[Thr[I]][1] != G.Units[First][1])
        OneCta = false;
    if (First < 0 || Cluster < 0)
      continue;
    G.Shared[Lc] = true;
    if (OneCta) {
      ++Local;
      continue;
    }
    G.HomeRank[Lc] = G.RankOf[First];
    ++Remote;
  }
  if (Remote == 0) {
    Why = "no location has its users in different CTAs of one cluster";
    return false;
  }
  Region = Remote + Local == G.NumLocs ? "dsmem" : "dsmem-mixed";
  return true;
}

/// The steps from one concrete cycle to a test, in order; each step that
/// can fail returns false with the reason in Why.
class TestBuilder {
public:
  explicit TestBuilder(std::string &Why) : Why(Why) {}
  TestBuilder(const TestBuilder &) = delete; // The events point into E.
  TestBuilder &operator=(const TestBuilder &) = delete;

  bool rotate(const Cycle &C0);
  void cutThreadsAndLocations();
  bool placeThreads();
  bool checkSync();
  bool orderCoherence();
  bool makeEvents();
  bool placeMemory(MemVariant Mem);
  GeneratedTest write(const std::string &AccessName) const;

private:
  bool placeAsyncStores();
  bool checkBulk();

  std::string &Why;
  size_t N = 0;
  unsigned Diff = 0; ///< The edges between different locations.
  std::vector<Edge> E;
  std::vector<Access> A;
  std::vector<int> Thr, Loc; ///< Per event, its thread and its location.
  int NumThreads = 0, L = 0;
  std::vector<int> Rf, Fr; ///< Per read, the write it reads or must not.
  std::vector<std::vector<bool>> Reach; ///< Coherence between writes.
  std::vector<int> WVal;
  GTest G;
  std::string Region = "global";
};

/// Checks the cycle and rotates it to start after its last external edge.
bool TestBuilder::rotate(const Cycle &C0) {
  N = C0.Edges.size();
  if (N < 2) {
    Why = "a cycle needs at least two edges";
    return false;
  }
  size_t Last = N;
  unsigned Ext = 0;
  for (size_t I = 0; I != N; ++I) {
    const Edge &X = C0.Edges[I];
    if ((X.K == Edge::Fenced && !X.F) || (X.External && !X.Lvl)) {
      Why = fmt::format("'{}' stands for a list; give its fence or level",
                        printEdge(X));
      return false;
    }
    if (X.External) {
      Last = I;
      ++Ext;
    }
    Diff += !X.SameLoc;
    if (X.Dst != C0.Edges[(I + 1) % N].Src) {
      Why = fmt::format("'{}' ends where '{}' cannot start", printEdge(X),
                        printEdge(C0.Edges[(I + 1) % N]));
      return false;
    }
  }
  if (Ext < 2) {
    Why = "a cycle needs at least two external edges (one per thread)";
    return false;
  }
  if (Diff == 1) {
    Why = "the cycle changes location only once, so it cannot come back";
    return false;
  }
  E.resize(N);
  A.resize(N);
  for (size_t I = 0; I != N; ++I) {
    size_t J = (Last + 1 + I) % N;
    E[I] = C0.Edges[J];
    A[I] = J < C0.Kinds.size() && C0.Kinds[J] ? *C0.Kinds[J] : Access{};
    Dir D = E[I].Src;
    if ((A[I].K == Access::Acquire && D == Dir::W) ||
        (A[I].K == Access::Release && D == Dir::R)) {
      Why = fmt::format("'{}' cannot qualify a {}", printAccess(A[I]),
                        D == Dir::W ? "write" : "read");
      return false;
    }
  }
  for (size_t I = 0; I != N; ++I) {
    if (E[I].K != Edge::Tx)
      continue;
    if (A[I].K != Access::Weak) {
      Why = fmt::format("the write of '{}' is its async store: '{}' cannot "
                        "qualify it",
                        printEdge(E[I]), printAccess(A[I]));
      return false;
    }
    const Edge &Prev = E[(I + N - 1) % N];
    if (Prev.K == Edge::DpAddr || Prev.K == Edge::DpData) {
      Why = fmt::format("the async store of '{}' takes no address or data "
                        "dependency",
                        printEdge(E[I]));
      return false;
    }
  }
  return true;
}

/// Cuts the cycle into threads at external edges, locations at the others.
void TestBuilder::cutThreadsAndLocations() {
  Thr.assign(N, 0);
  Loc.assign(N, 0);
  int T = 0;
  L = 0;
  for (size_t I = 0; I != N; ++I) {
    Thr[I] = T;
    Loc[I] = L;
    T += E[I].External;
    L += !E[I].SameLoc;
  }
  NumThreads = T;
  if (Diff >= 2 && E[N - 1].SameLoc)
    for (size_t I = 0; I != N; ++I)
      if (Loc[I] == Loc[N - 1])
        Loc[I] = 0;
  std::map<int, int> Renum;
  for (size_t I = 0; I != N; ++I)
    Loc[I] = Renum.try_emplace(Loc[I], int(Renum.size())).first->second;
  L = int(Renum.size());
}

/// Places the threads in warps, CTAs and clusters from the edges' levels.
bool TestBuilder::placeThreads() {
  // Unite threads that share a unit, then check each edge's threads are
  // apart at the level below its own.
  std::array<UnionFind, 3> UF = {UnionFind(NumThreads), UnionFind(NumThreads),
                                 UnionFind(NumThreads)};
  bool AnyCluster = false;
  for (size_t I = 0; I != N; ++I) {
    if (!E[I].External)
      continue;
    unsigned Lv = unsigned(*E[I].Lvl);
    AnyCluster |= *E[I].Lvl == Level::Cluster;
    for (unsigned U = Lv; U < 3; ++U)
      UF[U].unite(Thr[I], Thr[(I + 1) % N]);
  }
  for (size_t I = 0; I != N; ++I) {
    if (!E[I].External)
      continue;
    unsigned Lv = unsigned(*E[I].Lvl);
    if (Lv > 0 && UF[Lv - 1].find(Thr[I]) == UF[Lv - 1].find(Thr[(I + 1) % N])) {
      Why = fmt::format("no placement of the threads: '{}' asks for threads "
                        "in different {}s, which the other edges put in one",
                        printEdge(E[I]), printLevel(Level(Lv - 1)));
      return false;
    }
  }
  G.Threads.resize(NumThreads);
  G.In.assign(NumThreads, nullptr);
  G.Out.assign(NumThreads, nullptr);
  G.Units.resize(NumThreads);
  G.ClusterNodes = AnyCluster;
  G.NumLocs = L;
  for (int Tid = 0; Tid != NumThreads; ++Tid)
    for (unsigned U = 0; U != 3; ++U)
      G.Units[Tid][U] = UF[U].find(Tid);
  // The CTAs of a cluster are ranked in the order of their first thread.
  std::map<int, std::map<int, int>> Ranks; // cluster -> CTA -> rank
  G.RankOf.assign(NumThreads, 0);
  for (int T = 0; T != NumThreads; ++T) {
    auto &Ctas = Ranks[G.Units[T][2]];
    G.RankOf[T] = Ctas.try_emplace(G.Units[T][1], int(Ctas.size()))
                      .first->second;
  }
  return true;
}

/// The rules of the synchronisation edges: an mbarrier is reached from its
/// cluster only, an async store goes to another CTA of the cluster, and
/// barrier.cluster is one barrier every thread of one cluster takes part in
/// once (so each thread has one end of a Cbar edge, all of one kind).
bool TestBuilder::checkSync() {
  const Edge *Cbar = nullptr;
  bool AllInCluster = true;
  std::vector<int> CbarEnds(NumThreads, 0);
  for (size_t I = 0; I != N; ++I) {
    const Edge &X = E[I];
    if (X.External && *X.Lvl == Level::GPU)
      AllInCluster = false;
    if (X.K == Edge::Mbar && *X.Lvl == Level::GPU) {
      Why = fmt::format("'{}' joins threads of different clusters: an "
                        "mbarrier is reached only from its own cluster",
                        printEdge(X));
      return false;
    }
    if (X.K == Edge::Tx && *X.Lvl != Level::Cluster) {
      Why = fmt::format("'{}' is an async store into another CTA of the "
                        "cluster: its level is cluster",
                        printEdge(X));
      return false;
    }
    if (X.K != Edge::Cbar)
      continue;
    if (Cbar && Cbar->S != X.S) {
      Why = fmt::format("'{}' and '{}' would be two kinds of one cluster "
                        "barrier",
                        printEdge(*Cbar), printEdge(X));
      return false;
    }
    Cbar = &X;
    ++CbarEnds[Thr[I]];
    ++CbarEnds[Thr[(I + 1) % N]];
  }
  if (!Cbar)
    return true;
  if (!AllInCluster) {
    Why = "every thread takes part in the cluster barrier, so all are in "
          "one cluster: no edge may be at level gpu";
    return false;
  }
  for (int T = 0; T != NumThreads; ++T)
    if (CbarEnds[T] != 1) {
      Why = fmt::format("every thread takes part in the cluster barrier "
                        "once, so each has one end of a Cbar edge; thread "
                        "{} has {}",
                        T, CbarEnds[T]);
      return false;
    }
  return true;
}

/// Orders each location's writes (coherence) and gives them values 1, 2, ...
bool TestBuilder::orderCoherence() {
  // The constraints of the communication edges; the final condition asks
  // for the last write where the order forces it.
  Rf.assign(N, -1);
  Fr.assign(N, -1);
  std::vector<std::vector<int>> Succ(N);
  for (size_t I = 0; I != N; ++I) {
    size_t J = (I + 1) % N;
    if (E[I].K == Edge::Rf)
      Rf[J] = int(I);
    if (E[I].K == Edge::Fr)
      Fr[I] = int(J);
    if (E[I].K == Edge::Co)
      Succ[I].push_back(int(J));
  }
  for (size_t I = 0; I != N; ++I) {
    if (Rf[I] < 0 || Fr[I] < 0)
      continue;
    if (Rf[I] == Fr[I]) {
      Why = "a read would read from a write it precedes in coherence";
      return false;
    }
    Succ[Rf[I]].push_back(Fr[I]);
  }
  // Reachability between writes (the cycle is small).
  Reach.assign(N, std::vector<bool>(N, false));
  for (size_t I = 0; I != N; ++I)
    for (int J : Succ[I])
      Reach[I][J] = true;
  for (size_t K = 0; K != N; ++K)
    for (size_t I = 0; I != N; ++I)
      if (Reach[I][K])
        for (size_t J = 0; J != N; ++J)
          if (Reach[K][J])
            Reach[I][J] = true;
  for (size_t I = 0; I != N; ++I)
    if (Reach[I][I]) {
      Why = "coherence order would be cyclic";
      return false;
    }
  WVal.assign(N, 0);
  G.Final.assign(L, -1);
  for (int Lc = 0; Lc != L; ++Lc) {
    std::vector<int> Ws;
    for (size_t I = 0; I != N; ++I)
      if (Loc[I] == Lc && E[I].Src == Dir::W)
        Ws.push_back(int(I));
    // Kahn's order, ties by position in the cycle.
    std::vector<int> Order;
    std::vector<bool> Done(N, false);
    while (Order.size() != Ws.size()) {
      for (int W : Ws) {
        if (Done[W])
          continue;
        bool Ready = true;
        for (int V : Ws)
          Ready = Ready && (Done[V] || !Reach[V][W]);
        if (Ready) {
          Done[W] = true;
          Order.push_back(W);
          break;
        }
      }
    }
    for (size_t R = 0; R != Order.size(); ++R)
      WVal[Order[R]] = int(R + 1);
    if (Order.size() >= 2) {
      int Top = Order.back();
      bool Forced = true;
      for (int W : Ws)
        Forced = Forced && (W == Top || Reach[W][Top]);
      if (Forced)
        G.Final[Lc] = WVal[Top];
    }
  }
  return true;
}

/// Makes each thread's events, with the value each read must see.
bool TestBuilder::makeEvents() {
  bool Observed = false;
  std::vector<int> RVal(N, -1);
  for (size_t I = 0; I != N; ++I) {
    GEvent Ev;
    Ev.D = E[I].Src;
    Ev.Loc = Loc[I];
    Ev.A = A[I];
    Ev.WVal = WVal[I];
    if (Ev.D == Dir::R) {
      if (Rf[I] >= 0) {
        Ev.RVal = WVal[Rf[I]];
      } else if (Fr[I] >= 0) {
        // The latest write forced before the one it must not see, else the
        // initial value.
        Ev.RVal = 0;
        for (size_t W = 0; W != N; ++W)
          if (Reach[W][Fr[I]] && Loc[W] == Loc[I] && E[W].Src == Dir::W)
            Ev.RVal = std::max(Ev.RVal, WVal[W]);
      }
      Observed |= Ev.RVal >= 0;
      RVal[I] = Ev.RVal;
    }
    Ev.Next = E[I].External ? nullptr : &E[I];
    G.Threads[Thr[I]].push_back(Ev);
    if (E[I].isSync()) {
      G.Out[Thr[I]] = &E[I];
      G.In[Thr[(I + 1) % N]] = &E[I];
    }
  }
  // The condition pins coherence only through read values and the last
  // write of each location: every co edge, and every fr edge from a read
  // of a write, must end in that last write, or the test would not ask for
  // the cycle (diy adds observer threads there; incant leaves such cycles
  // out).
  for (size_t I = 0; I != N; ++I) {
    size_t J = (I + 1) % N;
    bool Need = E[I].K == Edge::Co || (E[I].K == Edge::Fr && RVal[I] > 0);
    if (Need && G.Final[Loc[J]] != WVal[J]) {
      Why = "the final condition cannot pin this coherence order (it would "
            "need an observer thread)";
      return false;
    }
  }
  for (int F : G.Final)
    Observed |= F >= 0;
  if (!Observed) {
    Why = "the cycle leaves nothing to observe";
    return false;
  }
  return true;
}

/// Puts each location in global, shared or distributed shared memory.
bool TestBuilder::placeMemory(MemVariant Mem) {
  G.Shared.assign(L, false);
  G.HomeRank.assign(L, -1);
  if (Mem == MemVariant::Dsmem && !placeDsmem(G, Thr, Loc, Region, Why))
    return false;
  if (Mem == MemVariant::Shared) {
    std::vector<int> CtaOf(L, -2);
    for (size_t I = 0; I != N; ++I) {
      int Cta = G.Units[Thr[I]][1];
      int &C = CtaOf[Loc[I]];
      C = C == -2 || C == Cta ? Cta : -1;
    }
    int NumShared = 0;
    for (int Lc = 0; Lc != L; ++Lc)
      NumShared += G.Shared[Lc] = CtaOf[Lc] >= 0;
    if (NumShared == 0) {
      Why = "no location has all its users in one CTA, so none can be shared";
      return false;
    }
    Region = NumShared == L ? "shared" : "mixed";
  }
  return placeAsyncStores() && checkBulk();
}

/// The location an async store (Tx edge) writes lives in the shared memory
/// of the waiting thread's CTA; its other users must be in that cluster.
bool TestBuilder::placeAsyncStores() {
  std::map<int, int> Forced; // location -> home rank
  for (size_t I = 0; I != N; ++I) {
    if (E[I].K != Edge::Tx)
      continue;
    int Lc = Loc[I], Waiter = Thr[(I + 1) % N];
    int Home = G.RankOf[Waiter];
    for (size_t J = 0; J != N; ++J)
      if (Loc[J] == Lc && G.Units[Thr[J]][2] != G.Units[Waiter][2]) {
        Why = fmt::format("'{}' writes {} in the shared memory of thread "
                          "{}'s CTA, which thread {} is not in the cluster "
                          "of",
                          printEdge(E[I]), locName(Lc), Waiter, Thr[J]);
        return false;
      }
    if (!Forced.try_emplace(Lc, Home).second && Forced[Lc] != Home) {
      Why = fmt::format("two async stores want {} in two CTAs", locName(Lc));
      return false;
    }
    G.Shared[Lc] = true;
    G.HomeRank[Lc] = Home;
  }
  if (Forced.empty())
    return true;
  bool AllShared = std::all_of(G.Shared.begin(), G.Shared.end(),
                               [](bool B) { return B; });
  Region = AllShared ? "dsmem" : "dsmem-mixed";
  return true;
}

/// A bulk copy reaches global memory or the shared memory of its own CTA,
/// and takes no address or data dependency.
bool TestBuilder::checkBulk() {
  for (size_t I = 0; I != N; ++I) {
    if (A[I].K != Access::Bulk)
      continue;
    int Lc = Loc[I];
    if (G.HomeRank[Lc] >= 0 && G.HomeRank[Lc] != G.RankOf[Thr[I]]) {
      Why = fmt::format("a bulk copy of {} would reach another CTA's shared "
                        "memory",
                        locName(Lc));
      return false;
    }
    const Edge &Prev = E[(I + N - 1) % N];
    if (Prev.K == Edge::DpAddr || Prev.K == Edge::DpData) {
      Why = "a bulk copy takes no address or data dependency (it names its "
            "locations)";
      return false;
    }
  }
  return true;
}

/// Names, keys and writes the test as an AST and as litmus text.
GeneratedTest TestBuilder::write(const std::string &AccessName) const {
  GeneratedTest Out;
  Cycle Rot;
  Rot.Edges = E;
  for (const Access &X : A)
    Rot.Kinds.push_back(X);
  Out.CycleText = printCycle(Rot);
  Out.Name = nameOf(E, A, Region, AccessName);
  Out.Key = keyOf(G);
  Out.AST = writeTest(G, Out.Name, "Cycle: " + Out.CycleText);
  Out.Text = litmus::printTest(Out.AST);
  return Out;
}

} // namespace

std::optional<GeneratedTest> gen::buildTest(const Cycle &C0, MemVariant Mem,
                                            const std::string &AccessName,
                                            std::string &Why) {
  TestBuilder B(Why);
  if (!B.rotate(C0))
    return std::nullopt;
  B.cutThreadsAndLocations();
  if (!B.placeThreads() || !B.checkSync() || !B.orderCoherence() ||
      !B.makeEvents() ||
      !B.placeMemory(Mem))
    return std::nullopt;
  return B.write(AccessName);
}
