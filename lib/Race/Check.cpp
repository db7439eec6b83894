//===- Check.cpp - Pairs of accesses, barriers, and their verdicts --------===//
#include "Encoder.h"
#include "incant/IR/Inliner.h"
#include "incant/IR/MemoryEvents.h"
#include "incant/IR/Summary.h"
#include "incant/Race/Race.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <functional>
#include <memory>
#include <map>
#include <set>

namespace incant::race {

using ir::ExprId;
using ir::NoExpr;
using ir::NoNode;
using ir::PairScope;
using ptx::AddrSpace;
using smt::Expr;

const char *verdictName(Verdict V) {
  switch (V) {
  case Verdict::Safe: return "safe";
  case Verdict::Race: return "race";
  case Verdict::Unknown: return "unknown";
  }
  return "?";
}

const char *relationName(Relation R) {
  switch (R) {
  case Relation::SameWarp: return "same warp";
  case Relation::SameBlock: return "same block";
  case Relation::OtherBlocks: return "different blocks";
  }
  return "?";
}

std::vector<unsigned> KernelReport::unproved() const {
  std::vector<unsigned> Out;
  for (unsigned I = 0; I < Accesses.size(); ++I)
    if (!Accesses[I].Proved)
      Out.push_back(I);
  return Out;
}

namespace {

std::string spaceName(AddrSpace S) {
  const char *N = ptx::addrSpaceName(S);
  return *N ? std::string(N + 1) : std::string("generic");
}

bool racySpace(AddrSpace S) {
  return S == AddrSpace::Global || S == AddrSpace::Shared ||
         S == AddrSpace::SharedCluster || S == AddrSpace::Generic;
}

bool sharedSpace(AddrSpace S) { return S == AddrSpace::Shared; }

/// Whether an operation of scope \p S includes two threads related by R.
bool scopeIncludes(ptx::Scope S, Relation R) {
  if (S == ptx::Scope::None)
    return false;
  if (R == Relation::OtherBlocks)
    return S == ptx::Scope::GPU || S == ptx::Scope::Sys;
  return true;
}

const char *scopeText(ptx::Scope S) {
  switch (S) {
  case ptx::Scope::CTA: return "cta";
  case ptx::Scope::Cluster: return "cluster";
  case ptx::Scope::GPU: return "gpu";
  case ptx::Scope::Sys: return "sys";
  default: return "";
  }
}

/// One kernel's check.
class Checker {
public:
  Checker(const ptx::Module &M, const ir::FunctionIR &F, const Options &Opts)
      : M(M), F(F), O(Opts), TV(M, F, Pool), U(F) {
    collectBarriers();
    collectAccesses();
    assumeDimensions();
    Main = std::make_unique<Solving>(TV, O.Launch, O.TimeoutMs);
  }

  KernelReport run();

private:
  /// An encoder and the solver its formulas go to.
  struct Solving {
    Encoder Enc;
    smt::Solver S;
    Solving(ir::ThreadValues &TV, const LaunchConfig &L, unsigned Ms)
        : Enc(TV, L), S(smt::Limits{Ms, 0}) {
      for (const Expr &E : Enc.launchFacts())
        S.add(E);
    }
  };
  /// A query's answer; with Sat, a model that is exact, and the encoder it
  /// belongs to.
  struct Solved {
    smt::Result Res;
    Solving *By = nullptr;
    std::unique_ptr<Solving> Own;
  };
  using Builder = std::function<std::vector<Expr>(Encoder &)>;
  Solved solve(const Builder &Build);
  LaunchConfig launchOf(const smt::Model &Mo, Encoder &E);
  struct Item {
    ir::MemoryAccess A;
    bool Call = false;
    /// Part of a recognised grid.sync(): its own synchronisation.
    bool GridSync = false;
  };
  struct Outcome {
    Verdict V = Verdict::Safe;
    std::string Reason;
    std::optional<Witness> W;
    Relation Rel = Relation::SameBlock;
    std::vector<unsigned> Sources;
  };

  void assumeDimensions();
  void collectAccesses();
  void collectBarriers();
  void checkPair(unsigned I, unsigned J);
  Outcome query(unsigned I, unsigned J, Relation R, bool AnyWarp,
                bool WithAddress);
  Expr contexts(Encoder &Enc, unsigned I, unsigned J,
                const ir::BarrierIntervals &BI, std::vector<unsigned> &Sources,
                std::set<unsigned> &Loops);
  Expr relationFacts(Encoder &Enc, Relation R, bool AnyWarp);
  Expr sharing(Encoder &Enc, const std::vector<ExprId> &ExprsA,
               const std::vector<ExprId> &ExprsB, Relation R);
  std::vector<unsigned> loopsOf(unsigned Item, const std::vector<ExprId> &Es);
  void flush(Solving &Sv);
  Witness witness(Encoder &Enc, const smt::Model &Mo, unsigned ItemA, unsigned ItemB,
                  ExprId OffA, ExprId OffB, const std::vector<ExprId> &ExprsA,
                  const std::vector<ExprId> &ExprsB);
  void fillThread(Encoder &Enc, const smt::Model &Mo, unsigned T, unsigned Item, ExprId Off,
                  const std::vector<ExprId> &Es, ThreadWitness &W,
                  std::vector<std::pair<std::string, int64_t>> &Params);
  std::string memorySync(unsigned I, unsigned J, Relation R);
  /// Loads (index into Items) whose values the expressions mention.
  std::vector<std::pair<unsigned, unsigned>>
  loadsIn(const std::vector<ExprId> &Es);
  /// Two loads of one location return one value: always for memory the
  /// kernel never writes; with \p SameThread, also for two loads by one
  /// thread with no write by it to that memory between them.
  Expr consistency(Encoder &Enc, const std::vector<ExprId> &EA,
                   const std::vector<ExprId> &EB, bool SameThread);
  void checkBarrier(BarrierResult &B, const ir::Barrier &Bar);
  bool reaches(unsigned From, unsigned To);
  /// Block \p To is reachable from block \p From without a back edge.
  bool forwardReaches(unsigned From, unsigned To);
  Expr skipped(Encoder &Enc, unsigned T, unsigned Item, unsigned SourceItem,
               const ir::BarrierIntervals &BI,
               const ir::BarrierIntervals::Reach &RR);
  uint32_t lineOf(unsigned Item) const;
  std::string whereText(unsigned Item) const;
  const ir::BarrierIntervals &intervals(Relation R) const {
    return R == Relation::SameWarp    ? *Warp
           : R == Relation::SameBlock ? *Cta
                                      : *Grid;
  }
  bool multiBlock() const {
    for (const auto &D : O.Launch.Grid)
      if (D != std::optional<int64_t>(1))
        return true;
    return false;
  }
  bool multiThread() const {
    for (const auto &D : O.Launch.Block)
      if (D != std::optional<int64_t>(1))
        return true;
    return false;
  }

  const ptx::Module &M;
  const ir::FunctionIR &F;
  Options O; ///< With the launch assumptions filled in.
  ir::ExprPool Pool;
  ir::ThreadValues TV;
  ir::Uniformity U;
  std::unique_ptr<Solving> Main;
  KernelReport R;
  std::vector<Item> Items;
  std::vector<ir::Barrier> Bars;
  std::unique_ptr<ir::BarrierIntervals> Warp, Cta, Grid;
  bool HasWarpBarriers = false;
  std::vector<std::vector<char>> BlockReach, FwdReach;
  /// Per Items index: the memory the kernel never writes.
  std::vector<char> ReadOnly;
  /// Body index of a load -> its index in Items.
  std::map<unsigned, unsigned> LoadAt;
  std::string CallNote;
};

uint32_t Checker::lineOf(unsigned Item) const {
  // Code the inliner made has no position: that of what precedes it.
  for (unsigned I = Item + 1; I-- > 0;) {
    uint32_t L = std::visit([](const auto &N) { return N.Range.Begin.Line; },
                            F.function().Body[I]);
    if (L)
      return L;
  }
  return 0;
}

std::string Checker::whereText(unsigned Item) const {
  const ir::DebugLoc &L = F.loc(Item);
  if (const ir::SourceFrame *Fr = L.userFrame()) {
    std::string File = Fr->File;
    size_t Slash = File.find_last_of('/');
    if (Slash != std::string::npos)
      File = File.substr(Slash + 1);
    return fmt::format("{}:{}", File.empty() ? "?" : File, Fr->Line);
  }
  return fmt::format("PTX line {}", lineOf(Item));
}

//===-- Collecting --------------------------------------------------------===//

void Checker::assumeDimensions() {
  if (!O.UnreadDimensionsAreOne)
    return;
  // Which ids and sizes the kernel's accesses and barriers depend on (not
  // merely read: inlined built-ins read all three dimensions).
  std::set<std::pair<ir::SymKind, unsigned>> Used;
  auto Note = [&](ExprId E) {
    if (E == NoExpr)
      return;
    for (unsigned Y : Pool.symbolsOf(E))
      Used.insert({Pool.symbol(Y).K, Pool.symbol(Y).Dim});
  };
  for (const Item &It : Items) {
    Note(It.A.Offset);
    Note(It.A.Address);
    if (F.isInstruction(It.A.Item))
      Note(TV.execCond(It.A.Item));
  }
  for (const ir::Barrier &B : Bars)
    Note(B.Assumed ? TV.pathCond(F.blockOf(B.Item)) : TV.execCond(B.Item));
  for (const ir::LoopVarInfo &V : TV.loopVars()) {
    Note(V.Init);
    Note(V.Update);
  }
  static const char *Dims[] = {"x", "y", "z"};
  // x stays open: a kernel that never uses %tid.x is still launched with
  // many threads, and all of them do its work.
  for (unsigned D = 1; D < 3; ++D) {
    std::string X = Dims[D];
    if (!O.Launch.Block[D] && !Used.count({ir::SymKind::Tid, D}) &&
        !Used.count({ir::SymKind::Ntid, D})) {
      O.Launch.Block[D] = 1;
      R.Assumptions.push_back(fmt::format(
          "blockDim.{} = 1: no access or barrier depends on %tid.{} or %ntid.{}",
          X, X, X));
    }
    if (!O.Launch.Grid[D] && !Used.count({ir::SymKind::Ctaid, D}) &&
        !Used.count({ir::SymKind::Nctaid, D})) {
      O.Launch.Grid[D] = 1;
      R.Assumptions.push_back(fmt::format(
          "gridDim.{} = 1: no access or barrier depends on %ctaid.{} or "
          "%nctaid.{}",
          X, X, X));
    }
  }
}

void Checker::collectAccesses() {
  for (ir::MemoryAccess &A : ir::memoryAccesses(TV)) {
    Access X;
    X.Item = A.Item;
    X.Part = A.Part;
    X.PtxLine = A.Event.PtxLine;
    X.Loc = A.Event.Loc;
    X.Text = A.Event.Text;
    X.Reads = A.Reads;
    X.Writes = A.Writes;
    X.Atomic = A.Atomic;
    X.Volatile = A.Volatile;
    X.Strong = A.Strong;
    X.Sem = A.Event.Sem;
    X.Scope = A.Strong ? scopeText(A.Scope) : A.Event.Scope;
    X.Space = spaceName(A.Space);
    X.Object = A.Object.Name;
    X.Offset = A.Offset == NoExpr ? "" : Pool.str(A.Offset);
    X.Bytes = A.Bytes;
    X.Affine = A.Affine && A.Bytes != 0;
    X.Why = A.Affine && A.Bytes == 0 ? "the access size is not known" : A.Why;
    bool Sync = false;
    for (const ir::Barrier &B : Bars)
      if (B.Kind == ir::BarrierKind::Grid && A.Item > B.GridStart &&
          A.Item < B.Item && F.dominates(B.GridStart, A.Item))
        Sync = true;
    if (Sync)
      X.Why = "part of grid.sync()";
    R.Accesses.push_back(X);
    Items.push_back({std::move(A), false, Sync});
  }
  // Calls: what the callee does is not followed; one that may touch memory
  // counts as an access of unknown address that reads and writes.
  std::set<std::string> Quiet;
  for (unsigned I : F.instructions()) {
    const ptx::Instruction &In = F.inst(I);
    if (In.Op != ptx::Opcode::Call)
      continue;
    std::optional<ir::SummaryEvent> E = ir::summaryEvent(F, I);
    std::string Callee = E ? E->Op : "?";
    const ptx::Function *Fn = ir::definitionOf(M, Callee);
    bool Touches = true, Barrier = false;
    if (Fn && Fn->HasBody) {
      Touches = false;
      for (const ptx::BodyItem &B : Fn->Body)
        if (const auto *CI = std::get_if<ptx::Instruction>(&B)) {
          switch (CI->Op) {
          case ptx::Opcode::Bar:
          case ptx::Opcode::BarWarp:
            Barrier = true;
            break;
          case ptx::Opcode::Ld:
          case ptx::Opcode::Ldu:
            Touches |= CI->ASpace != AddrSpace::Param &&
                       CI->ASpace != AddrSpace::Local &&
                       CI->ASpace != AddrSpace::Const;
            break;
          case ptx::Opcode::St:
            Touches |= CI->ASpace != AddrSpace::Param &&
                       CI->ASpace != AddrSpace::Local;
            break;
          case ptx::Opcode::Atom:
          case ptx::Opcode::Red:
          case ptx::Opcode::Call:
          case ptx::Opcode::CpAsync:
            Touches = true;
            break;
          default:
            break;
          }
        }
    } else if (Fn && !Fn->HasBody && Callee.rfind("vprintf", 0) == 0) {
      Touches = false; // printf's buffer is not the program's memory
    }
    if (Barrier)
      CallNote = fmt::format("the call to {} at {} contains a barrier, which "
                             "the analysis does not follow",
                             Callee, whereText(I));
    if (!Touches && !Barrier)
      continue;
    Access X;
    X.Item = I;
    X.PtxLine = lineOf(I);
    X.Loc = F.loc(I);
    X.Text = ptx::printInstruction(In);
    X.Reads = X.Writes = true;
    X.Space = "generic";
    X.Why = fmt::format("a call to {}, whose accesses are not followed", Callee);
    R.Accesses.push_back(X);
    ir::MemoryAccess A;
    A.Item = I;
    A.Reads = A.Writes = true;
    A.Space = AddrSpace::Generic;
    A.Why = X.Why;
    Items.push_back({std::move(A), true});
  }
  if (!CallNote.empty())
    R.Notes.push_back(CallNote);
}

void Checker::collectBarriers() {
  Bars = ir::findBarriers(F, TV);
  for (ir::Barrier &B : Bars)
    if (O.Removed.count(B.Item)) {
      B.Kind = ir::BarrierKind::NoOrder;
      B.Note = "assumed removed";
    }
  for (const AssumedBarrier &A : O.Extra) {
    if (!F.isInstruction(A.Item))
      continue;
    ir::Barrier B;
    B.Item = A.Item;
    B.Kind = A.Kind;
    B.Assumed = true;
    Bars.push_back(B);
  }
  std::sort(Bars.begin(), Bars.end(), [](const ir::Barrier &A, const ir::Barrier &B) {
    return A.Item != B.Item ? A.Item < B.Item : A.Assumed > B.Assumed;
  });
  for (const ir::Barrier &B : Bars)
    HasWarpBarriers |= B.Kind == ir::BarrierKind::Warp;
  Warp = std::make_unique<ir::BarrierIntervals>(F, Bars, PairScope::Warp);
  Cta = std::make_unique<ir::BarrierIntervals>(F, Bars, PairScope::CTA);
  Grid = std::make_unique<ir::BarrierIntervals>(F, Bars, PairScope::Grid);
}

//===-- Encoding helpers --------------------------------------------------===//

void Checker::flush(Solving &Sv) {
  for (const Expr &E : Sv.Enc.takeSideConditions())
    Sv.S.add(E);
  for (const Expr &E : Sv.Enc.lemmas())
    Sv.S.add(E);
  for (const Expr &E : Sv.Enc.takeSideConditions())
    Sv.S.add(E);
}

LaunchConfig Checker::launchOf(const smt::Model &Mo, Encoder &E) {
  LaunchConfig L = O.Launch;
  for (unsigned D = 0; D < 3; ++D) {
    L.Block[D] = Mo.evalInt(E.ntid(D)).value_or(1);
    L.Grid[D] = Mo.evalInt(E.nctaid(D)).value_or(1);
  }
  for (unsigned Y = 0; Y < Pool.symbolCount(); ++Y) {
    const ir::Symbol &Sym = Pool.symbol(Y);
    if (Sym.K != ir::SymKind::Param)
      continue;
    std::string Key = Sym.Offset ? Sym.Name + "+" + std::to_string(Sym.Offset)
                                 : Sym.Name;
    if (!L.Params.count(Key))
      L.Params[Key] = Mo.evalInt(E.symbolVar(Frame{0, NoNode}, Y)).value_or(0);
  }
  return L;
}

Checker::Solved Checker::solve(const Builder &Build) {
  Solved Out;
  Solving &Mn = *Main;
  std::vector<Expr> Q = Build(Mn.Enc);
  flush(Mn);
  Mn.S.push();
  for (const Expr &E : Q)
    Mn.S.add(E);
  Out.Res = Mn.S.check();
  Out.By = &Mn;

  // A model of the linear relaxation may not multiply correctly: solve
  // again with that model's geometry and parameters as constants, which
  // makes most products linear; else try another geometry.
  for (unsigned Try = 0; Try < 3 && Out.Res.isSat() &&
                         !Mn.Enc.validModel(Out.Res.model());
       ++Try) {
    LaunchConfig L = launchOf(Out.Res.model(), Mn.Enc);
    auto Conc = std::make_unique<Solving>(TV, L, O.TimeoutMs);
    std::vector<Expr> Q2 = Build(Conc->Enc);
    flush(*Conc);
    for (const Expr &E : Q2)
      Conc->S.add(E);
    smt::Result R2 = Conc->S.check();
    if (R2.isSat() && Conc->Enc.validModel(R2.model())) {
      Out.Res = R2;
      Out.By = Conc.get();
      Out.Own = std::move(Conc);
      Mn.S.pop();
      return Out;
    }
    // Not with this geometry and these parameters: another one.
    std::vector<Expr> Same;
    for (unsigned D = 0; D < 3; ++D) {
      Same.push_back(Mn.Enc.ntid(D).eq(Expr::mkInt(*L.Block[D])));
      Same.push_back(Mn.Enc.nctaid(D).eq(Expr::mkInt(*L.Grid[D])));
    }
    for (unsigned Y = 0; Y < Pool.symbolCount(); ++Y)
      if (Pool.symbol(Y).K == ir::SymKind::Param) {
        const ir::Symbol &Sym = Pool.symbol(Y);
        std::string Key = Sym.Offset ? Sym.Name + "+" + std::to_string(Sym.Offset)
                                     : Sym.Name;
        Same.push_back(Mn.Enc.symbolVar(Frame{0, NoNode}, Y)
                           .eq(Expr::mkInt(L.Params[Key])));
      }
    Mn.S.add(!Expr::mkAnd(Same));
    Out.Res = Mn.S.check();
  }
  if (Out.Res.isSat() && !Mn.Enc.validModel(Out.Res.model()))
    Out.Res = smt::Result::unknown(
        "no witness found with the products of unknowns made linear");
  Mn.S.pop();
  return Out;
}

Expr Checker::relationFacts(Encoder &Enc, Relation Rel, bool AnyWarp) {
  std::vector<Expr> Same, Diff;
  for (unsigned D = 0; D < 3; ++D) {
    Expr CA = Enc.ctaid(0, D), CB = Enc.ctaid(1, D);
    Same.push_back(CA.eq(CB));
    Diff.push_back(CA.ne(CB));
  }
  if (Rel == Relation::OtherBlocks)
    return Expr::mkOr(Diff);
  std::vector<Expr> TidDiff;
  for (unsigned D = 0; D < 3; ++D)
    TidDiff.push_back(Enc.tid(0, D).ne(Enc.tid(1, D)));
  Expr F = Expr::mkAnd(Same) && Expr::mkOr(TidDiff);
  if (AnyWarp)
    return F;
  Expr SameWarp = Enc.warp(0).eq(Enc.warp(1));
  return F && (Rel == Relation::SameWarp ? SameWarp : !SameWarp);
}

std::vector<unsigned> Checker::loopsOf(unsigned Item,
                                       const std::vector<ExprId> &Es) {
  std::set<unsigned> Ls;
  const auto &Loops = F.loops().loops();
  unsigned Blk = F.blockOf(Item);
  for (unsigned L = 0; L < Loops.size(); ++L)
    if (Loops[L].contains(Blk))
      Ls.insert(L);
  for (ExprId E : Es)
    for (unsigned Sym : Pool.symbolsOf(E)) {
      const ir::Symbol &Y = Pool.symbol(Sym);
      if (Y.K == ir::SymKind::Iter || Y.K == ir::SymKind::LoopVar)
        Ls.insert(Y.Loop);
    }
  return {Ls.begin(), Ls.end()};
}

Expr Checker::contexts(Encoder &Enc, unsigned I, unsigned J,
                       const ir::BarrierIntervals &BI,
                       std::vector<unsigned> &Sources,
                       std::set<unsigned> &Used) {
  const auto &Loops = F.loops().loops();
  unsigned IX = Items[I].A.Item, IY = Items[J].A.Item;
  unsigned BX = F.blockOf(IX), BY = F.blockOf(IY);
  std::vector<Expr> Alts;
  for (const auto &RX : BI.reach(IX))
    for (const auto &RY : BI.reach(IY)) {
      if (RX.Source != RY.Source)
        continue;
      unsigned Src = BI.sources()[RX.Source];
      if (std::find(Sources.begin(), Sources.end(), Src) == Sources.end())
        Sources.push_back(Src);
      const std::vector<unsigned> &SL = BI.sourceLoops(RX.Source);
      std::vector<Expr> C;
      for (unsigned L = 0; L < Loops.size(); ++L) {
        if (!BI.synchronised(L))
          continue;
        bool InX = Loops[L].contains(BX), InY = Loops[L].contains(BY);
        auto Pos = std::find(SL.begin(), SL.end(), L);
        if (Pos == SL.end()) {
          // The source is outside: the first iteration.
          if (InX)
            C.push_back(Enc.iter(0, L).eq(Expr::mkInt(0)));
          if (InY)
            C.push_back(Enc.iter(1, L).eq(Expr::mkInt(0)));
          continue;
        }
        // The source's loop: each access is in the source's iteration or
        // the next one (after the back edge). For an access after the loop
        // the counter is that of the iteration it left in.
        unsigned Bit = static_cast<unsigned>(Pos - SL.begin());
        int64_t DX = RX.Crossed >> Bit & 1, DY = RY.Crossed >> Bit & 1;
        C.push_back((Enc.iter(0, L) - Expr::mkInt(DX))
                        .eq(Enc.iter(1, L) - Expr::mkInt(DY)));
        // An access after the loop: its thread left in that iteration.
        if (!InX)
          C.push_back(!Enc.encode(Frame{0, NoNode}, TV.backEdgeCond(L)));
        if (!InY)
          C.push_back(!Enc.encode(Frame{1, NoNode}, TV.backEdgeCond(L)));
        Used.insert(L);
      }
      C.push_back(skipped(Enc, 0, IX, Src, BI, RX));
      C.push_back(skipped(Enc, 1, IY, Src, BI, RY));
      Alts.push_back(Expr::mkAnd(C));
    }
  return Expr::mkOr(Alts);
}

bool Checker::forwardReaches(unsigned From, unsigned To) {
  unsigned NB = static_cast<unsigned>(F.blocks().size());
  if (FwdReach.empty()) {
    FwdReach.assign(NB, std::vector<char>(NB, 0));
    const ir::DominatorTree &DT = F.dominators();
    for (unsigned B = 0; B < NB; ++B) {
      std::vector<unsigned> Work = {B};
      while (!Work.empty()) {
        unsigned X = Work.back();
        Work.pop_back();
        if (FwdReach[B][X])
          continue;
        FwdReach[B][X] = 1;
        for (unsigned Y : F.cfg().succs(X))
          if (!(DT.reachable(X) && DT.dominates(Y, X))) // not a back edge
            Work.push_back(Y);
      }
    }
  }
  return FwdReach[From][To] != 0;
}

Expr Checker::skipped(Encoder &Enc, unsigned T, unsigned Item,
                      unsigned SourceItem, const ir::BarrierIntervals &BI,
                      const ir::BarrierIntervals::Reach &RR) {
  // A synchronised loop that lies between the source and the access, on a
  // way the thread did not take (it skipped the loop): the thread's entry
  // condition of that loop is false. Only where the source, the access and
  // the loop share their enclosing loop and the way crossed no back edge
  // of it, so that "between" means one pass.
  const auto &Loops = F.loops().loops();
  unsigned BZ = F.blockOf(Item);
  unsigned BS = SourceItem == NoNode ? F.entry() : F.blockOf(SourceItem);
  unsigned Encl = SourceItem == NoNode ? NoNode : F.loops().loopFor(BS);
  if (F.loops().loopFor(BZ) != Encl)
    return Expr::mkBool(true);
  if (Encl != NoNode) {
    const std::vector<unsigned> &SL = BI.sourceLoops(RR.Source);
    auto Pos = std::find(SL.begin(), SL.end(), Encl);
    if (Pos == SL.end() || (RR.Crossed >> (Pos - SL.begin()) & 1))
      return Expr::mkBool(true);
  }
  std::vector<Expr> C;
  const std::vector<unsigned> &EL = BI.enteredLoops();
  for (unsigned K = 0; K < EL.size(); ++K) {
    unsigned L = EL[K];
    if (RR.Entered >> K & 1 || Loops[L].contains(BZ) || Loops[L].contains(BS) ||
        Loops[L].Parent != Encl)
      continue;
    // Between: the source reaches its header, and its exits reach the
    // access, without a back edge.
    if (!forwardReaches(BS, Loops[L].Header))
      continue;
    bool After = false;
    for (unsigned N : Loops[L].Nodes)
      for (unsigned S : F.cfg().succs(N))
        After |= !Loops[L].contains(S) && forwardReaches(S, BZ);
    if (After)
      C.push_back(!Enc.encode(Frame{T, NoNode}, TV.loopEntryCond(L)));
  }
  return Expr::mkAnd(C);
}

Expr Checker::sharing(Encoder &Enc, const std::vector<ExprId> &ExprsA,
                      const std::vector<ExprId> &ExprsB, Relation Rel) {
  // A loop-carried value the uniformity analysis calls uniform is the same
  // for both threads in the same iteration of its loop (and of the loops
  // around it): link every pair of instances the formulas made.
  (void)ExprsA;
  (void)ExprsB;
  ir::Variance Need = Rel == Relation::OtherBlocks ? ir::Variance::Grid
                                                   : ir::Variance::Block;
  const auto &Loops = F.loops().loops();
  std::vector<Expr> Out;
  const auto &Inst = Enc.loopVarInstances();
  for (const auto &A : Inst) {
    if (A.Fr.Thread != 0)
      continue;
    const ir::Symbol &Sym = Pool.symbol(A.Sym);
    if (U.reg(Sym.Reg) > Need ||
        (A.Fr.ShiftLoop != NoNode && A.Fr.ShiftLoop != Sym.Loop))
      continue;
    for (const auto &B : Inst) {
      if (B.Fr.Thread != 1 || B.Sym != A.Sym ||
          (B.Fr.ShiftLoop != NoNode && B.Fr.ShiftLoop != Sym.Loop))
        continue;
      std::vector<Expr> Eq = {A.Iter.eq(B.Iter)};
      for (unsigned L = 0; L < Loops.size(); ++L)
        if (L != Sym.Loop && Loops[L].contains(Loops[Sym.Loop].Header))
          Eq.push_back(Enc.iter(0, L).eq(Enc.iter(1, L)));
      Out.push_back(Expr::mkAnd(Eq).implies(A.Var.eq(B.Var)));
    }
  }
  return Expr::mkAnd(Out);
}

std::vector<std::pair<unsigned, unsigned>>
Checker::loadsIn(const std::vector<ExprId> &Es) {
  std::vector<std::pair<unsigned, unsigned>> Out; // (symbol, Items index)
  std::set<unsigned> Syms;
  for (ExprId E : Es)
    for (unsigned Y : Pool.symbolsOf(E))
      Syms.insert(Y);
  for (unsigned Y : Syms) {
    const ir::Symbol &S = Pool.symbol(Y);
    if (S.K != ir::SymKind::Opaque || S.Part != 0)
      continue;
    auto It = LoadAt.find(S.Item);
    if (It != LoadAt.end())
      Out.emplace_back(Y, It->second);
  }
  return Out;
}

Expr Checker::consistency(Encoder &Enc, const std::vector<ExprId> &EA,
                          const std::vector<ExprId> &EB, bool SameThread) {
  std::vector<std::pair<unsigned, unsigned>> LA = loadsIn(EA), LB = loadsIn(EB);
  std::vector<std::pair<unsigned, std::pair<unsigned, unsigned>>> All;
  for (const auto &L : LA)
    All.push_back({0, L});
  for (const auto &L : LB)
    All.push_back({1, L});
  std::vector<Expr> Out;
  for (size_t P = 0; P < All.size(); ++P)
    for (size_t Q = P + 1; Q < All.size(); ++Q) {
      auto [TP, LP] = All[P];
      auto [TQ, LQ] = All[Q];
      const ir::MemoryAccess &AP = Items[LP.second].A, &AQ = Items[LQ.second].A;
      if (!(AP.Object == AQ.Object) || !AP.Affine || !AQ.Affine ||
          AP.Object.K == ir::ObjectKind::Unknown || AP.Bytes != AQ.Bytes)
        continue;
      bool Ok = ReadOnly[LP.second];
      if (!Ok && SameThread && TP == TQ && LP.first != LQ.first) {
        // No write by the thread to that memory between the two reads.
        Ok = true;
        unsigned I1 = AP.Item, I2 = AQ.Item;
        for (const Item &W : Items)
          if (W.A.Writes && (W.Call || W.A.Object == AP.Object) &&
              ((reaches(I1, W.A.Item) && reaches(W.A.Item, I2)) ||
               (reaches(I2, W.A.Item) && reaches(W.A.Item, I1))))
            Ok = false;
      }
      if (!Ok)
        continue;
      Frame FP{TP, NoNode}, FQ{TQ, NoNode};
      Expr OP = Enc.encode(FP, AP.Offset), OQ = Enc.encode(FQ, AQ.Offset);
      Expr VP = Enc.symbolVar(FP, LP.first), VQ = Enc.symbolVar(FQ, LQ.first);
      if (VP.sort() == VQ.sort())
        Out.push_back(OP.eq(OQ).implies(VP.eq(VQ)));
    }
  return Expr::mkAnd(Out);
}

//===-- Pairs -------------------------------------------------------------===//

Checker::Outcome Checker::query(unsigned I, unsigned J, Relation Rel,
                                bool AnyWarp, bool WithAddress) {
  Outcome Out;
  Out.Rel = Rel;
  const ir::MemoryAccess &X = Items[I].A, &Y = Items[J].A;
  const ir::BarrierIntervals &BI = AnyWarp ? *Cta : intervals(Rel);
  if (!BI.mayShareInterval(X.Item, Y.Item)) {
    Out.Reason = Rel == Relation::OtherBlocks
                     ? "separated by a grid-wide barrier"
                     : "ordered by a barrier";
    return Out;
  }
  ExprId PcX = TV.execCond(X.Item), PcY = TV.execCond(Y.Item);
  std::vector<ExprId> EA = {PcX}, EB = {PcY};
  if (WithAddress) {
    EA.push_back(X.Offset);
    EB.push_back(Y.Offset);
  }
  bool First = true;
  bool SameThread = false;
  Builder Build = [&](Encoder &Enc) {
    Frame FA{0, NoNode}, FB{1, NoNode};
    std::vector<Expr> Q;
    Q.push_back(Enc.encode(FA, PcX));
    Q.push_back(Enc.encode(FB, PcY));
    if (WithAddress) {
      Expr OffA = Enc.encode(FA, X.Offset), OffB = Enc.encode(FB, Y.Offset);
      Expr SA = Expr::mkInt(X.Bytes), SB = Expr::mkInt(Y.Bytes);
      Q.push_back(OffA.lt(OffB + SB) && OffB.lt(OffA + SA));
      // Morally strong accesses that overlap completely do not race.
      if (X.Strong && Y.Strong && scopeIncludes(X.Scope, Rel) &&
          scopeIncludes(Y.Scope, Rel) && X.Bytes == Y.Bytes)
        Q.push_back(OffA.ne(OffB));
    }
    Q.push_back(relationFacts(Enc, Rel, AnyWarp));
    std::vector<unsigned> Sources;
    std::set<unsigned> CtxLoops;
    Q.push_back(contexts(Enc, I, J, BI, Sources, CtxLoops));
    if (First)
      Out.Sources = Sources;
    First = false;
    std::vector<unsigned> LA = loopsOf(X.Item, EA), LB = loopsOf(Y.Item, EB);
    LA.insert(LA.end(), CtxLoops.begin(), CtxLoops.end());
    LB.insert(LB.end(), CtxLoops.begin(), CtxLoops.end());
    std::sort(LA.begin(), LA.end());
    LA.erase(std::unique(LA.begin(), LA.end()), LA.end());
    std::sort(LB.begin(), LB.end());
    LB.erase(std::unique(LB.begin(), LB.end()), LB.end());
    for (unsigned L : LA)
      Q.push_back(Enc.iterationExists(0, L));
    for (unsigned L : LB)
      Q.push_back(Enc.iterationExists(1, L));
    Q.push_back(sharing(Enc, EA, EB, Rel));
    Q.push_back(consistency(Enc, EA, EB, SameThread));
    return Q;
  };
  Solved Sv = solve(Build);
  if (Sv.Res.isSat() && (!loadsIn(EA).empty() || !loadsIn(EB).empty())) {
    // The witness depends on loaded values: ask for one where a thread's
    // two reads of one location agree (unless it writes there between).
    SameThread = true;
    Solved Again = solve(Build);
    if (Again.Res.isUnsat()) {
      Out.V = Verdict::Unknown;
      Out.Reason = "a race only if another thread changes a location between "
                   "two reads by one thread (the loaded values decide)";
      return Out;
    }
    if (Again.Res.isSat())
      Sv = std::move(Again);
  }
  if (Sv.Res.isSat()) {
    Encoder &Enc = Sv.By->Enc;
    const smt::Model &Mo = Sv.Res.model();
    Out.V = Verdict::Race;
    Witness W = witness(Enc, Mo, X.Item, Y.Item, WithAddress ? X.Offset : NoExpr,
                        WithAddress ? Y.Offset : NoExpr, EA, EB);
    bool SameCta = W.A.Ctaid == W.B.Ctaid;
    Out.Rel = !SameCta               ? Relation::OtherBlocks
              : W.A.Warp == W.B.Warp ? Relation::SameWarp
                                     : Relation::SameBlock;
    if (O.Witnesses)
      Out.W = std::move(W);
  } else if (Sv.Res.isUnsat()) {
    Out.V = Verdict::Safe;
    Out.Reason = WithAddress ? "the addresses never meet"
                             : "never run by two such threads at once";
  } else {
    Out.V = Verdict::Unknown;
    Out.Reason = "the solver gave up: " + Sv.Res.str();
  }
  return Out;
}

void Checker::checkPair(unsigned I, unsigned J) {
  const ir::MemoryAccess &X = Items[I].A, &Y = Items[J].A;
  if (!X.Writes && !Y.Writes)
    return;
  if (Items[I].GridSync || Items[J].GridSync)
    return;
  if (!racySpace(X.Space) || !racySpace(Y.Space))
    return;
  if (X.Space != AddrSpace::Generic && Y.Space != AddrSpace::Generic &&
      X.Space != Y.Space)
    return;
  bool Known = X.Object.K != ir::ObjectKind::Unknown &&
               Y.Object.K != ir::ObjectKind::Unknown && !Items[I].Call &&
               !Items[J].Call;
  if (Known && !(X.Object == Y.Object))
    return;
  bool SharedMem = sharedSpace(X.Space) || sharedSpace(Y.Space);
  if (!multiThread() && (SharedMem || !multiBlock()))
    return; // one thread per block, and the memory is the block's own
  bool Affine = Known && R.Accesses[I].Affine && R.Accesses[J].Affine;

  PairResult P;
  P.First = I;
  P.Second = J;
  P.Kind = std::string(X.Writes ? "write" : "read") + "-" +
           (Y.Writes ? "write" : "read");
  std::vector<Relation> Rels;
  if (multiThread())
    Rels.push_back(Relation::SameBlock);
  if (!SharedMem && multiBlock())
    Rels.push_back(Relation::OtherBlocks);

  std::vector<Outcome> Outs;
  for (Relation Rel : Rels) {
    if (X.Strong && Y.Strong && scopeIncludes(X.Scope, Rel) &&
        scopeIncludes(Y.Scope, Rel) && X.Bytes == Y.Bytes && !Affine) {
      Outcome Oc;
      Oc.Reason = "morally strong (atomic or scoped strong accesses)";
      Outs.push_back(Oc);
      continue;
    }
    if (Rel == Relation::SameBlock && HasWarpBarriers) {
      // Lanes of one warp and threads of different warps are ordered by
      // different barriers.
      Outs.push_back(query(I, J, Relation::SameWarp, false, Affine));
      Outs.push_back(query(I, J, Relation::SameBlock, false, Affine));
    } else if (Rel == Relation::SameBlock) {
      Outcome Oc = query(I, J, Relation::SameBlock, true, Affine);
      if (Oc.V == Verdict::Race && Oc.Rel == Relation::SameWarp && Affine) {
        // Only lanes of one warp? Then the warp-synchronous idiom.
        Outcome Other = query(I, J, Relation::SameBlock, false, Affine);
        if (Other.V == Verdict::Safe)
          Oc.Reason = "intra-warp only";
        else if (Other.V == Verdict::Race)
          Oc = Other;
      }
      Outs.push_back(Oc);
    } else {
      Outs.push_back(query(I, J, Rel, false, Affine));
    }
  }
  // Combine: a race if any, else unknown if any, else safe.
  const Outcome *Race = nullptr, *Unk = nullptr;
  for (const Outcome &Oc : Outs) {
    if (Oc.V == Verdict::Race && !Race)
      Race = &Oc;
    if (Oc.V == Verdict::Unknown && !Unk)
      Unk = &Oc;
  }
  if (Race && !Affine) {
    // Both may run at once, but the addresses are not known.
    P.V = Verdict::Unknown;
    P.Reason = R.Accesses[I].Affine ? R.Accesses[J].Why : R.Accesses[I].Why;
    if (P.Reason.empty())
      P.Reason = "the addresses are not known";
    P.Rel = Race->Rel;
    P.Sources = Race->Sources;
  } else if (Race) {
    P.V = Verdict::Race;
    P.Rel = Race->Rel;
    P.W = Race->W;
    P.Sources = Race->Sources;
    if (std::string Sync = memorySync(I, J, Race->Rel); !Sync.empty()) {
      P.V = Verdict::Unknown;
      P.Reason = Sync;
    } else if (Race->Reason == "intra-warp only" && X.Item != Y.Item) {
      P.Hint = "the two threads are lanes of one warp: under independent "
               "thread scheduling (sm_70 and later) lanes are not in lockstep, "
               "so this warp-synchronous code needs __syncwarp() between the "
               "accesses";
    } else if (X.Strong && Y.Strong && Race->Rel == Relation::OtherBlocks) {
      P.Hint = "both accesses are atomic or strong, but a .cta scope does not "
               "include threads of other blocks: use gpu scope (atomicAdd "
               "rather than atomicAdd_block)";
    } else if (X.Atomic != Y.Atomic) {
      P.Hint = "an atomic and a plain access to the same location race";
    } else if (Race->Rel == Relation::OtherBlocks) {
      P.Hint = "no barrier orders threads of different blocks";
    }
  } else if (Unk) {
    P.V = Verdict::Unknown;
    P.Reason = Unk->Reason;
    P.Sources = Unk->Sources;
  } else {
    P.V = Verdict::Safe;
    for (const Outcome &Oc : Outs)
      for (unsigned Src : Oc.Sources)
        if (std::find(P.Sources.begin(), P.Sources.end(), Src) == P.Sources.end())
          P.Sources.push_back(Src);
    std::set<std::string> Why;
    for (const Outcome &Oc : Outs)
      Why.insert(Oc.Reason);
    for (const std::string &W : Why)
      P.Reason += (P.Reason.empty() ? "" : "; ") + W;
  }
  R.Pairs.push_back(std::move(P));
}

//===-- Witnesses ---------------------------------------------------------===//

void Checker::fillThread(Encoder &Enc, const smt::Model &Mo, unsigned T,
                         unsigned Item,
                         ExprId Off, const std::vector<ExprId> &Es,
                         ThreadWitness &W,
                         std::vector<std::pair<std::string, int64_t>> &Params) {
  Frame Fr{T, NoNode};
  for (unsigned D = 0; D < 3; ++D) {
    W.Tid[D] = Mo.evalInt(Enc.tid(T, D)).value_or(0);
    W.Ctaid[D] = Mo.evalInt(Enc.ctaid(T, D)).value_or(0);
  }
  int64_t NX = Mo.evalInt(Enc.ntid(0)).value_or(1);
  int64_t NY = Mo.evalInt(Enc.ntid(1)).value_or(1);
  int64_t Linear = W.Tid[0] + NX * (W.Tid[1] + NY * W.Tid[2]);
  W.Warp = Linear / 32;
  W.Lane = Linear % 32;
  const auto &Loops = F.loops().loops();
  std::vector<unsigned> Ls;
  for (unsigned L = 0; L < Loops.size(); ++L)
    if (Loops[L].contains(F.blockOf(Item)))
      Ls.push_back(L);
  std::sort(Ls.begin(), Ls.end(), [&](unsigned A, unsigned B) {
    return Loops[A].Depth < Loops[B].Depth;
  });
  for (unsigned L : Ls) {
    unsigned H = Loops[L].Header;
    uint32_t Line = lineOf(F.blocks()[H].Begin);
    W.Iterations.emplace_back(Line, Mo.evalInt(Enc.iter(T, L)).value_or(0));
  }
  if (Off != NoExpr)
    W.Offset = Mo.evalInt(Enc.encode(Fr, Off)).value_or(0);
  std::set<unsigned> Syms;
  for (ExprId E : Es)
    for (unsigned Y : Pool.symbolsOf(E))
      Syms.insert(Y);
  for (unsigned Y : Syms) {
    const ir::Symbol &Sym = Pool.symbol(Y);
    Expr V = Enc.symbolVar(Fr, Y);
    if (Sym.K == ir::SymKind::Param) {
      std::string Name = Pool.symbolName(Y);
      if (std::none_of(Params.begin(), Params.end(),
                       [&](const auto &P) { return P.first == Name; }))
        Params.emplace_back(Name, Mo.evalInt(V).value_or(0));
    } else if (Sym.K == ir::SymKind::Opaque && !Sym.IsBool) {
      std::string What = Sym.Item < F.function().Body.size()
                             ? fmt::format("{} at {}", Sym.Name, whereText(Sym.Item))
                             : Sym.Name;
      W.Assumed.emplace_back(What, Mo.evalInt(V).value_or(0));
    } else if (Sym.K == ir::SymKind::Opaque) {
      std::string What = Sym.Item < F.function().Body.size()
                             ? fmt::format("{} at {}", Sym.Name, whereText(Sym.Item))
                             : Sym.Name;
      W.Assumed.emplace_back(What, Mo.evalBool(V).value_or(false));
    } else if (Sym.K == ir::SymKind::LoopVar) {
      W.Assumed.emplace_back(
          fmt::format("{} (changed by the loop at PTX line {})", Sym.Name,
                      lineOf(F.blocks()[Loops[Sym.Loop].Header].Begin)),
          Mo.evalInt(V).value_or(0));
    }
  }
}

Witness Checker::witness(Encoder &Enc, const smt::Model &Mo, unsigned ItemA,
                         unsigned ItemB,
                         ExprId OffA, ExprId OffB,
                         const std::vector<ExprId> &ExprsA,
                         const std::vector<ExprId> &ExprsB) {
  Witness W;
  for (unsigned D = 0; D < 3; ++D) {
    W.BlockDim[D] = Mo.evalInt(Enc.ntid(D)).value_or(1);
    W.GridDim[D] = Mo.evalInt(Enc.nctaid(D)).value_or(1);
  }
  fillThread(Enc, Mo, 0, ItemA, OffA, ExprsA, W.A, W.Params);
  fillThread(Enc, Mo, 1, ItemB, OffB, ExprsB, W.B, W.Params);
  return W;
}

//===-- Synchronisation through memory ------------------------------------===//

bool Checker::reaches(unsigned From, unsigned To) {
  unsigned NB = static_cast<unsigned>(F.blocks().size());
  if (BlockReach.empty()) {
    BlockReach.assign(NB, std::vector<char>(NB, 0));
    for (unsigned B = 0; B < NB; ++B) {
      std::vector<unsigned> Work(F.cfg().succs(B).begin(), F.cfg().succs(B).end());
      while (!Work.empty()) {
        unsigned X = Work.back();
        Work.pop_back();
        if (BlockReach[B][X])
          continue;
        BlockReach[B][X] = 1;
        for (unsigned Y : F.cfg().succs(X))
          Work.push_back(Y);
      }
    }
  }
  unsigned BF = F.blockOf(From), BT = F.blockOf(To);
  if (BF == BT && From < To)
    return true;
  return BlockReach[BF][BT] != 0;
}

std::string Checker::memorySync(unsigned I, unsigned J, Relation Rel) {
  // Fences and release/acquire operations can order the pair (message
  // passing, locks), given a strong access to communicate through; the
  // analysis does not model that. Their scope must include both threads,
  // or, for threads of two blocks, a third thread may carry the order on
  // (causality order is transitive) when some fence or release in the
  // kernel has gpu scope.
  struct Op {
    unsigned Item;
    ptx::Scope Sc;
  };
  std::vector<Op> Release, Acquire;
  bool Comm = false, Wide = false;
  for (unsigned Item : F.instructions()) {
    const ptx::Instruction &In = F.inst(Item);
    ptx::Scope Sc = In.Sc;
    bool Fence = In.Op == ptx::Opcode::Membar ||
                 (In.Op == ptx::Opcode::Fence && !In.hasMod(".proxy"));
    bool Strong = In.Op == ptx::Opcode::Atom || In.Op == ptx::Opcode::Red ||
                  ((In.Op == ptx::Opcode::Ld || In.Op == ptx::Opcode::St) &&
                   In.S != ptx::Sem::None && In.S != ptx::Sem::Weak);
    if (Strong && (In.Op == ptx::Opcode::Atom || In.Op == ptx::Opcode::Red) &&
        Sc == ptx::Scope::None)
      Sc = ptx::Scope::GPU;
    if (In.S == ptx::Sem::Volatile)
      Sc = ptx::Scope::Sys;
    if (Sc == ptx::Scope::None)
      continue;
    bool Rel_ = Fence || In.S == ptx::Sem::Release || In.S == ptx::Sem::AcqRel ||
                In.S == ptx::Sem::SC;
    // A strong read may observe a flag that a fenced write set: with a
    // fence on the other side that is how many CUDA programs pass messages
    // (the PTX ISA wants an acquire or a fence on this side as well).
    bool StrongRead = Strong && In.Op != ptx::Opcode::St &&
                      In.Op != ptx::Opcode::Red;
    bool Acq = Fence || StrongRead || In.S == ptx::Sem::Acquire ||
               In.S == ptx::Sem::AcqRel || In.S == ptx::Sem::SC;
    Comm |= Strong && scopeIncludes(Sc, Rel);
    Wide |= Rel_ && scopeIncludes(Sc, Relation::OtherBlocks);
    if (Rel_)
      Release.push_back({Item, Sc});
    if (Acq)
      Acquire.push_back({Item, Sc});
  }
  if (!Comm)
    return "";
  auto Usable = [&](const Op &O) { return scopeIncludes(O.Sc, Rel) || Wide; };
  unsigned X = Items[I].A.Item, Y = Items[J].A.Item;
  for (auto [A, B] : {std::pair{X, Y}, std::pair{Y, X}})
    for (const Op &Rl : Release)
      if (Usable(Rl) && reaches(A, Rl.Item))
        for (const Op &Aq : Acquire)
          if (Usable(Aq) && reaches(Aq.Item, B))
            return fmt::format(
                "may be ordered through the fence or atomic at {} and {} "
                "(synchronisation through memory is not modelled)",
                whereText(Rl.Item), whereText(Aq.Item));
  return "";
}

//===-- Barrier divergence ------------------------------------------------===//

void Checker::checkBarrier(BarrierResult &B, const ir::Barrier &Bar) {
  bool GridWide = Bar.Kind == ir::BarrierKind::Grid;
  ir::Variance Need = GridWide ? ir::Variance::Grid : ir::Variance::Block;
  ir::Variance V = Bar.Assumed ? U.control(F.blockOf(Bar.Item)) : U.exec(Bar.Item);
  if (V <= Need) {
    B.V = Verdict::Safe;
    B.Reason = GridWide ? "reached under conditions the same for the whole grid"
                        : "reached under conditions the same for the whole CTA";
    return;
  }
  if (!multiThread()) {
    B.V = Verdict::Safe;
    B.Reason = "one thread per block";
    return;
  }
  ExprId Pc = Bar.Assumed ? TV.pathCond(F.blockOf(Bar.Item)) : TV.execCond(Bar.Item);
  std::vector<unsigned> Ls = loopsOf(Bar.Item, {Pc});
  const auto &Loops = F.loops().loops();
  // For the description: the branches after which the barrier cannot be
  // reached (B took one of them), and the loops around it (B may have left
  // one early).
  unsigned BarBlock = F.blockOf(Bar.Item);
  reaches(Bar.Item, Bar.Item); // computes the block reachability
  std::vector<std::pair<unsigned, unsigned>> Away;
  for (unsigned P = 0; P < F.blocks().size(); ++P) {
    const auto &Succs = F.cfg().succs(P);
    if (Succs.size() < 2 || !(P == BarBlock || BlockReach[P][BarBlock]))
      continue;
    for (unsigned S2 : Succs)
      if (S2 != BarBlock && !BlockReach[S2][BarBlock])
        Away.emplace_back(P, S2);
  }
  Builder Build = [&](Encoder &Enc) {
    Frame FA{0, NoNode}, FB{1, NoNode};
    std::vector<Expr> Q;
    Q.push_back(Enc.encode(FA, Pc));
    std::vector<Expr> ReachB = {Enc.encode(FB, Pc)};
    for (unsigned L : Ls) {
      Q.push_back(Enc.iterationExists(0, L));
      if (Loops[L].contains(F.blockOf(Bar.Item))) {
        // The same barrier instance: the same iteration of every loop
        // around it, which B may not have.
        ReachB.push_back(Enc.iterationExists(1, L));
        Q.push_back(Enc.iter(0, L).eq(Enc.iter(1, L)));
      } else {
        Q.push_back(Enc.iterationExists(1, L));
      }
    }
    Q.push_back(!Expr::mkAnd(ReachB));
    if (GridWide) {
      std::vector<Expr> Diff;
      for (unsigned D = 0; D < 3; ++D) {
        Diff.push_back(Enc.tid(0, D).ne(Enc.tid(1, D)));
        Diff.push_back(Enc.ctaid(0, D).ne(Enc.ctaid(1, D)));
      }
      Q.push_back(Expr::mkOr(Diff));
    } else {
      Q.push_back(relationFacts(Enc, Relation::SameBlock, true));
    }
    Q.push_back(sharing(Enc, {Pc}, {Pc},
                        GridWide ? Relation::OtherBlocks : Relation::SameBlock));
    for (auto [P, S2] : Away)
      Enc.encode(FB, Pool.land(TV.pathCond(P), TV.edgeCond(P, S2)));
    return Q;
  };
  Solved Sv = solve(Build);
  if (Sv.Res.isSat()) {
    Encoder &Enc = Sv.By->Enc;
    const smt::Model &Mo = Sv.Res.model();
    B.V = Verdict::Race;
    B.Reason = GridWide ? "two threads of the grid disagree on reaching it"
                        : "two threads of one CTA disagree on reaching it";
    if (O.Witnesses)
      B.W = witness(Enc, Mo, Bar.Item, Bar.Item, NoExpr, NoExpr, {Pc}, {Pc});
    Frame FB{1, NoNode};
    for (unsigned L : Ls)
      if (Loops[L].contains(BarBlock) &&
          Mo.evalBool(Enc.iterationExists(1, L)) == std::optional<bool>(false)) {
        unsigned Latch = Loops[L].Latches.front();
        B.Missed = fmt::format(
            "it has left the loop (at {}) after fewer iterations",
            whereText(F.blocks()[Latch].Insts.empty()
                          ? F.blocks()[Latch].Begin
                          : F.blocks()[Latch].Insts.back()));
        break;
      }
    for (auto [P, S2] : Away) {
      if (!B.Missed.empty())
        break;
      ExprId Took = Pool.land(TV.pathCond(P), TV.edgeCond(P, S2));
      if (Mo.evalBool(Enc.encode(FB, Took)) != std::optional<bool>(true))
        continue;
      unsigned Branch = F.blocks()[P].Insts.back();
      // Where it went: straight to the end of the thread, or on.
      bool Exits = false;
      for (unsigned Item : F.blocks()[S2].Insts) {
        ptx::Opcode Op = F.inst(Item).Op;
        if (Op == ptx::Opcode::Ret || Op == ptx::Opcode::Exit)
          Exits = true;
        if (Op == ptx::Opcode::Ld || Op == ptx::Opcode::St ||
            Op == ptx::Opcode::Atom || Op == ptx::Opcode::Red ||
            Op == ptx::Opcode::Call || Op == ptx::Opcode::Bar)
          break;
      }
      B.Missed = Exits ? fmt::format("it has exited (the branch at {} returns) "
                                     "before the barrier",
                                     whereText(Branch))
                       : fmt::format("it branches around the barrier at {}",
                                     whereText(Branch));
    }
    if (B.Missed.empty())
      B.Missed = "it takes a path that does not pass the barrier";
  } else if (Sv.Res.isUnsat()) {
    B.V = Verdict::Safe;
    B.Reason = "its condition is the same for every thread that gets there";
  } else {
    B.V = Verdict::Unknown;
    B.Reason = "the solver gave up: " + Sv.Res.str();
  }
}

//===-- The kernel --------------------------------------------------------===//

KernelReport Checker::run() {
  R.Name = F.name();
  R.Demangled = ir::demangle(F.name());
  R.PtxLine = F.function().Range.Begin.Line;
  bool UnknownWrites = false;
  for (const Item &It : Items)
    UnknownWrites |= It.A.Writes && (It.Call || It.A.Object.K == ir::ObjectKind::Unknown);
  ReadOnly.assign(Items.size(), 0);
  for (unsigned I = 0; I < Items.size(); ++I) {
    if (Items[I].Call)
      continue;
    if (F.inst(Items[I].A.Item).Op == ptx::Opcode::Ld ||
        F.inst(Items[I].A.Item).Op == ptx::Opcode::Ldu)
      LoadAt[Items[I].A.Item] = I;
    bool Written = UnknownWrites;
    for (const Item &W : Items)
      Written |= W.A.Writes && W.A.Object == Items[I].A.Object;
    ReadOnly[I] = !Written && Items[I].A.Object.K != ir::ObjectKind::Unknown;
  }
  if (!F.loops().irreducibleEdges().empty())
    R.Notes.push_back("the control flow is irreducible: loops without a "
                      "single header are not analysed as loops");

  for (unsigned I = 0; I < Items.size(); ++I)
    for (unsigned J = I; J < Items.size(); ++J)
      checkPair(I, J);
  if (!CallNote.empty())
    for (PairResult &P : R.Pairs)
      if (P.V == Verdict::Safe && P.Reason.find("barrier") != std::string::npos) {
        P.V = Verdict::Unknown;
        P.Reason = CallNote;
      }

  for (const ir::Barrier &Bar : Bars) {
    BarrierResult B;
    B.Item = Bar.Item;
    B.PtxLine = lineOf(Bar.Item);
    B.Loc = F.loc(Bar.Item);
    B.Text = Bar.Assumed ? "bar.sync 0 (assumed)" : ptx::printInstruction(F.inst(Bar.Item));
    B.Kind = Bar.Kind;
    B.Assumed = Bar.Assumed;
    B.Note = Bar.Note;
    if (Bar.Kind == ir::BarrierKind::CTA || Bar.Kind == ir::BarrierKind::Grid)
      checkBarrier(B, Bar);
    else
      B.Reason = Bar.Kind == ir::BarrierKind::Warp
                     ? "warp barriers are not checked for divergence"
                     : "orders nothing here: " + Bar.Note;
    R.Divergent += B.V == Verdict::Race;
    R.UnknownBarriers += B.V == Verdict::Unknown;
    R.Barriers.push_back(std::move(B));
  }

  for (const PairResult &P : R.Pairs) {
    R.Races += P.V == Verdict::Race;
    R.Safe += P.V == Verdict::Safe;
    R.Unknown += P.V == Verdict::Unknown;
    if (P.V != Verdict::Safe) {
      R.Accesses[P.First].Proved = false;
      R.Accesses[P.Second].Proved = false;
    }
  }
  return std::move(R);
}

} // namespace

KernelReport checkKernel(const ptx::Module &M, const ir::FunctionIR &F,
                         const Options &O) {
  Checker C(M, F, O);
  return C.run();
}

ModuleReport checkModule(const ptx::Module &Given, const Options &O) {
  ModuleReport MR;
  if (Given.File)
    MR.File = Given.File->name();
  ir::Inlined In = ir::inlineCalls(Given);
  const ptx::Module &M = In.M;
  ir::ModuleIR IR(M);
  bool Found = false;
  for (const ir::FunctionIR &F : IR.functions()) {
    if (!F.function().IsEntry)
      continue;
    if (!O.Kernel.empty() && F.name() != O.Kernel &&
        ir::demangle(F.name()) != O.Kernel) {
      // A demangled name without its parameters also matches.
      std::string D = ir::demangle(F.name());
      if (D.empty() || D.substr(0, D.find('(')) != O.Kernel)
        continue;
    }
    Found = true;
    KernelReport K = checkKernel(M, F, O);
    // Positions in the module as given.
    auto Orig = In.Origins.find(F.name());
    auto Map = [&](unsigned Item, std::string &Fn, unsigned &At,
                   std::vector<std::pair<std::string, unsigned>> *Calls) {
      Fn = F.name();
      At = Item;
      if (Orig != In.Origins.end() && Item < Orig->second.size()) {
        Fn = Orig->second[Item].Function;
        At = Orig->second[Item].Item;
        if (Calls)
          *Calls = Orig->second[Item].Calls;
      }
    };
    for (Access &A : K.Accesses)
      Map(A.Item, A.OriginFunction, A.OriginItem, &A.OriginCalls);
    for (BarrierResult &B : K.Barriers)
      Map(B.Item, B.OriginFunction, B.OriginItem, nullptr);
    MR.Kernels.push_back(std::move(K));
  }
  if (!Found)
    MR.Error = O.Kernel.empty() ? "the module has no kernel (.entry)"
                                : "no kernel named '" + O.Kernel + "'";
  return MR;
}

} // namespace incant::race
