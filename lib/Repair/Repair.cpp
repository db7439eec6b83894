//===- Repair.cpp - Barrier repair: the cheapest set that verifies --------===//
#include "incant/Repair/Repair.h"
#include "Paths.h"
#include "incant/IR/AsyncCopies.h"
#include "incant/IR/Summary.h"
#include "incant/IR/Uniformity.h"
#include "incant/PTX/ModuleCheck.h"
#include "incant/Race/Input.h"
#include "incant/SMT/Solver.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <limits>
#include <map>
#include <set>

namespace incant::repair {

using ir::BarrierKind;

const char *outcomeName(Outcome O) {
  switch (O) {
  case Outcome::Clean: return "clean";
  case Outcome::Repaired: return "repaired";
  case Outcome::Unrepairable: return "unrepairable";
  }
  return "?";
}

uint64_t barrierCost(BarrierKind Kind, unsigned Depth) {
  uint64_t C = 1;
  for (unsigned I = 0; I < Depth && C < (uint64_t(1) << 50); ++I)
    C *= 10;
  if (Kind == BarrierKind::Warp)
    return C;
  return 2 * C + (Kind == BarrierKind::Grid       ? 24
                  : Kind == BarrierKind::Cluster  ? 12
                  : Kind == BarrierKind::CopyWait ? 1
                                                  : 0);
}

namespace {

/// A barrier the repair may place: before instruction Item, of a kind.
using Var = std::pair<unsigned, BarrierKind>;

/// A racing pair, by the positions of its accesses and whether the threads
/// are of one block (a CTA barrier can order them) or two (a grid one).
struct PairKey {
  unsigned A, B;
  bool Grid;
  bool Across; ///< The witness threads are in different loop iterations.
  auto operator<=>(const PairKey &) const = default;
};

class Repairer {
public:
  Repairer(const ptx::Module &M, const ir::FunctionIR &F,
           const std::vector<ir::Origin> &Origins, const Options &O)
      : M(M), F(F), Origins(Origins), O(O), U(F), G(F) {}

  KernelRepair run();

private:
  /// The race report with \p Extra assumed and \p Removed taken out;
  /// with \p Witnesses, each race's witness (its loop iterations say on
  /// which path a barrier separates the pair); with \p VerifyOnly, a
  /// report good only for verified() (it may stop at the first failure).
  race::KernelReport check(const std::set<Var> &Extra,
                           const std::set<unsigned> &Removed,
                           bool Witnesses = false, bool VerifyOnly = false);
  bool inKernel(unsigned Item) const;
  /// Whether \p Item is the barrier of a call the kernel makes to a
  /// function that does nothing else (OpenCL's barrier(), inlined): the
  /// barrier goes by deleting the call.
  bool inBarrierCall(unsigned Item) const;
  /// inKernel, or inBarrierCall: a barrier the repair may take out.
  bool removable(unsigned Item) const {
    return inKernel(Item) || inBarrierCall(Item);
  }
  /// Whether a barrier of kind \p K may go before \p Item: in the
  /// kernel's own code, not forbidden, and (unless \p AnyControl) where
  /// whether it runs does not depend on the thread (the block, for a grid
  /// barrier).
  bool candidate(unsigned Item, BarrierKind K, bool AnyControl) const;
  Change change(unsigned Item, BarrierKind K) const;
  std::string pairText(const race::KernelReport &R,
                       const race::PairResult &P) const;
  /// The barriers of the report that order threads of one block (of one
  /// cluster, of the grid): where barrier-free paths stop. Divergent ones
  /// are about to be taken out. None for a pair with a cp.async copy
  /// (\p Copy): a barrier orders it only after the copy's wait.
  std::set<unsigned> stops(const race::KernelReport &R, ir::PairScope Scope,
                           bool Copy) const;
  /// Whether access \p A is a cp.async copy (which a cp.async.wait_all
  /// completes).
  bool groupCopy(const race::Access &A) const {
    const ptx::Instruction &I = F.inst(A.Item);
    return ir::isAsyncCopy(I) && !I.hasMod(".bulk");
  }
  bool verified(const race::KernelReport &R) const {
    return !R.Races && !R.Divergent && R.Unknown <= BaseUnknown &&
           R.UnknownBarriers <= BaseUnknownBarriers;
  }
  std::optional<std::set<Var>> solve();
  /// The positions between the two accesses of a racing pair: in one
  /// iteration of the loops around both when the witness has the two
  /// threads in the same iterations, across a back edge when not.
  std::set<unsigned> pathFor(const race::KernelReport &R,
                             const race::PairResult &P, ir::PairScope Scope,
                             bool Across) const;
  /// Whether the witness of \p P has its threads in different iterations
  /// of a loop around both accesses.
  bool across(const race::KernelReport &R, const race::PairResult &P) const;
  /// A position equivalent to \p Item for a barrier (no memory access or
  /// barrier between them in its block) where a source line starts, so
  /// that the barrier falls on a statement boundary.
  unsigned settle(unsigned Item, const race::KernelReport &R) const;
  void removeUnneeded(KernelRepair &K, std::set<Var> &Chosen,
                      std::set<unsigned> &Removed);
  /// Where the code of the grid.sync() from the bar.sync at \p Start to
  /// the one at \p End can be deleted: from Start up to the block of End
  /// (the end returned, exclusive, as a body index of the module as
  /// given), and End itself. None unless that code is the kernel's own,
  /// contiguous in the module as given, entered only through Start, left
  /// only into End's block, and sets no register read outside it.
  std::optional<unsigned> gridSyncRange(unsigned Start, unsigned End) const;

  const ptx::Module &M;
  const ir::FunctionIR &F;
  const std::vector<ir::Origin> &Origins;
  const Options &O;
  ir::Uniformity U;
  InstGraph G;
  std::map<PairKey, std::set<Var>> Clauses;
  std::set<Var> Forbidden;
  unsigned Checks = 0;
  unsigned BaseUnknown = 0, BaseUnknownBarriers = 0;
  /// When the repair of the kernel began (Options::KernelSeconds).
  std::chrono::steady_clock::time_point Start =
      std::chrono::steady_clock::now();
  /// Seconds left of Options::KernelSeconds (infinite without a limit).
  double secondsLeft() const {
    if (O.KernelSeconds <= 0)
      return std::numeric_limits<double>::infinity();
    return O.KernelSeconds - std::chrono::duration<double>(
                                 std::chrono::steady_clock::now() - Start)
                                 .count();
  }
};

race::KernelReport Repairer::check(const std::set<Var> &Extra,
                                   const std::set<unsigned> &Removed,
                                   bool Witnesses, bool VerifyOnly) {
  race::Options RO = O.Race;
  RO.Witnesses = Witnesses;
  // Only whether it verifies: the first race, or one undecided pair more
  // than before, answers no.
  if (VerifyOnly)
    RO.StopBeyondUnknown = BaseUnknown;
  // The race check stops where the repair's time does (its pairs left
  // unknown, which no repair verifies).
  if (double Left = secondsLeft(); Left < std::numeric_limits<double>::infinity())
    RO.KernelSeconds = std::max(
        RO.KernelSeconds > 0 ? std::min(RO.KernelSeconds, Left) : Left, 1e-9);
  RO.Extra.clear();
  for (const Var &V : Extra)
    RO.Extra.push_back({V.first, V.second});
  RO.Removed = Removed;
  ++Checks;
  return race::checkKernel(M, F, RO);
}

bool Repairer::inKernel(unsigned Item) const {
  return Item >= Origins.size() ||
         (Origins[Item].Calls.empty() && Origins[Item].Function == F.name());
}

bool Repairer::inBarrierCall(unsigned Item) const {
  if (Item >= Origins.size() || Origins[Item].Calls.size() != 1 ||
      Origins[Item].Calls[0].first != F.name())
    return false;
  for (unsigned X : F.instructions()) {
    if (X == Item || X >= Origins.size() ||
        Origins[X].Calls != Origins[Item].Calls)
      continue;
    const ptx::Instruction &I = F.inst(X);
    using ptx::Opcode;
    if (I.Op == Opcode::Bar || I.Op == Opcode::BarWarp ||
        I.Op == Opcode::Call || I.Op == Opcode::Atom || I.Op == Opcode::Red ||
        ((I.Op == Opcode::Ld || I.Op == Opcode::St) &&
         I.ASpace != ptx::AddrSpace::Param))
      return false;
  }
  return true;
}

bool Repairer::candidate(unsigned Item, BarrierKind K, bool AnyControl) const {
  if (!F.isInstruction(Item) || !inKernel(Item) || Forbidden.count({Item, K}) ||
      (K == BarrierKind::Grid && !O.GridLevel) ||
      (K == BarrierKind::Warp && !O.WarpLevel))
    return false;
  // A cluster barrier only where the whole grid agrees on reaching it:
  // the divergence check asks about the threads of one CTA only.
  if (AnyControl && K != BarrierKind::Cluster)
    return true;
  ir::Variance V = U.control(F.blockOf(Item));
  return K == BarrierKind::Grid || K == BarrierKind::Cluster
             ? V == ir::Variance::Grid
             : V != ir::Variance::Thread;
}

Change Repairer::change(unsigned Item, BarrierKind K) const {
  Change C;
  C.Item = Item;
  C.OriginFunction = F.name();
  C.OriginItem = Item;
  if (inBarrierCall(Item)) {
    // The call in the kernel as given.
    C.OriginFunction = Origins[Item].Calls[0].first;
    C.OriginItem = Origins[Item].Calls[0].second;
  } else if (Item < Origins.size()) {
    C.OriginFunction = Origins[Item].Function;
    C.OriginItem = Origins[Item].Item;
  }
  C.Kind = K;
  C.LoopDepth = F.loops().depth(F.blockOf(Item));
  C.Cost = barrierCost(K, C.LoopDepth);
  C.PtxLine = F.inst(Item).Range.Begin.Line;
  C.Loc = F.loc(Item);
  return C;
}

std::string Repairer::pairText(const race::KernelReport &R,
                               const race::PairResult &P) const {
  auto Where = [&](const race::Access &A) {
    const ir::SourceFrame *Fr = A.Loc.userFrame();
    return Fr ? fmt::format("{}:{}",
                            std::filesystem::path(Fr->File).filename().string(),
                            Fr->Line)
              : fmt::format("PTX line {}", A.PtxLine);
  };
  const race::Access &A = R.Accesses[P.First], &B = R.Accesses[P.Second];
  return fmt::format("{} on {} memory{} between {} and {}", P.Kind, A.Space,
                     A.Object.empty() ? "" : ", " + A.Object, Where(A),
                     Where(B));
}

std::set<unsigned> Repairer::stops(const race::KernelReport &R,
                                   ir::PairScope Scope, bool Copy) const {
  using ir::PairScope;
  std::set<unsigned> S;
  for (const race::BarrierResult &B : R.Barriers)
    if (!B.Assumed && B.V != race::Verdict::Race && !Copy &&
        (B.Kind == BarrierKind::Grid ||
         (B.Kind == BarrierKind::Cluster && Scope != PairScope::Grid) ||
         (B.Kind == BarrierKind::CTA && Scope == PairScope::CTA)))
      S.insert(B.Item);
  return S;
}

bool Repairer::across(const race::KernelReport &R,
                      const race::PairResult &P) const {
  if (!P.W)
    return false;
  unsigned X = R.Accesses[P.First].Item, Y = R.Accesses[P.Second].Item;
  const std::vector<ir::Loop> &Loops = F.loops().loops();
  for (unsigned L = 0; L < Loops.size(); ++L) {
    if (!Loops[L].contains(F.blockOf(X)) || !Loops[L].contains(F.blockOf(Y)))
      continue;
    // The witness names a loop by the PTX line of its header.
    uint32_t Line = 0;
    for (unsigned I = F.blocks()[Loops[L].Header].Begin + 1; I-- > 0 && !Line;)
      Line = std::visit([](const auto &N) { return N.Range.Begin.Line; },
                        F.function().Body[I]);
    auto IterOf = [&](const race::ThreadWitness &T) {
      for (const auto &[Ln, K] : T.Iterations)
        if (Ln == Line)
          return K;
      return int64_t(-1);
    };
    if (IterOf(P.W->A) != IterOf(P.W->B))
      return true;
  }
  return false;
}

std::set<unsigned> Repairer::pathFor(const race::KernelReport &R,
                                     const race::PairResult &P,
                                     ir::PairScope Scope, bool Across) const {
  unsigned X = R.Accesses[P.First].Item, Y = R.Accesses[P.Second].Item;
  std::set<unsigned> Stop =
      stops(R, Scope,
            groupCopy(R.Accesses[P.First]) || groupCopy(R.Accesses[P.Second]));
  std::set<unsigned> All = G.between(X, Y, Stop);
  for (unsigned I : G.between(Y, X, Stop))
    All.insert(I);
  std::set<unsigned> Common;
  const std::vector<ir::Loop> &Loops = F.loops().loops();
  for (unsigned L = 0; L < Loops.size(); ++L)
    if (Loops[L].contains(F.blockOf(X)) && Loops[L].contains(F.blockOf(Y)))
      Common.insert(L);
  if (Common.empty())
    return All;
  // Within one iteration of the loops around both, or only through one
  // of their back edges.
  std::set<unsigned> Within = G.between(X, Y, Stop, Common);
  for (unsigned I : G.between(Y, X, Stop, Common))
    Within.insert(I);
  std::set<unsigned> Out;
  if (Across) {
    for (unsigned I : All)
      if (!Within.count(I))
        Out.insert(I);
  } else {
    Out = std::move(Within);
  }
  return Out.empty() ? All : Out;
}

std::optional<std::set<Var>> Repairer::solve() {
  double Left = secondsLeft();
  smt::MaxSat S(smt::Limits{
      Left < O.Race.TimeoutMs / 1000.0
          ? unsigned(std::max(Left * 1000, 1.0))
          : O.Race.TimeoutMs,
      0});
  std::map<Var, smt::Expr> Vars;
  auto VarOf = [&](const Var &V) {
    auto It = Vars.find(V);
    if (It == Vars.end()) {
      smt::Expr E = smt::Expr::mkFreshVar(
          fmt::format("b{}_{}_", V.first, static_cast<int>(V.second)),
          smt::Sort::boolean());
      It = Vars.emplace(V, E).first;
      S.addSoft(!E, barrierCost(V.second, F.loops().depth(
                                                   F.blockOf(V.first))));
    }
    return It->second;
  };
  for (const auto &[Key, Clause] : Clauses) {
    std::vector<smt::Expr> Or;
    for (const Var &V : Clause)
      Or.push_back(VarOf(V));
    S.addHard(smt::Expr::mkOr(Or));
  }
  smt::Result R = S.check();
  if (!R.isSat())
    return std::nullopt;
  std::set<Var> Chosen;
  for (const auto &[V, E] : Vars)
    if (R.model().evalBool(E).value_or(false))
      Chosen.insert(V);
  return Chosen;
}

void Repairer::removeUnneeded(KernelRepair &K, std::set<Var> &Chosen,
                              std::set<unsigned> &Removed) {
  // The programmer's CTA barriers and grid.sync()s (as a whole) and the
  // added ones, the costliest first.
  struct Try {
    uint64_t Cost;
    bool Added;
    Var V;
    /// A whole grid.sync(): its first bar.sync, and where the code to
    /// delete stops (gridSyncRange).
    std::optional<unsigned> GridStart = std::nullopt;
    unsigned GridStop = 0;
  };
  std::vector<Try> Tries;
  const std::vector<race::BarrierResult> &Bars = K.Before.Barriers;
  // The race checker does not follow mbarrier objects (their init before
  // the arrivals of other threads): in a kernel with mbarriers, no barrier
  // of the programmer's is taken out as unnecessary.
  bool Mbarriers = false;
  for (unsigned Item : F.instructions())
    Mbarriers |= F.inst(Item).Op == ptx::Opcode::Mbarrier;
  for (size_t I = 0; I < Bars.size() && !Mbarriers; ++I) {
    const race::BarrierResult &B = Bars[I];
    bool GridHalf = I + 1 < Bars.size() && Bars[I + 1].Kind == BarrierKind::Grid;
    if (B.Assumed || Removed.count(B.Item) || !removable(B.Item))
      continue;
    unsigned Depth = F.loops().depth(F.blockOf(B.Item));
    if (B.Kind == BarrierKind::CTA && !GridHalf)
      Tries.push_back({barrierCost(B.Kind, Depth), false, {B.Item, B.Kind}});
    // A grid.sync(): its first bar.sync is the barrier before it.
    if (B.Kind != BarrierKind::Grid || I == 0 || Bars[I - 1].Assumed ||
        Bars[I - 1].Kind != BarrierKind::CTA)
      continue;
    if (std::optional<unsigned> Stop = gridSyncRange(Bars[I - 1].Item, B.Item))
      Tries.push_back({barrierCost(B.Kind, Depth), false, {B.Item, B.Kind},
                       Bars[I - 1].Item, *Stop});
  }
  for (const Var &V : Chosen)
    Tries.push_back(
        {barrierCost(V.second, F.loops().depth(F.blockOf(V.first))), true, V});
  std::stable_sort(Tries.begin(), Tries.end(), [](const Try &A, const Try &B) {
    return A.Cost > B.Cost;
  });
  for (const Try &T : Tries) {
    std::set<Var> C = Chosen;
    std::set<unsigned> R = Removed;
    if (T.Added) {
      C.erase(T.V);
    } else {
      R.insert(T.V.first);
      if (T.GridStart) {
        // No added barrier may sit inside the sequence that goes.
        bool Inside = false;
        for (const Var &V : C)
          Inside |= V.first > *T.GridStart && V.first <= T.V.first;
        if (Inside)
          continue;
        R.insert(*T.GridStart);
      }
    }
    race::KernelReport Rep = check(C, R, false, true);
    if (!verified(Rep))
      continue;
    Chosen = std::move(C);
    Removed = std::move(R);
    K.After = std::move(Rep);
    if (!T.Added) {
      Change Ch = change(T.V.first, T.V.second);
      Ch.Why = "unnecessary";
      if (T.GridStart) {
        Ch.GridStart = T.GridStart;
        Ch.OriginGridStart = change(*T.GridStart, BarrierKind::CTA).OriginItem;
        Ch.OriginGridStop = T.GridStop;
      }
      K.Removed.push_back(Ch);
    }
  }
}

std::optional<unsigned> Repairer::gridSyncRange(unsigned Start,
                                               unsigned End) const {
  if (Start >= End || !inKernel(Start) || !inKernel(End))
    return std::nullopt;
  // The range goes up to the block of the last bar.sync: code the compiler
  // put there before the bar.sync is the kernel's and stays.
  unsigned First = F.blockOf(Start), Last = F.blockOf(End);
  unsigned Stop = F.blocks()[Last].Begin;
  if (Stop <= Start)
    return std::nullopt;
  auto In = [&](unsigned X) { return X >= Start && X < Stop; };
  auto Origin = [&](unsigned X) {
    return X < Origins.size() ? Origins[X].Item : X;
  };
  for (unsigned X = Start; X < Stop; ++X) {
    if (X < Origins.size() &&
        (!Origins[X].Calls.empty() ||
         Origins[X].Function != Origins[Start].Function))
      return std::nullopt;
    if (Origin(X) != Origin(Start) + (X - Start))
      return std::nullopt;
    if (!F.isInstruction(X))
      continue;
    for (unsigned Reg : F.defs(X))
      for (unsigned Use : F.registers()[Reg].Uses)
        if (!In(Use))
          return std::nullopt;
  }
  // Blocks that start inside are entered only from inside; blocks that
  // end inside lead only to blocks inside or to the last one.
  auto EndsIn = [&](unsigned B) {
    const std::vector<unsigned> &I = F.blocks()[B].Insts;
    return !I.empty() && In(I.back());
  };
  for (unsigned B = 0; B < F.blocks().size(); ++B) {
    const ir::BasicBlock &BB = F.blocks()[B];
    if (B != First && In(BB.Begin))
      for (unsigned P : F.cfg().preds(B))
        if (!EndsIn(P))
          return std::nullopt;
    if (EndsIn(B))
      for (unsigned S : F.cfg().succs(B))
        if (S != Last && !In(F.blocks()[S].Begin))
          return std::nullopt;
  }
  return Origin(Stop);
}

unsigned Repairer::settle(unsigned Item, const race::KernelReport &R) const {
  std::set<unsigned> Fixed;
  for (const race::Access &A : R.Accesses)
    Fixed.insert(A.Item);
  for (const race::BarrierResult &B : R.Barriers)
    Fixed.insert(B.Item);
  const std::vector<unsigned> &Insts = F.blocks()[F.blockOf(Item)].Insts;
  size_t K = std::find(Insts.begin(), Insts.end(), Item) - Insts.begin();
  if (K == Insts.size())
    return Item;
  // The range [Lo, Hi] of equivalent positions: moving the barrier from
  // before Insts[K] to before Insts[J] passes no access or barrier.
  size_t Lo = K, Hi = K;
  while (Lo > 0 && !Fixed.count(Insts[Lo - 1]))
    --Lo;
  while (Hi + 1 < Insts.size() && !Fixed.count(Insts[Hi]))
    ++Hi;
  auto Line = [&](unsigned I) {
    const ir::SourceFrame *Fr = F.loc(I).userFrame();
    return Fr ? std::make_pair(Fr->File, Fr->Line)
              : std::make_pair(std::string(), 0u);
  };
  for (size_t J = Lo; J <= Hi; ++J) {
    // A line starts here and none of its code comes before in the block.
    if (!inKernel(Insts[J]) || Line(Insts[J]).second == 0)
      continue;
    bool Earlier = false;
    for (size_t X = 0; X < J; ++X)
      Earlier |= Line(Insts[X]) == Line(Insts[J]);
    if (!Earlier)
      return Insts[J];
  }
  return Item;
}

KernelRepair Repairer::run() {
  KernelRepair K;
  K.Name = F.name();
  K.Demangled = ir::demangle(F.name());
  K.Before = check({}, {}, true);
  BaseUnknown = K.Before.Unknown;
  BaseUnknownBarriers = K.Before.UnknownBarriers;
  for (const race::BarrierResult &B : K.Before.Barriers)
    if (!B.Assumed && B.Kind != BarrierKind::NoOrder &&
        B.Kind != BarrierKind::Cluster) // cluster.sync() is not removed
      K.Existing.push_back(change(B.Item, B.Kind));
  K.After = K.Before;
  std::set<Var> Chosen;
  std::set<unsigned> Removed; // divergent barriers of the programmer's
  bool Changed = K.Before.Races || K.Before.Divergent;

  while (K.After.Races || K.After.Divergent) {
    if (secondsLeft() <= 0) {
      K.Problems.push_back(fmt::format(
          "the kernel's time limit ({} s) ran out after {} round(s)",
          O.KernelSeconds, K.Rounds));
      break;
    }
    if (++K.Rounds > O.MaxRounds) {
      K.Problems.push_back(fmt::format(
          "no verified barrier set after {} rounds", O.MaxRounds));
      break;
    }
    const race::KernelReport &R = K.After;
    bool Learned = false;
    for (const race::BarrierResult &B : R.Barriers) {
      if (B.V == race::Verdict::Safe)
        continue;
      if (B.Assumed) {
        Learned |= Forbidden.insert({B.Item, B.Kind}).second;
        Chosen.erase({B.Item, B.Kind});
        for (auto &[Key, Clause] : Clauses)
          Clause.erase({B.Item, B.Kind});
      } else if (B.V == race::Verdict::Race && removable(B.Item)) {
        Learned |= Removed.insert(B.Item).second;
      } else if (B.V == race::Verdict::Race) {
        K.Problems.push_back(fmt::format(
            "divergent barrier at PTX line {} is in a called function",
            B.PtxLine));
      }
    }
    for (const race::PairResult &P : R.Pairs) {
      if (P.V != race::Verdict::Race)
        continue;
      const race::Access &A = R.Accesses[P.First], &B = R.Accesses[P.Second];
      bool Grid = P.Rel == race::Relation::OtherBlocks;
      // Two CTAs of one cluster: cluster.sync() orders them.
      bool Cluster = Grid && P.SameCluster;
      bool Acr = across(R, P);
      PairKey Key{A.Item, B.Item, Grid, Acr};
      auto It = Clauses.find(Key);
      if (It != Clauses.end()) {
        // Its clause held and it still races: the barriers chosen there do
        // not separate it.
        for (auto V = It->second.begin(); V != It->second.end();)
          if (Chosen.count(*V)) {
            V = It->second.erase(V);
            Learned = true;
          } else {
            ++V;
          }
      } else {
        BarrierKind Kind = Cluster ? BarrierKind::Cluster
                           : Grid  ? BarrierKind::Grid
                                   : BarrierKind::CTA;
        std::set<unsigned> Path =
            pathFor(R, P,
                    Cluster ? ir::PairScope::Cluster
                    : Grid  ? ir::PairScope::Grid
                            : ir::PairScope::CTA,
                    Acr);
        std::set<Var> Clause;
        // A cp.async copy: only its wait before a barrier orders it (a
        // barrier alone orders the issue, not the copy).
        bool Copy = !Grid && (groupCopy(A) || groupCopy(B));
        for (unsigned I : Path)
          for (BarrierKind K : {Kind, BarrierKind::Grid})
            if ((K == Kind || Cluster) && !Copy && candidate(I, K, false))
              Clause.insert({I, K});
        // Only positions under thread-dependent conditions: the divergence
        // check decides whether all threads reach them (a condition every
        // thread satisfies, which the uniformity analysis cannot see).
        if (Clause.empty() && !Copy)
          for (unsigned I : Path)
            if (candidate(I, Kind, true))
              Clause.insert({I, Kind});
        // cp.async.wait_all and a block barrier (the copy completes at the
        // wait, the barrier orders the others).
        if (Copy)
          for (unsigned I : Path)
            if (candidate(I, BarrierKind::CopyWait, false))
              Clause.insert({I, BarrierKind::CopyWait});
        // Lanes of one warp: a warp barrier anywhere between them (the
        // check decides whether the warp's lanes all reach it).
        if (P.Rel == race::Relation::SameWarp)
          for (unsigned I : Path)
            if (candidate(I, BarrierKind::Warp, true))
              Clause.insert({I, BarrierKind::Warp});
        It = Clauses.emplace(Key, std::move(Clause)).first;
        Learned = true;
      }
      if (It->second.empty()) {
        // An OpenCL C work-group copy that no wait completes before the
        // other access: barriers cannot help.
        bool WG = ir::workGroupCopyCall(ir::calleeOf(F.inst(A.Item))) ||
                  ir::workGroupCopyCall(ir::calleeOf(F.inst(B.Item)));
        std::string Why =
            Cluster
                ? "threads of two blocks of one cluster race: no position "
                  "between the accesses that every thread of the grid "
                  "reaches for a cluster barrier"
            : Grid && !O.GridLevel
                ? "threads of two blocks race: only a grid barrier orders "
                  "them (--grid-level)"
            : WG && !Grid
                ? "the work-group copy may still be in flight at the other "
                  "access: a wait_group_events on its event (and a barrier "
                  "after it) is needed before that access"
                : "no barrier between the accesses orders them (a fence, an "
                  "atomic or a change to the code is needed)";
        std::string Line = pairText(R, P) + ": " + Why;
        if (std::find(K.Problems.begin(), K.Problems.end(), Line) ==
            K.Problems.end())
          K.Problems.push_back(Line);
      }
    }
    if (!K.Problems.empty())
      break;
    if (!Learned) {
      K.Problems.push_back("the race checker reports the same races for "
                           "every barrier set tried");
      break;
    }
    std::optional<std::set<Var>> S = solve();
    if (!S) {
      K.Problems.push_back("the solver found no barrier set for the races");
      break;
    }
    Chosen = std::move(*S);
    K.After = check(Chosen, Removed, true);
  }

  if (K.Problems.empty() && Changed && O.Remove)
    removeUnneeded(K, Chosen, Removed);
  else if (K.Problems.empty() && O.Remove && verified(K.After))
    removeUnneeded(K, Chosen, Removed);

  for (unsigned Item : Removed) {
    bool Listed = false;
    for (const Change &C : K.Removed)
      Listed |= C.Item == Item || C.GridStart == Item;
    if (!Listed) {
      Change C = change(Item, BarrierKind::CTA);
      C.Why = "divergent";
      K.Removed.push_back(C);
    }
  }
  std::sort(K.Removed.begin(), K.Removed.end(),
            [](const Change &A, const Change &B) { return A.Item < B.Item; });
  std::set<Var> Settled;
  for (const Var &V : Chosen)
    Settled.insert({settle(V.first, K.After), V.second});
  if (K.Problems.empty() && Settled != Chosen) {
    race::KernelReport SR = check(Settled, Removed);
    if (verified(SR)) {
      Chosen = std::move(Settled);
      K.After = std::move(SR);
    }
  }
  for (const Var &V : Chosen) {
    K.Added.push_back(change(V.first, V.second));
    K.AddedCost += K.Added.back().Cost;
  }
  K.Checks = Checks;
  if (!K.Problems.empty())
    K.Result = Outcome::Unrepairable;
  else if (K.Added.empty() && K.Removed.empty())
    K.Result = Outcome::Clean;
  else
    K.Result = Outcome::Repaired;
  return K;
}

} // namespace

KernelRepair repairKernel(const ptx::Module &M, const ir::FunctionIR &F,
                          const std::vector<ir::Origin> &Origins,
                          const Options &O) {
  Repairer R(M, F, Origins, O);
  return R.run();
}

ModuleRepair repairModule(const ptx::Module &Given, const Options &O) {
  ModuleRepair MR;
  // Kernels and their changes are found again by name: a module that
  // defines one name twice (ptxas and ptx::checkModule refuse it) has no
  // repair that can be applied to it.
  if (const ptx::Function *Again = ptx::redefinition(Given).first) {
    MR.Error = fmt::format("function '{}' is defined twice", Again->Name);
    return MR;
  }
  ir::Inlined In = ir::inlineCalls(Given, 8, 200000, O.Race.CallTargets);
  ir::ModuleIR IR(In.M);
  static const std::vector<ir::Origin> None;
  bool Found = false;
  for (const ir::FunctionIR &F : IR.functions()) {
    if (!F.function().IsEntry)
      continue;
    if (!O.Race.Kernel.empty() && !ir::kernelNameMatches(F.name(), O.Race.Kernel))
      continue;
    Found = true;
    auto Orig = In.Origins.find(F.name());
    // The host code's launches: one that covers them all.
    Options OK = O;
    std::string Launch;
    if (auto Known = O.Race.HostLaunches.find(F.name());
        Known != O.Race.HostLaunches.end() && !Known->second.empty()) {
      race::KnownLaunch C = race::commonLaunch(Known->second);
      OK.Race.Launch = C.Launch;
      Launch = C.Description;
    }
    MR.Kernels.push_back(repairKernel(
        In.M, F, Orig == In.Origins.end() ? None : Orig->second, OK));
    MR.Kernels.back().Launch = Launch;
    // A barrier removed with its call: the call's line in the module given.
    for (Change &C : MR.Kernels.back().Removed) {
      const ptx::Function *Fn = ir::definitionOf(Given, C.OriginFunction);
      if (Fn && C.OriginItem < Fn->Body.size())
        if (const auto *I = std::get_if<ptx::Instruction>(&Fn->Body[C.OriginItem]))
          C.PtxLine = I->Range.Begin.Line;
    }
  }
  if (!Found)
    MR.Error = ir::noKernelNamed(IR, O.Race.Kernel);
  return MR;
}

} // namespace incant::repair
