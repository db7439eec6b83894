//===- Lower.cpp - Check a litmus test and lower it to a Program ----------===//
#include "incant/Litmus/Lower.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <map>
#include <set>

namespace incant::litmus {

namespace {

struct LocUse {
  int32_t Thread; ///< Index into Program::Threads.
  SourceRange Range;
};

struct PendingBranch {
  size_t Op;
  std::string Label;
  SourceRange Range;
};

class Lowerer {
public:
  Lowerer(const Test &T, DiagnosticEngine &D)
      : T(T), Diags(D), File(T.File), IsPTX(T.A == Arch::PTX) {}

  std::optional<Program> run();

private:
  void error(SourceRange R, std::string Msg) {
    Diags.error(File, R, std::move(Msg));
    Ok = false;
  }
  std::string threadName(int32_t Idx) const {
    return fmt::format("{}{}", IsPTX ? 'P' : 'T', P.Threads[Idx].Id);
  }

  void lowerThreads();
  void collectLocations();
  int32_t addLocation(const std::string &Name);
  void collectAliases(const std::set<std::string> &Inited,
                      const std::set<std::string> &Mapped);
  void declareRegisters();
  void placeThreads();
  void placeFromTree(const ScopeNode &N, Placement Ctx, bool HasCTA,
                     bool HasCluster, bool HasWarp);
  void lowerCode();
  bool lowerInst(int32_t Th, const ptx::Instruction &I, Op &O);
  bool lowerPtxBarrier(int32_t Th, const ptx::Instruction &I, Op &O);
  bool lowerDat3mBarrier(int32_t Th, const ptx::Instruction &I, Op &O);
  bool barrierId(int32_t Th, const ptx::Instruction &I, const ptx::Operand &A,
                 Op &O);
  void lowerCmpBranch(int32_t Th, const ptx::Instruction &I,
                      std::vector<PendingBranch> &Branches);
  int32_t findReg(int32_t Th, const std::string &Name) const;
  int32_t implicitReg(int32_t Th, const std::string &Name,
                      const ptx::Instruction &I);
  bool destReg(int32_t Th, const ptx::Operand &O, const ptx::Instruction &I,
               int32_t &R);
  bool valueOperand(int32_t Th, const ptx::Operand &O,
                    const ptx::Instruction &I, Operand &Out);
  bool addressOperand(int32_t Th, const ptx::Operand &O, Operand &Out);
  void noteUse(int32_t Loc, int32_t Th, SourceRange R);
  void markWidths();
  void checkShared();
  // Hopper's instructions (LowerHopper below).
  bool lowerHopper(int32_t Th, const ptx::Instruction &I);
  bool lowerClusterBarrier(const ptx::Instruction &I, Op &O);
  bool lowerMapa(int32_t Th, const ptx::Instruction &I, Op &O);
  bool lowerMbarrier(int32_t Th, const ptx::Instruction &I, Op &O);
  bool lowerBulkCopy(int32_t Th, const ptx::Instruction &I);
  bool lowerStoreAsync(int32_t Th, const ptx::Instruction &I);
  bool mbarrierOperand(int32_t Th, const ptx::Operand &A, Op &O);
  int32_t staticLoc(int32_t Th, const Operand &A) const;
  Op asyncPart(const ptx::Instruction &I, Op::Kind K) const;
  void completeTx(int32_t Th, Op &Done, int64_t Bytes);
  void finishMbarriers();
  std::vector<int32_t> clusterRanks() const;
  bool lowerValue(const ValueExpr &V, Value &Out);
  bool lowerRef(const StateRef &R, Observed &Out);
  bool lowerTerm(const CondTerm &C, Term &Out);
  bool lowerCond(const CondExpr &C, Cond &Out);
  void observe(const Observed &O);
  void lowerCondition();

  const Test &T;
  DiagnosticEngine &Diags;
  std::shared_ptr<const SourceFile> File;
  bool IsPTX;
  bool Ok = true;
  Program P;
  std::map<int32_t, int32_t> ThreadIndex; ///< Id -> index
  std::map<std::string, int32_t> LocIndex;
  std::vector<std::map<std::string, int32_t>> RegIndex; ///< per thread
  std::vector<std::vector<LocUse>> Uses;                ///< per location
  int32_t Counter = 0; ///< Fresh ids for placement.
  std::vector<bool> Placed;
  /// mapa: the (thread, register) it wrote -> the location; each use.
  std::map<std::pair<int32_t, int32_t>, int32_t> MapaReg;
  struct MapaUse {
    int32_t Loc, Thread;
    int64_t Rank;
    SourceRange Range;
  };
  std::vector<MapaUse> Mapas;
  /// Per mbarrier location: its first use, and the transaction bytes
  /// expected (arrive.expect_tx) and completed (complete_tx).
  std::map<int32_t, SourceRange> MbarUse;
  std::map<int32_t, int64_t> TxExpected, TxDone;
  int32_t AsyncCount = 0; ///< Ids of asynchronous instructions.
};

std::optional<Program> Lowerer::run() {
  P.Name = T.Name;
  lowerThreads();
  collectLocations();
  declareRegisters();
  placeThreads();
  lowerCode();
  markWidths();
  checkShared();
  finishMbarriers();
  lowerCondition();
  if (!Ok)
    return std::nullopt;
  return std::move(P);
}

void Lowerer::lowerThreads() {
  for (const ThreadHeader &H : T.Threads) {
    if (ThreadIndex.count(H.Id)) {
      error(H.Range, fmt::format("thread {}{} appears twice", IsPTX ? 'P' : 'T',
                                 H.Id));
      continue;
    }
    ThreadIndex[H.Id] = static_cast<int32_t>(P.Threads.size());
    ThreadProgram TP;
    TP.Id = H.Id;
    P.Threads.push_back(std::move(TP));
  }
  RegIndex.resize(P.Threads.size());
  Placed.assign(P.Threads.size(), false);
}

int32_t Lowerer::addLocation(const std::string &Name) {
  auto It = LocIndex.find(Name);
  if (It != LocIndex.end())
    return It->second;
  int32_t Idx = static_cast<int32_t>(P.Locs.size());
  Location L;
  L.Name = Name;
  L.Phys = L.Generic = Idx;
  P.Locs.push_back(std::move(L));
  Uses.emplace_back();
  LocIndex[Name] = Idx;
  return Idx;
}

void Lowerer::collectLocations() {
  // Locations named by the init block, register initialisers and the
  // memory map, in order of appearance.
  std::set<std::string> Inited;
  for (const InitItem &I : T.Init) {
    if (I.K == InitItem::LocInit) {
      if (!Inited.insert(I.Name).second) {
        error(I.NameRange,
              fmt::format("location '{}' is initialised twice", I.Name));
        continue;
      }
      addLocation(I.Name);
    }
    if (I.Init && I.Init->IsLoc)
      addLocation(I.Init->Loc);
  }
  for (const InitItem &I : T.Init) {
    if (I.K != InitItem::LocInit || !I.Init)
      continue;
    Value V;
    if (lowerValue(*I.Init, V))
      P.Locs[LocIndex[I.Name]].Init = V;
  }
  std::set<std::string> Mapped;
  for (const MemMapEntry &E : T.MemMap) {
    if (!Mapped.insert(E.Name).second) {
      error(E.NameRange,
            fmt::format("location '{}' appears twice in the memory map",
                        E.Name));
      continue;
    }
    P.Locs[addLocation(E.Name)].R = E.R;
  }
  collectAliases(Inited, Mapped);
}

/// `y @ generic aliases x;`: y names x's physical memory; a generic alias is
/// a virtual address of its own, an alias through another proxy is x as
/// that proxy sees it (same generic address). An alias takes its target's
/// initial value and region.
void Lowerer::collectAliases(const std::set<std::string> &Inited,
                             const std::set<std::string> &Mapped) {
  for (const InitItem &I : T.Init) {
    if (I.K != InitItem::Alias)
      continue;
    auto Tg = LocIndex.find(I.Target);
    if (Tg == LocIndex.end()) {
      error(I.TargetRange,
            fmt::format("'{}' aliases '{}', which is not a location declared "
                        "before it",
                        I.Name, I.Target));
      continue;
    }
    if (LocIndex.count(I.Name) || Inited.count(I.Name)) {
      error(I.NameRange,
            fmt::format("location '{}' is declared twice", I.Name));
      continue;
    }
    if (Mapped.count(I.Name)) {
      error(I.NameRange,
            fmt::format("alias '{}' is in the memory map; it takes the "
                        "region of '{}'",
                        I.Name, I.Target));
      continue;
    }
    int32_t T0 = Tg->second;
    int32_t A = addLocation(I.Name);
    Location &Target = P.Locs[size_t(T0)];
    Location &Al = P.Locs[size_t(A)];
    Al.Phys = Target.phys(T0);
    Al.Generic = I.AliasProxy == ptx::Proxy::Generic ? A : Target.generic(T0);
    Al.Init = P.Locs[size_t(Al.Phys)].Init;
    Al.R = P.Locs[size_t(Al.Phys)].R;
  }
}

void Lowerer::declareRegisters() {
  for (const InitItem &I : T.Init) {
    if (I.K == InitItem::LocInit || I.K == InitItem::Alias)
      continue;
    auto It = ThreadIndex.find(I.Thread);
    if (It == ThreadIndex.end()) {
      error(I.ThreadRange,
            fmt::format("there is no thread {} in this test", I.Thread));
      continue;
    }
    int32_t Th = It->second;
    if (RegIndex[Th].count(I.Name)) {
      error(I.NameRange,
            fmt::format("register '{}' of thread {} is declared twice", I.Name,
                        I.Thread));
      continue;
    }
    Register R;
    R.Name = I.Name;
    if (I.K == InitItem::RegDecl) {
      R.IsPred = I.Ty.K == ptx::Type::Pred;
      R.Bits = I.Ty.Bits;
      R.Signed = I.Ty.isSigned();
    } else if (I.Init && I.Init->IsLoc) {
      R.Bits = 64;
      R.Signed = false;
    }
    if (I.Init) {
      if (R.IsPred && I.Init->IsLoc)
        error(I.Init->Range, "a predicate cannot hold an address");
      lowerValue(*I.Init, R.Init);
      if (I.Init->IsLoc) {
        auto L = LocIndex.find(I.Init->Loc);
        if (L != LocIndex.end())
          noteUse(L->second, Th, I.Init->Range);
      }
    }
    RegIndex[Th][I.Name] = static_cast<int32_t>(P.Threads[Th].Regs.size());
    P.Threads[Th].Regs.push_back(std::move(R));
  }
}

void Lowerer::placeFromTree(const ScopeNode &N, Placement Ctx, bool HasCTA,
                            bool HasCluster, bool HasWarp) {
  if (N.IsThread) {
    auto It = ThreadIndex.find(N.Thread);
    if (It == ThreadIndex.end()) {
      error(N.Range, fmt::format("thread {}{} in the scope tree has no code",
                                 IsPTX ? 'P' : 'T', N.Thread));
      return;
    }
    int32_t Th = It->second;
    if (Placed[Th]) {
      error(N.Range, fmt::format("thread {} appears twice in the scope tree",
                                 threadName(Th)));
      return;
    }
    Placed[Th] = true;
    // A thread not inside a CTA (or warp) gets one of its own.
    if (!HasCluster)
      Ctx.Cluster = Counter++;
    if (!HasCTA)
      Ctx.CTA = Counter++;
    if (!HasWarp)
      Ctx.Warp = Counter++;
    P.Threads[Th].Where = Ctx;
    return;
  }
  switch (N.Level) {
  case ScopeLevel::Device:
    Ctx.Device = Counter++;
    break;
  case ScopeLevel::Grid:
  case ScopeLevel::Kernel:
    break;
  case ScopeLevel::Cluster:
    Ctx.Cluster = Counter++;
    HasCluster = true;
    break;
  case ScopeLevel::CTA:
    if (!HasCluster)
      Ctx.Cluster = Counter++;
    Ctx.CTA = Counter++;
    HasCluster = HasCTA = true;
    break;
  case ScopeLevel::Warp:
    if (!HasCluster)
      Ctx.Cluster = Counter++;
    if (!HasCTA)
      Ctx.CTA = Counter++;
    Ctx.Warp = Counter++;
    HasCluster = HasCTA = HasWarp = true;
    break;
  }
  for (const ScopeNode &K : N.Kids)
    placeFromTree(K, Ctx, HasCTA, HasCluster, HasWarp);
}

void Lowerer::placeThreads() {
  if (T.Scopes) {
    for (const ThreadHeader &H : T.Threads)
      if (H.HasPlacement)
        error(H.PlacementRange,
              "a thread is placed by the scope tree or by '@', not both");
    placeFromTree(*T.Scopes, Placement{0, 0, 0, 0}, false, false, false);
    for (size_t I = 0; I != T.Threads.size() && I != P.Threads.size(); ++I)
      if (!Placed[ThreadIndex[T.Threads[I].Id]])
        error(T.Threads[I].Range,
              fmt::format("thread {}{} is missing from the scope tree",
                          IsPTX ? 'P' : 'T', T.Threads[I].Id));
    return;
  }
  if (!IsPTX) {
    SourceRange R = T.QRange.isValid() ? T.QRange : T.ArchRange;
    error(R, "missing scope tree: a GPU_PTX test places its threads with "
             "'ScopeTree (device (cta ...))' before the final condition");
    return;
  }
  // PTX: `@cta N,cluster C,gpu G`; threads without one get their own CTA.
  // Ids are compared level by level (Program.h), so the written numbers
  // can be used directly; a CTA outside any cluster is its own cluster.
  constexpr int32_t OwnCluster = 1 << 20;
  int32_t NextCTA = 0;
  for (const ThreadHeader &H : T.Threads)
    NextCTA = std::max(NextCTA, H.CTA + 1);
  for (const ThreadHeader &H : T.Threads) {
    auto It = ThreadIndex.find(H.Id);
    int32_t Th = It->second;
    if (Placed[Th])
      continue;
    Placed[Th] = true;
    Placement &W = P.Threads[Th].Where;
    W.Device = H.GPU >= 0 ? H.GPU : 0;
    W.CTA = H.HasPlacement ? H.CTA : NextCTA++;
    W.Cluster = H.Cluster >= 0 ? H.Cluster : OwnCluster + W.CTA;
    W.Warp = Th;
  }
}

int32_t Lowerer::findReg(int32_t Th, const std::string &Name) const {
  auto It = RegIndex[Th].find(Name);
  return It == RegIndex[Th].end() ? -1 : It->second;
}

int32_t Lowerer::implicitReg(int32_t Th, const std::string &Name,
                             const ptx::Instruction &I) {
  Register R;
  R.Name = Name;
  if (!I.Types.empty()) {
    R.Bits = I.Types[0].Bits;
    R.Signed = I.Types[0].isSigned();
    R.IsPred = I.Types[0].K == ptx::Type::Pred;
  }
  if (I.Op == ptx::Opcode::Setp) {
    R.Bits = 1;
    R.IsPred = true;
    R.Signed = false;
  }
  int32_t Idx = static_cast<int32_t>(P.Threads[Th].Regs.size());
  P.Threads[Th].Regs.push_back(std::move(R));
  RegIndex[Th][Name] = Idx;
  return Idx;
}

bool Lowerer::destReg(int32_t Th, const ptx::Operand &O,
                      const ptx::Instruction &I, int32_t &R) {
  assert(O.K == ptx::Operand::Reg);
  R = findReg(Th, O.Name);
  if (R >= 0)
    return true;
  if (IsPTX) {
    R = implicitReg(Th, O.Name, I);
    return true;
  }
  error(O.Range, fmt::format("undeclared register '{}' (declare it in the "
                             "init block: {}:.reg .s32 {};)",
                             O.Name, P.Threads[Th].Id, O.Name));
  return false;
}

bool Lowerer::valueOperand(int32_t Th, const ptx::Operand &O,
                           const ptx::Instruction &I, Operand &Out) {
  switch (O.K) {
  case ptx::Operand::Imm:
    Out = Operand::imm(O.Value);
    return true;
  case ptx::Operand::Reg: {
    int32_t R = findReg(Th, O.Name);
    if (R >= 0) {
      Out = Operand::reg(R);
      return true;
    }
    auto L = LocIndex.find(O.Name);
    if (L != LocIndex.end()) { // the address of a location
      Out = Operand::addr(L->second);
      noteUse(L->second, Th, O.Range);
      return true;
    }
    if (IsPTX) {
      Out = Operand::reg(implicitReg(Th, O.Name, I));
      return true;
    }
    error(O.Range, fmt::format("undeclared register '{}'", O.Name));
    return false;
  }
  default:
    error(O.Range, "expected a register or an immediate");
    return false;
  }
}

bool Lowerer::addressOperand(int32_t Th, const ptx::Operand &O,
                             Operand &Out) {
  if (O.K != ptx::Operand::Symbol && O.K != ptx::Operand::Address) {
    error(O.Range, "expected an address");
    return false;
  }
  if (O.Name.empty()) {
    error(O.Range, "absolute addresses are not supported; use a location "
                   "or a register");
    return false;
  }
  int32_t R = findReg(Th, O.Name);
  if (R >= 0) {
    if (O.Value != 0) {
      error(O.Range, "a register plus an offset is not supported as an "
                     "address; use [r] or [x+offset]");
      return false;
    }
    Out = Operand::reg(R);
    return true;
  }
  auto L = LocIndex.find(O.Name);
  int32_t Loc;
  if (L != LocIndex.end()) {
    Loc = L->second;
  } else if (IsPTX) {
    Loc = addLocation(O.Name);
  } else {
    error(O.Range, fmt::format("'{}' is neither a declared register nor a "
                               "location",
                               O.Name));
    return false;
  }
  Out = Operand::addr(Loc);
  Out.Imm.Int = O.Value;
  noteUse(Loc, Th, O.Range);
  return true;
}

void Lowerer::noteUse(int32_t Loc, int32_t Th, SourceRange R) {
  Uses[Loc].push_back({Th, R});
}

static Scope scopeOf(ptx::Scope S) {
  switch (S) {
  case ptx::Scope::None: return Scope::None;
  case ptx::Scope::CTA: return Scope::CTA;
  case ptx::Scope::Cluster: return Scope::Cluster;
  case ptx::Scope::GPU: return Scope::GPU;
  case ptx::Scope::Sys: return Scope::Sys;
  }
  return Scope::None;
}

static Sem semOf(ptx::Sem S) {
  switch (S) {
  case ptx::Sem::None:
  case ptx::Sem::Weak: return Sem::Weak;
  case ptx::Sem::Volatile: return Sem::Volatile;
  case ptx::Sem::Relaxed: return Sem::Relaxed;
  case ptx::Sem::Acquire: return Sem::Acquire;
  case ptx::Sem::Release: return Sem::Release;
  case ptx::Sem::AcqRel: return Sem::AcqRel;
  case ptx::Sem::SC: return Sem::SC;
  }
  return Sem::Weak;
}

static Proxy proxyOf(ptx::Proxy P) {
  switch (P) {
  case ptx::Proxy::Generic: return Proxy::Generic;
  case ptx::Proxy::Surface: return Proxy::Surface;
  case ptx::Proxy::Texture: return Proxy::Texture;
  case ptx::Proxy::Constant: return Proxy::Constant;
  case ptx::Proxy::Alias: return Proxy::Alias;
  }
  return Proxy::Generic;
}

static CacheOp cacheOf(ptx::CacheOp C) {
  return static_cast<CacheOp>(static_cast<uint8_t>(C));
}

static RmwOp rmwOf(ptx::AtomOp A) {
  switch (A) {
  case ptx::AtomOp::None:
  case ptx::AtomOp::Add: return RmwOp::Add;
  case ptx::AtomOp::Cas: return RmwOp::Cas;
  case ptx::AtomOp::Exch: return RmwOp::Exch;
  case ptx::AtomOp::Inc: return RmwOp::Inc;
  case ptx::AtomOp::Dec: return RmwOp::Dec;
  case ptx::AtomOp::And: return RmwOp::And;
  case ptx::AtomOp::Or: return RmwOp::Or;
  case ptx::AtomOp::Xor: return RmwOp::Xor;
  case ptx::AtomOp::Min: return RmwOp::Min;
  case ptx::AtomOp::Max: return RmwOp::Max;
  case ptx::AtomOp::Sub: return RmwOp::Sub;
  }
  return RmwOp::Add;
}

bool Lowerer::lowerInst(int32_t Th, const ptx::Instruction &I, Op &O) {
  using ptx::Opcode;
  O.Range = I.Range;
  if (!I.Types.empty()) {
    O.Bits = I.Types[0].Bits;
    O.Signed = I.Types[0].isSigned();
  }
  switch (I.Space) {
  case ptx::StateSpace::Generic: O.Sp = Space::Generic; break;
  case ptx::StateSpace::Global: O.Sp = Space::Global; break;
  case ptx::StateSpace::Shared:
    // The parser keeps .shared::cluster in ASpace.
    O.Sp = I.ASpace == ptx::AddrSpace::SharedCluster ? Space::SharedCluster
                                                      : Space::Shared;
    break;
  }
  if (I.G) {
    int32_t R = findReg(Th, I.G->Reg);
    if (R < 0 && IsPTX) {
      Register Reg;
      Reg.Name = I.G->Reg;
      Reg.Bits = 1;
      Reg.IsPred = true;
      Reg.Signed = false;
      R = static_cast<int32_t>(P.Threads[Th].Regs.size());
      P.Threads[Th].Regs.push_back(std::move(Reg));
      RegIndex[Th][I.G->Reg] = R;
    }
    if (R < 0) {
      error(I.G->Range,
            fmt::format("undeclared predicate register '{}'", I.G->Reg));
      return false;
    }
    O.GuardReg = R;
    O.GuardNegated = I.G->Negated;
  }
  const auto &Ops = I.Ops;
  O.Px = proxyOf(I.Px);
  switch (I.Op) {
  case Opcode::Ld:
    if (Ops[1].K == ptx::Operand::Imm) {
      // Dat3M's `ld r0, 1`: a constant into a register.
      if (!IsPTX) {
        error(Ops[1].Range, "expected an address ([r1], [x], [r1+4] or x)");
        return false;
      }
      O.K = Op::Kind::Alu;
      O.Alu = AluOp::Mov;
      O.Src.push_back(Operand::imm(Ops[1].Value));
      return destReg(Th, Ops[0], I, O.Dst);
    }
    O.K = Op::Kind::Load;
    O.S = semOf(I.S);
    O.Sc = O.S == Sem::Weak || O.S == Sem::Volatile ? Scope::None
                                                    : scopeOf(I.Sc);
    O.Cache = cacheOf(I.Cache);
    return destReg(Th, Ops[0], I, O.Dst) && addressOperand(Th, Ops[1], O.Addr);
  case Opcode::St: {
    O.K = Op::Kind::Store;
    O.S = semOf(I.S);
    O.Sc = O.S == Sem::Weak || O.S == Sem::Volatile ? Scope::None
                                                    : scopeOf(I.Sc);
    O.Cache = cacheOf(I.Cache);
    Operand V;
    if (!addressOperand(Th, Ops[0], O.Addr) || !valueOperand(Th, Ops[1], I, V))
      return false;
    O.Src.push_back(V);
    return true;
  }
  case Opcode::Atom:
  case Opcode::Red: {
    O.K = Op::Kind::Rmw;
    O.S = semOf(I.S);
    O.Sc = scopeOf(I.Sc);
    O.Rmw = rmwOf(I.Atom);
    size_t First = 0;
    if (I.Op == Opcode::Atom) {
      if (!destReg(Th, Ops[0], I, O.Dst))
        return false;
      First = 1;
    }
    if (!addressOperand(Th, Ops[First], O.Addr))
      return false;
    for (size_t K = First + 1; K < Ops.size(); ++K) {
      Operand V;
      if (!valueOperand(Th, Ops[K], I, V))
        return false;
      O.Src.push_back(V);
    }
    return true;
  }
  case Opcode::Membar:
    O.K = Op::Kind::Fence;
    O.Fence = FenceKind::Membar;
    O.S = Sem::SC;
    O.Sc = scopeOf(I.Sc);
    return true;
  case Opcode::Fence:
    O.K = Op::Kind::Fence;
    if (I.hasMod(".proxy")) {
      O.Fence = FenceKind::Proxy;
      if (I.hasMod(".async"))
        O.Px = Proxy::Async;
      return true;
    }
    O.Fence = I.S == ptx::Sem::SC ? FenceKind::FenceSC : FenceKind::FenceAcqRel;
    O.S = I.S == ptx::Sem::SC ? Sem::SC : Sem::AcqRel;
    O.Sc = scopeOf(I.Sc);
    return true;
  case Opcode::Bar:
    O.K = Op::Kind::Barrier;
    O.Arrive = I.hasMod(".arrive");
    return IsPTX ? lowerDat3mBarrier(Th, I, O) : lowerPtxBarrier(Th, I, O);
  case Opcode::Bra:
    O.K = Op::Kind::Branch;
    return true; // Target is resolved by the caller.
  default:
    break;
  }
  // ALU operations.
  O.K = Op::Kind::Alu;
  switch (I.Op) {
  case Opcode::Mov: O.Alu = AluOp::Mov; break;
  case Opcode::Add: O.Alu = AluOp::Add; break;
  case Opcode::Sub: O.Alu = AluOp::Sub; break;
  case Opcode::Mul: O.Alu = AluOp::Mul; break;
  case Opcode::And: O.Alu = AluOp::And; break;
  case Opcode::Or: O.Alu = AluOp::Or; break;
  case Opcode::Xor: O.Alu = AluOp::Xor; break;
  case Opcode::Not: O.Alu = AluOp::Not; break;
  case Opcode::Cvt: O.Alu = AluOp::Cvt; break;
  case Opcode::Setp: O.Alu = AluOp::Setp; break;
  default: assert(false && "not an ALU opcode"); break;
  }
  if (I.Op == Opcode::Setp) {
    switch (I.Cmp) {
    case ptx::CmpOp::Eq: O.Cmp = CmpOp::Eq; break;
    case ptx::CmpOp::Ne: O.Cmp = CmpOp::Ne; break;
    case ptx::CmpOp::Lt: O.Cmp = CmpOp::Lt; break;
    case ptx::CmpOp::Le: O.Cmp = CmpOp::Le; break;
    case ptx::CmpOp::Gt: O.Cmp = CmpOp::Gt; break;
    case ptx::CmpOp::Ge: O.Cmp = CmpOp::Ge; break;
    case ptx::CmpOp::Lo: O.Cmp = CmpOp::Lt; O.Signed = false; break;
    case ptx::CmpOp::Ls: O.Cmp = CmpOp::Le; O.Signed = false; break;
    case ptx::CmpOp::Hi: O.Cmp = CmpOp::Gt; O.Signed = false; break;
    case ptx::CmpOp::Hs: O.Cmp = CmpOp::Ge; O.Signed = false; break;
    case ptx::CmpOp::None: break;
    }
  }
  if (!destReg(Th, Ops[0], I, O.Dst))
    return false;
  for (size_t K = 1; K < Ops.size(); ++K) {
    Operand V;
    if (!valueOperand(Th, Ops[K], I, V))
      return false;
    O.Src.push_back(V);
  }
  return true;
}

/// GPU_PTX: PTX's `bar.sync a`, a the barrier (an integer 0..15 or a
/// register). PTX's thread count b (`bar.sync a, b`, and `bar.arrive a, b`,
/// which needs it) counts hardware threads in whole warps, which a litmus
/// thread is not: refused rather than ignored.
bool Lowerer::lowerPtxBarrier(int32_t Th, const ptx::Instruction &I, Op &O) {
  const auto &Ops = I.Ops;
  if (Ops.size() > 1 || O.Arrive) {
    error(Ops.size() > 1 ? Ops[1].Range : I.NameRange,
          fmt::format("'{}' with a thread count is not supported: the count "
                      "is in hardware threads (whole warps), which litmus "
                      "threads are not; write '{}.sync a'",
                      I.Name, I.Name));
    return false;
  }
  return barrierId(Th, I, Ops[0], O);
}

/// The barrier number: an integer 0..15, or a register (its value when the
/// barrier runs).
bool Lowerer::barrierId(int32_t Th, const ptx::Instruction &I,
                        const ptx::Operand &A, Op &O) {
  if (A.K == ptx::Operand::Imm) {
    if (A.Value < 0 || A.Value > 15) {
      error(A.Range, "the barrier number must be between 0 and 15");
      return false;
    }
    O.BarrierId = int32_t(A.Value);
    return true;
  }
  Operand V;
  if (!valueOperand(Th, A, I, V))
    return false;
  if (V.K != Operand::Kind::Reg) {
    error(A.Range, "the barrier number must be an integer or a register");
    return false;
  }
  O.BarrierIdReg = V.Reg;
  O.BarrierId = -1;
  return true;
}

/// PTX (Dat3M's dialect): `bar.cta.sync I`, `bar.cta.sync I, ID` and
/// `bar.cta.sync I, ID, Q`, `bar.cta.arrive I`: I the barrier instance (an
/// integer), ID the barrier resource (integer or register), Q the quorum,
/// the number of threads that must arrive (integer or register).
bool Lowerer::lowerDat3mBarrier(int32_t Th, const ptx::Instruction &I,
                                Op &O) {
  const auto &Ops = I.Ops;
  if (Ops[0].K != ptx::Operand::Imm || Ops[0].Value < 0 ||
      Ops[0].Value > INT32_MAX) {
    error(Ops[0].Range, fmt::format("the instance of '{}' must be a "
                                    "non-negative integer",
                                    I.Name));
    return false;
  }
  O.BarrierInstance = int32_t(Ops[0].Value);
  O.BarrierId = -1;
  if (Ops.size() > 1 && !barrierId(Th, I, Ops[1], O))
    return false;
  if (Ops.size() > 2) {
    if (!valueOperand(Th, Ops[2], I, O.BarrierQuorum))
      return false;
    if (O.BarrierQuorum.K == Operand::Kind::Addr) {
      error(Ops[2].Range, "the quorum must be an integer or a register");
      return false;
    }
  }
  return true;
}

/// `beq a, b, L` becomes `setp.eq t, a, b; @t bra L` with a fresh predicate
/// register t, named so that it cannot clash with a register of the test.
void Lowerer::lowerCmpBranch(int32_t Th, const ptx::Instruction &I,
                             std::vector<PendingBranch> &Branches) {
  ThreadProgram &TP = P.Threads[Th];
  Op Setp{};
  Setp.K = Op::Kind::Alu;
  Setp.Alu = AluOp::Setp;
  Setp.Range = I.Range;
  if (!I.Types.empty()) {
    Setp.Bits = I.Types[0].Bits;
    Setp.Signed = I.Types[0].isSigned();
  }
  switch (I.Cmp) {
  case ptx::CmpOp::Ne: Setp.Cmp = CmpOp::Ne; break;
  case ptx::CmpOp::Lt: Setp.Cmp = CmpOp::Lt; break;
  case ptx::CmpOp::Le: Setp.Cmp = CmpOp::Le; break;
  case ptx::CmpOp::Gt: Setp.Cmp = CmpOp::Gt; break;
  case ptx::CmpOp::Ge: Setp.Cmp = CmpOp::Ge; break;
  default: Setp.Cmp = CmpOp::Eq; break;
  }
  for (size_t K = 0; K != 2; ++K) {
    Operand V;
    if (!valueOperand(Th, I.Ops[K], I, V))
      return;
    Setp.Src.push_back(V);
  }
  if (I.G) {
    error(I.G->Range, fmt::format("'{}' cannot be guarded", I.Name));
    return;
  }
  Register Tmp;
  Tmp.Name = fmt::format("{}.{}", I.Name, TP.Ops.size());
  Tmp.Bits = 1;
  Tmp.IsPred = true;
  Tmp.Signed = false;
  Setp.Dst = static_cast<int32_t>(TP.Regs.size());
  TP.Regs.push_back(std::move(Tmp));
  Op Br{};
  Br.K = Op::Kind::Branch;
  Br.GuardReg = Setp.Dst;
  Br.Range = I.Range;
  TP.Ops.push_back(std::move(Setp));
  Branches.push_back({TP.Ops.size(), I.Ops[2].Name, I.Ops[2].Range});
  TP.Ops.push_back(std::move(Br));
}

void Lowerer::lowerCode() {
  size_t NThreads = P.Threads.size();
  std::vector<std::map<std::string, size_t>> Labels(NThreads);
  std::vector<std::vector<PendingBranch>> Branches(NThreads);
  for (const Row &R : T.Rows) {
    for (size_t C = 0; C < R.Cells.size() && C < T.Threads.size(); ++C) {
      auto It = ThreadIndex.find(T.Threads[C].Id);
      if (It == ThreadIndex.end() || static_cast<size_t>(It->second) != C)
        continue; // a duplicate thread column, already reported
      int32_t Th = It->second;
      const ptx::Statement &S = R.Cells[C].Stmt;
      ThreadProgram &TP = P.Threads[Th];
      for (const ptx::Label &L : S.Labels) {
        if (!Labels[Th].emplace(L.Name, TP.Ops.size()).second)
          error(L.Range, fmt::format("duplicate label '{}' in thread {}",
                                     L.Name, threadName(Th)));
      }
      if (!S.Inst)
        continue;
      if (S.Inst->Op == ptx::Opcode::CmpBra) {
        lowerCmpBranch(Th, *S.Inst, Branches[Th]);
        continue;
      }
      if (lowerHopper(Th, *S.Inst))
        continue;
      Op O{};
      if (!lowerInst(Th, *S.Inst, O))
        continue;
      if (O.K == Op::Kind::Branch)
        Branches[Th].push_back(
            {TP.Ops.size(), S.Inst->Ops[0].Name, S.Inst->Ops[0].Range});
      TP.Ops.push_back(std::move(O));
    }
  }
  for (size_t Th = 0; Th != NThreads; ++Th)
    for (const PendingBranch &B : Branches[Th]) {
      auto It = Labels[Th].find(B.Label);
      if (It == Labels[Th].end()) {
        error(B.Range, fmt::format("label '{}' not found in thread {}", B.Label,
                                   threadName(static_cast<int32_t>(Th))));
        continue;
      }
      P.Threads[Th].Ops[B.Op].Target = static_cast<int32_t>(It->second);
    }
}

/// A location is 64 bits wide when its initial value needs 64 bits (an
/// address, or an integer outside the signed and unsigned 32-bit ranges) or
/// a 64-bit access names it, directly or through a register initialised to
/// its address; a 64-bit access whose location is not known so makes every
/// location 64 bits wide.
void Lowerer::markWidths() {
  auto Fits32 = [](const Value &V) {
    return !V.isAddress() && V.Int >= INT32_MIN && V.Int <= int64_t(UINT32_MAX);
  };
  for (Location &L : P.Locs)
    if (!Fits32(L.Init))
      L.Bits = 64;
  for (const ThreadProgram &TP : P.Threads)
    for (const Op &O : TP.Ops) {
      bool Mem = O.K == Op::Kind::Load || O.K == Op::Kind::Store ||
                 O.K == Op::Kind::Rmw;
      if (!Mem || O.Bits != 64)
        continue;
      int32_t L = -1;
      if (O.Addr.K == Operand::Kind::Addr)
        L = O.Addr.Imm.Loc;
      else if (O.Addr.K == Operand::Kind::Reg)
        L = TP.Regs[size_t(O.Addr.Reg)].Init.Loc;
      if (L >= 0) {
        P.Locs[size_t(P.Locs[size_t(L)].phys(L))].Bits = 64;
        continue;
      }
      for (Location &Each : P.Locs)
        Each.Bits = 64;
    }
  // Aliases of one physical location share its width.
  for (size_t L = 0; L != P.Locs.size(); ++L)
    P.Locs[L].Bits = std::max(P.Locs[L].Bits,
                              P.Locs[size_t(P.Locs[L].phys(int32_t(L)))].Bits);
  for (size_t L = 0; L != P.Locs.size(); ++L)
    P.Locs[size_t(P.Locs[L].phys(int32_t(L)))].Bits = P.Locs[L].Bits;
}

void Lowerer::checkShared() {
  if (!Ok)
    return;
  // A shared location lives in one CTA (its home): the CTA of the threads
  // that name it; threads of other CTAs of its cluster reach it through
  // mapa with the home's rank.
  std::vector<int32_t> Rank = clusterRanks();
  for (size_t L = 0; L != P.Locs.size(); ++L) {
    if (P.Locs[L].R != Region::Shared)
      continue;
    const Placement *Home = nullptr;
    if (!Uses[L].empty()) {
      const LocUse &First = Uses[L].front();
      Home = &P.Threads[First.Thread].Where;
      for (const LocUse &U : Uses[L]) {
        const Placement &B = P.Threads[U.Thread].Where;
        if (Home->Device == B.Device && Home->Cluster == B.Cluster &&
            Home->CTA == B.CTA)
          continue;
        error(U.Range,
              fmt::format("shared location '{}' is used by threads in "
                          "different CTAs ({} and {}); another CTA of the "
                          "cluster reaches it through mapa",
                          P.Locs[L].Name, threadName(First.Thread),
                          threadName(U.Thread)));
        break;
      }
    }
    for (const MapaUse &M : Mapas) {
      if (M.Loc != int32_t(L))
        continue;
      const Placement &W = P.Threads[M.Thread].Where;
      // The CTA of rank M.Rank in this thread's cluster, if the test has it.
      const Placement *Target = nullptr;
      for (size_t T = 0; T != P.Threads.size(); ++T)
        if (P.Threads[T].Where.Device == W.Device &&
            P.Threads[T].Where.Cluster == W.Cluster && Rank[T] == M.Rank)
          Target = &P.Threads[T].Where;
      if (!Target) {
        error(M.Range, fmt::format("no CTA of rank {} in the cluster of {} "
                                   "(CTAs are ranked in the order of their "
                                   "first thread)",
                                   M.Rank, threadName(M.Thread)));
        continue;
      }
      if (!Home)
        Home = Target;
      if (Target->Device != Home->Device || Target->Cluster != Home->Cluster ||
          Target->CTA != Home->CTA)
        error(M.Range,
              fmt::format("'{}' lives in the shared memory of another CTA "
                          "than the one of rank {} in the cluster of {}",
                          P.Locs[L].Name, M.Rank, threadName(M.Thread)));
    }
  }
}

/// Each thread's CTA's rank in its cluster: the CTAs of a cluster in the
/// order of their first thread in the test.
std::vector<int32_t> Lowerer::clusterRanks() const {
  std::map<std::pair<int32_t, int32_t>, std::map<int32_t, int32_t>> Seen;
  std::vector<int32_t> Rank;
  for (const ThreadProgram &T : P.Threads) {
    auto &Ctas = Seen[{T.Where.Device, T.Where.Cluster}];
    auto It = Ctas.try_emplace(T.Where.CTA, int32_t(Ctas.size())).first;
    Rank.push_back(It->second);
  }
  return Rank;
}

/// The location an address operand names where that is known before the
/// test runs: a location, a register from mapa, or one initialised to a
/// location's address; else -1.
int32_t Lowerer::staticLoc(int32_t Th, const Operand &A) const {
  if (A.K == Operand::Kind::Addr)
    return A.Imm.Loc;
  if (A.K != Operand::Kind::Reg)
    return -1;
  auto It = MapaReg.find({Th, A.Reg});
  if (It != MapaReg.end())
    return It->second;
  return P.Threads[size_t(Th)].Regs[size_t(A.Reg)].Init.Loc;
}

/// Lowers barrier.cluster, mapa, mbarrier, cp.async.bulk, st.async and
/// red.async into \p Th's ops; false (nothing done) for other instructions.
bool Lowerer::lowerHopper(int32_t Th, const ptx::Instruction &I) {
  using ptx::Opcode;
  bool Async = (I.Op == Opcode::St || I.Op == Opcode::Red) &&
               I.hasMod(".async");
  if (I.Op != Opcode::BarrierCluster && I.Op != Opcode::Other &&
      I.Op != Opcode::Mbarrier && I.Op != Opcode::CpAsync && !Async)
    return false;
  if (I.G) {
    error(I.G->Range, fmt::format("'{}' cannot be guarded in a litmus test",
                                  I.Name));
    return true;
  }
  if (I.Op == Opcode::CpAsync) {
    lowerBulkCopy(Th, I);
    return true;
  }
  if (Async) {
    lowerStoreAsync(Th, I);
    return true;
  }
  Op O{};
  O.Range = I.Range;
  bool Good = I.Op == Opcode::BarrierCluster ? lowerClusterBarrier(I, O)
              : I.Op == Opcode::Other        ? lowerMapa(Th, I, O)
                                             : lowerMbarrier(Th, I, O);
  if (Good)
    P.Threads[size_t(Th)].Ops.push_back(std::move(O));
  return true;
}

/// barrier.cluster.arrive{.release|.relaxed} and barrier.cluster.wait
/// {.acquire}: a barrier of the cluster, split in two.
bool Lowerer::lowerClusterBarrier(const ptx::Instruction &I, Op &O) {
  bool Arrive = I.hasMod(".arrive"), Wait = I.hasMod(".wait");
  if (Arrive == Wait) {
    error(I.NameRange, "'barrier.cluster' needs one of .arrive and .wait");
    return false;
  }
  if ((Arrive && I.S == ptx::Sem::Acquire) ||
      (Wait && I.S != ptx::Sem::None && I.S != ptx::Sem::Acquire)) {
    error(I.NameRange, Arrive ? "'barrier.cluster.arrive' takes .release or "
                                ".relaxed"
                              : "'barrier.cluster.wait' takes .acquire");
    return false;
  }
  O.K = Op::Kind::Barrier;
  O.ClusterBarrier = true;
  O.Arrive = Arrive;
  O.S = Wait ? Sem::Acquire
             : I.S == ptx::Sem::Relaxed ? Sem::Relaxed : Sem::Release;
  O.Sc = Scope::Cluster;
  O.BarrierInstance = -2;
  O.BarrierId = 0;
  return true;
}

/// mapa[.shared::cluster].u32|u64 d, x, rank: d holds x as it lives in the
/// CTA of that rank in the thread's cluster.
bool Lowerer::lowerMapa(int32_t Th, const ptx::Instruction &I, Op &O) {
  const auto &Ops = I.Ops;
  auto L = LocIndex.find(Ops[1].Name);
  if (Ops[1].K != ptx::Operand::Symbol || L == LocIndex.end() ||
      Ops[1].Value != 0) {
    error(Ops[1].Range, "mapa maps a location named here (mapa d, x, rank)");
    return false;
  }
  if (P.Locs[size_t(L->second)].R != Region::Shared) {
    error(Ops[1].Range, fmt::format("mapa maps shared memory; '{}' is not in "
                                    "the memory map as shared",
                                    Ops[1].Name));
    return false;
  }
  if (Ops[2].K != ptx::Operand::Imm || Ops[2].Value < 0 ||
      Ops[2].Value > 15) {
    error(Ops[2].Range, "the rank of mapa must be an integer from 0 to 15");
    return false;
  }
  O.K = Op::Kind::Alu;
  O.Alu = AluOp::Mov;
  O.Bits = I.Types.empty() ? 64 : I.Types[0].Bits;
  O.Sp = I.hasMod(".shared::cluster") ? Space::SharedCluster : Space::Generic;
  O.MapaRank = int32_t(Ops[2].Value);
  O.Src.push_back(Operand::addr(L->second));
  if (!destReg(Th, Ops[0], I, O.Dst))
    return false;
  MapaReg[{Th, O.Dst}] = L->second;
  Mapas.push_back({L->second, Th, Ops[2].Value, I.Range});
  return true;
}

/// The mbarrier an instruction names ([b] or [r] with r from mapa).
bool Lowerer::mbarrierOperand(int32_t Th, const ptx::Operand &A, Op &O) {
  if (!addressOperand(Th, A, O.Addr))
    return false;
  int32_t L = staticLoc(Th, O.Addr);
  if (L < 0 || (O.Addr.K == Operand::Kind::Addr && O.Addr.Imm.Int != 0)) {
    error(A.Range, "an mbarrier must be a location named by the test (or a "
                   "register from mapa)");
    return false;
  }
  MbarUse.try_emplace(L, A.Range);
  return true;
}

/// mbarrier.arrive[.expect_tx]{.sem}{.scope}{.space}.b64 _, [b][, bytes]
/// and mbarrier.try_wait / test_wait.parity{.sem}{.scope}.b64 p, [b], k.
bool Lowerer::lowerMbarrier(int32_t Th, const ptx::Instruction &I, Op &O) {
  const auto &Ops = I.Ops;
  bool Arrive = I.hasMod(".arrive");
  bool Wait = I.hasMod(".try_wait") || I.hasMod(".test_wait");
  if (Arrive == Wait || (Wait && !I.hasMod(".parity"))) {
    error(I.NameRange, "litmus tests use mbarrier.arrive and "
                       "mbarrier.try_wait/test_wait.parity (incant "
                       "initialises each mbarrier: give its expected "
                       "arrivals as its initial value)");
    return false;
  }
  O.Sc = I.Sc == ptx::Scope::None ? Scope::CTA : scopeOf(I.Sc);
  O.Sp = I.ASpace == ptx::AddrSpace::SharedCluster ? Space::SharedCluster
                                                    : Space::Shared;
  O.Bits = 64;
  if (!mbarrierOperand(Th, Ops[1], O))
    return false;
  int32_t L = staticLoc(Th, O.Addr);
  if (Arrive) {
    if (Ops[0].Name != "_") {
      error(Ops[0].Range, "the state an arrive returns is opaque: write '_'");
      return false;
    }
    O.K = Op::Kind::Rmw;
    O.Rmw = RmwOp::Add;
    O.Mbar = MbarOp::Arrive;
    O.S = I.S == ptx::Sem::Relaxed ? Sem::Relaxed : Sem::Release;
    O.Src.push_back(Operand::imm(-1));
    if (I.hasMod(".expect_tx")) {
      if (Ops[2].K != ptx::Operand::Imm || Ops[2].Value < 0) {
        error(Ops[2].Range, "expect_tx takes a byte count (an integer)");
        return false;
      }
      TxExpected[L] += Ops[2].Value;
      O.Src.push_back(Operand::imm(Ops[2].Value));
    }
    return true;
  }
  if (O.Sp == Space::SharedCluster) {
    error(I.NameRange, "a thread waits only on an mbarrier of its own CTA "
                       "(.shared::cta)");
    return false;
  }
  if (Ops[2].K != ptx::Operand::Imm || (Ops[2].Value != 0 && Ops[2].Value != 1)) {
    error(Ops[2].Range, "the phase parity must be 0 or 1");
    return false;
  }
  O.K = Op::Kind::Load;
  O.Mbar = MbarOp::Wait;
  O.S = I.S == ptx::Sem::Relaxed ? Sem::Relaxed : Sem::Acquire;
  O.Src.push_back(Operand::imm(0)); // the expected count: finishMbarriers
  O.Src.push_back(Operand::imm(Ops[2].Value));
  ptx::Instruction Pred = I;
  Pred.Types = {ptx::Type{ptx::Type::Pred, 1}};
  return destReg(Th, Ops[0], Pred, O.Dst);
}

/// An op of an asynchronous instruction (its id set by the caller).
Op Lowerer::asyncPart(const ptx::Instruction &I, Op::Kind K) const {
  Op O{};
  O.K = K;
  O.Range = I.Range;
  O.Async = AsyncCount;
  return O;
}

/// Makes \p Done (its mbarrier operand set) the complete_tx of \p Bytes
/// that ends an asynchronous instruction: one off the mbarrier's pending
/// count, with release semantics at cluster scope.
void Lowerer::completeTx(int32_t Th, Op &Done, int64_t Bytes) {
  Done.Rmw = RmwOp::Add;
  Done.Mbar = MbarOp::CompleteTx;
  Done.S = Sem::Release;
  Done.Sc = Scope::Cluster;
  Done.Sp = Space::SharedCluster;
  Done.Bits = 64;
  Done.Src.push_back(Operand::imm(-1));
  TxDone[staticLoc(Th, Done.Addr)] += Bytes;
}

/// cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes
/// [dst], [src], 16, [b]; cp.async.bulk.global.shared::cta.bulk_group
/// [dst], [src], 16; commit_group (nothing to the model); wait_group 0.
bool Lowerer::lowerBulkCopy(int32_t Th, const ptx::Instruction &I) {
  ThreadProgram &TP = P.Threads[size_t(Th)];
  if (I.hasMod(".commit_group"))
    return true; // the harness commits each copy as its own group
  if (I.hasMod(".wait_group")) {
    if (I.hasMod(".read") || I.Ops[0].K != ptx::Operand::Imm ||
        I.Ops[0].Value != 0) {
      error(I.Range, "litmus tests wait for every bulk async-group: "
                     "cp.async.bulk.wait_group 0");
      return false;
    }
    Op F{};
    F.K = Op::Kind::Fence;
    F.Fence = FenceKind::Proxy;
    F.Px = Proxy::Async;
    F.AsyncWait = true;
    F.Range = I.Range;
    TP.Ops.push_back(std::move(F));
    return true;
  }
  bool ToShared = I.hasMod(".mbarrier::complete_tx::bytes");
  bool ToGlobal = I.hasMod(".bulk_group");
  if (!I.hasMod(".async") || !I.hasMod(".bulk") || ToShared == ToGlobal ||
      (ToShared && (!I.hasMod(".shared::cluster") || !I.hasMod(".global"))) ||
      (ToGlobal && (!I.hasMod(".shared::cta") || !I.hasMod(".global")))) {
    error(I.NameRange, "expected cp.async.bulk.shared::cluster.global."
                       "mbarrier::complete_tx::bytes or cp.async.bulk.global."
                       "shared::cta.bulk_group");
    return false;
  }
  if (I.Ops[2].K != ptx::Operand::Imm || I.Ops[2].Value != 16) {
    error(I.Ops[2].Range, "a bulk copy copies one location here: 16 bytes "
                          "(a location's slot in the harness)");
    return false;
  }
  Op R = asyncPart(I, Op::Kind::Load), W = asyncPart(I, Op::Kind::Store);
  R.Px = W.Px = Proxy::Async;
  R.BulkGroup = W.BulkGroup = ToGlobal;
  R.Sp = ToShared ? Space::Global : Space::Shared;
  W.Sp = ToShared ? Space::SharedCluster : Space::Global;
  if (!addressOperand(Th, I.Ops[0], W.Addr) ||
      !addressOperand(Th, I.Ops[1], R.Addr))
    return false;
  Register Tmp;
  Tmp.Name = fmt::format("cp.{}", TP.Ops.size());
  R.Dst = int32_t(TP.Regs.size());
  TP.Regs.push_back(std::move(Tmp));
  W.Src.push_back(Operand::reg(R.Dst));
  Op Done = asyncPart(I, Op::Kind::Rmw);
  if (ToShared && !mbarrierOperand(Th, I.Ops[3], Done))
    return false;
  TP.Ops.push_back(std::move(R));
  TP.Ops.push_back(std::move(W));
  if (ToShared) {
    // Completion: an implicit generic-async proxy fence, then complete_tx
    // on the mbarrier, with release semantics at cluster scope.
    Op F = asyncPart(I, Op::Kind::Fence);
    F.Fence = FenceKind::Proxy;
    F.Px = Proxy::Async;
    TP.Ops.push_back(std::move(F));
    completeTx(Th, Done, 16);
    TP.Ops.push_back(std::move(Done));
  }
  ++AsyncCount;
  return true;
}

/// st.async{.weak}.shared::cluster.mbarrier::complete_tx::bytes.T [a], v,
/// [b] and red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx
/// ::bytes.OP.T [a], v, [b]: a weak store (relaxed reduction) into another
/// CTA's shared memory, then complete_tx on that CTA's mbarrier with
/// release semantics at cluster scope.
bool Lowerer::lowerStoreAsync(int32_t Th, const ptx::Instruction &I) {
  bool Red = I.Op == ptx::Opcode::Red;
  if (!I.hasMod(".shared::cluster") ||
      !I.hasMod(".mbarrier::complete_tx::bytes") || I.Types.empty() ||
      (Red && (I.Atom == ptx::AtomOp::None || !I.hasMod(".relaxed") ||
               !I.hasMod(".cluster")))) {
    error(I.NameRange,
          Red ? "expected red.async.relaxed.cluster.shared::cluster."
                "mbarrier::complete_tx::bytes.OP.TYPE [a], v, [b]"
              : "expected st.async.shared::cluster.mbarrier::complete_tx::"
                "bytes.TYPE [a], v, [b]");
    return false;
  }
  ThreadProgram &TP = P.Threads[size_t(Th)];
  Op A = asyncPart(I, Red ? Op::Kind::Rmw : Op::Kind::Store);
  A.Sp = Space::SharedCluster;
  A.Bits = I.Types[0].Bits;
  A.Signed = I.Types[0].isSigned();
  A.S = Red ? Sem::Relaxed : Sem::Weak;
  A.Sc = Red ? Scope::Cluster : Scope::None;
  if (Red)
    A.Rmw = rmwOf(I.Atom);
  Operand V;
  if (!addressOperand(Th, I.Ops[0], A.Addr) ||
      !valueOperand(Th, I.Ops[1], I, V))
    return false;
  A.Src.push_back(V);
  Op Done = asyncPart(I, Op::Kind::Rmw);
  if (!mbarrierOperand(Th, I.Ops[2], Done))
    return false;
  completeTx(Th, Done, A.Bits / 8);
  TP.Ops.push_back(std::move(A));
  TP.Ops.push_back(std::move(Done));
  ++AsyncCount;
  return true;
}

/// Each mbarrier: in shared memory, used only by mbarrier instructions,
/// its initial value the arrivals it expects (at least 1), as many
/// transaction bytes expected as completed, and not in the condition. The
/// model's pending count starts at the arrivals plus the completions.
void Lowerer::finishMbarriers() {
  if (!Ok)
    return;
  std::map<int32_t, int32_t> Completions;
  for (size_t Th = 0; Th != P.Threads.size(); ++Th)
    for (const Op &O : P.Threads[Th].Ops) {
      int32_t L = O.K == Op::Kind::Load || O.K == Op::Kind::Store ||
                          O.K == Op::Kind::Rmw
                      ? staticLoc(int32_t(Th), O.Addr)
                      : -1;
      if (L < 0)
        continue;
      bool IsMbar = MbarUse.count(L) > 0;
      if (IsMbar != (O.Mbar != MbarOp::None)) {
        const std::string &N = P.Locs[size_t(L)].Name;
        error(O.Range, IsMbar ? "'" + N + "' is an mbarrier: only mbarrier "
                                          "instructions access it"
                              : "'" + N + "' is not an mbarrier");
        return;
      }
      Completions[L] += O.Mbar == MbarOp::CompleteTx;
    }
  for (const auto &[L, Where] : MbarUse) {
    Location &Loc = P.Locs[size_t(L)];
    if (Loc.R != Region::Shared || Loc.Init.isAddress() || Loc.Init.Int < 1 ||
        Loc.Init.Int > 1024) {
      error(Where, fmt::format("mbarrier '{}' must be in shared memory (the "
                               "memory map) with its expected arrivals, 1 "
                               "to 1024, as its initial value",
                               Loc.Name));
      continue;
    }
    if (TxExpected[L] != TxDone[L]) {
      error(Where, fmt::format("mbarrier '{}': expect_tx announces {} bytes "
                               "but the test's copies complete {}",
                               Loc.Name, TxExpected[L], TxDone[L]));
      continue;
    }
    Loc.Mbarrier = int32_t(Loc.Init.Int);
    Loc.Init.Int += Completions[L];
    for (size_t Th = 0; Th != P.Threads.size(); ++Th)
      for (Op &O : P.Threads[Th].Ops)
        if (O.Mbar == MbarOp::Wait && staticLoc(int32_t(Th), O.Addr) == L)
          O.Src[0] = Operand::imm(Loc.Init.Int);
  }
}

bool Lowerer::lowerValue(const ValueExpr &V, Value &Out) {
  if (!V.IsLoc) {
    Out = Value{-1, V.Int};
    return true;
  }
  auto It = LocIndex.find(V.Loc);
  if (It == LocIndex.end()) {
    error(V.Range, fmt::format("unknown location '{}'", V.Loc));
    return false;
  }
  Out = Value{It->second, 0};
  return true;
}

bool Lowerer::lowerRef(const StateRef &R, Observed &Out) {
  if (R.Thread < 0) {
    auto It = LocIndex.find(R.Name);
    if (It == LocIndex.end()) {
      error(R.NameRange, fmt::format("unknown location '{}'", R.Name));
      return false;
    }
    if (P.Locs[size_t(It->second)].Mbarrier > 0) {
      error(R.NameRange, fmt::format("'{}' is an mbarrier, whose value is "
                                     "opaque: the condition cannot name it",
                                     R.Name));
      return false;
    }
    Out = {-1, It->second};
    return true;
  }
  auto It = ThreadIndex.find(R.Thread);
  if (It == ThreadIndex.end()) {
    error(R.ThreadRange,
          fmt::format("there is no thread {} in this test", R.Thread));
    return false;
  }
  int32_t Reg = findReg(It->second, R.Name);
  if (Reg < 0) {
    error(R.NameRange, fmt::format("thread {} has no register '{}'",
                                   threadName(It->second), R.Name));
    return false;
  }
  Out = {It->second, Reg};
  return true;
}

void Lowerer::observe(const Observed &O) {
  for (const Observed &E : P.Observe)
    if (E.Thread == O.Thread && E.Index == O.Index)
      return;
  P.Observe.push_back(O);
}

bool Lowerer::lowerTerm(const CondTerm &C, Term &Out) {
  if (!C.IsRef) {
    Value V;
    if (!lowerValue(C.Val, V))
      return false;
    Out = Term::constant(V);
    return true;
  }
  Observed O;
  if (!lowerRef(C.Ref, O))
    return false;
  observe(O);
  Out = O.Thread >= 0 ? Term::reg(O.Thread, O.Index) : Term::loc(O.Index);
  return true;
}

bool Lowerer::lowerCond(const CondExpr &C, Cond &Out) {
  switch (C.K) {
  case CondExpr::True:
    Out.K = Cond::True;
    return true;
  case CondExpr::False:
    Out.K = Cond::False;
    return true;
  case CondExpr::Eq:
  case CondExpr::Ne: {
    Cond A;
    A.K = Cond::Eq;
    bool LhsOk = lowerTerm(C.Lhs, A.Lhs);
    bool RhsOk = lowerTerm(C.Rhs, A.Rhs);
    if (!LhsOk || !RhsOk)
      return false;
    if (C.K == CondExpr::Eq) {
      Out = std::move(A);
    } else {
      Out.K = Cond::Not;
      Out.Kids.push_back(std::move(A));
    }
    return true;
  }
  case CondExpr::Not:
  case CondExpr::And:
  case CondExpr::Or: {
    Out.K = C.K == CondExpr::Not   ? Cond::Not
            : C.K == CondExpr::And ? Cond::And
                                   : Cond::Or;
    bool AllOk = true;
    for (const CondExpr &K : C.Kids) {
      Cond KC;
      AllOk &= lowerCond(K, KC);
      Out.Kids.push_back(std::move(KC));
    }
    return AllOk;
  }
  }
  return false;
}

void Lowerer::lowerCondition() {
  P.Q = T.Q;
  auto Locations = [&] {
    for (const StateRef &R : T.Locations) {
      Observed O;
      if (lowerRef(R, O))
        observe(O);
    }
  };
  bool LocationsFirst =
      T.LocationsRange.isValid() &&
      (!T.Condition.Range.isValid() ||
       T.LocationsRange.Begin.Offset < T.Condition.Range.Begin.Offset);
  if (LocationsFirst)
    Locations();
  lowerCond(T.Condition, P.Condition);
  if (!LocationsFirst)
    Locations();
}

} // namespace

std::optional<Program> lower(const Test &T, DiagnosticEngine &Diags) {
  Lowerer L(T, Diags);
  return L.run();
}

} // namespace incant::litmus
