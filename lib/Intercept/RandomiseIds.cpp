//===- RandomiseIds.cpp - Thread-id randomisation (pass "randomise") ------===//
//
// Every read of %ctaid.{x,y,z} and %tid.{x,y,z} in a function is replaced by
// a register that the function's prologue computes:
//
//   block ids   per dimension d with n = %nctaid.d: k = bits(n - 1), and
//               f(y) = ((y ^ (y >> ceil(k/2))) * m + a_d) mod 2^k, m odd, is
//               a bijection of [0, 2^k); c' = f(c), repeated while c' >= n
//               ("cycle walking"), is a bijection of [0, n), in fewer than
//               two steps on average and with 32-bit arithmetic only (a
//               64-bit remainder would be a call into a division routine,
//               which gives the whole kernel a stack frame);
//   thread ids  the linear id l = (tid.z * ntid.y + tid.y) * ntid.x + tid.x
//               splits into warp w = l / 32 and lane l % 32; full warps are
//               permuted, w' = (m_w * w + a_w) mod (threads / 32) with m_w a
//               prime above 32, the lane is kept, and (x, y, z) is read back
//               from 32 w' + lane; a partial last warp keeps its ids. Lanes
//               (shuffles, votes, %laneid) and warp membership are unchanged.
//
// Whether the remapping happens is read at run time: a kernel reads its own
// switch word (__incant_k_<K>), a device function the unit's
// (__incant_ctl_<ID>); with the switch off the prologue is a constant load,
// a test and a branch. m, a_d, m_w and a_w come from the unit's control
// block, which the injected library fills once per process.
//
// Left alone (recorded in the manifest): functions that use clusters
// (cluster special registers, mapa, barrier.cluster, shared::cluster, the
// cluster directives), that read %tid or %ctaid as a whole vector, and
// every function connected to one of these through calls to device
// functions that read ids (their ids must stay consistent).
//
//===----------------------------------------------------------------------===//
#include "Passes.h"
#include "runtime/incant_control.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <numeric>
#include <set>

namespace incant::intercept {

namespace {

using ptx::Instruction;
using ptx::Operand;

/// The six special registers the pass remaps, in a fixed order.
constexpr std::array<const char *, 6> IdRegs = {
    "%ctaid.x", "%ctaid.y", "%ctaid.z", "%tid.x", "%tid.y", "%tid.z"};

int idRegIndex(std::string_view Name) {
  for (size_t I = 0; I < IdRegs.size(); ++I)
    if (Name == IdRegs[I])
      return static_cast<int>(I);
  return -1;
}

bool isClusterRegister(std::string_view Name) {
  return Name.rfind("%cluster_", 0) == 0 || Name.rfind("%clusterid", 0) == 0 ||
         Name.rfind("%nclusterid", 0) == 0 ||
         Name == "%is_explicit_cluster";
}

/// What one function does that matters to the pass.
struct FnFacts {
  unsigned Item = 0;        ///< Index in Module::Items.
  bool IsEntry = false;
  std::string Name;
  std::array<bool, 6> Reads{}; ///< Which of IdRegs it reads.
  bool readsIds() const {
    return std::any_of(Reads.begin(), Reads.end(), [](bool B) { return B; });
  }
  std::string Unsafe;       ///< Why it cannot be remapped, or "".
  std::set<std::string> Callees;
  bool IndirectOrExternCall = false;
};

/// Calls \p Fn on \p O and every operand nested in it.
template <typename Op, typename F> void walkOperand(Op &O, const F &Fn) {
  Fn(O);
  for (Op &E : O.Elems)
    walkOperand(E, Fn);
}

FnFacts factsOf(const ptx::Module &M, unsigned Item) {
  const auto &F = std::get<ptx::Function>(M.Items[Item]);
  FnFacts R;
  R.Item = Item;
  R.IsEntry = F.IsEntry;
  R.Name = F.Name;
  for (const ptx::PerfDirective &P : F.Perf)
    if (P.Name == ".reqnctapercluster" || P.Name == ".explicitcluster" ||
        P.Name == ".maxclusterrank")
      R.Unsafe = "uses clusters (" + P.Name + ")";
  for (const ptx::BodyItem &B : F.Body) {
    const auto *I = std::get_if<Instruction>(&B);
    if (!I)
      continue;
    if (I->Op == ptx::Opcode::BarrierCluster || I->Name == "mapa" ||
        I->ASpace == ptx::AddrSpace::SharedCluster)
      R.Unsafe = "uses clusters (" + I->Name + ")";
    for (const Operand &O : I->Ops)
      walkOperand(O, [&](const Operand &X) {
        if (X.K != Operand::Reg)
          return;
        if (int K = idRegIndex(X.Name); K >= 0)
          R.Reads[static_cast<size_t>(K)] = true;
        else if (X.Name == "%tid" || X.Name == "%ctaid")
          R.Unsafe = "reads " + X.Name + " as a vector";
        else if (isClusterRegister(X.Name))
          R.Unsafe = "uses clusters (" + X.Name + ")";
      });
    if (I->Op == ptx::Opcode::Call) {
      const Operand *Callee = calleeOperand(*I);
      const ptx::Function *Target =
          Callee ? M.findFunction(Callee->Name) : nullptr;
      if (Target && Target->HasBody)
        R.Callees.insert(Callee->Name);
      else
        R.IndirectOrExternCall = true;
    }
  }
  return R;
}

/// Union-find over function indices.
struct Components {
  std::vector<unsigned> Parent;
  explicit Components(size_t N) : Parent(N) {
    std::iota(Parent.begin(), Parent.end(), 0u);
  }
  unsigned find(unsigned X) {
    while (Parent[X] != X)
      X = Parent[X] = Parent[Parent[X]];
    return X;
  }
  void unite(unsigned A, unsigned B) { Parent[find(A)] = find(B); }
};

class RandomisePass : public Pass {
public:
  std::string_view name() const override { return "randomise"; }
  bool run(Unit &U) override;

private:
  bool rewrite(Unit &U, const FnFacts &F, bool IsKernelSwitch);
};

bool RandomisePass::run(Unit &U) {
  ptx::Module &M = U.module();
  std::vector<FnFacts> Fns;
  std::map<std::string, size_t, std::less<>> ByName;
  for (unsigned I = 0; I < M.Items.size(); ++I)
    if (const auto *F = std::get_if<ptx::Function>(&M.Items[I]);
        F && F->HasBody) {
      ByName[F->Name] = Fns.size();
      Fns.push_back(factsOf(M, I));
    }

  // Device functions each function reaches through direct calls; an
  // indirect or external call may reach any of them.
  auto Reach = [&](size_t Root) {
    std::set<size_t> Seen;
    std::vector<size_t> Work = {Root};
    bool Unknown = false;
    while (!Work.empty()) {
      size_t X = Work.back();
      Work.pop_back();
      Unknown |= Fns[X].IndirectOrExternCall;
      for (const std::string &C : Fns[X].Callees)
        if (auto It = ByName.find(C); It != ByName.end() &&
                                      Seen.insert(It->second).second)
          Work.push_back(It->second);
    }
    if (Unknown)
      for (size_t I = 0; I < Fns.size(); ++I)
        if (!Fns[I].IsEntry)
          Seen.insert(I);
    Seen.erase(Root);
    return std::make_pair(Seen, Unknown);
  };

  // Kernels and the id-reading device functions they reach must agree.
  Components C(Fns.size());
  std::vector<bool> CallsRemappable(Fns.size(), false);
  for (size_t K = 0; K < Fns.size(); ++K) {
    if (!Fns[K].IsEntry)
      continue;
    auto [Reached, Unknown] = Reach(K);
    CallsRemappable[K] = Unknown;
    for (size_t G : Reached)
      if (Fns[G].readsIds()) {
        C.unite(static_cast<unsigned>(K), static_cast<unsigned>(G));
        CallsRemappable[K] = true;
      }
  }
  std::map<unsigned, std::string> ComponentUnsafe;
  for (size_t I = 0; I < Fns.size(); ++I)
    if (!Fns[I].Unsafe.empty()) {
      std::string &Why = ComponentUnsafe[C.find(static_cast<unsigned>(I))];
      if (Why.empty())
        Why = Fns[I].Name + " " + Fns[I].Unsafe;
    }

  for (size_t I = 0; I < Fns.size(); ++I) {
    const FnFacts &F = Fns[I];
    FunctionRecord &Rec = U.function(F.Name);
    auto Unsafe = ComponentUnsafe.find(C.find(static_cast<unsigned>(I)));
    bool Blocked = Unsafe != ComponentUnsafe.end();
    if (!F.readsIds() && !(F.IsEntry && CallsRemappable[I]))
      continue;
    if (Blocked) {
      Rec.LeftAlone = F.Unsafe.empty()
                          ? "shares device functions that read thread ids "
                            "with " + Unsafe->second
                          : F.Unsafe;
      continue;
    }
    Rec.CallsRemapped = F.IsEntry && CallsRemappable[I];
    if (!F.readsIds())
      continue;
    if (!rewrite(U, F, F.IsEntry))
      return false;
    Rec.Remapped = true;
  }
  return true;
}

bool RandomisePass::rewrite(Unit &U, const FnFacts &F, bool KernelSwitch) {
  ir::Rewriter &RW = U.rewriter();
  const ir::FunctionIR *IR = U.ir().find(F.Name);
  auto &Fn = std::get<ptx::Function>(U.module().Items[F.Item]);
  unsigned Func = F.Item;

  // Registers holding the (possibly remapped) ids.
  std::array<std::string, 6> Id;
  for (size_t K = 0; K < 6; ++K)
    if (F.Reads[K])
      Id[K] = RW.addRegister(Func, ".b32", "%incant_id");

  // Every read now names its register.
  for (unsigned Item : IR->instructions()) {
    auto &I = std::get<Instruction>(Fn.Body[Item]);
    for (Operand &O : I.Ops)
      walkOperand(O, [&](Operand &X) {
        if (X.K != Operand::Reg)
          return;
        int K = idRegIndex(X.Name);
        if (K < 0)
          return;
        U.addSite("randomise", *IR, Item, X.Name + " read");
        X.Name = Id[static_cast<size_t>(K)];
      });
  }

  // The prologue goes before the first label or instruction, so that a
  // loop starting at the function's entry does not repeat it.
  unsigned At = static_cast<unsigned>(Fn.Body.size());
  for (unsigned I = 0; I < Fn.Body.size(); ++I)
    if (std::holds_alternative<Instruction>(Fn.Body[I]) ||
        std::holds_alternative<ptx::Label>(Fn.Body[I])) {
      At = I;
      break;
    }
  std::vector<std::string> Code;
  auto Reg = [&](const char *Type) {
    return RW.addRegister(Func, Type, "%incant_t");
  };
  std::string Ctl = ctlVarName(U.id());
  std::string Flags = Reg(".b32"), T = Reg(".b32"), P = Reg(".pred");
  Code.push_back(KernelSwitch
                     ? fmt::format("ld.const.u32 {}, [{}+{}];", Flags,
                                   kernelCtlName(F.Name),
                                   4 * INCANT_KCTL_ENABLE)
                     : fmt::format("ld.const.u32 {}, [{}+{}];", Flags, Ctl,
                                   INCANT_CTL_FLAGS));
  std::vector<std::pair<size_t, std::string>> Labels; // Code index -> label
  static const char *Dim[] = {"x", "y", "z"};

  bool Blocks = F.Reads[0] || F.Reads[1] || F.Reads[2];
  if (Blocks) {
    for (size_t K = 0; K < 3; ++K)
      if (F.Reads[K])
        Code.push_back(fmt::format("mov.u32 {}, %ctaid.{};", Id[K], Dim[K]));
    std::string Done = U.freshLabel(Func, "$L__incant_");
    Code.push_back(fmt::format("and.b32 {}, {}, {};", T, Flags,
                               INCANT_RND_BLOCKS));
    Code.push_back(fmt::format("setp.eq.u32 {}, {}, 0;", P, T));
    Code.push_back(fmt::format("@{} bra {};", P, Done));
    std::string Mul = Reg(".b32"), Add = Reg(".b32"), N = Reg(".b32"),
                Mask = Reg(".b32"), H = Reg(".b32"), Y = Reg(".b32");
    Code.push_back(fmt::format("ld.const.u32 {}, [{}+{}];", Mul, Ctl,
                               INCANT_CTL_BLK_MUL));
    for (size_t K = 0; K < 3; ++K) {
      if (!F.Reads[K])
        continue;
      std::string Walk = U.freshLabel(Func, "$L__incant_");
      Code.push_back(fmt::format("ld.const.u32 {}, [{}+{}];", Add, Ctl,
                                 INCANT_CTL_BLK_ADD + 4 * K));
      Code.push_back(fmt::format("mov.u32 {}, %nctaid.{};", N, Dim[K]));
      // k = 32 - clz(n - 1); mask = 2^k - 1 (shl by 32 gives 0).
      Code.push_back(fmt::format("sub.u32 {}, {}, 1;", T, N));
      Code.push_back(fmt::format("clz.b32 {}, {};", T, T));
      Code.push_back(fmt::format("sub.u32 {}, 32, {};", T, T));
      Code.push_back(fmt::format("add.u32 {}, {}, 1;", H, T));
      Code.push_back(fmt::format("shr.u32 {}, {}, 1;", H, H));
      Code.push_back(fmt::format("shl.b32 {}, 1, {};", Mask, T));
      Code.push_back(fmt::format("sub.u32 {}, {}, 1;", Mask, Mask));
      Labels.emplace_back(Code.size(), Walk);
      Code.push_back(fmt::format("shr.u32 {}, {}, {};", Y, Id[K], H));
      Code.push_back(fmt::format("xor.b32 {}, {}, {};", Id[K], Id[K], Y));
      Code.push_back(fmt::format("mad.lo.u32 {}, {}, {}, {};", Id[K], Id[K],
                                 Mul, Add));
      Code.push_back(fmt::format("and.b32 {}, {}, {};", Id[K], Id[K], Mask));
      Code.push_back(fmt::format("setp.ge.u32 {}, {}, {};", P, Id[K], N));
      Code.push_back(fmt::format("@{} bra {};", P, Walk));
    }
    Labels.emplace_back(Code.size(), Done);
  }

  bool Threads = F.Reads[3] || F.Reads[4] || F.Reads[5];
  if (Threads) {
    std::array<std::string, 3> Raw;
    for (size_t K = 0; K < 3; ++K) {
      Raw[K] = F.Reads[3 + K] ? Id[3 + K] : Reg(".b32");
      Code.push_back(fmt::format("mov.u32 {}, %tid.{};", Raw[K], Dim[K]));
    }
    std::string Done = U.freshLabel(Func, "$L__incant_");
    Code.push_back(fmt::format("and.b32 {}, {}, {};", T, Flags,
                               INCANT_RND_WARPS));
    Code.push_back(fmt::format("setp.eq.u32 {}, {}, 0;", P, T));
    Code.push_back(fmt::format("@{} bra {};", P, Done));
    std::string Nx = Reg(".b32"), Ny = Reg(".b32"), Nz = Reg(".b32"),
                L = Reg(".b32"), Nt = Reg(".b32"), Full = Reg(".b32"),
                W = Reg(".b32"), Lane = Reg(".b32"), Wm = Reg(".b32"),
                Wa = Reg(".b32");
    Code.push_back(fmt::format("mov.u32 {}, %ntid.x;", Nx));
    Code.push_back(fmt::format("mov.u32 {}, %ntid.y;", Ny));
    Code.push_back(fmt::format("mov.u32 {}, %ntid.z;", Nz));
    Code.push_back(fmt::format("mad.lo.u32 {}, {}, {}, {};", L, Raw[2], Ny,
                               Raw[1]));
    Code.push_back(fmt::format("mad.lo.u32 {}, {}, {}, {};", L, L, Nx, Raw[0]));
    Code.push_back(fmt::format("mul.lo.u32 {}, {}, {};", Nt, Nx, Ny));
    Code.push_back(fmt::format("mul.lo.u32 {}, {}, {};", Nt, Nt, Nz));
    Code.push_back(fmt::format("shr.u32 {}, {}, 5;", Full, Nt));
    Code.push_back(fmt::format("shr.u32 {}, {}, 5;", W, L));
    Code.push_back(fmt::format("setp.ge.u32 {}, {}, {};", P, W, Full));
    Code.push_back(fmt::format("@{} bra {};", P, Done));
    Code.push_back(fmt::format("ld.const.u32 {}, [{}+{}];", Wm, Ctl,
                               INCANT_CTL_WARP_MUL));
    Code.push_back(fmt::format("ld.const.u32 {}, [{}+{}];", Wa, Ctl,
                               INCANT_CTL_WARP_ADD));
    Code.push_back(fmt::format("mad.lo.u32 {}, {}, {}, {};", W, W, Wm, Wa));
    Code.push_back(fmt::format("rem.u32 {}, {}, {};", W, W, Full));
    Code.push_back(fmt::format("and.b32 {}, {}, 31;", Lane, L));
    Code.push_back(fmt::format("shl.b32 {}, {}, 5;", W, W));
    Code.push_back(fmt::format("or.b32 {}, {}, {};", L, W, Lane));
    Code.push_back(fmt::format("rem.u32 {}, {}, {};", Raw[0], L, Nx));
    Code.push_back(fmt::format("div.u32 {}, {}, {};", L, L, Nx));
    Code.push_back(fmt::format("rem.u32 {}, {}, {};", Raw[1], L, Ny));
    Code.push_back(fmt::format("div.u32 {}, {}, {};", Raw[2], L, Ny));
    Labels.emplace_back(Code.size(), Done);
  }

  size_t NextLabel = 0;
  for (size_t I = 0; I <= Code.size(); ++I) {
    while (NextLabel < Labels.size() && Labels[NextLabel].first == I) {
      ptx::Label L;
      L.Name = Labels[NextLabel++].second;
      if (!RW.insertBefore(Func, At, ptx::BodyItem(std::move(L))))
        return false;
    }
    if (I < Code.size() && !RW.insertBefore(Func, At, Code[I]))
      return false;
  }
  return true;
}

} // namespace

std::unique_ptr<Pass> createRandomisePass() {
  return std::make_unique<RandomisePass>();
}

} // namespace incant::intercept
