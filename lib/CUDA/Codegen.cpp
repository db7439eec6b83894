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

bool usesClusterScope(const litmus::Program &P) {
  for (const auto &T : P.Threads)
    for (const Op &O : T.Ops)
      if (O.Sc == litmus::Scope::Cluster)
        return true;
  return false;
}

} // namespace

RoleLayout incant::cuda::computeRoleLayout(const litmus::Program &P) {
  RoleLayout L;
  size_t N = P.Threads.size();
  L.Roles.resize(N);
  if (N == 0)
    return L;
  // Group roles by CTA (cluster, cta), then warps within a CTA, then lanes.
  using CtaKey = std::pair<int32_t, int32_t>;
  std::map<CtaKey, std::vector<size_t>> ByCta;
  for (size_t R = 0; R < N; ++R) {
    const auto &W = P.Threads[R].Where;
    ByCta[{W.Cluster, W.CTA}].push_back(R);
  }
  // Does any cluster hold two CTAs of the test, and can the test tell?
  std::map<int32_t, std::set<int32_t>> CtasOfCluster;
  for (const auto &[K, Rs] : ByCta)
    CtasOfCluster[K.first].insert(K.second);
  size_t MaxCtas = 1;
  for (const auto &[C, S] : CtasOfCluster)
    MaxCtas = std::max(MaxCtas, S.size());
  bool Cluster = MaxCtas > 1 && usesClusterScope(P);
  L.ClusterSize = Cluster ? static_cast<uint32_t>(MaxCtas) : 1;

  // Role 0's CTA gets offset 0, then the others in order of first role.
  std::vector<CtaKey> Order;
  for (size_t R = 0; R < N; ++R) {
    const auto &W = P.Threads[R].Where;
    CtaKey K{W.Cluster, W.CTA};
    if (std::find(Order.begin(), Order.end(), K) == Order.end())
      Order.push_back(K);
  }
  std::map<int32_t, uint32_t> ClusterGroup; // cluster id -> group
  std::map<int32_t, uint32_t> NextInCluster;
  uint32_t NextGroup = 0;
  for (const CtaKey &K : Order) {
    uint32_t G, InCl = 0;
    if (Cluster) {
      auto It = ClusterGroup.find(K.first);
      if (It == ClusterGroup.end())
        It = ClusterGroup.emplace(K.first, NextGroup++).first;
      G = It->second;
      InCl = NextInCluster[K.first]++;
    } else {
      G = NextGroup++;
    }
    // Warps inside this CTA, in order of first role.
    std::vector<int32_t> Warps;
    std::map<int32_t, uint32_t> LanesUsed;
    for (size_t R : ByCta[K]) {
      int32_t Wp = P.Threads[R].Where.Warp;
      auto WIt = std::find(Warps.begin(), Warps.end(), Wp);
      uint32_t WG = static_cast<uint32_t>(WIt - Warps.begin());
      if (WIt == Warps.end())
        Warps.push_back(Wp);
      uint32_t LG = LanesUsed[Wp]++;
      L.Roles[R] = {G, InCl, WG, LG};
      L.WarpGroups = std::max(L.WarpGroups, WG + 1);
      L.LaneGroups = std::max(L.LaneGroups, LG + 1);
    }
  }
  L.ClusterGroups = std::max<uint32_t>(NextGroup, 1);
  return L;
}

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
  }
  return "add";
}

const char *rmwType(const Op &O) {
  switch (O.Rmw) {
  case litmus::RmwOp::Cas:
  case litmus::RmwOp::Exch:
  case litmus::RmwOp::And:
  case litmus::RmwOp::Or:
  case litmus::RmwOp::Xor:
    return "b32";
  case litmus::RmwOp::Inc:
  case litmus::RmwOp::Dec:
    return "u32";
  default:
    return O.Signed ? "s32" : "u32";
  }
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
      return fmt::format("(a[{}] + {}ull)", V.Loc, V.Int);
    return fmt::format("{}ull", static_cast<uint64_t>(V.Int));
  }
  std::string operand(const Operand &O) const {
    switch (O.K) {
    case Operand::Kind::Reg:
      return fmt::format("r{}", O.Reg);
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
    case litmus::Space::Generic:
      break;
    }
    return "";
  }

  void emitOp(size_t R, const litmus::ThreadProgram &T, size_t I,
              std::vector<std::string> &Expected);
  void emitRole(size_t R);
  void emitGlue();
  bool checkSupported();
};

bool Emitter::checkSupported() {
  for (const auto &L : P.Locs)
    if (L.Init.isAddress()) {
      Diags.error(File, {},
                  fmt::format("location {} is initialised to an address; the "
                              "CUDA backend stores 32-bit values only",
                              L.Name));
      Failed = true;
    }
  for (const auto &T : P.Threads)
    for (const Op &O : T.Ops) {
      if (O.K == Op::Kind::Barrier)
        error(O, "bar.sync is not supported by the CUDA backend: in parallel "
                 "testing one thread plays several instances' roles");
      if ((O.K == Op::Kind::Load || O.K == Op::Kind::Store || O.K == Op::Kind::Rmw) &&
          O.Bits != 32)
        error(O, fmt::format("{}-bit memory accesses are not supported by the "
                             "CUDA backend (locations are 32-bit words)",
                             O.Bits));
      if ((O.K == Op::Kind::Load || O.K == Op::Kind::Store || O.K == Op::Kind::Rmw) &&
          O.Addr.K == Operand::Kind::Addr && O.Addr.Imm.Loc >= 0 &&
          static_cast<size_t>(O.Addr.Imm.Loc) < P.Locs.size()) {
        bool Shared = P.Locs[O.Addr.Imm.Loc].R == litmus::Region::Shared;
        if ((Shared && O.Sp == litmus::Space::Global) ||
            (!Shared && O.Sp == litmus::Space::Shared))
          error(O, "state space of the instruction does not match the "
                   "location's region in the memory map");
      }
    }
  return !Failed;
}

void Emitter::emitOp(size_t R, const litmus::ThreadProgram &T, size_t I,
                     std::vector<std::string> &Expected) {
  const Op &O = T.Ops[I];
  std::string Ind = "  ";
  bool Guarded = O.GuardReg >= 0 && O.K != Op::Kind::Branch;
  if (Guarded) {
    line("  if ({}r{} {} 0) {{", "", O.GuardReg, O.GuardNegated ? "==" : "!=");
    Ind = "    ";
  }
  std::string D = O.Dst >= 0 ? fmt::format("r{}", O.Dst) : std::string();
  switch (O.K) {
  case Op::Kind::Load: {
    auto [A, C] = address(O);
    std::string Q = semQual(O);
    std::string Cache = O.S == litmus::Sem::Weak ? cacheName(O.Cache) : "";
    line("{}{{ unsigned v; asm volatile(\"ld{}{}{}.u32 %0, [%1];\" : \"=r\"(v) : "
         "\"{}\"({}) : \"memory\"); {} = v; }}",
         Ind, Q, space(O), Cache, C, A, D.empty() ? "(void)v" : D);
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
    line("{}asm volatile(\"st{}{}{}.u32 [%0], %1;\" :: \"{}\"({}), "
         "\"r\"((unsigned)({})) : \"memory\");",
         Ind, Q, space(O), Cache, C, A, V);
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
           "\"r\"((unsigned)({})) : \"memory\");",
           Ind, Q, space(O), rmwName(O.Rmw), Ty, C, A, S0);
      Expected.push_back("RED");
    } else if (Cas) {
      line("{}{{ unsigned v; asm volatile(\"atom{}{}.cas.b32 %0, [%1], %2, %3;\" "
           ": \"=r\"(v) : \"{}\"({}), \"r\"((unsigned)({})), "
           "\"r\"((unsigned)({})) : \"memory\"); {} = v; }}",
           Ind, Q, space(O), C, A, S0, S1, D.empty() ? "(void)v" : D);
      Expected.push_back("ATOM");
    } else {
      line("{}{{ unsigned v; asm volatile(\"atom{}{}.{}.{} %0, [%1], %2;\" : "
           "\"=r\"(v) : \"{}\"({}), \"r\"((unsigned)({})) : \"memory\"); {} = "
           "v; }}",
           Ind, Q, space(O), rmwName(O.Rmw), Ty, C, A, S0,
           D.empty() ? "(void)v" : D);
      Expected.push_back("ATOM");
    }
    if (Acq)
      Expected.push_back("FENCE?");
    break;
  }
  case Op::Kind::Fence: {
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
    break;
  }
  case Op::Kind::Barrier:
    break; // rejected in checkSupported()
  case Op::Kind::Alu: {
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
      break;
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
    break;
  }
  case Op::Kind::Branch: {
    std::string Cond = "true";
    if (O.GuardReg >= 0)
      Cond = fmt::format("r{} {} 0", O.GuardReg, O.GuardNegated ? "==" : "!=");
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

void Emitter::emitRole(size_t R) {
  const auto &T = P.Threads[R];
  line("// Role {}: thread P{} of the test.", R, T.Id);
  line("__device__ __forceinline__ void incant_role_{}(const incant_u64 *a, "
       "unsigned *o) {{",
       R);
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
  for (size_t K = 0; K < P.Observe.size(); ++K) {
    const auto &Ob = P.Observe[K];
    if (Ob.Thread == static_cast<int32_t>(R))
      line("    o[{}] = (unsigned)r{};", K, Ob.Index);
  }
  line("  }}");
  // Registers that are never read again still count as used.
  for (size_t K = 0; K < T.Regs.size(); ++K)
    line("  (void)r{};", K);
  line("}}");
  line("");
  G.ExpectedMemOps.push_back(std::move(Expected));
}

void Emitter::emitGlue() {
  const RoleLayout &L = G.Layout;
  size_t NL = P.Locs.size();
  // Addresses of every location for one instance, in this thread.
  auto Addrs = [&](const char *Ind) {
    line("{}incant_u64 a[{}];", Ind, std::max<size_t>(NL, 1));
    for (size_t J = 0; J < NL; ++J) {
      if (G.GlobalIndex[J] >= 0)
        line("{}a[{}] = shadow ? incant_shadow_addr(P, vb, w, ln, {}) : "
             "incant_gaddr(P, inst, {});",
             Ind, J, J, G.GlobalIndex[J]);
      else
        line("{}a[{}] = shadow ? incant_shadow_addr(P, vb, w, ln, {}) : "
             "(incant_u64)(smem + incant_sword(P, {}, iw, il));",
             Ind, J, J, G.SharedIndex[J]);
    }
  };
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
       L.ClusterSize, L.WarpGroups, L.LaneGroups,
       L.LaneGroups > 1 ? " + ln" : "");
  line("  unsigned k = h % {}u;", std::max<size_t>(NR, 1));
  line("#pragma unroll 1");
  line("  for (unsigned step = 0; step < {}u; ++step) {{",
       std::max<size_t>(NR, 1));
  line("  unsigned role = (k + step) % {}u;", std::max<size_t>(NR, 1));
  for (size_t R = 0; R < L.Roles.size(); ++R) {
    const RoleOffsets &O = L.Roles[R];
    line("  if (role == {}u) {{", R);
    line("    unsigned inst, iw, il;");
    line("    bool mine = incant_instance(P, vb, w, ln, {}u, {}u, {}u, {}u, "
         "&inst, &iw, &il);",
         O.ClusterGroup, O.CtaInCluster, O.WarpGroup, O.LaneGroup);
    line("    if (mine || shadow) {{");
    Addrs("      ");
    line("      incant_role_{}(a, shadow ? (unsigned *)0 : out + (incant_u64)"
         "inst * {}u);",
         R, std::max<uint32_t>(G.NumOut, 1));
    line("    }}");
    line("  }}");
  }
  line("  }}");
  line("}}");
  line("");

  // Shared memory: initial values, and observed finals copied to out by
  // the first role that uses the location.
  line("__device__ __forceinline__ void incant_init_shared(const IncantParams "
       "&P, unsigned *smem) {{");
  line("  unsigned per = P.warps * P.lanes;");
  line("  (void)per; (void)smem;");
  for (size_t J = 0; J < NL; ++J)
    if (G.SharedIndex[J] >= 0)
      line("  for (unsigned j = threadIdx.x; j < per; j += blockDim.x) "
           "smem[({}u * per + j) * P.sharedStride] = {}u;",
           G.SharedIndex[J], wordOf(P.Locs[J].Init.Int));
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
    // The owner is the first role that touches the location; every role
    // touching a shared location sits in one CTA (the lowering checks it).
    size_t Owner = 0;
    for (size_t R = 0; R < P.Threads.size(); ++R) {
      bool Uses = false;
      for (const Op &O : P.Threads[R].Ops)
        if (O.Addr.K == Operand::Kind::Addr && O.Addr.Imm.Loc == Ob.Index)
          Uses = true;
      if (Uses) {
        Owner = R;
        break;
      }
    }
    const RoleOffsets &O = L.Roles[Owner];
    line("  {{ unsigned inst, iw, il;");
    line("    if (incant_instance(P, vb, w, ln, {}u, {}u, {}u, {}u, &inst, "
         "&iw, &il))",
         O.ClusterGroup, O.CtaInCluster, O.WarpGroup, O.LaneGroup);
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
  for (size_t K = 0; K < P.Observe.size(); ++K) {
    const auto &Ob = P.Observe[K];
    if (Ob.Thread >= 0 || G.SharedIndex[Ob.Index] >= 0)
      line("  t[{}] = out[(incant_u64)i * {}u + {}u];", K,
           std::max<uint32_t>(G.NumOut, 1), K);
    else
      line("  t[{}] = mem[incant_gword(P, i, {}u)];", K,
           G.GlobalIndex[Ob.Index]);
  }
  line("}}");
  line("");
  line("__device__ __forceinline__ void incant_reset(const IncantParams &P, "
       "unsigned i) {{");
  line("  unsigned *out = (unsigned *)P.out;");
  line("  unsigned *mem = (unsigned *)P.mem;");
  line("  (void)out; (void)mem; (void)i;");
  for (size_t J = 0; J < NL; ++J)
    if (G.GlobalIndex[J] >= 0)
      line("  mem[incant_gword(P, i, {}u)] = {}u;", G.GlobalIndex[J],
           wordOf(P.Locs[J].Init.Int));
  for (size_t K = 0; K < G.NumOut; ++K)
    line("  out[(incant_u64)i * {}u + {}u] = 0u;", G.NumOut, K);
  line("}}");
}

std::optional<GeneratedTest> Emitter::run() {
  if (!checkSupported())
    return std::nullopt;
  G.Layout = computeRoleLayout(P);
  for (const auto &L : P.Locs) {
    if (L.R == litmus::Region::Shared) {
      G.GlobalIndex.push_back(-1);
      G.SharedIndex.push_back(static_cast<int32_t>(G.NumShared++));
    } else {
      G.GlobalIndex.push_back(static_cast<int32_t>(G.NumGlobal++));
      G.SharedIndex.push_back(-1);
    }
  }
  G.NumOut = static_cast<uint32_t>(P.Observe.size());

  line("// Generated by incant from a litmus test's lowered form. Do not edit.");
  line("// Harness: incant_harness.cuh (lib/CUDA/runtime in incant's sources).");
  line("#define INCANT_NUM_ROLES {}", P.Threads.size());
  line("#define INCANT_NUM_GLOBAL {}", std::max<uint32_t>(G.NumGlobal, 1));
  line("#define INCANT_NUM_SHARED {}", G.NumShared);
  line("#define INCANT_NUM_OUT {}", G.NumOut);
  line("#define INCANT_CLUSTER {}", G.Layout.ClusterSize);
  line("#include \"incant_params.h\"");
  line("typedef unsigned long long incant_u64;");
  line("");
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
