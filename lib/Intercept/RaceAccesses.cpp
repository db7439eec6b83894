//===- RaceAccesses.cpp - Access logging for race checking (pass "race") --===//
//
// Instruments a unit for `incant race --dynamic` (runtime/incant_race.h):
//
//   - before every load, store, atomic and reduction of global, shared or
//     generic memory (plain, vector, volatile, strong): its address as a
//     64-bit value and a call of the unit's __incant_race_access_<ID> with
//     the site's info word (site id, read/write/atomic, scope, size, space,
//     release), under the access's own guard;
//   - after every CTA barrier without a thread count (bar/barrier .sync/
//     .red) and warp barrier (bar.warp.sync), and before every fence (membar,
//     fence.sc/acq_rel): a call of __incant_race_sync_<ID> with its kind.
//     Before, so that the fence itself orders the release count that the
//     call raises before the thread's later stores: a thread that sees
//     those (a flag) and then checks the fenced data sees the count too;
//     called after, the count could be seen late and the data reported.
//   - around every operation on a synchronisation object (the unit's
//     __incant_race_obj_<ID> with its kind, address or id and count):
//     before each arrival (bar.sync/.red/.arrive with a thread count,
//     barrier.cluster.arrive, mbarrier.arrive, cp.async.mbarrier.arrive),
//     after each wait (bar.sync/.red with a count, barrier.cluster.wait, a
//     successful mbarrier.test_wait/try_wait, cp.async.wait_group/wait_all)
//     and at mbarrier.init and cp.async.commit_group;
//   - before every asynchronous copy from global into shared memory
//     (cp.async.ca/cg, cp.async.bulk on an mbarrier): a call of
//     __incant_race_copy_<ID> with its destination, source, mbarrier and
//     size, so that the copy is checked as a write of its destination and a
//     read of its source that last until its completion;
//   - each call the body of a loop that is never repeated but that ptxas
//     cannot tell from a spinning one (HookCalls, below, says why);
//   - the unit's variable __incant_race_<ID> and the two functions, copied
//     from the runtime's PTX (incant_race_hooks.cu, compiled for
//     compute_75 and for compute_90 when incant is built; the sm_90 one
//     for modules of sm_90 and later) with their names made the unit's
//     own; the object and copy hooks only where the unit calls them.
//
// Every instrumented instruction is a site of the manifest (pass "race"),
// with its text, the variable it touches when the address comes from one
// (a kernel parameter or a variable, followed back through moves, adds and
// conversions), and the static checker's verdict when one was given
// (InstrumentOptions::StaticRaces): accesses it proved safe are recorded but
// not instrumented, unless every access is wanted.
//
// Not instrumented: local, constant and parameter memory (private or
// read-only). Not checked, with a manifest note naming them ("race: not
// checked: ..."; the report then says that the kernel was not fully
// checked): tensor copies (cp.async.bulk.tensor: the box lives in the
// tensor map), bulk copies out of shared memory or between blocks,
// multicast, reductions (cp.reduce.async.bulk), matrix loads and stores
// (ldmatrix, stmatrix, wmma.load/store, wgmma, tcgen05) and texture and
// surface accesses.
//
//===----------------------------------------------------------------------===//
#include "Passes.h"
#include "runtime/incant_race.h"

#include "incant/IR/AsyncCopies.h"
#include "incant/IR/MemoryEvents.h"
#include "incant/IR/Summary.h"

#include <fmt/format.h>

#include <map>
#include <set>

extern "C" const char incant_race_hooks_ptx[];
extern "C" const char incant_race_hooks90_ptx[];

namespace incant::intercept {

namespace {

using ptx::AddrSpace;
using ptx::Instruction;
using ptx::Opcode;
using ptx::Operand;

/// The runtime's hook functions, parsed once: for compute_75, or (\p Sm90)
/// for compute_90.
const ptx::Module *hooksModule(DiagnosticEngine &Diags, bool Sm90) {
  static std::optional<ptx::Module> M[2];
  static bool Tried[2] = {false, false};
  if (Tried[Sm90])
    return M[Sm90] ? &*M[Sm90] : nullptr;
  Tried[Sm90] = true;
  const char *Text = Sm90 ? incant_race_hooks90_ptx : incant_race_hooks_ptx;
  if (!Text[0]) {
    Diags.error("pass 'race' needs the race hooks' PTX, and this incant was "
                "built without nvcc (rebuild incant where nvcc is found)");
    return nullptr;
  }
  DiagnosticEngine Local;
  M[Sm90] = ptx::parseModule(
      std::make_shared<SourceFile>("incant_race_hooks.ptx", std::string(Text)),
      Local);
  if (!M[Sm90])
    Diags.error("internal error: the race hooks' PTX does not parse");
  return M[Sm90] ? &*M[Sm90] : nullptr;
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
  case AddrSpace::SharedCluster:
    Space = INCANT_RACE_SPACE_CLUSTER;
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
  static const char *Spaces[] = {"generic", "global", "shared",
                                 "shared::cluster"};
  F.Kind = fmt::format("{} {}",
                       At || Red ? "atomic"
                       : Ld      ? "read"
                                 : "write",
                       Spaces[Space]);
  return F;
}

/// Whether a bar/barrier instruction names a thread count (or arrives
/// only): a named barrier between some of the block's threads.
bool countedBarrier(const Instruction &I) {
  size_t Counted = I.hasMod(".red") ? 4 : 2;
  return I.Op == Opcode::Bar && (I.hasMod(".arrive") || I.Ops.size() >= Counted);
}

/// The sync kind of a barrier or fence, if the checker follows it.
std::optional<uint32_t> syncKind(const Instruction &I, std::string &Kind) {
  switch (I.Op) {
  case Opcode::Bar:
    if (countedBarrier(I))
      return std::nullopt; // a synchronisation object (objectHooks)
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
  /// Queues the code that puts address operand \p A of \p I in a new
  /// 64-bit register before \p I; returns the register ("" after an error).
  std::string addressCode(Unit &U, const ir::FunctionIR &F, unsigned Func,
                          unsigned Item, const Instruction &I,
                          const Operand &A);
  /// A .b32 argument from operand \p O: its value, or a register (a
  /// conversion into a new one queued before item \p Item when it is not
  /// 32 bits wide); "" where \p O is neither.
  std::string arg32(Unit &U, const ir::FunctionIR &F, unsigned Func,
                    unsigned Item, const Operand &O);
  /// Instruments \p I if it is a synchronisation-object operation or an
  /// asynchronous copy (\p Handled); what is not followed goes into
  /// \p Skipped. False after an error.
  bool objectHooks(Unit &U, const ir::FunctionIR &F, unsigned Func,
                   unsigned Item, HookCalls &Calls,
                   std::set<std::string> &Skipped, bool &Handled);
  bool copyHook(Unit &U, const ir::FunctionIR &F, unsigned Func, unsigned Item,
                HookCalls &Calls, std::set<std::string> &Skipped);
  bool addHooks(Unit &U, bool Sm90);

  bool UsesObj = false, UsesCopy = false;
};

/// What an object operation passes to __incant_race_obj: its kind, the
/// operand with the mbarrier's address or the barrier's id, the operand
/// with its count (or a value), and whether the call follows the
/// instruction (a wait: under the guard of \p Pred, the wait's result).
struct ObjectOp {
  uint32_t Kind = 0;
  const Operand *Addr = nullptr, *Id = nullptr, *Aux = nullptr;
  uint32_t AuxValue = 0;
  bool After = false, Parity = false;
  const Operand *Pred = nullptr;
  const char *What = "";
};

/// The index of \p I's first address operand, or -1.
int firstAddress(const Instruction &I) {
  for (size_t K = 0; K < I.Ops.size(); ++K)
    if (I.Ops[K].K == Operand::Address)
      return int(K);
  return -1;
}

/// The object operations of \p I (an arrival and a wait for bar.sync with
/// a count); empty where \p I is none. \p Unmodelled names one that the
/// checker does not follow.
std::vector<ObjectOp> objectOps(const Instruction &I, std::string &Unmodelled) {
  std::vector<ObjectOp> V;
  ObjectOp O;
  int A = firstAddress(I);
  if (countedBarrier(I)) {
    size_t First = I.hasMod(".red") ? 1 : 0;
    O.Id = I.Ops.size() > First ? &I.Ops[First] : nullptr;
    O.Aux = I.Ops.size() > First + 1 && !I.hasMod(".red")
                ? &I.Ops[First + 1]
            : I.hasMod(".red") && I.Ops.size() >= 4 ? &I.Ops[2]
                                                     : nullptr;
    O.Kind = INCANT_RACE_OBJ_BAR_ARRIVE;
    O.What = "barrier named arrive";
    V.push_back(O);
    if (!I.hasMod(".arrive")) {
      O.Kind = INCANT_RACE_OBJ_BAR_WAIT;
      O.After = true;
      O.What = "barrier named wait";
      V.push_back(O);
    }
    return V;
  }
  if (I.Op == Opcode::BarrierCluster) {
    bool Arrive = I.hasMod(".arrive");
    if (Arrive && I.hasMod(".relaxed")) {
      Unmodelled = "barrier.cluster.arrive.relaxed";
      return V;
    }
    O.Kind = Arrive ? INCANT_RACE_OBJ_CLUSTER_ARRIVE : INCANT_RACE_OBJ_CLUSTER_WAIT;
    O.After = !Arrive;
    O.What = Arrive ? "barrier cluster arrive" : "barrier cluster wait";
    V.push_back(O);
    return V;
  }
  if (I.Op == Opcode::Mbarrier && A >= 0) {
    O.Addr = &I.Ops[A];
    if (I.ASpace == AddrSpace::Generic)
      O.Kind = INCANT_RACE_OBJ_GENERIC;
    if (I.hasMod(".init")) {
      O.Kind |= INCANT_RACE_OBJ_MBAR_INIT;
      O.Aux = size_t(A + 1) < I.Ops.size() ? &I.Ops[A + 1] : nullptr;
      O.After = true;
      O.What = "barrier mbarrier init";
    } else if (I.hasMod(".arrive_drop")) {
      O.Kind |= INCANT_RACE_OBJ_MBAR_LOST;
      O.What = "barrier mbarrier arrive_drop (its phases not followed after)";
    } else if (I.hasMod(".arrive")) {
      if (I.hasMod(".relaxed")) {
        Unmodelled = "mbarrier.arrive.relaxed";
        return V;
      }
      O.Kind |= INCANT_RACE_OBJ_MBAR_ARRIVE;
      if (!I.hasMod(".expect_tx") && size_t(A + 1) < I.Ops.size())
        O.Aux = &I.Ops[A + 1];
      O.What = "barrier mbarrier arrive";
    } else if (I.hasMod(".try_wait") || I.hasMod(".test_wait")) {
      if (I.hasMod(".relaxed"))
        return V; // no acquire: nothing to follow
      O.Kind |= INCANT_RACE_OBJ_MBAR_WAIT;
      O.After = true;
      O.Pred = I.Ops.empty() ? nullptr : &I.Ops[0];
      O.Parity = I.hasMod(".parity");
      O.Aux = O.Parity && size_t(A + 1) < I.Ops.size() ? &I.Ops[A + 1] : nullptr;
      O.What = "barrier mbarrier wait";
    } else {
      return V; // expect_tx, complete_tx, pending_count, inval
    }
    V.push_back(O);
    return V;
  }
  if (I.Op != Opcode::CpAsync || I.hasMod(".bulk") || ir::isAsyncCopy(I))
    return V;
  if (I.hasMod(".commit_group")) {
    O.Kind = INCANT_RACE_OBJ_CP_COMMIT;
    O.What = "barrier cp.async.commit_group";
  } else if (I.hasMod(".wait_group")) {
    O.Kind = INCANT_RACE_OBJ_CP_WAIT;
    O.Aux = I.Ops.empty() ? nullptr : &I.Ops[0];
    O.After = true;
    O.What = "barrier cp.async.wait_group";
  } else if (I.hasMod(".wait_all")) {
    O.Kind = INCANT_RACE_OBJ_CP_WAIT_ALL;
    O.After = true;
    O.What = "barrier cp.async.wait_all";
  } else if (I.hasMod(".mbarrier") && I.hasMod(".arrive") && A >= 0) {
    O.Kind = INCANT_RACE_OBJ_CP_MBAR |
             (I.ASpace == AddrSpace::Generic ? INCANT_RACE_OBJ_GENERIC : 0u);
    O.Addr = &I.Ops[A];
    O.AuxValue = I.hasMod(".noinc") ? 1 : 0;
    O.What = "barrier cp.async.mbarrier.arrive";
  } else {
    return V;
  }
  V.push_back(O);
  return V;
}

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
                                  const Instruction &I, const Operand &A) {
  ir::Rewriter &RW = U.rewriter();
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

/// What \p I is when it touches memory that the checker does not follow
/// ("" otherwise): copies and matrix operations the pass leaves out.
std::string unmodelledAccess(const Instruction &I) {
  if (I.Op == Opcode::CpAsync && I.hasMod(".prefetch"))
    return ""; // a hint: no access
  if (I.Op == Opcode::CpAsync) {
    std::string N = I.Name;
    for (const ptx::Modifier &M : I.Mods) {
      if (M.Text.rfind(".shared", 0) == 0 || M.Text == ".global" ||
          M.Text.rfind(".mbarrier", 0) == 0 || M.Text.rfind(".L2", 0) == 0)
        break;
      N += M.Text;
    }
    return N;
  }
  if (I.Op == Opcode::Tensor &&
      (firstAddress(I) >= 0 || I.Name == "wgmma" || I.Name == "tcgen05"))
    return I.Mods.empty() ? I.Name : I.Name + I.Mods[0].Text;
  static const char *Tex[] = {"tex", "tld4", "suld", "sust", "sured", "suq"};
  for (const char *T : Tex)
    if (I.Name == T)
      return I.Name;
  return "";
}

std::string RacePass::arg32(Unit &U, const ir::FunctionIR &F, unsigned Func,
                            unsigned Item, const Operand &O) {
  if (O.K == Operand::Imm)
    return std::to_string(uint32_t(O.Value));
  if (O.K != Operand::Reg || O.Name.empty())
    return "";
  unsigned Reg = F.findRegister(O.Name);
  if (Reg == ir::NoNode)
    return "";
  const std::string &T = F.registers()[Reg].Type;
  if (T.find("32") != std::string::npos)
    return O.Name;
  ir::Rewriter &RW = U.rewriter();
  std::string R = RW.addRegister(Func, ".b32", "%incant_rb");
  std::string From = T.find("64") != std::string::npos ? ".u64" : ".u16";
  if (!RW.insertBefore(Func, Item, fmt::format("cvt.u32{} {}, {};", From, R,
                                               O.Name)))
    return "";
  return R;
}

bool RacePass::objectHooks(Unit &U, const ir::FunctionIR &F, unsigned Func,
                           unsigned Item, HookCalls &Calls,
                           std::set<std::string> &Skipped, bool &Handled) {
  const Instruction &I = F.inst(Item);
  if (ir::isAsyncCopy(I)) {
    Handled = true;
    return copyHook(U, F, Func, Item, Calls, Skipped);
  }
  std::string Unmodelled;
  std::vector<ObjectOp> Ops = objectOps(I, Unmodelled);
  if (!Unmodelled.empty()) {
    Skipped.insert(Unmodelled);
    Handled = true;
    return true;
  }
  if (Ops.empty()) {
    Handled = I.Op == Opcode::Mbarrier || I.Op == Opcode::CpAsync ||
              I.Op == Opcode::BarrierCluster || countedBarrier(I);
    return true;
  }
  Handled = true;
  ir::Rewriter &RW = U.rewriter();
  std::string Guard;
  if (I.G)
    Guard = fmt::format("@{}{} ", I.G->Negated ? "!" : "", I.G->Reg);
  const std::string Callee = INCANT_RACE_OBJ_PREFIX + U.id();
  for (const ObjectOp &O : Ops) {
    uint32_t Id = U.addSite("race", F, Item, O.What);
    U.manifest().Sites[Id].Text = ptx::printInstruction(I);
    std::string Where = "0";
    if (O.Addr) {
      Where = addressCode(U, F, Func, Item, I, *O.Addr);
    } else if (O.Id) {
      std::string R = arg32(U, F, Func, Item, *O.Id);
      if (R.empty() || O.Id->K == Operand::Imm) {
        Where = R.empty() ? "0" : R;
      } else {
        Where = RW.addRegister(Func, ".b64", "%incant_ra");
        if (!RW.insertBefore(Func, Item,
                             fmt::format("cvt.u64.u32 {}, {};", Where, R)))
          return false;
      }
    }
    std::string Aux = std::to_string(O.AuxValue);
    if (O.Aux) {
      Aux = arg32(U, F, Func, Item, *O.Aux);
      if (Aux.empty())
        Aux = "0";
    }
    if (O.Parity) {
      // parity | has parity << 1
      if (O.Aux && O.Aux->K == Operand::Imm) {
        Aux = std::to_string((uint32_t(O.Aux->Value) & 1u) | 2u);
      } else if (O.Aux) {
        std::string R = RW.addRegister(Func, ".b32", "%incant_rb");
        if (!RW.insertBefore(Func, Item, fmt::format("and.b32 {}, {}, 1;", R, Aux)) ||
            !RW.insertBefore(Func, Item, fmt::format("or.b32 {}, {}, 2;", R, R)))
          return false;
        Aux = R;
      }
    }
    std::string G = Guard;
    if (O.Pred && O.Pred->K == Operand::Reg) {
      // Only where the wait succeeded (and ran).
      std::string P = O.Pred->Name;
      if (I.G) {
        P = RW.addRegister(Func, ".pred", "%incant_rp");
        if (!RW.insertAfter(Func, Item,
                            fmt::format("and.pred {}, {}{}, {};", P,
                                        I.G->Negated ? "!" : "", I.G->Reg,
                                        O.Pred->Name)))
          return false;
      }
      G = fmt::format("@{} ", P);
    }
    if (Where.empty() ||
        !Calls.queue(RW, Func, Item, O.After, G, Callee,
                     {{".b32", std::to_string(O.Kind)},
                      {".b64", Where},
                      {".b32", Aux}}))
      return false;
    UsesObj = true;
  }
  return true;
}

bool RacePass::copyHook(Unit &U, const ir::FunctionIR &F, unsigned Func,
                        unsigned Item, HookCalls &Calls,
                        std::set<std::string> &Skipped) {
  const Instruction &I = F.inst(Item);
  auto [Dst, Src] = ir::asyncCopySpaces(I);
  bool Bulk = I.hasMod(".bulk");
  bool OnMbarrier = false;
  for (const ptx::Modifier &M : I.Mods)
    OnMbarrier |= M.Text.rfind(".mbarrier::complete_tx", 0) == 0;
  std::vector<unsigned> Addrs;
  for (unsigned K = 0; K < I.Ops.size(); ++K)
    if (I.Ops[K].K == Operand::Address)
      Addrs.push_back(K);
  bool Shared = Dst == AddrSpace::Shared || Dst == AddrSpace::SharedCluster;
  bool Known = Shared && Src == AddrSpace::Global && Addrs.size() >= 2 &&
               I.Name == "cp" && !I.hasMod(".tensor") &&
               !I.hasMod(".multicast::cluster") &&
               (Bulk ? OnMbarrier && Addrs.size() >= 3 : Dst == AddrSpace::Shared);
  if (!Known) {
    Skipped.insert(unmodelledAccess(I));
    return true;
  }
  // cp.async: [dst], [src], cp-size{, src-size}; bulk: [dst], [src],
  // size, [mbar].
  unsigned SizeOp = Addrs[1] + 1;
  std::string Size = SizeOp < I.Ops.size() ? arg32(U, F, Func, Item, I.Ops[SizeOp]) : "";
  if (Size.empty()) {
    Skipped.insert(unmodelledAccess(I));
    return true;
  }
  uint32_t Id = U.addSite("race", F, Item, "async copy to shared");
  if (Id > INCANT_RACE_SITE_MASK) {
    U.diags().error(fmt::format("pass 'race': more than {} sites in one module",
                                INCANT_RACE_MAX_SITES));
    return false;
  }
  Site &S = U.manifest().Sites[Id];
  S.Text = ptx::printInstruction(I);
  S.Object = objectOf(F, Item, I.Ops[Addrs[0]]);
  uint32_t Info = Id | (Dst == AddrSpace::SharedCluster ? INCANT_RACE_SPACE_CLUSTER
                                                         : INCANT_RACE_SPACE_SHARED)
                           << INCANT_RACE_SPACE_SHIFT;
  if (Bulk)
    Info |= INCANT_RACE_COPY_MBAR;
  std::string D = addressCode(U, F, Func, Item, I, I.Ops[Addrs[0]]);
  std::string R = addressCode(U, F, Func, Item, I, I.Ops[Addrs[1]]);
  std::string M = Bulk ? addressCode(U, F, Func, Item, I, I.Ops[Addrs[2]]) : "0";
  std::string Guard;
  if (I.G)
    Guard = fmt::format("@{}{} ", I.G->Negated ? "!" : "", I.G->Reg);
  if (D.empty() || R.empty() || M.empty() ||
      !Calls.queue(U.rewriter(), Func, Item, /*After=*/false, Guard,
                   INCANT_RACE_COPY_PREFIX + U.id(),
                   {{".b64", D}, {".b64", R}, {".b64", M}, {".b32", Size},
                    {".b32", std::to_string(Info)}}))
    return false;
  UsesCopy = true;
  return true;
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
  bool Sm90 = Target.rfind("sm_", 0) == 0 && std::atoi(Target.c_str() + 3) >= 90;
  UsesObj = UsesCopy = false;
  if (!hooksModule(U.diags(), Sm90))
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
      bool Handled = false;
      if (!objectHooks(U, F, Func, Item, Calls, Skipped, Handled))
        return false;
      if (Handled)
        continue;
      std::optional<AccessFacts> A = accessFacts(I);
      if (!A) {
        if (std::string N = unmodelledAccess(I); !N.empty())
          Skipped.insert(N);
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
      std::string R = addressCode(U, F, Func, Item, I, *addressOperand(I));
      if (R.empty() ||
          !Calls.queue(RW, Func, Item, /*After=*/false, Guard, Access,
                       {{".b64", R}, {".b32", std::to_string(A->Info | Id)}}))
        return false;
    }
  }
  if (!Skipped.empty())
    U.manifest().Notes.push_back(
        fmt::format("race: not checked: {}", fmt::join(Skipped, ", ")));
  if (Static)
    U.manifest().Notes.push_back(fmt::format(
        "race: {} accesses proved safe by the static checker are not "
        "instrumented",
        Pruned));
  return addHooks(U, Sm90);
}

bool RacePass::addHooks(Unit &U, bool Sm90) {
  const ptx::Module *H = hooksModule(U.diags(), Sm90);
  std::map<std::string, std::string> Names = {
      {INCANT_RACE_RT_UNIT, INCANT_RACE_PREFIX + U.id()},
      {INCANT_RACE_RT_ACCESS, INCANT_RACE_ACCESS_PREFIX + U.id()},
      {INCANT_RACE_RT_SYNC, INCANT_RACE_SYNC_PREFIX + U.id()},
      {INCANT_RACE_RT_OBJ, INCANT_RACE_OBJ_PREFIX + U.id()},
      {INCANT_RACE_RT_COPY, INCANT_RACE_COPY_PREFIX + U.id()}};
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
    if (!F || !F->HasBody || (F->Name == INCANT_RACE_RT_OBJ && !UsesObj) ||
        (F->Name == INCANT_RACE_RT_COPY && !UsesCopy))
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
