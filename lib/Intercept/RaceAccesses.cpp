//===- RaceAccesses.cpp - Access logging for race checking (pass "race") --===//
//
// Instruments a unit for `incant race --dynamic` (runtime/incant_race.h):
//
//   - before every load, store, atomic and reduction of global, shared or
//     generic memory (plain, vector, volatile, strong): its address as a
//     64-bit value and a call of the unit's __incant_race_access_<ID> with
//     the site's info word (site id, read/write/atomic, scope, size, space,
//     release), under the access's own guard;
//   - after every CTA barrier (bar/barrier .sync/.red/.arrive) and warp
//     barrier (bar.warp.sync), and before every fence (membar,
//     fence.sc/acq_rel): a call of __incant_race_sync_<ID> with its kind.
//     Before, so that the fence itself orders the release count that the
//     call raises before the thread's later stores: a thread that sees
//     those (a flag) and then checks the fenced data sees the count too;
//     called after, the count could be seen late and the data reported.
//   - each call the body of a loop that is never repeated but that ptxas
//     cannot tell from a spinning one (HookCalls, below, says why);
//   - the unit's variable __incant_race_<ID> and the two functions, copied
//     from the runtime's PTX (incant_race_hooks.cu, compiled when incant is
//     built) with their names made the unit's own.
//
// Every instrumented instruction is a site of the manifest (pass "race"),
// with its text, the variable it touches when the address comes from one
// (a kernel parameter or a variable, followed back through moves, adds and
// conversions), and the static checker's verdict when one was given
// (InstrumentOptions::StaticRaces): accesses it proved safe are recorded but
// not instrumented, unless every access is wanted.
//
// Not instrumented (a note in the manifest says so when present): local,
// constant and parameter memory (private or read-only), asynchronous and
// bulk copies, tensor and texture accesses, distributed shared memory of
// clusters (.shared::cluster) and mbarriers.
//
//===----------------------------------------------------------------------===//
#include "Passes.h"
#include "runtime/incant_race.h"

#include "incant/IR/MemoryEvents.h"
#include "incant/IR/Summary.h"

#include <fmt/format.h>

#include <map>
#include <set>

extern "C" const char incant_race_hooks_ptx[];

namespace incant::intercept {

namespace {

using ptx::AddrSpace;
using ptx::Instruction;
using ptx::Opcode;
using ptx::Operand;

/// The runtime's hook functions, parsed once.
const ptx::Module *hooksModule(DiagnosticEngine &Diags) {
  static std::optional<ptx::Module> M;
  static bool Tried = false;
  if (Tried)
    return M ? &*M : nullptr;
  Tried = true;
  if (!incant_race_hooks_ptx[0]) {
    Diags.error("pass 'race' needs the race hooks' PTX, and this incant was "
                "built without nvcc (rebuild incant where nvcc is found)");
    return nullptr;
  }
  DiagnosticEngine Local;
  M = ptx::parseModule(
      std::make_shared<SourceFile>("incant_race_hooks.ptx",
                                   std::string(incant_race_hooks_ptx)),
      Local);
  if (!M)
    Diags.error("internal error: the race hooks' PTX does not parse");
  return M ? &*M : nullptr;
}

/// The bytes an ld, st, atom or red touches (vector width times element);
/// a word where the element type is not known.
unsigned accessBytes(const Instruction &I) {
  unsigned B = ir::accessBytes(I);
  return B ? B : 4;
}

unsigned log2Bytes(unsigned B) {
  unsigned L = 0;
  while ((1u << L) < B && L < 4)
    ++L;
  return L;
}

const Operand *addressOperand(const Instruction &I) {
  for (const Operand &O : I.Ops)
    if (O.K == Operand::Address)
      return &O;
  return nullptr;
}

unsigned scopeCode(ptx::Scope S) {
  switch (S) {
  case ptx::Scope::CTA:
  case ptx::Scope::Cluster:
    return INCANT_RACE_SCOPE_CTA;
  case ptx::Scope::GPU:
    return INCANT_RACE_SCOPE_GPU;
  case ptx::Scope::Sys:
    return INCANT_RACE_SCOPE_SYS;
  case ptx::Scope::None:
    break;
  }
  return INCANT_RACE_WEAK;
}

/// What a memory instruction is to the checker.
struct AccessFacts {
  uint32_t Info = 0; ///< Without the site.
  std::string Kind;  ///< "read global", "atomic shared", ...
};

std::optional<AccessFacts> accessFacts(const Instruction &I) {
  bool Ld = I.Op == Opcode::Ld || I.Op == Opcode::Ldu;
  bool St = I.Op == Opcode::St;
  bool At = I.Op == Opcode::Atom, Red = I.Op == Opcode::Red;
  if (!Ld && !St && !At && !Red)
    return std::nullopt;
  uint32_t Space;
  switch (I.ASpace) {
  case AddrSpace::Global:
    Space = INCANT_RACE_SPACE_GLOBAL;
    break;
  case AddrSpace::Shared:
    Space = INCANT_RACE_SPACE_SHARED;
    break;
  case AddrSpace::Generic:
    Space = INCANT_RACE_SPACE_GENERIC;
    break;
  default:
    return std::nullopt;
  }
  if (!addressOperand(I))
    return std::nullopt;
  AccessFacts F;
  uint32_t Info = Space << INCANT_RACE_SPACE_SHIFT;
  Info |= log2Bytes(accessBytes(I)) << INCANT_RACE_SIZE_SHIFT;
  unsigned Scope = INCANT_RACE_WEAK;
  bool Release = false;
  if (At || Red) {
    Info |= INCANT_RACE_ATOMIC | INCANT_RACE_WRITE;
    if (At)
      Info |= INCANT_RACE_READ;
    Scope = I.Sc == ptx::Scope::None ? INCANT_RACE_SCOPE_GPU : scopeCode(I.Sc);
    Release = I.S == ptx::Sem::Release || I.S == ptx::Sem::AcqRel;
  } else {
    Info |= Ld ? INCANT_RACE_READ : INCANT_RACE_WRITE;
    // volatile stays weak: data, as the static checker takes it.
    bool Strong = I.S == ptx::Sem::Relaxed || I.S == ptx::Sem::Acquire ||
                  I.S == ptx::Sem::Release || I.S == ptx::Sem::AcqRel ||
                  I.S == ptx::Sem::SC;
    if (Strong && I.Sc != ptx::Scope::None)
      Scope = scopeCode(I.Sc);
    Release = St && Scope && I.S == ptx::Sem::Release;
  }
  Info |= Scope << INCANT_RACE_SCOPE_SHIFT;
  if (Release && Scope)
    Info |= INCANT_RACE_RELEASE;
  F.Info = Info;
  static const char *Spaces[] = {"generic", "global", "shared"};
  F.Kind = fmt::format("{} {}",
                       At || Red ? "atomic"
                       : Ld      ? "read"
                                 : "write",
                       Spaces[Space]);
  return F;
}

/// The sync kind of a barrier or fence, if the checker follows it.
std::optional<uint32_t> syncKind(const Instruction &I, std::string &Kind) {
  switch (I.Op) {
  case Opcode::Bar:
    Kind = "barrier";
    return INCANT_RACE_SYNC_CTA;
  case Opcode::BarWarp:
    Kind = "warp barrier";
    return INCANT_RACE_SYNC_WARP;
  case Opcode::Membar:
  case Opcode::Fence: {
    if (I.hasMod(".proxy") || I.hasMod(".mbarrier_init"))
      return std::nullopt;
    ptx::Scope S = I.Sc;
    if (I.Op == Opcode::Membar && S == ptx::Scope::None)
      S = ptx::Scope::GPU;
    Kind = "fence";
    return scopeCode(S) >= INCANT_RACE_SCOPE_GPU ? INCANT_RACE_SYNC_FENCE_GPU
                                                 : INCANT_RACE_SYNC_FENCE_CTA;
  }
  default:
    return std::nullopt;
  }
}

/// Queues a call of a hook before or after body item \p Item:
///
///     { .param ...; .reg .b32 W; .reg .pred Q;
///       st.param ...;
///     $incant_race_call_N:
///       [guard] call Callee, (...);
///       ld.relaxed.cta.global.u32 W, [UnitVar];
///       and.b32 W, W, 1;  setp.ne.u32 Q, W, 0;  @Q bra $incant_race_call_N; }
///
/// The branch is never taken (the unit variable's first word is 0 or the
/// state's address, never odd), but ptxas cannot know that. The hooks read
/// memory that other threads write, so ptxas starts them with a YIELD; a
/// lane that yields lets the lanes of its warp that wait at the next
/// convergence point (BSYNC) go on without it. Seeing only a call, ptxas
/// assumed that the code after that point runs with every lane, and kept a
/// value of the lanes still calling hooks in a uniform register (one per
/// warp) that the lanes gone ahead overwrote: on the H100, app_gridbarrier's
/// lanes 1-31 stored through the low word of lane 0's block id. A loop that
/// polls memory around the call puts the yield in the caller, where ptxas
/// allocates for it.
class HookCalls {
public:
  explicit HookCalls(std::string UnitVar) : UnitVar(std::move(UnitVar)) {}

  bool queue(ir::Rewriter &RW, unsigned Func, unsigned Item, bool After,
             const std::string &Guard, const std::string &Callee,
             const std::vector<std::pair<std::string, std::string>> &Args) {
    std::vector<ptx::BodyItem> Items;
    Items.push_back(ptx::BlockBegin{});
    std::vector<std::string> Names;
    for (size_t K = 0; K < Args.size(); ++K) {
      ptx::Variable P;
      P.Space = AddrSpace::Param;
      P.Type = Args[K].first;
      P.Name = fmt::format("incant_race_p{}", K);
      Names.push_back(P.Name);
      Items.push_back(std::move(P));
    }
    for (auto [Type, Name] : {std::pair{".b32", "%incant_race_w"},
                              std::pair{".pred", "%incant_race_q"}}) {
      ptx::Variable R;
      R.Space = AddrSpace::Reg;
      R.Type = Type;
      R.Name = Name;
      Items.push_back(std::move(R));
    }
    auto Code = [&](const std::string &Text) {
      std::optional<ptx::Instruction> I = RW.parseInstruction(Text);
      if (I)
        Items.push_back(std::move(*I));
      return I.has_value();
    };
    for (size_t K = 0; K < Args.size(); ++K)
      if (!Code(fmt::format("st.param{} [{}], {};", Args[K].first, Names[K],
                            Args[K].second)))
        return false;
    std::string Again = fmt::format("$incant_race_call_{}", Calls++);
    Items.push_back(ptx::Label{Again, {}});
    if (!Code(fmt::format("{}call {}, ({});", Guard, Callee,
                          fmt::join(Names, ", "))) ||
        !Code(fmt::format("ld.relaxed.cta.global.u32 %incant_race_w, [{}];",
                          UnitVar)) ||
        !Code("and.b32 %incant_race_w, %incant_race_w, 1;") ||
        !Code("setp.ne.u32 %incant_race_q, %incant_race_w, 0;") ||
        !Code(fmt::format("@%incant_race_q bra {};", Again)))
      return false;
    Items.push_back(ptx::BlockEnd{});
    for (ptx::BodyItem &B : Items)
      if (!(After ? RW.insertAfter(Func, Item, std::move(B))
                  : RW.insertBefore(Func, Item, std::move(B))))
        return false;
    return true;
  }

private:
  std::string UnitVar;
  unsigned Calls = 0;
};

class RacePass : public Pass {
public:
  std::string_view name() const override { return "race"; }
  bool run(Unit &U) override;

private:
  /// The variable an address register comes from, if a short chain of
  /// moves, conversions and adds leads to a parameter or variable.
  std::string objectOf(const ir::FunctionIR &F, unsigned Item,
                       const Operand &Addr) const;
  /// Queues the code that puts \p I's address in a new 64-bit register;
  /// returns the register ("" after an error).
  std::string addressCode(Unit &U, const ir::FunctionIR &F, unsigned Func,
                          unsigned Item, const Instruction &I);
  bool addHooks(Unit &U);
};

std::string RacePass::objectOf(const ir::FunctionIR &F, unsigned Item,
                               const Operand &Addr) const {
  if (Addr.Name.empty())
    return "";
  std::string Name = Addr.Name;
  unsigned At = Item;
  for (int Depth = 0; Depth < 12; ++Depth) {
    unsigned Reg = F.findRegister(Name);
    if (Reg == ir::NoNode)
      break; // a symbol: a variable or parameter
    std::vector<unsigned> Defs = F.reachingDefs(Reg, At);
    if (Defs.size() != 1)
      return "";
    const Instruction &D = F.inst(Defs[0]);
    if (D.Op == Opcode::Ld && D.ASpace == AddrSpace::Param) {
      const Operand *A = addressOperand(D);
      return A ? A->Name : "";
    }
    // The operand the address is carried in: the source of a move or
    // conversion, the 64-bit operand of an add (the other is an offset).
    const Operand *Next = nullptr;
    if (D.Op == Opcode::Mov || D.Op == Opcode::Cvta || D.Op == Opcode::Cvt) {
      Next = D.Ops.size() > 1 ? &D.Ops[1] : nullptr;
    } else if (D.Op == Opcode::Add && D.Ops.size() > 2) {
      for (size_t K = 1; K < 3 && !Next; ++K) {
        if (D.Ops[K].K != Operand::Reg)
          continue;
        unsigned R = F.findRegister(D.Ops[K].Name);
        if (R == ir::NoNode) {
          Next = &D.Ops[K]; // a symbol's address plus an offset
          break;
        }
        // An index is a 32-bit value widened by mul.wide or cvt; the base
        // is the operand defined by a move, a parameter load or cvta.
        std::vector<unsigned> RD = F.reachingDefs(R, Defs[0]);
        if (RD.size() == 1) {
          Opcode O = F.inst(RD[0]).Op;
          if (O == Opcode::Cvta || O == Opcode::Mov || O == Opcode::Add ||
              (O == Opcode::Ld && F.inst(RD[0]).ASpace == AddrSpace::Param))
            Next = &D.Ops[K];
        }
      }
    }
    if (!Next || Next->K != Operand::Reg || Next->Name.empty())
      return "";
    Name = Next->Name;
    At = Defs[0];
  }
  return Name.rfind('%', 0) == 0 ? "" : Name;
}

std::string RacePass::addressCode(Unit &U, const ir::FunctionIR &F,
                                  unsigned Func, unsigned Item,
                                  const Instruction &I) {
  ir::Rewriter &RW = U.rewriter();
  const Operand &A = *addressOperand(I);
  std::string R = RW.addRegister(Func, ".b64", "%incant_ra");
  std::vector<std::string> Code;
  if (A.Name.empty()) {
    Code.push_back(fmt::format("mov.b64 {}, {};", R, A.Value));
  } else if (unsigned Reg = F.findRegister(A.Name); Reg != ir::NoNode) {
    const std::string &T = F.registers()[Reg].Type;
    bool Wide = T.find("64") != std::string::npos;
    if (Wide)
      Code.push_back(fmt::format("add.s64 {}, {}, {};", R, A.Name, A.Value));
    else {
      Code.push_back(fmt::format("cvt.u64.u32 {}, {};", R, A.Name));
      Code.push_back(fmt::format("add.s64 {}, {}, {};", R, R, A.Value));
    }
  } else {
    // A variable: its address in the access's space, or generic.
    const ptx::Variable *V = nullptr;
    for (const ptx::ModuleItem &MI : U.module().Items)
      if (const auto *X = std::get_if<ptx::Variable>(&MI); X && X->Name == A.Name)
        V = X;
    Code.push_back(fmt::format("mov.u64 {}, {};", R, A.Name));
    if (I.ASpace == AddrSpace::Generic && V &&
        (V->Space == AddrSpace::Global || V->Space == AddrSpace::Shared))
      Code.push_back(fmt::format("cvta{}.u64 {}, {};",
                                 ptx::addrSpaceName(V->Space), R, R));
    Code.push_back(fmt::format("add.s64 {}, {}, {};", R, R, A.Value));
  }
  for (const std::string &C : Code)
    if (!RW.insertBefore(Func, Item, C))
      return "";
  return R;
}

bool RacePass::run(Unit &U) {
  ptx::Module &M = U.module();
  const std::string Target = M.Targets.empty() ? "" : M.Targets.front();
  if (Target.rfind("sm_", 0) == 0 && std::atoi(Target.c_str() + 3) < 70) {
    U.diags().error(fmt::format("pass 'race' needs sm_70 or later (warp "
                                "matching, independent thread scheduling); "
                                "the module targets {}",
                                Target));
    return false;
  }
  if (M.AddressSize == 32) {
    U.diags().error("pass 'race' needs a 64-bit module (.address_size 64)");
    return false;
  }
  if (!hooksModule(U.diags()))
    return false;
  ir::Rewriter &RW = U.rewriter();
  const std::string Access = INCANT_RACE_ACCESS_PREFIX + U.id();
  const std::string Sync = INCANT_RACE_SYNC_PREFIX + U.id();
  HookCalls Calls(INCANT_RACE_PREFIX + U.id());
  const RaceVerdicts *Static = U.raceVerdicts();
  std::set<std::string> Skipped;
  unsigned Pruned = 0;

  for (const ir::FunctionIR &F : U.ir().functions()) {
    unsigned Func = RW.functionIndex(F.function());
    for (unsigned Item : F.instructions()) {
      const Instruction &I = F.inst(Item);
      std::string Guard;
      if (I.G)
        Guard = fmt::format("@{}{} ", I.G->Negated ? "!" : "", I.G->Reg);
      std::string What;
      if (std::optional<uint32_t> K = syncKind(I, What)) {
        if (!I.G && (I.Op == Opcode::Bra || I.Op == Opcode::Ret ||
                     I.Op == Opcode::Exit))
          continue;
        uint32_t Id = U.addSite("race", F, Item, What);
        U.manifest().Sites[Id].Text = ptx::printInstruction(I);
        bool Fence = I.Op == Opcode::Membar || I.Op == Opcode::Fence;
        if (!Calls.queue(RW, Func, Item, /*After=*/!Fence, Guard, Sync,
                         {{".b32", std::to_string(*K)}}))
          return false;
        continue;
      }
      std::optional<AccessFacts> A = accessFacts(I);
      if (!A) {
        if (I.Op == Opcode::CpAsync || I.Op == Opcode::Tensor ||
            I.Op == Opcode::Mbarrier ||
            ((I.Op == Opcode::Ld || I.Op == Opcode::St ||
              I.Op == Opcode::Atom || I.Op == Opcode::Red) &&
             I.ASpace == AddrSpace::SharedCluster))
          Skipped.insert(I.Name);
        continue;
      }
      uint32_t Id = U.addSite("race", F, Item, A->Kind);
      if (Id > INCANT_RACE_SITE_MASK) {
        U.diags().error(fmt::format(
            "pass 'race': more than {} sites in one module",
            INCANT_RACE_MAX_SITES));
        return false;
      }
      Site &S = U.manifest().Sites[Id];
      S.Text = ptx::printInstruction(I);
      S.Object = objectOf(F, Item, *addressOperand(I));
      if (Static) {
        auto V = Static->find(I.Range.Begin.Offset);
        bool Checked = V != Static->end() && I.Range.isValid();
        S.Static = Checked ? staticVerdictName(V->second) : "unchecked";
        if (Checked && V->second == StaticVerdict::Safe) {
          S.Kind += " (proved safe, not instrumented)";
          ++Pruned;
          continue;
        }
      }
      std::string R = addressCode(U, F, Func, Item, I);
      if (R.empty() ||
          !Calls.queue(RW, Func, Item, /*After=*/false, Guard, Access,
                       {{".b64", R}, {".b32", std::to_string(A->Info | Id)}}))
        return false;
    }
  }
  if (!Skipped.empty())
    U.manifest().Notes.push_back(fmt::format(
        "race: not checked: {} (asynchronous, tensor, cluster or mbarrier "
        "memory operations)",
        fmt::join(Skipped, ", ")));
  if (Static)
    U.manifest().Notes.push_back(fmt::format(
        "race: {} accesses proved safe by the static checker are not "
        "instrumented",
        Pruned));
  return addHooks(U);
}

bool RacePass::addHooks(Unit &U) {
  const ptx::Module *H = hooksModule(U.diags());
  std::map<std::string, std::string> Names = {
      {INCANT_RACE_RT_UNIT, INCANT_RACE_PREFIX + U.id()},
      {INCANT_RACE_RT_ACCESS, INCANT_RACE_ACCESS_PREFIX + U.id()},
      {INCANT_RACE_RT_SYNC, INCANT_RACE_SYNC_PREFIX + U.id()}};
  auto Rename = [&](Operand &O, auto &Self) -> void {
    if (auto It = Names.find(O.Name); It != Names.end())
      O.Name = It->second;
    for (Operand &E : O.Elems)
      Self(E, Self);
  };
  if (!U.rewriter().addModuleText(fmt::format(
          ".visible .global .align 8 .b8 {}[{}];", Names[INCANT_RACE_RT_UNIT],
          INCANT_RACE_UNIT_BYTES)))
    return false;
  ptx::Module Fns;
  for (const ptx::ModuleItem &MI : H->Items) {
    const auto *F = std::get_if<ptx::Function>(&MI);
    if (!F || !F->HasBody)
      continue;
    ptx::Function C = *F;
    C.Link = ptx::Linkage::None;
    C.Name = Names.count(C.Name) ? Names[C.Name] : C.Name;
    // nvcc's `.pragma "used_bytes_mask N"` (a hint) needs PTX ISA 8.3,
    // which older modules do not declare.
    std::erase_if(C.Body, [](const ptx::BodyItem &B) {
      const auto *P = std::get_if<ptx::Pragma>(&B);
      return P && !P->Strings.empty() &&
             P->Strings[0].rfind("used_bytes_mask", 0) == 0;
    });
    for (ptx::BodyItem &B : C.Body)
      if (auto *I = std::get_if<Instruction>(&B))
        for (Operand &O : I->Ops)
          Rename(O, Rename);
    Fns.Items.push_back(std::move(C));
  }
  return U.rewriter().addModuleText(ptx::printModule(Fns));
}

} // namespace

std::unique_ptr<Pass> createRacePass() { return std::make_unique<RacePass>(); }

} // namespace incant::intercept
