//===- Uniformity.cpp - Which values and branches depend on the thread ----===//
#include "incant/IR/Uniformity.h"

#include <algorithm>

namespace incant::ir {

using ptx::Instruction;
using ptx::Opcode;
using ptx::Operand;

const char *varianceName(Variance V) {
  switch (V) {
  case Variance::Grid: return "grid";
  case Variance::Block: return "block";
  case Variance::Thread: return "thread";
  }
  return "?";
}

static Variance worst(Variance A, Variance B) { return A > B ? A : B; }

/// The variance of a special register.
static Variance specialVariance(const std::string &Name) {
  std::string Base = Name.substr(0, Name.find('.'));
  static const char *GridNames[] = {
      "%ntid", "%nctaid", "%nsmid", "%gridid", "%total_smem_size",
      "%dynamic_smem_size", "%aggr_smem_size", "%is_explicit_cluster",
      "%nclusterid", "%cluster_nctaid", "%cluster_nctarank"};
  for (const char *G : GridNames)
    if (Base == G)
      return Variance::Grid;
  if (Base.compare(0, 7, "%envreg") == 0 ||
      Base.compare(0, 21, "%reserved_smem_offset") == 0)
    return Variance::Grid;
  if (Base == "%ctaid" || Base == "%clusterid" || Base == "%cluster_ctaid" ||
      Base == "%cluster_ctarank")
    return Variance::Block;
  return Variance::Thread;
}

Uniformity::Uniformity(const FunctionIR &Fn, LoadVariance KnownLoad)
    : F(&Fn) {
  unsigned NB = static_cast<unsigned>(F->blocks().size());
  Regs.assign(F->registers().size(), Variance::Grid);
  Branch.assign(NB, Variance::Grid);
  Control.assign(NB, Variance::Grid);
  Deps.assign(NB, {});

  // Control dependence from post-dominators.
  const PostDominatorTree &PDT = F->postDominators();
  for (unsigned P = 0; P < NB; ++P) {
    const auto &Succs = F->cfg().succs(P);
    if (Succs.size() < 2)
      continue;
    unsigned Stop = PDT.ipdom(P);
    for (unsigned S : Succs) {
      unsigned R = S;
      for (unsigned Guard = 0; R != NoNode && R != Stop && Guard <= NB;
           ++Guard) {
        if (std::find(Deps[R].begin(), Deps[R].end(), P) == Deps[R].end())
          Deps[R].push_back(P);
        if (!PDT.reachesExit(R))
          break;
        R = PDT.ipdom(R);
      }
    }
  }

  // The fixpoint: variances only grow.
  bool Changed = true;
  while (Changed) {
    Changed = false;
    // Branch conditions.
    for (unsigned B = 0; B < NB; ++B) {
      const BasicBlock &BB = F->blocks()[B];
      Variance V = Variance::Grid;
      if (!BB.Insts.empty() && F->cfg().succs(B).size() > 1)
        V = operandVariance(BB.Insts.back());
      if (worst(Branch[B], V) != Branch[B]) {
        Branch[B] = worst(Branch[B], V);
        Changed = true;
      }
    }
    // Control, transitively through the dependences.
    for (bool Again = true; Again;) {
      Again = false;
      for (unsigned B = 0; B < NB; ++B) {
        Variance V = Control[B];
        for (unsigned P : Deps[B])
          V = worst(V, worst(Branch[P], Control[P]));
        if (V != Control[B]) {
          Control[B] = V;
          Again = Changed = true;
        }
      }
    }
    // Definitions.
    for (unsigned Item : F->instructions()) {
      const std::vector<unsigned> &Defs = F->defs(Item);
      if (Defs.empty())
        continue;
      const Instruction &I = F->inst(Item);
      Variance V = worst(Control[F->blockOf(Item)], operandVariance(Item));
      // What the client knows of the memory a load or atomic reads (asked
      // once an instruction: it does not depend on the fixpoint).
      auto Known = [&]() -> std::optional<Variance> {
        if (!KnownLoad)
          return std::nullopt;
        auto [It, New] = KnownLoads.try_emplace(Item);
        if (New)
          It->second = KnownLoad(Item);
        return It->second;
      };
      switch (I.Op) {
      case Opcode::Ld:
      case Opcode::Ldu:
        // A kernel parameter is the same for all; a .param variable of the
        // body holds a call's argument or result, which may not be.
        if (I.ASpace != ptx::AddrSpace::Param &&
            I.ASpace != ptx::AddrSpace::Const) {
          std::optional<Variance> K = Known();
          V = K ? worst(V, *K) : Variance::Thread;
        } else if (I.ASpace == ptx::AddrSpace::Param && !readsParameter(I))
          V = worst(V, bodyParamVariance(Item));
        break;
      case Opcode::Atom:
        if (std::optional<Variance> K = Known()) {
          V = worst(V, *K);
          break;
        }
        V = Variance::Thread;
        break;
      case Opcode::Red:
      case Opcode::Shfl:
      case Opcode::Vote:
      case Opcode::Match:
      case Opcode::Redux:
      case Opcode::Activemask:
      case Opcode::Bar:
        // The result of a CTA-wide reduction (bar.red.popc/and/or, CUDA's
        // __syncthreads_count/and/or) is the same for every thread of the
        // CTA; with a thread count or a guard only some threads take part.
        V = I.hasMod(".red") && !I.G && I.Ops.size() < 4
                ? worst(Control[F->blockOf(Item)], Variance::Block)
                : Variance::Thread;
        break;
      case Opcode::Call:
      case Opcode::Mbarrier:
      case Opcode::Tensor:
      case Opcode::CpAsync:
      case Opcode::Unknown:
        V = Variance::Thread;
        break;
      default:
        break;
      }
      Variance &D = DefVar.try_emplace(Item, Variance::Grid).first->second;
      if (worst(D, V) != D) {
        D = worst(D, V);
        Changed = true;
      }
      for (unsigned R : Defs)
        Regs[R] = worst(Regs[R], V);
    }
  }
}

bool Uniformity::readsParameter(const Instruction &I) const {
  for (const Operand &O : I.Ops)
    if (O.K == Operand::Address)
      for (const ptx::Variable &P : F->function().Params)
        if (P.Name == O.Name)
          return true;
  return false;
}

Variance Uniformity::bodyParamVariance(unsigned LoadItem) const {
  const Instruction &I = F->inst(LoadItem);
  if (I.Ops.size() < 2 || I.Ops[1].K != Operand::Address ||
      I.Ops[1].Name.empty() || I.Ops[1].Name[0] == '%')
    return Variance::Thread;
  unsigned St = F->paramStoreBefore(LoadItem, I.Ops[1].Name, I.Ops[1].Value);
  if (St == NoNode || F->inst(St).G)
    return Variance::Thread;
  return operandVariance(St);
}

Variance Uniformity::at(unsigned Reg, unsigned Item) const {
  const std::vector<unsigned> &Defs = F->registers()[Reg].Defs;
  if (Defs.size() < 2)
    return Regs[Reg];
  auto [It, New] = Reaching.try_emplace({Reg, Item});
  if (New)
    It->second = F->reachingDefs(Reg, Item);
  Variance V = Variance::Grid;
  for (unsigned D : It->second)
    if (auto DV = DefVar.find(D); DV != DefVar.end())
      V = worst(V, DV->second);
  return V;
}

Variance Uniformity::operandVariance(unsigned Item) const {
  const Instruction &I = F->inst(Item);
  Variance V = Variance::Grid;
  for (unsigned R : F->uses(Item))
    V = worst(V, at(R, Item));
  auto Walk = [&](auto &Self, const Operand &O) -> void {
    if ((O.K == Operand::Reg || O.K == Operand::Address) &&
        isSpecialRegister(O.Name))
      V = worst(V, specialVariance(O.Name));
    for (const Operand &E : O.Elems)
      Self(Self, E);
  };
  for (const Operand &O : I.Ops)
    Walk(Walk, O);
  return V;
}

Variance Uniformity::exec(unsigned Item) const {
  Variance V = Control[F->blockOf(Item)];
  const Instruction &I = F->inst(Item);
  if (I.G)
    for (unsigned R : F->uses(Item))
      if (F->registers()[R].Name == I.G->Reg)
        V = worst(V, at(R, Item));
  return V;
}

} // namespace incant::ir
