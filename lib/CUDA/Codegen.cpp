//===- Codegen.cpp - CUDA C with inline PTX from a litmus::Program ---------===//

#include "incant/CUDA/Codegen.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <map>
#include <set>
#include <tuple>

using namespace incant;
using namespace incant::cuda;
using litmus::Op;
using litmus::Operand;

namespace {

const char *scopeName(litmus::Scope S) {
  switch (S) {
  case litmus::Scope::CTA:
    return "cta";
  case litmus::Scope::Cluster:
    return "cluster";
  case litmus::Scope::Sys:
    return "sys";
  case litmus::Scope::GPU:
  case litmus::Scope::None:
    return "gpu";
  }
  return "gpu";
}

const char *cacheName(litmus::CacheOp C) {
  switch (C) {
  case litmus::CacheOp::None:
    return "";
  case litmus::CacheOp::CA:
    return ".ca";
  case litmus::CacheOp::CG:
    return ".cg";
  case litmus::CacheOp::CS:
    return ".cs";
  case litmus::CacheOp::LU:
    return ".lu";
  case litmus::CacheOp::CV:
    return ".cv";
  case litmus::CacheOp::WB:
    return ".wb";
  case litmus::CacheOp::WT:
    return ".wt";
  }
  return "";
}

const char *rmwName(litmus::RmwOp R) {
  switch (R) {
  case litmus::RmwOp::Cas:
    return "cas";
  case litmus::RmwOp::Exch:
    return "exch";
  case litmus::RmwOp::Add:
    return "add";
  case litmus::RmwOp::Inc:
    return "inc";
  case litmus::RmwOp::Dec:
    return "dec";
  case litmus::RmwOp::And:
    return "and";
  case litmus::RmwOp::Or:
    return "or";
  case litmus::RmwOp::Xor:
    return "xor";
  case litmus::RmwOp::Min:
    return "min";
  case litmus::RmwOp::Max:
    return "max";
  case litmus::RmwOp::Sub: // refused by checkSupported: PTX has no atom.sub
    return "sub";
  }
  return "add";
}

const char *rmwType(const Op &O) {
  bool W = O.Bits == 64;
  switch (O.Rmw) {
  case litmus::RmwOp::Cas:
  case litmus::RmwOp::Exch:
  case litmus::RmwOp::And:
  case litmus::RmwOp::Or:
  case litmus::RmwOp::Xor:
    return W ? "b64" : "b32";
  case litmus::RmwOp::Inc:
  case litmus::RmwOp::Dec:
    return "u32";
  case litmus::RmwOp::Add:
    // Two's complement: add.u64 is add.s64 (PTX has no atom.add.s64).
    return W ? "u64" : (O.Signed ? "s32" : "u32");
  default:
    return W ? (O.Signed ? "s64" : "u64") : (O.Signed ? "s32" : "u32");
  }
}

bool isMemOp(const Op &O) {
  return O.K == Op::Kind::Load || O.K == Op::Kind::Store ||
         O.K == Op::Kind::Rmw;
}

/// The ordering qualifiers of a load or store: "", ".volatile",
/// ".relaxed.gpu", ".acquire.cta", ...
std::string semQual(const Op &O) {
  switch (O.S) {
  case litmus::Sem::Weak:
    return "";
  case litmus::Sem::Volatile:
    return ".volatile";
  case litmus::Sem::Relaxed:
    return fmt::format(".relaxed.{}", scopeName(O.Sc));
  case litmus::Sem::Acquire:
    return fmt::format(".acquire.{}", scopeName(O.Sc));
  case litmus::Sem::Release:
    return fmt::format(".release.{}", scopeName(O.Sc));
  case litmus::Sem::AcqRel:
    return fmt::format(".acq_rel.{}", scopeName(O.Sc));
  case litmus::Sem::SC:
    return fmt::format(".relaxed.{}", scopeName(O.Sc));
  }
  return "";
}

class Emitter {
public:
  Emitter(const litmus::Program &P, const CodegenOptions &Opts,
          std::shared_ptr<const SourceFile> File, DiagnosticEngine &Diags)
      : P(P), Opts(Opts), File(std::move(File)), Diags(Diags) {}

  std::optional<GeneratedTest> run();

private:
  const litmus::Program &P;
  const CodegenOptions &Opts;
  std::shared_ptr<const SourceFile> File;
  DiagnosticEngine &Diags;
  GeneratedTest G;
  std::string Out;
  bool Failed = false;
  /// Names in the code being emitted: registers are RP<index>, the
  /// instance's location addresses AA[<index>] (per role in barrier tests).
  std::string RP = "r", AA = "a", MM = "m";
  bool HasBarrier = false;
  /// Locations that hold 64-bit values (see markWide()).
  std::vector<bool> WideLoc;
  /// Per observed item: the out slot of its high word, or -1 (32-bit).
  std::vector<int32_t> HiSlot;
  bool AnyWide = false;

  template <typename... Args>
  void line(fmt::format_string<Args...> F, Args &&...A) {
    Out += fmt::format(F, std::forward<Args>(A)...);
    Out += '\n';
  }
  void error(const Op &O, std::string Msg) {
    Diags.error(File, O.Range, std::move(Msg));
    Failed = true;
  }

  std::string value(const litmus::Value &V) const {
    if (V.isAddress())
      return fmt::format("({}[{}] + {}ull)", AA, V.Loc, V.Int);
    return fmt::format("{}ull", static_cast<uint64_t>(V.Int));
  }
  std::string operand(const Operand &O) const {
    switch (O.K) {
    case Operand::Kind::Reg:
      return fmt::format("{}{}", RP, O.Reg);
    case Operand::Kind::Imm:
    case Operand::Kind::Addr:
      return value(O.Imm);
    case Operand::Kind::None:
      break;
    }
    return "0ull";
  }
  /// The address operand of a memory op in the op's state space, with
  /// its inline-asm constraint.
  std::pair<std::string, std::string> address(const Op &O) const {
    std::string A = operand(O.Addr);
    switch (O.Sp) {
    case litmus::Space::Shared:
      return {fmt::format("(unsigned)__cvta_generic_to_shared((void *){})", A),
              "r"};
    case litmus::Space::Global:
      return {fmt::format("(incant_u64)__cvta_generic_to_global((void *){})",
                          A),
              "l"};
    case litmus::Space::SharedCluster:
      return {fmt::format("incant_cluster_addr({})", A), "r"};
    case litmus::Space::Generic:
      break;
    }
    return {A, "l"};
  }
  static const char *space(const Op &O) {
    switch (O.Sp) {
    case litmus::Space::Shared:
      return ".shared";
    case litmus::Space::Global:
      return ".global";
    case litmus::Space::SharedCluster:
      return ".shared::cluster";
    case litmus::Space::Generic:
      break;
    }
    return "";
  }
  /// The 32-bit shared-memory address of an mbarrier operand.
  std::string mbarAddress(const Op &O) const {
    std::string A = operand(O.Addr);
    return O.Sp == litmus::Space::SharedCluster
               ? fmt::format("incant_cluster_addr({})", A)
               : fmt::format("(unsigned)__cvta_generic_to_shared((void *){})",
                             A);
  }

  void emitOp(size_t R, const litmus::ThreadProgram &T, size_t I,
              std::vector<std::string> &Expected);
  void emitAccess(const Op &O, const std::string &Ind, const std::string &D,
                  std::vector<std::string> &Expected);
  void emitFence(const Op &O, const std::string &Ind,
                 std::vector<std::string> &Expected);
  void emitAlu(const Op &O, const std::string &Ind, const std::string &D);
  void emitMbarrier(const Op &O, const std::string &Ind);
  void emitAsync(const litmus::ThreadProgram &T, size_t I,
                 const std::string &Ind);
  void emitBarrier(const Op *B);
  void emitMapas(const char *Ind, size_t R, const std::string &Arr,
                 const std::string &Mapped);
  bool checkHopper(const Op &O);
  void emitOutputs(size_t R, const char *Ind, const char *Out);
  void emitRole(size_t R);
  void emitAddrs(const char *Ind, const std::string &Arr,
                 const std::string &Inst, const std::string &IW,
                 const std::string &IL);
  void emitTestLoop();
  void emitBarrierTest();
  void emitGlue();
  bool checkSupported();
  bool checkBarriers();
  void markWide();
};

bool Emitter::checkSupported() {
  for (const auto &T : P.Threads)
    for (const Op &O : T.Ops) {
      if (O.K == Op::Kind::Barrier)
        HasBarrier = true;
      if (isMemOp(O) && O.Bits != 32 && O.Bits != 64)
        error(O, fmt::format("{}-bit memory accesses are not supported by the "
                             "CUDA backend (32 and 64 bits are)",
                             O.Bits));
      if (O.K == Op::Kind::Rmw && O.Bits == 64 &&
          (O.Rmw == litmus::RmwOp::Inc || O.Rmw == litmus::RmwOp::Dec))
        error(O, "PTX has no 64-bit atom.inc or atom.dec");
      if (O.K == Op::Kind::Rmw && O.Rmw == litmus::RmwOp::Sub)
        error(O, "PTX has no atom.sub or red.sub (Dat3M's litmus dialect "
                 "has); write atom.add of the negated value");
      if (checkHopper(O))
        continue;
      if (isMemOp(O) && O.Px != litmus::Proxy::Generic)
        error(O, "accesses through the surface, texture or constant proxy "
                 "are not supported by the CUDA backend");
      if (O.K == Op::Kind::Fence && O.Fence == litmus::FenceKind::Proxy)
        error(O, "proxy fences other than fence.proxy.async are not "
                 "supported by the CUDA backend");
      if (O.K == Op::Kind::Barrier &&
          (O.Arrive || O.BarrierInstance >= 0 || O.BarrierIdReg >= 0 ||
           O.BarrierQuorum.K != Operand::Kind::None))
        error(O, "the CUDA backend runs 'bar.sync N' only (not bar.arrive, "
                 "a barrier id in a register, or Dat3M's barrier instances "
                 "and quorums)");
      if (isMemOp(O) && O.Addr.K == Operand::Kind::Addr && O.Addr.Imm.Loc >= 0 &&
          static_cast<size_t>(O.Addr.Imm.Loc) < P.Locs.size()) {
        bool Shared = P.Locs[O.Addr.Imm.Loc].R == litmus::Region::Shared;
        if ((Shared && O.Sp == litmus::Space::Global) ||
            (!Shared && (O.Sp == litmus::Space::Shared ||
                         O.Sp == litmus::Space::SharedCluster)))
          error(O, "state space of the instruction does not match the "
                   "location's region in the memory map");
      }
    }
  for (size_t J = 0; J < P.Locs.size(); ++J)
    if (P.Locs[J].phys(int32_t(J)) != int32_t(J)) {
      Diags.error(File, {},
                  fmt::format("location {} is a virtual alias; the CUDA "
                              "backend does not support aliases",
                              P.Locs[J].Name));
      Failed = true;
    }
  for (const auto &T : P.Threads)
    if (T.Where.Device != P.Threads.front().Where.Device) {
      Diags.error(File, {},
                  "the test places threads on different devices; the CUDA "
                  "backend runs a test on one device");
      Failed = true;
      break;
    }
  markWide();
  for (size_t J = 0; J < P.Locs.size(); ++J)
    if (WideLoc[J] && P.Locs[J].R == litmus::Region::Shared) {
      Diags.error(File, {},
                  fmt::format("location {} holds 64-bit values in shared "
                              "memory; the CUDA backend keeps 64-bit "
                              "locations in global memory only",
                              P.Locs[J].Name));
      Failed = true;
    }
  for (const auto &L : P.Locs)
    if (L.Init.isAddress() && L.Init.Loc >= 0 &&
        static_cast<size_t>(L.Init.Loc) < P.Locs.size() &&
        P.Locs[L.Init.Loc].R == litmus::Region::Shared) {
      Diags.error(File, {},
                  fmt::format("location {} is initialised to the address of "
                              "shared location {}; the CUDA backend does not "
                              "support that",
                              L.Name, P.Locs[L.Init.Loc].Name));
      Failed = true;
    }
  if (HasBarrier)
    checkBarriers();
  return !Failed;
}

/// Hopper's ops: which the backend runs, and what they ask of the harness.
/// True when \p O is one of them (then checked here).
bool Emitter::checkHopper(const Op &O) {
  bool Mapa = O.K == Op::Kind::Alu && O.MapaRank >= 0;
  bool Hopper = O.ClusterBarrier || O.Mbar != litmus::MbarOp::None ||
                O.Async >= 0 || O.AsyncWait || Mapa ||
                (O.K == Op::Kind::Fence && O.Fence == litmus::FenceKind::Proxy &&
                 O.Px == litmus::Proxy::Async) ||
                (isMemOp(O) && O.Sp == litmus::Space::SharedCluster);
  if (!Hopper)
    return false;
  if (O.ClusterBarrier) {
    HasBarrier = true;
    G.SkipOptCheck = true; // its SASS (UCGABAR_*) has no optcheck class
  }
  if (Mapa || O.Sp == litmus::Space::SharedCluster)
    G.ClusterShared = true;
  if (O.Mbar != litmus::MbarOp::None || O.Async >= 0 || O.AsyncWait) {
    G.SharedStride = 4;
    G.SkipOptCheck = true;
  }
  if (O.Async >= 0 && O.Px == litmus::Proxy::Async)
    G.Align16 = true;
  if (isMemOp(O) && O.Bits != 32 && O.Mbar == litmus::MbarOp::None)
    error(O, "the CUDA backend runs 32-bit accesses to shared memory and "
             "asynchronous copies");
  if (O.K == Op::Kind::Rmw && O.Rmw == litmus::RmwOp::Sub)
    error(O, "PTX has no red.async.sub");
  if (O.GuardReg >= 0)
    error(O, "the CUDA backend runs Hopper's instructions unguarded");
  return true;
}

/// mbarrier.arrive[.expect_tx] and mbarrier.try_wait/test_wait.parity (a
/// predicate: 1 when the phase has completed).
void Emitter::emitMbarrier(const Op &O, const std::string &Ind) {
  std::string B = mbarAddress(O);
  const char *Sp = O.Sp == litmus::Space::SharedCluster ? ".shared::cluster"
                                                         : ".shared::cta";
  if (O.Mbar == litmus::MbarOp::Wait) {
    // try_wait suspends for a while and may still say no; the litmus test
    // asks about the value it returns.
    line("{}{{ unsigned v; asm volatile(\"{{ .reg .pred p; mbarrier."
         "try_wait.parity.{}.{}.shared::cta.b64 p, [%1], %2; selp.u32 %0, "
         "1, 0, p; }}\" : \"=r\"(v) : \"r\"({}), \"r\"({}u) : \"memory\"); "
         "{}{} = v; }}",
         Ind, O.S == litmus::Sem::Relaxed ? "relaxed" : "acquire",
         scopeName(O.Sc), B, O.Src[1].Imm.Int, RP, O.Dst);
    return;
  }
  std::string Sem = O.S == litmus::Sem::Relaxed ? "relaxed" : "release";
  std::string Tx = O.Src.size() > 1
                       ? fmt::format(", {}", O.Src[1].Imm.Int)
                       : std::string();
  const char *Kind = O.Src.size() > 1 ? ".expect_tx" : "";
  if (O.Sp == litmus::Space::SharedCluster)
    line("{}asm volatile(\"mbarrier.arrive{}.{}.{}{}.b64 _, [%0]{};\" :: "
         "\"r\"({}) : \"memory\");",
         Ind, Kind, Sem, scopeName(O.Sc), Sp, Tx, B);
  else
    line("{}{{ incant_u64 st; asm volatile(\"mbarrier.arrive{}.{}.{}{}.b64 "
         "%0, [%1]{};\" : \"=l\"(st) : \"r\"({}) : \"memory\"); (void)st; "
         "}}",
         Ind, Kind, Sem, scopeName(O.Sc), Sp, Tx, B);
}

/// The first op of an asynchronous instruction emits it whole (its other
/// ops emit nothing).
void Emitter::emitAsync(const litmus::ThreadProgram &T, size_t I,
                        const std::string &Ind) {
  const Op &O = T.Ops[I];
  if (I > 0 && T.Ops[I - 1].Async == O.Async)
    return;
  const Op *Done = nullptr;
  for (size_t K = I; K < T.Ops.size() && T.Ops[K].Async == O.Async; ++K)
    if (T.Ops[K].Mbar == litmus::MbarOp::CompleteTx)
      Done = &T.Ops[K];
  if (O.K == Op::Kind::Load) {
    // A bulk copy: its read (O) and its write (the next op).
    const Op &W = T.Ops[I + 1];
    std::string Src = operand(O.Addr), Dst = operand(W.Addr);
    if (Done)
      line("{}asm volatile(\"cp.async.bulk.shared::cluster.global.mbarrier::"
           "complete_tx::bytes [%0], [%1], 16, [%2];\" :: \"r\"("
           "incant_cluster_addr({})), \"l\"((incant_u64)"
           "__cvta_generic_to_global((void *){})), \"r\"({}) : \"memory\");",
           Ind, Dst, Src, mbarAddress(*Done));
    else
      line("{}asm volatile(\"cp.async.bulk.global.shared::cta.bulk_group "
           "[%0], [%1], 16;\\n\\tcp.async.bulk.commit_group;\" :: \"l\"("
           "(incant_u64)__cvta_generic_to_global((void *){})), \"r\"("
           "(unsigned)__cvta_generic_to_shared((void *){})) : \"memory\");",
           Ind, Dst, Src);
    return;
  }
  // st.async / red.async.
  assert(Done && "st.async and red.async complete on an mbarrier");
  std::string V = O.Src.empty() ? "0ull" : operand(O.Src[0]);
  std::string What =
      O.K == Op::Kind::Store
          ? std::string("st.async")
          : fmt::format("red.async.relaxed.cluster");
  std::string Op2 =
      O.K == Op::Kind::Store ? std::string() : std::string(".") + rmwName(O.Rmw);
  line("{}asm volatile(\"{}.shared::cluster.mbarrier::complete_tx::bytes{}.{} "
       "[%0], %1, [%2];\" :: \"r\"(incant_cluster_addr({})), \"r\"((unsigned)"
       "({})), \"r\"({}) : \"memory\");",
       Ind, What, Op2, O.K == Op::Kind::Store ? "b32" : rmwType(O),
       operand(O.Addr), V, mbarAddress(*Done));
}

/// A location is 64-bit when it is initialised to an address or a 64-bit
/// access names it, directly or through a register initialised to its
/// address. Then every global location gets an 8-byte slot.
void Emitter::markWide() {
  WideLoc.assign(P.Locs.size(), false);
  for (size_t J = 0; J < P.Locs.size(); ++J)
    if (P.Locs[J].Init.isAddress())
      WideLoc[J] = true;
  for (const auto &T : P.Threads)
    for (const Op &O : T.Ops) {
      // An mbarrier is an opaque 64-bit object in its own shared slot.
      if (!isMemOp(O) || O.Bits != 64 || O.Mbar != litmus::MbarOp::None)
        continue;
      int32_t L = -1;
      if (O.Addr.K == Operand::Kind::Addr)
        L = O.Addr.Imm.Loc;
      else if (O.Addr.K == Operand::Kind::Reg && O.Addr.Reg >= 0 &&
               static_cast<size_t>(O.Addr.Reg) < T.Regs.size())
        L = T.Regs[O.Addr.Reg].Init.Loc;
      if (L >= 0 && static_cast<size_t>(L) < P.Locs.size())
        WideLoc[L] = true;
      else
        WideLoc.assign(P.Locs.size(), true); // address not known: all
    }
  for (bool W : WideLoc)
    AnyWide |= W;
}

/// bar.sync in parallel testing: every thread plays every role, so every
/// thread must meet the same barriers in the same order whichever role it
/// plays. Hence each thread of the test must have the same sequence of
/// barrier ids, none under a guard, and no branches (which could skip or
/// repeat one).
bool Emitter::checkBarriers() {
  std::vector<int32_t> First;
  bool HaveFirst = false;
  for (const auto &T : P.Threads) {
    std::vector<int32_t> Ids;
    for (const Op &O : T.Ops) {
      if (O.K == Op::Kind::Branch)
        error(O, "the CUDA backend runs bar.sync only in tests without "
                 "branches (every thread must reach every barrier)");
      if (O.K != Op::Kind::Barrier)
        continue;
      if (O.GuardReg >= 0)
        error(O, "the CUDA backend cannot run a guarded bar.sync");
      // barrier.cluster: its kind and semantics must agree too.
      Ids.push_back(!O.ClusterBarrier ? O.BarrierId
                    : !O.Arrive       ? -3
                    : O.S == litmus::Sem::Relaxed ? -4
                                                  : -2);
    }
    if (!HaveFirst) {
      First = Ids;
      HaveFirst = true;
    } else if (Ids != First) {
      // At this thread's first barrier, or the test's first one.
      const Op *At = nullptr;
      for (const Op &O : T.Ops)
        if (O.K == Op::Kind::Barrier && !At)
          At = &O;
      for (const auto &T2 : P.Threads)
        for (const Op &O : T2.Ops)
          if (O.K == Op::Kind::Barrier && !At)
            At = &O;
      std::string Msg = "every thread of a test with bar.sync must execute "
                        "the same barriers in the same order on the CUDA "
                        "backend (each GPU thread plays every role)";
      if (At)
        error(*At, Msg);
      else {
        Diags.error(File, {}, Msg);
        Failed = true;
      }
    }
  }
  return !Failed;
}

/// A load, store or atomic as inline PTX, and its expected memory ops.
void Emitter::emitAccess(const Op &O, const std::string &Ind,
                         const std::string &D,
                         std::vector<std::string> &Expected) {
  // 64-bit accesses: a u64 value in an "l" register.
  const bool W = O.Bits == 64;
  const char *VT = W ? "incant_u64" : "unsigned";
  const char *VC = W ? "l" : "r";
  switch (O.K) {
  case Op::Kind::Load: {
    auto [A, C] = address(O);
    std::string Q = semQual(O);
    std::string Cache = O.S == litmus::Sem::Weak ? cacheName(O.Cache) : "";
    line("{}{{ {} v; asm volatile(\"ld{}{}{}.{} %0, [%1];\" : \"={}\"(v) : "
         "\"{}\"({}) : \"memory\"); {} = v; }}",
         Ind, VT, Q, space(O), Cache, W ? "u64" : "u32", VC, C, A,
         D.empty() ? "(void)v" : D);
    Expected.push_back("LD");
    if (O.S == litmus::Sem::Acquire)
      Expected.push_back("FENCE?");
    break;
  }
  case Op::Kind::Store: {
    auto [A, C] = address(O);
    std::string Q = semQual(O);
    std::string Cache = O.S == litmus::Sem::Weak ? cacheName(O.Cache) : "";
    std::string V = O.Src.empty() ? "0ull" : operand(O.Src[0]);
    if (O.S == litmus::Sem::Release)
      Expected.push_back("FENCE?");
    line("{}asm volatile(\"st{}{}{}.{} [%0], %1;\" :: \"{}\"({}), "
         "\"{}\"(({})({})) : \"memory\");",
         Ind, Q, space(O), Cache, W ? "u64" : "u32", C, A, VC, VT, V);
    Expected.push_back("ST");
    break;
  }
  case Op::Kind::Rmw: {
    auto [A, C] = address(O);
    std::string Q = O.S == litmus::Sem::Weak ? std::string() : semQual(O);
    std::string Ty = rmwType(O);
    bool Cas = O.Rmw == litmus::RmwOp::Cas;
    bool Rel = O.S == litmus::Sem::Release || O.S == litmus::Sem::AcqRel;
    bool Acq = O.S == litmus::Sem::Acquire || O.S == litmus::Sem::AcqRel;
    if (Rel)
      Expected.push_back("FENCE?");
    std::string S0 = O.Src.size() > 0 ? operand(O.Src[0]) : "0ull";
    std::string S1 = O.Src.size() > 1 ? operand(O.Src[1]) : "0ull";
    if (O.Dst < 0 && !Cas && O.Rmw != litmus::RmwOp::Exch) {
      line("{}asm volatile(\"red{}{}.{}.{} [%0], %1;\" :: \"{}\"({}), "
           "\"{}\"(({})({})) : \"memory\");",
           Ind, Q, space(O), rmwName(O.Rmw), Ty, C, A, VC, VT, S0);
      Expected.push_back("RED");
    } else if (Cas) {
      line("{}{{ {} v; asm volatile(\"atom{}{}.cas.{} %0, [%1], %2, %3;\" "
           ": \"={}\"(v) : \"{}\"({}), \"{}\"(({})({})), "
           "\"{}\"(({})({})) : \"memory\"); {} = v; }}",
           Ind, VT, Q, space(O), Ty, VC, C, A, VC, VT, S0, VC, VT, S1,
           D.empty() ? "(void)v" : D);
      Expected.push_back("ATOM");
    } else {
      line("{}{{ {} v; asm volatile(\"atom{}{}.{}.{} %0, [%1], %2;\" : "
           "\"={}\"(v) : \"{}\"({}), \"{}\"(({})({})) : \"memory\"); {} = "
           "v; }}",
           Ind, VT, Q, space(O), rmwName(O.Rmw), Ty, VC, C, A, VC, VT, S0,
           D.empty() ? "(void)v" : D);
      Expected.push_back("ATOM");
    }
    if (Acq)
      Expected.push_back("FENCE?");
    break;
  }
  default:
    break;
  }
}

/// A membar or fence as inline PTX, and its expected memory op.
void Emitter::emitFence(const Op &O, const std::string &Ind,
                        std::vector<std::string> &Expected) {
  std::string F;
  if (O.Fence == litmus::FenceKind::Membar) {
    switch (O.Sc) {
    case litmus::Scope::CTA:
      F = "membar.cta";
      break;
    case litmus::Scope::Sys:
      F = "membar.sys";
      break;
    case litmus::Scope::Cluster:
      F = "fence.sc.cluster";
      break;
    default:
      F = "membar.gl";
      break;
    }
  } else if (O.Fence == litmus::FenceKind::FenceSC) {
    F = fmt::format("fence.sc.{}", scopeName(O.Sc));
  } else {
    F = fmt::format("fence.acq_rel.{}", scopeName(O.Sc));
  }
  line("{}asm volatile(\"{};\" ::: \"memory\");", Ind, F);
  Expected.push_back("FENCE");
}

/// An arithmetic, logic, conversion or comparison op into register \p D.
void Emitter::emitAlu(const Op &O, const std::string &Ind,
                      const std::string &D) {
  auto S = [&](size_t K) {
    return K < O.Src.size() ? operand(O.Src[K]) : std::string("0ull");
  };
  bool W64 = O.Bits == 64;
  std::string Mask = W64 ? "" : " & 0xFFFFFFFFull";
  const char *Ty = W64 ? "b64" : "b32";
  const char *C = W64 ? "l" : "r";
  const char *Cast = W64 ? "(incant_u64)" : "(unsigned)";
  // Name is the full opcode with its type ("add.s32", "and.b32").
  auto Bin = [&](std::string Name) {
    line("{}{{ {}v; asm volatile(\"{} %0, %1, %2;\" : \"={}\"(v) : "
         "\"{}\"({}({})), \"{}\"({}({}))); {} = v; }}",
         Ind, W64 ? "incant_u64 " : "unsigned ", Name, C, C, Cast, S(0), C,
         Cast, S(1), D);
  };
  if (D.empty())
    return;
  switch (O.Alu) {
  case litmus::AluOp::Mov:
    line("{}{} = ({}){};", Ind, D, "incant_u64", S(0) + Mask);
    break;
  case litmus::AluOp::Add:
    Bin(W64 ? "add.s64" : "add.s32");
    break;
  case litmus::AluOp::Sub:
    Bin(W64 ? "sub.s64" : "sub.s32");
    break;
  case litmus::AluOp::Mul:
    Bin(W64 ? "mul.lo.s64" : "mul.lo.s32");
    break;
  case litmus::AluOp::And:
    Bin(std::string("and.") + Ty);
    break;
  case litmus::AluOp::Or:
    Bin(std::string("or.") + Ty);
    break;
  case litmus::AluOp::Xor:
    Bin(std::string("xor.") + Ty);
    break;
  case litmus::AluOp::Not:
    line("{}{} = (~{}){};", Ind, D, S(0), Mask);
    break;
  case litmus::AluOp::Cvt:
    line("{}{} = ({}){};", Ind, D, S(0), Mask);
    break;
  case litmus::AluOp::Setp: {
    const char *Op = "==";
    switch (O.Cmp) {
    case litmus::CmpOp::Eq: Op = "=="; break;
    case litmus::CmpOp::Ne: Op = "!="; break;
    case litmus::CmpOp::Lt: Op = "<"; break;
    case litmus::CmpOp::Le: Op = "<="; break;
    case litmus::CmpOp::Gt: Op = ">"; break;
    case litmus::CmpOp::Ge: Op = ">="; break;
    }
    const char *T = O.Signed ? (W64 ? "(long long)" : "(int)")
                             : (W64 ? "(incant_u64)" : "(unsigned)");
    line("{}{} = ({}({}) {} {}({})) ? 1ull : 0ull;", Ind, D, T, S(0), Op, T,
         S(1));
    break;
  }
  }
}

/// Op \p I of role \p R as CUDA (under its guard), adding to \p Expected
/// the memory ops the optimisation check looks for.
void Emitter::emitOp(size_t R, const litmus::ThreadProgram &T, size_t I,
                     std::vector<std::string> &Expected) {
  const Op &O = T.Ops[I];
  std::string Ind = "  ";
  bool Guarded = O.GuardReg >= 0 && O.K != Op::Kind::Branch;
  if (Guarded) {
    line("  if ({}{} {} 0) {{", RP, O.GuardReg, O.GuardNegated ? "==" : "!=");
    Ind = "    ";
  }
  std::string D = O.Dst >= 0 ? fmt::format("{}{}", RP, O.Dst) : std::string();
  if (O.Async >= 0 || O.Mbar != litmus::MbarOp::None ||
      (O.K == Op::Kind::Fence && O.Fence == litmus::FenceKind::Proxy) ||
      (O.K == Op::Kind::Alu && O.MapaRank >= 0)) {
    if (O.Async >= 0)
      emitAsync(T, I, Ind);
    else if (O.Mbar != litmus::MbarOp::None)
      emitMbarrier(O, Ind);
    else if (O.K == Op::Kind::Fence)
      line("{}asm volatile(\"{};\" ::: \"memory\");", Ind,
           O.AsyncWait ? "cp.async.bulk.wait_group 0" : "fence.proxy.async");
    else if (O.Dst >= 0) // mapa: the role's mapped address (emitMapas)
      line("{}{}{} = {}[{}];", Ind, RP, O.Dst, MM, O.Src[0].Imm.Loc);
    if (Guarded)
      line("  }}");
    return;
  }
  switch (O.K) {
  case Op::Kind::Load:
  case Op::Kind::Store:
  case Op::Kind::Rmw:
    emitAccess(O, Ind, D, Expected);
    break;
  case Op::Kind::Fence:
    emitFence(O, Ind, Expected);
    break;
  case Op::Kind::Barrier:
    break; // between the parts of a role: emitBarrierTest()
  case Op::Kind::Alu:
    emitAlu(O, Ind, D);
    break;
  case Op::Kind::Branch: {
    std::string Cond = "true";
    if (O.GuardReg >= 0)
      Cond = fmt::format("{}{} {} 0", RP, O.GuardReg,
                         O.GuardNegated ? "==" : "!=");
    if (O.Target >= 0 && static_cast<size_t>(O.Target) <= I)
      line("  if ({}) {{ if (++steps > {}u) goto L{}_end; goto L{}_{}; }}",
           Cond, Opts.LoopBudget, R, R, O.Target);
    else
      line("  if ({}) goto L{}_{};", Cond, R,
           O.Target < 0 ? std::string("end") : std::to_string(O.Target));
    break;
  }
  }
  if (Guarded)
    line("  }}");
}

/// Writes role R's observed registers to its instance's out slots \p Out
/// (64-bit ones as two words, addresses as the location they point to).
void Emitter::emitOutputs(size_t R, const char *Ind, const char *Out) {
  for (size_t K = 0; K < P.Observe.size(); ++K) {
    const auto &Ob = P.Observe[K];
    if (Ob.Thread != static_cast<int32_t>(R))
      continue;
    if (HiSlot[K] >= 0)
      line("{}incant_put64({}, {}u, {}u, {}{}, {});", Ind, Out, K, HiSlot[K],
           RP, Ob.Index, AA);
    else
      line("{}{}[{}] = (unsigned){}{};", Ind, Out, K, RP, Ob.Index);
  }
}

void Emitter::emitRole(size_t R) {
  const auto &T = P.Threads[R];
  line("// Role {}: thread P{} of the test.", R, T.Id);
  line("__device__ __forceinline__ void incant_role_{}(const incant_u64 *a, "
       "const incant_u64 *m, unsigned *o) {{",
       R);
  line("  (void)m;");
  line("  unsigned steps = 0; (void)steps;");
  for (size_t K = 0; K < T.Regs.size(); ++K)
    line("  incant_u64 r{} = {};", K, value(T.Regs[K].Init));
  std::set<int32_t> Targets;
  for (const Op &O : T.Ops)
    if (O.K == Op::Kind::Branch && O.Target >= 0)
      Targets.insert(O.Target);
  line("  asm volatile(\"pmevent.mask {:#x};\" ::: \"memory\");",
       markerBegin(static_cast<uint32_t>(R)));
  std::vector<std::string> Expected;
  for (size_t I = 0; I < T.Ops.size(); ++I) {
    if (Targets.count(static_cast<int32_t>(I)))
      line("L{}_{}:;", R, I);
    emitOp(R, T, I, Expected);
  }
  if (Targets.count(static_cast<int32_t>(T.Ops.size())))
    line("L{}_{}:;", R, T.Ops.size());
  line("L{}_end:;", R);
  line("  asm volatile(\"pmevent.mask {:#x};\" ::: \"memory\");",
       markerEnd(static_cast<uint32_t>(R)));
  line("  if (o) {{");
  emitOutputs(R, "    ", "o");
  // steps passes the bound only on the way out through it.
  if (G.CutSlot >= 0)
    line("    if (steps > {}u) o[{}] = 1u;", Opts.LoopBudget, G.CutSlot);
  line("  }}");
  // Registers that are never read again still count as used.
  for (size_t K = 0; K < T.Regs.size(); ++K)
    line("  (void)r{};", K);
  line("}}");
  line("");
  G.ExpectedMemOps.push_back(std::move(Expected));
  G.RegionNames.push_back(fmt::format("thread {}", R));
}

/// The addresses of every location for instance \p Inst, in this thread,
/// into the array \p Arr (shadow lanes: their own region). \p IW and
/// \p IL name the instance's warp and lane in its block (shared memory).
void Emitter::emitAddrs(const char *Ind, const std::string &Arr,
                        const std::string &Inst, const std::string &IW,
                        const std::string &IL) {
  size_t NL = P.Locs.size();
  line("{}incant_u64 {}[{}];", Ind, Arr, std::max<size_t>(NL, 1));
  for (size_t J = 0; J < NL; ++J) {
    // Shadow lanes of 64-bit tests use 8-byte aligned words.
    std::string Sh = fmt::format("incant_shadow_addr(P, vb, w, ln, {})", J);
    if (AnyWide)
      Sh = "(" + Sh + " & ~7ull)";
    if (G.GlobalIndex[J] >= 0)
      line("{}{}[{}] = shadow ? {} : incant_gaddr(P, {}, {});", Ind, Arr, J,
           Sh, Inst, G.GlobalIndex[J]);
    else
      line("{}{}[{}] = shadow ? {} : "
           "(incant_u64)(smem + incant_sword(P, {}, {}, {}));",
           Ind, Arr, J, Sh, G.SharedIndex[J], IW, IL);
  }
}

/// Tests with bar.sync: each thread runs all its roles in one pass, cut at
/// the barriers: part 0 of every role, the barrier, part 1 of every role,
/// and so on. Every thread of the block meets every barrier exactly once
/// (idle lanes and, with --instances 1, threads without an instance too),
/// and for each instance all its roles' part k come before barrier k and
/// all their part k+1 after it, which is what bar.sync promises the test.
/// The barrier is emitted as barrier.sync, which bar.sync abbreviates with
/// .aligned; .aligned is dropped because the lanes of a warp may reach it
/// from different roles (diverged).
void Emitter::emitBarrierTest() {
  const harness::PlacementShape &L = G.Shape;
  size_t NR = P.Threads.size();
  std::vector<const Op *> Bars;
  for (const Op &O : P.Threads[0].Ops)
    if (O.K == Op::Kind::Barrier)
      Bars.push_back(&O);
  const std::vector<const Op *> &Ids = Bars;
  line("__device__ __forceinline__ void incant_test(const IncantParams &P, "
       "unsigned vb, unsigned w, unsigned ln, unsigned *smem, bool shadow) {{");
  line("  unsigned *out = (unsigned *)P.out;");
  line("  (void)out; (void)smem;");
  line("  const bool idle = shadow && !(P.flags & INCANT_F_BANK);");
  for (size_t R = 0; R < NR; ++R) {
    const harness::RoleSlot &O = L.Roles[R];
    const auto &T = P.Threads[R];
    RP = fmt::format("r{}_", R);
    AA = fmt::format("a{}", R);
    line("  // Role {}: thread P{} of the test.", R, T.Id);
    line("  unsigned inst{0}, iw{0}, il{0};", R);
    line("  const bool run{} = !idle && (incant_instance(P, vb, w, ln, {}u, "
         "{}u, {}u, {}u, &inst{}, &iw{}, &il{}) || shadow);",
         R, O.ClusterGroup, O.CtaInCluster, O.WarpClass, O.Lane, R, R,
         R);
    emitAddrs("  ", AA, fmt::format("inst{}", R), fmt::format("iw{}", R),
              fmt::format("il{}", R));
    emitMapas("  ", R, AA, fmt::format("m{}", R));
    for (size_t K = 0; K < T.Regs.size(); ++K)
      line("  incant_u64 {}{} = {};", RP, K, value(T.Regs[K].Init));
  }
  std::vector<size_t> Pos(NR, 0);
  uint32_t Region = 0;
  for (size_t Part = 0; Part <= Ids.size(); ++Part) {
    for (size_t R = 0; R < NR; ++R) {
      const auto &T = P.Threads[R];
      RP = fmt::format("r{}_", R);
      AA = fmt::format("a{}", R);
      MM = fmt::format("m{}", R);
      line("  if (run{}) {{", R);
      line("  asm volatile(\"pmevent.mask {:#x};\" ::: \"memory\");",
           markerBegin(Region));
      std::vector<std::string> Expected;
      size_t &I = Pos[R];
      for (; I < T.Ops.size() && T.Ops[I].K != Op::Kind::Barrier; ++I)
        emitOp(R, T, I, Expected);
      ++I; // the barrier that ends this part
      line("  asm volatile(\"pmevent.mask {:#x};\" ::: \"memory\");",
           markerEnd(Region++));
      line("  }}");
      G.ExpectedMemOps.push_back(std::move(Expected));
      G.RegionNames.push_back(
          Ids.empty() ? fmt::format("thread {}", R)
                      : fmt::format("thread {} part {}", R, Part));
    }
    if (Part == Ids.size())
      break;
    line("  asm volatile(\"pmevent.mask {:#x};\" ::: \"memory\");",
         markerBegin(Region));
    emitBarrier(Bars[Part]);
    line("  asm volatile(\"pmevent.mask {:#x};\" ::: \"memory\");",
         markerEnd(Region++));
    G.ExpectedMemOps.push_back({"BAR"});
    G.RegionNames.push_back(fmt::format("barrier {}", Part));
  }
  for (size_t R = 0; R < NR; ++R) {
    RP = fmt::format("r{}_", R);
    AA = fmt::format("a{}", R);
    line("  if (run{} && !shadow) {{", R);
    line("    unsigned *o = out + (incant_u64)inst{} * {}u; (void)o;", R,
         std::max<uint32_t>(G.NumOut, 1));
    emitOutputs(R, "    ", "o");
    line("  }}");
    for (size_t K = 0; K < P.Threads[R].Regs.size(); ++K)
      line("  (void){}{};", RP, K);
  }
  RP = "r";
  AA = "a";
  MM = "m";
  line("}}");
  line("");
}

/// One barrier of a barrier test: bar.sync as barrier.sync (see above),
/// barrier.cluster.arrive and .wait without .aligned (a warp's lanes may
/// reach them from different roles).
void Emitter::emitBarrier(const Op *B) {
  if (!B->ClusterBarrier)
    line("  asm volatile(\"barrier.sync {};\" ::: \"memory\");",
         B->BarrierId);
  else if (B->Arrive)
    line("  asm volatile(\"barrier.cluster.arrive.{};\" ::: \"memory\");",
         B->S == litmus::Sem::Relaxed ? "relaxed" : "release");
  else
    line("  asm volatile(\"barrier.cluster.wait.acquire;\" ::: \"memory\");");
}

/// The addresses role \p R maps with mapa, into \p Mapped (the others as
/// in \p Arr): location j at the CTA of the test's rank r in the cluster,
/// which is this instance's block of that rank, (ik + r) mod K for the
/// instance's first block ik (the role's own block minus its offset).
void Emitter::emitMapas(const char *Ind, size_t R, const std::string &Arr,
                        const std::string &Mapped) {
  size_t NL = std::max<size_t>(P.Locs.size(), 1);
  const harness::PlacementShape &L = G.Shape;
  uint32_t K = std::max<uint32_t>(L.ClusterSize, 1);
  line("{}incant_u64 {}[{}];", Ind, Mapped, NL);
  for (size_t J = 0; J < P.Locs.size(); ++J) {
    int32_t Rank = -1;
    for (const Op &O : P.Threads[R].Ops)
      if (O.MapaRank >= 0 && O.Src[0].Imm.Loc == int32_t(J))
        Rank = O.MapaRank;
    if (Rank < 0) {
      line("{}{}[{}] = {}[{}];", Ind, Mapped, J, Arr, J);
      continue;
    }
    line("{}{}[{}] = shadow ? {}[{}] : incant_mapa({}[{}], (vb % {}u + {}u "
         "- {}u + {}u) % {}u);",
         Ind, Mapped, J, Arr, J, Arr, J, K, K, L.Roles[R].CtaInCluster % K,
         uint32_t(Rank) % K, K);
  }
}

/// Tests without barriers: each thread plays every role, each for another
/// instance, in an order rotated by its position.
void Emitter::emitTestLoop() {
  const harness::PlacementShape &L = G.Shape;
  line("__device__ __forceinline__ void incant_test(const IncantParams &P, "
       "unsigned vb, unsigned w, unsigned ln, unsigned *smem, bool shadow) {{");
  line("  unsigned *out = (unsigned *)P.out;");
  line("  (void)out; (void)smem;");
  // Each thread plays every role, each for another instance. It plays them
  // in an order rotated by its position, so that the threads playing the
  // roles of one instance reach them at the same step (exactly when role
  // r's offsets number r, as they do for the tests placed in order;
  // docs/cuda.md, "Phases"). Otherwise a warp would finish role 0 of all
  // its instances before starting role 1, and the roles of one instance
  // inside one CTA would never overlap.
  size_t NR = L.Roles.size();
  // The lane term only when roles share a warp: otherwise every lane of a
  // warp rotates alike and the warp does not diverge.
  line("  unsigned h = ((((vb / {0}u) / P.blockStride) * {0}u + vb % {0}u) * "
       "{1}u + w / P.warpStride) * {2}u{3};",
       L.ClusterSize, L.maxWarps(), L.maxLanes(),
       L.maxLanes() > 1 ? " + ln" : "");
  line("  unsigned k = h % {}u;", std::max<size_t>(NR, 1));
  line("#pragma unroll 1");
  line("  for (unsigned step = 0; step < {}u; ++step) {{",
       std::max<size_t>(NR, 1));
  line("  unsigned role = (k + step) % {}u;", std::max<size_t>(NR, 1));
  for (size_t R = 0; R < L.Roles.size(); ++R) {
    const harness::RoleSlot &O = L.Roles[R];
    line("  if (role == {}u) {{", R);
    line("    unsigned inst, iw, il;");
    line("    bool mine = incant_instance(P, vb, w, ln, {}u, {}u, {}u, {}u, "
         "&inst, &iw, &il);",
         O.ClusterGroup, O.CtaInCluster, O.WarpClass, O.Lane);
    line("    if (mine || shadow) {{");
    emitAddrs("      ", "a", "inst", "iw", "il");
    emitMapas("      ", R, "a", "m");
    line("      incant_role_{}(a, m, shadow ? (unsigned *)0 : out + "
         "(incant_u64)inst * {}u);",
         R, std::max<uint32_t>(G.NumOut, 1));
    line("    }}");
    line("  }}");
  }
  line("  }}");
  line("}}");
  line("");
}

void Emitter::emitGlue() {
  const harness::PlacementShape &L = G.Shape;
  size_t NL = P.Locs.size();
  if (HasBarrier)
    emitBarrierTest();
  else
    emitTestLoop();

  // Shared memory: initial values, and observed finals copied to out by
  // the first role that uses the location.
  line("__device__ __forceinline__ void incant_init_shared(const IncantParams "
       "&P, unsigned *smem) {{");
  line("  unsigned per = P.warps * P.lanes;");
  line("  (void)per; (void)smem;");
  for (size_t J = 0; J < NL; ++J) {
    if (G.SharedIndex[J] < 0)
      continue;
    if (P.Locs[J].Mbarrier > 0)
      // An mbarrier expecting that many arrivals per phase.
      line("  for (unsigned j = threadIdx.x; j < per; j += blockDim.x) "
           "asm volatile(\"mbarrier.init.shared::cta.b64 [%0], %1;\" :: "
           "\"r\"((unsigned)__cvta_generic_to_shared(smem + ({}u * per + j) "
           "* P.sharedStride)), \"r\"({}u) : \"memory\");",
           G.SharedIndex[J], P.Locs[J].Mbarrier);
    else
      line("  for (unsigned j = threadIdx.x; j < per; j += blockDim.x) "
           "smem[({}u * per + j) * P.sharedStride] = {}u;",
           G.SharedIndex[J], wordOf(P.Locs[J].Init.Int));
  }
  bool Mbar = std::any_of(P.Locs.begin(), P.Locs.end(),
                          [](const litmus::Location &L) {
                            return L.Mbarrier > 0;
                          });
  if (Mbar) // the inits seen by the other CTAs of the cluster and the async proxy
    line("  asm volatile(\"fence.mbarrier_init.release.cluster;\" ::: "
         "\"memory\");");
  // The initial values are generic-proxy writes: without a proxy fence a
  // bulk copy (async proxy) into the same word may land before them (seen
  // on the H200: a completed copy read back as the initial value).
  bool Async = false;
  for (const auto &T : P.Threads)
    for (const Op &O : T.Ops)
      Async |= O.Async >= 0 || O.AsyncWait;
  if (Async)
    line("  asm volatile(\"fence.proxy.async.shared::cta;\" ::: \"memory\");");
  line("}}");
  line("");
  line("__device__ __forceinline__ void incant_copy_shared(const IncantParams "
       "&P, unsigned vb, unsigned w, unsigned ln, unsigned *smem) {{");
  line("  unsigned *out = (unsigned *)P.out;");
  line("  (void)out; (void)smem; (void)vb; (void)w; (void)ln;");
  for (size_t K = 0; K < P.Observe.size(); ++K) {
    const auto &Ob = P.Observe[K];
    if (Ob.Thread >= 0 || G.SharedIndex[Ob.Index] < 0)
      continue;
    // The owner is the first role that touches the location itself; the
    // roles that do all sit in its home CTA (the lowering checks it; the
    // others reach it through mapa).
    size_t Owner = 0;
    for (size_t R = 0; R < P.Threads.size(); ++R) {
      // By name, or through a register holding its address from the
      // start (not one from mapa: that is another CTA's copy).
      bool Uses = false;
      const auto &Th = P.Threads[R];
      for (const Op &O : Th.Ops)
        if ((O.Addr.K == Operand::Kind::Addr && O.Addr.Imm.Loc == Ob.Index) ||
            (O.Addr.K == Operand::Kind::Reg && O.Addr.Reg >= 0 &&
             Th.Regs[size_t(O.Addr.Reg)].Init.Loc == Ob.Index))
          Uses = true;
      if (Uses) {
        Owner = R;
        break;
      }
    }
    const harness::RoleSlot &O = L.Roles[Owner];
    line("  {{ unsigned inst, iw, il;");
    line("    if (incant_instance(P, vb, w, ln, {}u, {}u, {}u, {}u, &inst, "
         "&iw, &il))",
         O.ClusterGroup, O.CtaInCluster, O.WarpClass, O.Lane);
    line("      out[(incant_u64)inst * {}u + {}u] = smem[incant_sword(P, {}u, "
         "iw, il)]; }}",
         std::max<uint32_t>(G.NumOut, 1), K, G.SharedIndex[Ob.Index]);
  }
  line("}}");
  line("");

  line("__device__ __forceinline__ void incant_observe(const IncantParams &P, "
       "unsigned i, unsigned *t) {{");
  line("  const unsigned *out = (const unsigned *)P.out;");
  line("  const unsigned *mem = (const unsigned *)P.mem;");
  line("  (void)out; (void)mem; (void)t; (void)i;");
  if (AnyWide) {
    // Global addresses of instance i, to report address values as the
    // location they point to (shared ones cannot be known here: 0).
    line("  incant_u64 a[{}];", std::max<size_t>(NL, 1));
    for (size_t J = 0; J < NL; ++J)
      line("  a[{}] = {};", J,
           G.GlobalIndex[J] >= 0
               ? fmt::format("incant_gaddr(P, i, {}u)", G.GlobalIndex[J])
               : std::string("0ull"));
  }
  for (size_t K = 0; K < P.Observe.size(); ++K) {
    const auto &Ob = P.Observe[K];
    if (Ob.Thread >= 0 || G.SharedIndex[Ob.Index] >= 0) {
      line("  t[{}] = out[(incant_u64)i * {}u + {}u];", K,
           std::max<uint32_t>(G.NumOut, 1), K);
      if (HiSlot[K] >= 0)
        line("  t[{0}] = out[(incant_u64)i * {1}u + {0}u];", HiSlot[K],
             std::max<uint32_t>(G.NumOut, 1));
    } else if (HiSlot[K] >= 0) {
      line("  {{ incant_u64 w = incant_gword(P, i, {}u);", G.GlobalIndex[Ob.Index]);
      line("    incant_put64(t, {}u, {}u, (incant_u64)mem[w] | "
           "((incant_u64)mem[w + 1] << 32), a); }}",
           K, HiSlot[K]);
    } else {
      line("  t[{}] = mem[incant_gword(P, i, {}u)];", K,
           G.GlobalIndex[Ob.Index]);
    }
  }
  if (G.CutSlot >= 0)
    line("  t[{0}] = out[(incant_u64)i * {1}u + {0}u];", G.CutSlot, G.NumOut);
  line("}}");
  line("");
  line("__device__ __forceinline__ void incant_reset(const IncantParams &P, "
       "unsigned i) {{");
  line("  unsigned *out = (unsigned *)P.out;");
  line("  unsigned *mem = (unsigned *)P.mem;");
  line("  (void)out; (void)mem; (void)i;");
  for (size_t J = 0; J < NL; ++J) {
    if (G.GlobalIndex[J] < 0)
      continue;
    const litmus::Value &V = P.Locs[J].Init;
    if (!WideLoc[J]) {
      line("  mem[incant_gword(P, i, {}u)] = {}u;", G.GlobalIndex[J],
           wordOf(V.Int));
      continue;
    }
    // A 64-bit location: its slot is 8-byte aligned (even global index).
    std::string Val = V.isAddress()
                          ? fmt::format("incant_gaddr(P, i, {}u) + {}ull",
                                        G.GlobalIndex[V.Loc],
                                        static_cast<uint64_t>(V.Int))
                          : fmt::format("{}ull", static_cast<uint64_t>(V.Int));
    line("  {{ incant_u64 w = incant_gword(P, i, {}u), v = {};",
         G.GlobalIndex[J], Val);
    line("    mem[w] = (unsigned)v; mem[w + 1] = (unsigned)(v >> 32); }}");
  }
  for (size_t K = 0; K < G.NumOut; ++K)
    line("  out[(incant_u64)i * {}u + {}u] = 0u;", G.NumOut, K);
  line("}}");
}

std::optional<GeneratedTest> Emitter::run() {
  if (!checkSupported())
    return std::nullopt;
  G.Shape = harness::placementShape(P);
  for (const auto &L : P.Locs) {
    if (L.R == litmus::Region::Shared) {
      G.GlobalIndex.push_back(-1);
      G.SharedIndex.push_back(static_cast<int32_t>(G.NumShared++));
    } else {
      G.GlobalIndex.push_back(static_cast<int32_t>(G.NumGlobal++));
      G.SharedIndex.push_back(-1);
    }
  }
  // With any 64-bit location, every global location gets an even index
  // (an 8-byte slot; the odd index after it is its high word).
  if (AnyWide) {
    for (int32_t &I : G.GlobalIndex)
      if (I >= 0)
        I *= 2;
    G.NumGlobal *= 2;
  }
  // Observed 64-bit registers and locations carry their high word in an
  // out slot after the low words of all observed items.
  G.NumOut = static_cast<uint32_t>(P.Observe.size());
  bool WideOut = false;
  for (const auto &Ob : P.Observe) {
    bool Wd = Ob.Thread >= 0
                  ? P.Threads[Ob.Thread].Regs[Ob.Index].Bits == 64
                  : WideLoc[Ob.Index];
    HiSlot.push_back(Wd ? static_cast<int32_t>(G.NumOut++) : -1);
    WideOut |= Wd;
  }
  G.HiSlot = HiSlot;
  bool HasLoop = false;
  for (const auto &T : P.Threads)
    for (size_t I = 0; I < T.Ops.size(); ++I)
      HasLoop |= T.Ops[I].K == Op::Kind::Branch && T.Ops[I].Target >= 0 &&
                 static_cast<size_t>(T.Ops[I].Target) <= I;
  if (HasLoop)
    G.CutSlot = static_cast<int32_t>(G.NumOut++);
  G.HasBarrier = HasBarrier;
  G.Wide = AnyWide;

  line("// Generated by incant from a litmus test's lowered form. Do not edit.");
  line("// Harness: incant_harness.cuh (lib/CUDA/runtime in incant's sources).");
  line("#define INCANT_NUM_ROLES {}", P.Threads.size());
  line("#define INCANT_NUM_GLOBAL {}", std::max<uint32_t>(G.NumGlobal, 1));
  line("#define INCANT_NUM_SHARED {}", G.NumShared);
  line("#define INCANT_NUM_OUT {}", G.NumOut);
  line("#define INCANT_CLUSTER {}", G.Shape.ClusterSize);
  line("#include \"incant_params.h\"");
  line("typedef unsigned long long incant_u64;");
  line("#define INCANT_HAS_BARRIER {}", HasBarrier ? 1 : 0);
  line("#define INCANT_CLUSTER_SHARED {}", G.ClusterShared ? 1 : 0);
  if (G.ClusterShared || G.SharedStride > 1) {
    // Shared::cluster addresses of generic ones, and mapa on generic ones.
    line("__device__ __forceinline__ unsigned incant_cluster_addr(incant_u64 "
         "g) {{ incant_u64 c; asm(\"cvta.to.shared::cluster.u64 %0, %1;\" : "
         "\"=l\"(c) : \"l\"(g)); return (unsigned)c; }}");
    line("__device__ __forceinline__ incant_u64 incant_mapa(incant_u64 g, "
         "unsigned r) {{ incant_u64 m; asm(\"mapa.u64 %0, %1, %2;\" : "
         "\"=l\"(m) : \"l\"(g), \"r\"(r)); return m; }}");
  }
  line("");
  if (WideOut) {
    line("// A 64-bit value into out slots k (low word) and h (high word); an "
         "address");
    line("// of a location j as (offset, {:#x} | j).", AddressTag);
    line("__device__ __forceinline__ void incant_put64(unsigned *o, unsigned "
         "k, unsigned h, incant_u64 v, const incant_u64 *a) {{");
    line("  unsigned lo = (unsigned)v, hi = (unsigned)(v >> 32);");
    line("  for (unsigned j = 0; j < {}u; ++j)", P.Locs.size());
    line("    if (a[j] != 0ull && v - a[j] < 8ull) {{ lo = (unsigned)(v - "
         "a[j]); hi = {:#x}u | j; break; }}",
         AddressTag);
    line("  o[k] = lo; o[h] = hi;");
    line("}}");
    line("");
  }
  if (!HasBarrier)
    for (size_t R = 0; R < P.Threads.size(); ++R)
      emitRole(R);
  // The glue uses harness helpers declared in incant_harness.cuh; forward
  // declare them here so the harness can come last.
  line("__device__ __forceinline__ incant_u64 incant_gword(const IncantParams "
       "&P, unsigned i, unsigned g);");
  line("__device__ __forceinline__ incant_u64 incant_gaddr(const IncantParams "
       "&P, unsigned i, unsigned g);");
  line("__device__ __forceinline__ unsigned incant_sword(const IncantParams "
       "&P, unsigned s, unsigned iw, unsigned il);");
  line("__device__ __forceinline__ bool incant_instance(const IncantParams &P, "
       "unsigned vb, unsigned w, unsigned ln, unsigned cq, unsigned ck, "
       "unsigned d, unsigned e, unsigned *inst, unsigned *iw, unsigned *il);");
  line("__device__ __forceinline__ incant_u64 incant_shadow_addr(const "
       "IncantParams &P, unsigned vb, unsigned w, unsigned ln, unsigned j);");
  line("");
  emitGlue();
  line("");
  line("#include \"incant_harness.cuh\"");
  if (Failed)
    return std::nullopt;
  G.Source = std::move(Out);
  return std::move(G);
}

} // namespace

std::optional<GeneratedTest>
incant::cuda::generateCuda(const litmus::Program &P,
                           const CodegenOptions &Opts,
                           std::shared_ptr<const SourceFile> File,
                           DiagnosticEngine &Diags) {
  Emitter E(P, Opts, std::move(File), Diags);
  return E.run();
}

std::vector<litmus::Value>
incant::cuda::decodeOutcome(const GeneratedTest &G,
                            const std::vector<uint32_t> &Words) {
  std::vector<litmus::Value> Out;
  for (size_t K = 0; K < G.HiSlot.size(); ++K) {
    uint32_t Lo = K < Words.size() ? Words[K] : 0;
    int32_t H = G.HiSlot[K];
    if (H < 0 || static_cast<size_t>(H) >= Words.size()) {
      Out.push_back({-1, static_cast<int32_t>(Lo)});
      continue;
    }
    uint32_t Hi = Words[H];
    if ((Hi & 0xFFF00000u) == AddressTag)
      Out.push_back({static_cast<int32_t>(Hi & 0xFFFFFu), Lo});
    else
      Out.push_back(
          {-1, static_cast<int64_t>((static_cast<uint64_t>(Hi) << 32) | Lo)});
  }
  return Out;
}
