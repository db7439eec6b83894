//===- MemoryEvents.cpp - The memory accesses of a kernel, symbolically ---===//
#include "incant/IR/MemoryEvents.h"
#include "incant/IR/ThreadValues.h"

#include <set>

namespace incant::ir {

using ptx::AddrSpace;
using ptx::Instruction;
using ptx::Opcode;
using ptx::Operand;

/// Bytes of one element named by a type modifier the instruction decoder
/// leaves in Mods (packed and 8-bit float types).
static unsigned modifierBytes(const std::string &T) {
  if (T == ".f16x2" || T == ".bf16x2" || T == ".e4m3x4" || T == ".e5m2x4")
    return 4;
  if (T == ".f16" || T == ".bf16" || T == ".e4m3x2" || T == ".e5m2x2")
    return 2;
  if (T == ".e4m3" || T == ".e5m2")
    return 1;
  return 0;
}

unsigned accessBytes(const Instruction &I) {
  unsigned Vec = 1, Elem = 0;
  for (const ptx::Modifier &M : I.Mods) {
    if (M.Text == ".v2")
      Vec = 2;
    else if (M.Text == ".v4")
      Vec = 4;
    else if (M.Text == ".v8")
      Vec = 8;
    else if (unsigned B = modifierBytes(M.Text))
      Elem = B;
  }
  if (!I.Types.empty() && I.Types[0].K != ptx::Type::Pred)
    Elem = (I.Types[0].Bits + 7) / 8;
  return Elem * Vec;
}

namespace {
std::string paramKey(const Symbol &S) {
  return S.Offset ? S.Name + "+" + std::to_string(S.Offset) : S.Name;
}

/// Parameters that hold pointers: declared `.ptr`, or converted with cvta
/// (nvcc converts each pointer argument with cvta.to.global).
std::set<std::string> pointerParams(ThreadValues &TV) {
  std::set<std::string> Out;
  const FunctionIR &F = TV.function();
  for (const ptx::Variable &V : F.function().Params)
    if (V.IsPtr)
      Out.insert(V.Name);
  for (unsigned Item : F.instructions()) {
    if (F.inst(Item).Op != Opcode::Cvta || F.inst(Item).Ops.size() < 2)
      continue;
    ExprId V = TV.operand(Item, 1);
    for (unsigned S : TV.pool().symbolsOf(V))
      if (TV.pool().symbol(S).K == SymKind::Param)
        Out.insert(paramKey(TV.pool().symbol(S)));
  }
  return Out;
}

bool is64BitParam(const ThreadValues &TV, const Symbol &S) {
  for (const ptx::Variable &V : TV.function().function().Params)
    if (V.Name == S.Name)
      return V.Type == ".u64" || V.Type == ".b64" || V.Type == ".s64" ||
             (V.Type == ".b8" && !V.Dims.empty()); // a struct argument
  return false;
}

AddrSpace spaceOfVariable(const ptx::Variable &V) {
  return V.Space == AddrSpace::Param ? AddrSpace::Param : V.Space;
}

/// Splits \p Address into an object and an offset.
void splitAddress(ThreadValues &TV, const std::set<std::string> &Ptrs,
                  MemoryAccess &A) {
  ExprPool &P = TV.pool();
  AffineForm F = P.affine(A.Address);
  std::vector<std::vector<ExprId>> Vars, Params, WideParams;
  for (const auto &[M, K] : F.Terms) {
    if (K != 1 || M.size() != 1)
      continue;
    const Symbol *S = P.asSymbol(M[0]);
    if (!S)
      continue;
    if (S->K == SymKind::VarAddr && !TV.isParam(S->Name))
      Vars.push_back(M);
    else if (S->K == SymKind::Param && Ptrs.count(paramKey(*S)))
      Params.push_back(M);
    else if (S->K == SymKind::Param && is64BitParam(TV, *S))
      WideParams.push_back(M);
  }
  const std::vector<ExprId> *Base = nullptr;
  if (Vars.size() == 1)
    Base = &Vars[0];
  else if (Vars.empty() && Params.size() == 1)
    Base = &Params[0];
  else if (Vars.empty() && Params.empty() && WideParams.size() == 1)
    Base = &WideParams[0];
  if (!Base) {
    A.Object = MemoryObject();
    bool Loaded = P.mentions(A.Address, [](const Symbol &S) {
      return S.K == SymKind::Opaque && !S.Uniform;
    });
    A.Why = Loaded ? "the address is computed from a loaded value (a pointer "
                     "read from memory)"
                   : "the address is not a variable or pointer parameter plus "
                     "an offset";
    return;
  }
  const Symbol &S = *P.asSymbol((*Base)[0]);
  if (S.K == SymKind::VarAddr) {
    const ptx::Variable *V = TV.findVariable(S.Name);
    A.Object.K = ObjectKind::Variable;
    A.Object.Name = S.Name;
    A.Object.Space = V ? spaceOfVariable(*V) : AddrSpace::Generic;
    if (V && V->Space == AddrSpace::Shared && V->Link == ptx::Linkage::Extern) {
      A.Object.K = ObjectKind::DynamicShared;
      A.Object.Name = "$dynamic_shared";
    }
  } else {
    A.Object.K = ObjectKind::Param;
    A.Object.Name = paramKey(S);
    A.Object.Space = AddrSpace::Global;
    // `.param .u64 .ptr .shared`: OpenCL's __local pointer arguments.
    for (const ptx::Variable &V : TV.function().function().Params)
      if (V.Name == S.Name && V.IsPtr && V.PtrSpace != AddrSpace::Generic)
        A.Object.Space = V.PtrSpace;
  }
  AffineForm Rest = F;
  Rest.Terms.erase(*Base);
  A.Offset = P.fromAffine(Rest);
  bool Loaded = P.mentions(A.Offset, [](const Symbol &Y) {
    return Y.K == SymKind::Opaque && !Y.Uniform;
  });
  if (Loaded) {
    A.Why = "the offset depends on a loaded value (an index read from memory)";
    return;
  }
  A.Affine = true;
}
} // namespace

std::vector<MemoryAccess> memoryAccesses(ThreadValues &TV) {
  const FunctionIR &F = TV.function();
  std::set<std::string> Ptrs = pointerParams(TV);
  std::vector<MemoryAccess> Out;
  for (unsigned Item : F.instructions()) {
    std::optional<SummaryEvent> E = summaryEvent(F, Item);
    if (!E || (E->Kind != EventKind::Load && E->Kind != EventKind::Store &&
               E->Kind != EventKind::Atomic && E->Kind != EventKind::AsyncCopy))
      continue;
    const Instruction &I = F.inst(Item);
    std::vector<unsigned> AddrOps;
    for (unsigned K = 0; K < I.Ops.size(); ++K)
      if (I.Ops[K].K == Operand::Address)
        AddrOps.push_back(K);
    if (AddrOps.empty())
      continue;
    for (unsigned Part = 0; Part < AddrOps.size() && Part < 2; ++Part) {
      MemoryAccess A;
      A.Event = *E;
      A.Item = Item;
      A.Part = Part;
      A.Address = TV.operand(Item, AddrOps[Part]);
      switch (I.Op) {
      case Opcode::Ld:
      case Opcode::Ldu:
        A.Reads = true;
        break;
      case Opcode::St:
        A.Writes = true;
        break;
      case Opcode::Atom:
      case Opcode::Red:
        A.Reads = A.Writes = A.Atomic = true;
        break;
      case Opcode::CpAsync:
        (Part == 0 ? A.Writes : A.Reads) = true;
        break;
      default:
        A.Reads = A.Writes = true;
        break;
      }
      A.Volatile = I.S == ptx::Sem::Volatile;
      if (A.Atomic) {
        A.Strong = true;
        A.Scope = I.Sc == ptx::Scope::None ? ptx::Scope::GPU : I.Sc;
      } else if (I.S == ptx::Sem::Relaxed || I.S == ptx::Sem::Acquire ||
                 I.S == ptx::Sem::Release || I.S == ptx::Sem::AcqRel ||
                 I.S == ptx::Sem::SC) {
        A.Strong = I.Sc != ptx::Scope::None;
        A.Scope = I.Sc;
      }
      if (I.Op == Opcode::CpAsync) {
        // cp.async.ca.shared.global [dst], [src], cp-size{, src-size}
        A.Bytes = 0;
        if (I.Ops.size() > 2 && I.Ops[2].K == Operand::Imm)
          A.Bytes = static_cast<unsigned>(I.Ops[2].Value);
        A.Space = Part == 0 ? AddrSpace::Shared : AddrSpace::Global;
        for (const ptx::Modifier &M : I.Mods)
          if (M.Text == ".shared::cluster" && Part == 0)
            A.Space = AddrSpace::SharedCluster;
      } else {
        A.Bytes = accessBytes(I);
        A.Space = I.ASpace;
      }
      splitAddress(TV, Ptrs, A);
      if (A.Space == AddrSpace::Generic)
        A.Space = A.Object.Space;
      Out.push_back(std::move(A));
    }
  }
  return Out;
}

} // namespace incant::ir
