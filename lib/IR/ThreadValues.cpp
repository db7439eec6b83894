//===- ThreadValues.cpp - What one thread computes, symbolically ----------===//
#include "incant/IR/ThreadValues.h"
#include "incant/IR/ClusterIds.h"

#include <algorithm>
#include <cassert>
#include <set>

namespace incant::ir {

using ptx::Instruction;
using ptx::Opcode;
using ptx::Operand;

ThreadValues::ThreadValues(const ptx::Module &Module, const FunctionIR &Fn,
                           ExprPool &Pool)
    : M(&Module), F(&Fn), P(&Pool) {
  PathMemo.assign(F->blocks().size(), NoExpr);
  PathBusy.assign(F->blocks().size(), 0);
  const auto &Loops = F->loops().loops();
  LoopNest.resize(Loops.size());
  for (unsigned L = 0; L < Loops.size(); ++L)
    for (unsigned O = 0; O < Loops.size(); ++O)
      if (Loops[O].contains(Loops[L].Header))
        LoopNest[L].push_back(O);
}

ExprId ThreadValues::iter(unsigned Loop) {
  Symbol S;
  S.K = SymKind::Iter;
  S.Loop = Loop;
  return P->sym(S);
}

ExprId ThreadValues::opaque(unsigned Item, unsigned Part,
                            const std::string &What, bool IsBool,
                            bool Uniform) {
  Symbol S;
  S.K = SymKind::Opaque;
  S.Item = Item;
  S.Part = Part;
  S.Name = What;
  S.IsBool = IsBool;
  S.Uniform = Uniform;
  return P->sym(S);
}

unsigned ThreadValues::regOf(unsigned Item, const std::string &Name) const {
  const auto &Regs = F->registers();
  for (unsigned R : F->uses(Item))
    if (Regs[R].Name == Name)
      return R;
  for (unsigned R : F->defs(Item))
    if (Regs[R].Name == Name)
      return R;
  return NoNode;
}

const ptx::Variable *ThreadValues::findVariable(const std::string &Name) const {
  for (const ptx::BodyItem &B : F->function().Body)
    if (const auto *V = std::get_if<ptx::Variable>(&B);
        V && V->Space != ptx::AddrSpace::Reg && V->Name == Name)
      return V;
  for (const ptx::ModuleItem &I : M->Items)
    if (const auto *V = std::get_if<ptx::Variable>(&I); V && V->Name == Name)
      return V;
  return nullptr;
}

bool ThreadValues::isParam(const std::string &Name) const {
  for (const ptx::Variable &V : F->function().Params)
    if (V.Name == Name)
      return true;
  return false;
}

//===-- Operands ----------------------------------------------------------===//

ExprId ThreadValues::special(const std::string &Name, unsigned Item) {
  auto Dim = [&](SymKind K) -> ExprId {
    size_t Dot = Name.find('.');
    if (Dot == std::string::npos || Dot + 2 != Name.size())
      return opaque(Item, 0, Name);
    char C = Name[Dot + 1];
    if (C < 'x' || C > 'z')
      return opaque(Item, 0, Name);
    Symbol S;
    S.K = K;
    S.Dim = static_cast<uint8_t>(C - 'x');
    return P->sym(S);
  };
  std::string Base = Name.substr(0, Name.find('.'));
  if (Base == "%tid")
    return Dim(SymKind::Tid);
  if (Base == "%ntid")
    return Dim(SymKind::Ntid);
  if (Base == "%ctaid")
    return Dim(SymKind::Ctaid);
  if (Base == "%nctaid")
    return Dim(SymKind::Nctaid);
  if (Base == "%laneid") {
    // The lane of the thread's linear id in the CTA (32-thread warps).
    auto S = [&](SymKind K, uint8_t D) {
      Symbol Y;
      Y.K = K;
      Y.Dim = D;
      return P->sym(Y);
    };
    ExprId Linear = P->add(
        S(SymKind::Tid, 0),
        P->mul(S(SymKind::Ntid, 0),
               P->add(S(SymKind::Tid, 1),
                      P->mul(S(SymKind::Ntid, 1), S(SymKind::Tid, 2)))));
    return P->rem(Linear, P->constant(32), false);
  }
  if (ExprId C = clusterRegister(*P, F->function(), Name); C != NoExpr)
    return C;
  static const char *UniformNames[] = {
      "%nsmid", "%nwarpid", "%gridid", "%total_smem_size",
      "%dynamic_smem_size", "%aggr_smem_size", "%is_explicit_cluster",
      "%nclusterid", "%cluster_nctaid", "%cluster_nctarank", "%envreg",
      "%reserved_smem_offset"};
  for (const char *U : UniformNames)
    if (Name.compare(0, std::string_view(U).size(), U) == 0)
      return opaque(~0u, 0, Name, false, true);
  return opaque(Item, 0, Name);
}

ExprId ThreadValues::value(unsigned Item, const Operand &O) {
  ExprId V = NoExpr;
  switch (O.K) {
  case Operand::Imm:
    V = P->constant(O.Value);
    break;
  case Operand::Reg:
  case Operand::Symbol:
  case Operand::Address: {
    if (O.K == Operand::Address && !O.Elems.empty())
      return opaque(Item, 90, "address");
    if (O.Name.empty()) {
      V = P->constant(O.Value);
      break;
    }
    if (isSpecialRegister(O.Name)) {
      V = special(O.Name, Item);
    } else if (unsigned R = regOf(Item, O.Name); R != NoNode) {
      V = regBefore(R, Item);
    } else {
      // A variable, parameter or function: its address.
      Symbol S;
      S.K = SymKind::VarAddr;
      S.Name = O.Name;
      V = P->sym(S);
    }
    if (O.Value)
      V = P->add(V, P->constant(O.Value));
    break;
  }
  default:
    return opaque(Item, 91, "operand", false);
  }
  if (O.Negated)
    V = P->lnot(V);
  return V;
}

ExprId ThreadValues::operand(unsigned Item, unsigned Idx) {
  const Instruction &I = F->inst(Item);
  // An instruction with fewer operands than its form has (PTX that ptxas
  // would refuse): the missing one is a value the analysis cannot know.
  if (Idx >= I.Ops.size())
    return opaque(Item, 1000 + Idx, "missing operand", false);
  return value(Item, I.Ops[Idx]);
}

ExprId ThreadValues::addressBase(unsigned Item, unsigned Idx) {
  Operand Base = F->inst(Item).Ops[Idx];
  Base.Elems.clear();
  return value(Item, Base);
}

ExprId ThreadValues::addressCoordinate(unsigned Item, unsigned Idx,
                                       unsigned K) {
  const Operand &A = F->inst(Item).Ops[Idx];
  // The coordinates are the last element (after a sampler, if any).
  if (A.Elems.empty())
    return NoExpr;
  const Operand &V = A.Elems.back();
  if (V.K != Operand::Vector)
    return K == 0 ? value(Item, V) : NoExpr;
  if (K >= V.Elems.size() || V.Elems[K].Name == "_")
    return NoExpr;
  return value(Item, V.Elems[K]);
}

//===-- Registers ---------------------------------------------------------===//

void ThreadValues::remember(std::pair<unsigned, unsigned> Key, ExprId V,
                            bool Entry) {
  (Entry ? EntryMemo : DefMemo)[Key] = V;
  Journal.emplace_back(Key, Entry);
}

ExprId ThreadValues::regBefore(unsigned Reg, unsigned Item) {
  unsigned B = F->blockOf(Item);
  const std::vector<unsigned> &In = F->blocks()[B].Insts;
  for (auto It = In.rbegin(); It != In.rend(); ++It) {
    if (*It >= Item)
      continue;
    const std::vector<unsigned> &D = F->defs(*It);
    if (std::find(D.begin(), D.end(), Reg) != D.end())
      return defined(*It, Reg);
  }
  return regAtEntry(Reg, B);
}

ExprId ThreadValues::regAtEnd(unsigned Reg, unsigned Block) {
  const std::vector<unsigned> &In = F->blocks()[Block].Insts;
  for (auto It = In.rbegin(); It != In.rend(); ++It) {
    const std::vector<unsigned> &D = F->defs(*It);
    if (std::find(D.begin(), D.end(), Reg) != D.end())
      return defined(*It, Reg);
  }
  return regAtEntry(Reg, Block);
}

bool ThreadValues::isBackEdge(unsigned From, unsigned To) const {
  return F->dominators().reachable(From) &&
         F->dominators().dominates(To, From);
}

bool ThreadValues::loopDefines(unsigned LoopIdx, unsigned Reg) const {
  const Loop &L = F->loops().loops()[LoopIdx];
  for (unsigned D : F->registers()[Reg].Defs)
    if (L.contains(F->blockOf(D)))
      return true;
  return false;
}

ExprId ThreadValues::merge(unsigned Block, const std::vector<unsigned> &Preds,
                           const std::vector<ExprId> &Vals) {
  assert(!Vals.empty() && Preds.size() == Vals.size());
  bool AllSame = std::all_of(Vals.begin(), Vals.end(),
                             [&](ExprId V) { return V == Vals[0]; });
  if (AllSame)
    return Vals[0];
  // Exactly one predecessor edge leads into the block in one pass, so the
  // value is that of the predecessor whose edge was taken.
  ExprId R = Vals.back();
  for (size_t I = Vals.size() - 1; I-- > 0;)
    R = P->select(P->land(pathCond(Preds[I]), edgeCond(Preds[I], Block)),
                  Vals[I], R);
  return R;
}

ExprId ThreadValues::regAtEntry(unsigned Reg, unsigned Block) {
  std::pair<unsigned, unsigned> Key(Reg, Block);
  if (auto It = EntryMemo.find(Key); It != EntryMemo.end())
    return It->second;
  // Asked again while computing it: legitimate when a loop header's value
  // became a placeholder since (the placeholder ends the recursion), a cycle
  // that is not a natural loop otherwise.
  auto Busy = InProgress.find(Key);
  if (Busy != InProgress.end() && Busy->second == Placeholders)
    return opaque(F->blocks()[Block].Begin, 92, "irreducible");
  bool Outer = Busy == InProgress.end();
  if (Outer)
    InProgress[Key] = Placeholders;
  else
    Busy->second = Placeholders;
  ExprId V;
  unsigned Loop = F->loops().loopWithHeader(Block);
  const DominatorTree &DT = F->dominators();
  if (Loop != NoNode) {
    V = headerValue(Reg, Loop);
  } else {
    std::vector<unsigned> Preds;
    std::vector<ExprId> Vals;
    for (unsigned Pd : F->cfg().preds(Block))
      if (DT.reachable(Pd)) {
        Preds.push_back(Pd);
        Vals.push_back(regAtEnd(Reg, Pd));
      }
    V = Vals.empty() ? opaque(F->blocks()[Block].Begin, 93,
                              "undefined " + F->registers()[Reg].Name)
                     : merge(Block, Preds, Vals);
  }
  if (Outer)
    InProgress.erase(Key);
  if (auto It = EntryMemo.find(Key); It != EntryMemo.end())
    return It->second; // computed meanwhile (through a loop header)
  remember(Key, V, true);
  return V;
}

std::optional<ExprId> ThreadValues::geometric(ExprId Sym, ExprId Start,
                                              ExprId Update, unsigned Loop) {
  // Each iteration shifts it by a constant (`s *= 2`, `s <<= 1`,
  // `d >>= 1`): iteration k holds start << c*k (start >> c*k).
  AffineForm A = P->affine(Update);
  if (A.Const == 0 && A.Terms.size() == 1 &&
      A.Terms.begin()->first == std::vector<ExprId>{Sym}) {
    int64_t Coeff = A.Terms.begin()->second;
    if (Coeff <= 1 || (Coeff & (Coeff - 1)) != 0)
      return std::nullopt;
    int64_t C = 0;
    while ((int64_t(1) << C) != Coeff)
      ++C;
    return P->shl(Start, P->mul(iter(Loop), P->constant(C)));
  }
  const ExprNode N = P->node(Update);
  if (N.O != Op::Shr || N.Ops[0] != Sym)
    return std::nullopt;
  std::optional<int64_t> C = P->asConst(N.Ops[1]);
  if (!C || *C < 1 || *C >= 62)
    return std::nullopt;
  return P->shr(Start, P->mul(iter(Loop), P->constant(*C)), N.Signed);
}

ExprId ThreadValues::headerValue(unsigned Reg, unsigned LoopIdx) {
  const Loop &L = F->loops().loops()[LoopIdx];
  unsigned H = L.Header;
  const DominatorTree &DT = F->dominators();
  std::vector<unsigned> Outside, Latches;
  std::vector<ExprId> Init, Upd;
  for (unsigned Pd : F->cfg().preds(H)) {
    if (!DT.reachable(Pd))
      continue;
    if (L.contains(Pd) && isBackEdge(Pd, H))
      Latches.push_back(Pd);
    else {
      Outside.push_back(Pd);
      Init.push_back(regAtEnd(Reg, Pd));
    }
  }
  ExprId Start = Init.empty() ? opaque(F->blocks()[H].Begin, 93,
                                       "undefined " + F->registers()[Reg].Name)
                              : merge(H, Outside, Init);
  if (!loopDefines(LoopIdx, Reg) || Latches.empty())
    return Start;

  Symbol S;
  S.K = SymKind::LoopVar;
  S.Loop = LoopIdx;
  S.Reg = Reg;
  S.Name = F->registers()[Reg].Name;
  S.IsBool = F->registers()[Reg].Type == ".pred";
  ExprId Sym = P->sym(S);
  std::pair<unsigned, unsigned> Key(Reg, H);
  size_t Mark = Journal.size();
  size_t VarMark = LoopVars.size();
  std::vector<ExprId> PathMark = PathMemo;
  remember(Key, Sym, true);
  ++Placeholders;

  for (unsigned Lt : Latches)
    Upd.push_back(regAtEnd(Reg, Lt));
  ExprId Update = merge(H, Latches, Upd);
  ExprId Step = P->sub(Update, Sym);
  bool Invariant = !P->mentions(Step, [&](const Symbol &Y) {
    return variesIn(Y, LoopIdx);
  });

  LoopVarInfo Info;
  Info.Loop = LoopIdx;
  Info.Reg = Reg;
  Info.Sym = Sym;
  Info.Init = Start;
  Info.Update = Update;
  ExprId Final = Sym;
  std::optional<ExprId> Shifted =
      S.IsBool ? std::nullopt : geometric(Sym, Start, Update, LoopIdx);
  if (Invariant || Shifted) {
    // start + iter * step: forget what was computed with the placeholder.
    for (size_t J = Mark; J < Journal.size(); ++J)
      (Journal[J].second ? EntryMemo : DefMemo).erase(Journal[J].first);
    Journal.resize(Mark);
    LoopVars.resize(VarMark);
    LoopVarBySym.clear();
    for (unsigned K = 0; K < LoopVars.size(); ++K)
      LoopVarBySym[LoopVars[K].Sym] = K;
    PathMemo = std::move(PathMark);
    if (Invariant) {
      Info.Step = Step;
      Final = P->add(Start, P->mul(iter(LoopIdx), Step));
    } else {
      Final = *Shifted;
    }
    remember(Key, Final, true);
  }
  LoopVarBySym[Sym] = static_cast<unsigned>(LoopVars.size());
  LoopVars.push_back(Info);
  return Final;
}

const LoopVarInfo *ThreadValues::loopVarOf(unsigned SymIdx) const {
  for (const LoopVarInfo &V : LoopVars)
    if (P->node(V.Sym).Sym == SymIdx)
      return &V;
  return nullptr;
}

unsigned ThreadValues::ownerLoop(const Symbol &S) const {
  switch (S.K) {
  case SymKind::Iter:
  case SymKind::LoopVar:
    return S.Loop;
  case SymKind::Opaque:
    return S.Item < F->function().Body.size()
               ? F->loops().loopFor(F->blockOf(S.Item))
               : NoNode;
  default:
    return NoNode;
  }
}

bool ThreadValues::variesIn(const Symbol &S, unsigned Loop) const {
  unsigned Own = ownerLoop(S);
  if (Own == NoNode)
    return false;
  const std::vector<unsigned> &Outer = LoopNest[Own];
  return std::find(Outer.begin(), Outer.end(), Loop) != Outer.end();
}

//===-- Instruction semantics ---------------------------------------------===//

ExprId ThreadValues::defined(unsigned Item, unsigned Reg) {
  std::pair<unsigned, unsigned> Key(Item, Reg);
  if (auto It = DefMemo.find(Key); It != DefMemo.end())
    return It->second;
  ExprId V = compute(Item, Reg);
  if (auto It = DefMemo.find(Key); It != DefMemo.end())
    return It->second;
  remember(Key, V, false);
  return V;
}

namespace {
bool allInt(const Instruction &I) {
  if (I.Types.empty())
    return false;
  for (const ptx::Type &T : I.Types)
    if (T.K == ptx::Type::F || T.K == ptx::Type::Pred || T.Bits > 64)
      return false;
  return true;
}
bool isPred(const Instruction &I) {
  return !I.Types.empty() && I.Types[0].K == ptx::Type::Pred;
}
bool isSignedType(const Instruction &I) {
  return !I.Types.empty() && I.Types.back().isSigned();
}
std::string spaceText(ptx::AddrSpace S) {
  const char *N = ptx::addrSpaceName(S);
  return *N ? std::string(N + 1) : std::string("generic");
}
} // namespace

ThreadValues::Def ThreadValues::defOf(unsigned Item, unsigned Reg) const {
  Def D{Item, 0, false, F->registers()[Reg].Type == ".pred", F->inst(Item)};
  const std::string &RName = F->registers()[Reg].Name;
  // Which of the instruction's results the register is.
  if (!D.I.Ops.empty()) {
    const Operand &O = D.I.Ops[0];
    if (O.K == Operand::Pair || O.K == Operand::Vector ||
        O.K == Operand::List) {
      D.InList = O.K != Operand::Pair;
      for (unsigned K = 0; K < O.Elems.size(); ++K)
        if (O.Elems[K].Name == RName)
          D.Part = K;
    }
  }
  return D;
}

ExprId ThreadValues::opaqueResult(const Def &D, const std::string &What) {
  return opaque(D.Item, D.Part, What, D.Bool);
}

ExprId ThreadValues::source(const Def &D, unsigned K) {
  return K < D.I.Ops.size() ? value(D.Item, D.I.Ops[K])
                            : opaque(D.Item, 94, "operand");
}

ExprId ThreadValues::pureResult(const Def &D, const std::string &What) {
  // A pure operation the analysis does not model (bfi, popc, a float add):
  // the same for every thread, and in every iteration, when its operands
  // are (parameters, launch sizes, %envreg; CUDA's grid handle is a bfi of
  // two %envreg).
  static const std::set<std::string> Alu = {
      "add",  "sub",  "mul",  "mad",  "mul24", "mad24", "sad",  "div",
      "rem",  "abs",  "neg",  "min",  "max",   "popc",  "clz",  "bfind",
      "fns",  "brev", "bfe",  "bfi",  "bmsk",  "szext", "prmt", "lop3",
      "shf",  "shl",  "shr",  "selp", "slct",  "set",   "cnot", "copysign",
      "testp", "dp4a", "dp2a", "fma", "rcp",   "sqrt",  "rsqrt", "sin",
      "cos",  "lg2",  "ex2",  "tanh", "and",   "or",    "xor",  "not",
      "cvt",  "setp"};
  const Instruction &I = D.I;
  bool Uniform =
      I.Ops.size() >= 2 && (I.Op != Opcode::Other || Alu.count(I.Name));
  for (unsigned K = 1; K < I.Ops.size() && Uniform; ++K) {
    const Operand &O = I.Ops[K];
    if (O.K != Operand::Imm && O.K != Operand::Reg && O.K != Operand::Symbol) {
      Uniform = false;
      break;
    }
    for (unsigned Y : P->symbolsOf(source(D, K)))
      Uniform = Uniform && P->symbol(Y).isGridUniform();
  }
  return opaque(D.Item, D.Part, What, D.Bool, Uniform);
}

ExprId ThreadValues::arithmeticValue(const Def &D) {
  const Instruction &I = D.I;
  if (!allInt(I) || I.hasMod(".hi") || I.hasMod(".cc") || I.hasMod(".sat") ||
      I.Ops.size() < 3)
    return pureResult(D, I.Name);
  ExprId A = source(D, 1), B = source(D, 2);
  return I.Op == Opcode::Add   ? P->add(A, B)
         : I.Op == Opcode::Sub ? P->sub(A, B)
                               : P->mul(A, B);
}

ExprId ThreadValues::logicValue(const Def &D) {
  const Instruction &I = D.I;
  if (I.Op == Opcode::Not) {
    if (I.Ops.size() < 2)
      return pureResult(D, "not");
    if (isPred(I))
      return P->lnot(source(D, 1));
    return allInt(I) ? P->bitNot(source(D, 1)) : pureResult(D, "not");
  }
  if (I.Ops.size() < 3 || (!isPred(I) && !allInt(I)))
    return pureResult(D, I.Name);
  ExprId A = source(D, 1), B = source(D, 2);
  if (isPred(I))
    return I.Op == Opcode::And  ? P->land(A, B)
           : I.Op == Opcode::Or ? P->lor(A, B)
                                : P->lxor(A, B);
  return I.Op == Opcode::And  ? P->bitAnd(A, B)
         : I.Op == Opcode::Or ? P->bitOr(A, B)
                              : P->bitXor(A, B);
}

ExprId ThreadValues::compareValue(const Def &D) {
  const Instruction &I = D.I;
  bool Signed = !I.Types.empty() && I.Types[0].isSigned();
  ptx::CmpOp C = I.Cmp;
  if (!allInt(I) || C == ptx::CmpOp::None || I.Ops.size() < 3)
    return pureResult(D, "setp");
  CmpKind K = CmpKind::Eq;
  switch (C) {
  case ptx::CmpOp::Eq: K = CmpKind::Eq; break;
  case ptx::CmpOp::Ne: K = CmpKind::Ne; break;
  case ptx::CmpOp::Lt: K = CmpKind::Lt; break;
  case ptx::CmpOp::Le: K = CmpKind::Le; break;
  case ptx::CmpOp::Gt: K = CmpKind::Gt; break;
  case ptx::CmpOp::Ge: K = CmpKind::Ge; break;
  case ptx::CmpOp::Lo: K = CmpKind::Lt; Signed = false; break;
  case ptx::CmpOp::Ls: K = CmpKind::Le; Signed = false; break;
  case ptx::CmpOp::Hi: K = CmpKind::Gt; Signed = false; break;
  case ptx::CmpOp::Hs: K = CmpKind::Ge; Signed = false; break;
  default: break;
  }
  // An unsigned comparison compares the registers' bits.
  unsigned Width = Signed || I.Types.empty() ? 0 : I.Types[0].Bits;
  ExprId Cmp = P->cmp(K, source(D, 1), source(D, 2), Signed, Width);
  ExprId Res = D.Part == 1 ? P->lnot(Cmp) : Cmp;
  // setp.lt.and.s32 p|q, a, b, c: combined with a fourth predicate.
  for (const char *Comb : {".and", ".or", ".xor"})
    if (I.hasMod(Comb) && I.Ops.size() >= 4) {
      ExprId C2 = source(D, 3);
      Res = Comb[1] == 'a'   ? P->land(Res, C2)
            : Comb[1] == 'o' ? P->lor(Res, C2)
                             : P->lxor(Res, C2);
    }
  return Res;
}

ExprId ThreadValues::loadValue(const Def &D) {
  const Instruction &I = D.I;
  if (I.ASpace != ptx::AddrSpace::Param || I.Ops.size() < 2 ||
      I.Ops[1].K != Operand::Address || D.InList)
    return opaqueResult(D, "ld." + spaceText(I.ASpace));
  const Operand &A = I.Ops[1];
  Symbol S;
  S.K = SymKind::Param;
  if (isParam(A.Name)) {
    S.Name = A.Name;
    S.Offset = A.Value;
    return P->sym(S);
  }
  // A call's argument or result: what was stored into the variable.
  if (!A.Name.empty() && A.Name[0] != '%')
    if (ExprId V = paramStore(D.Item, A.Name, A.Value); V != NoExpr)
      return V;
  // ld.param through a register holding a parameter's address.
  AffineForm Addr = P->affine(value(D.Item, A));
  if (Addr.Terms.size() == 1 && Addr.Terms.begin()->second == 1 &&
      Addr.Terms.begin()->first.size() == 1)
    if (const Symbol *B = P->asSymbol(Addr.Terms.begin()->first[0]);
        B && B->K == SymKind::VarAddr && isParam(B->Name)) {
      S.Name = B->Name;
      S.Offset = Addr.Const;
      return P->sym(S);
    }
  return opaque(D.Item, D.Part, "ld.param", D.Bool);
}

ExprId ThreadValues::bitFieldInsertValue(const Def &D) {
  // bfi d, a, b, pos, len: b with bits [pos, pos+len) from a's low bits; a
  // 32-bit result read as unsigned (nvcc's tile indices).
  const Instruction &I = D.I;
  int64_t Pos = I.Ops[3].Value, Len = I.Ops[4].Value;
  if (Len == 0)
    return source(D, 2);
  int64_t Mask = (int64_t(1) << Len) - 1;
  int64_t Keep = ~(Mask << Pos);
  if (I.Types[0].Bits == 32)
    Keep &= 0xFFFFFFFFll;
  ExprId Field =
      P->shl(P->bitAnd(source(D, 1), P->constant(Mask)), P->constant(Pos));
  return P->bitOr(P->bitAnd(source(D, 2), P->constant(Keep)), Field);
}

ExprId ThreadValues::otherValue(const Def &D) {
  const Instruction &I = D.I;
  const std::string &N = I.Name;
  auto Src = [&](unsigned K) { return source(D, K); };
  if (N == "selp" && I.Ops.size() >= 4)
    return P->select(Src(3), Src(1), Src(2));
  if (N == "elect" && I.Ops.size() >= 2 && I.Ops[0].K == Operand::Pair &&
      I.Ops[1].K == Operand::Imm) {
    // elect.sync d|p, mask: "the same leader thread is elected for the same
    // membermask every time" (PTX ISA), so the leader's lane is one value
    // for every thread and every execution; p holds in the thread of that
    // lane: one thread of a warp, never two.
    ExprId Leader = opaque(D.Item, 0, "elect", false, /*Uniform=*/true);
    return D.Part == 0 ? Leader
                       : P->cmp(CmpKind::Eq, special("%laneid", D.Item), Leader,
                                false);
  }
  if (!allInt(I) || I.Ops.size() < 2)
    return pureResult(D, N);
  if ((N == "mad" || N == "mad24") && (I.hasMod(".lo") || I.hasMod(".wide")) &&
      !I.hasMod(".cc") && !I.hasMod(".sat") && I.Ops.size() >= 4)
    return P->add(P->mul(Src(1), Src(2)), Src(3));
  if (N == "mul24" && I.hasMod(".lo") && I.Ops.size() >= 3)
    return P->mul(Src(1), Src(2));
  if ((N == "div" || N == "rem") && I.Ops.size() >= 3)
    return N == "div" ? P->div(Src(1), Src(2), isSignedType(I))
                      : P->rem(Src(1), Src(2), isSignedType(I));
  if ((N == "min" || N == "max") && I.Ops.size() >= 3 && !I.hasMod(".relu"))
    return N == "min" ? P->min(Src(1), Src(2), isSignedType(I))
                      : P->max(Src(1), Src(2), isSignedType(I));
  if (N == "neg")
    return P->neg(Src(1));
  if (N == "abs") {
    ExprId A = Src(1);
    return P->max(A, P->neg(A), true);
  }
  if ((N == "shl" || N == "shr") && I.Ops.size() >= 3)
    return N == "shl" ? P->shl(Src(1), Src(2))
                      : P->shr(Src(1), Src(2), isSignedType(I));
  if (N == "bfi" && I.Ops.size() >= 5 && I.Ops[3].K == Operand::Imm &&
      I.Ops[4].K == Operand::Imm && !I.Types.empty() && I.Ops[3].Value >= 0 &&
      I.Ops[4].Value >= 0 &&
      I.Ops[3].Value + I.Ops[4].Value <= I.Types[0].Bits &&
      I.Ops[3].Value + I.Ops[4].Value < 63)
    return bitFieldInsertValue(D);
  return pureResult(D, N);
}

ExprId ThreadValues::compute(unsigned Item, unsigned Reg) {
  const Def D = defOf(Item, Reg);
  const Instruction &I = D.I;
  ExprId V = NoExpr;
  switch (I.Op) {
  case Opcode::Mov:
    if (D.InList || I.Ops.size() < 2 || I.Ops[1].K == Operand::Vector ||
        (!isPred(I) && !allInt(I) && !I.Types.empty()))
      V = opaqueResult(D, "mov");
    else
      V = source(D, 1);
    break;
  case Opcode::Add:
  case Opcode::Sub:
  case Opcode::Mul:
    V = arithmeticValue(D);
    break;
  case Opcode::And:
  case Opcode::Or:
  case Opcode::Xor:
  case Opcode::Not:
    V = logicValue(D);
    break;
  case Opcode::Cvt:
    // Between integer types: the value (no wrap-around assumed).
    V = allInt(I) && I.Ops.size() >= 2 && !I.hasMod(".sat")
            ? source(D, 1)
            : pureResult(D, "cvt");
    break;
  case Opcode::Cvta:
    V = I.Ops.size() >= 2 ? source(D, 1) : opaqueResult(D, "cvta");
    break;
  case Opcode::Setp:
    V = compareValue(D);
    break;
  case Opcode::Ld:
  case Opcode::Ldu:
    V = loadValue(D);
    break;
  case Opcode::Other:
    V = otherValue(D);
    break;
  default:
    V = opaqueResult(D, I.Name.empty() ? "value" : I.Name);
    break;
  }
  // A predicate set from an integer (mov.pred %p, 0) is that integer's
  // truth; the formulas keep the two sorts apart.
  if (D.Bool && !P->isBool(V))
    V = P->cmp(CmpKind::Ne, V, P->constant(0), false);
  else if (!D.Bool && P->isBool(V))
    V = P->select(V, P->constant(1), P->constant(0));
  if (I.G && I.Op != Opcode::Bra)
    V = P->select(guard(Item), V, regBefore(Reg, Item));
  return V;
}

ExprId ThreadValues::paramStore(unsigned Item, const std::string &Var,
                                int64_t Offset) {
  unsigned St = F->paramStoreBefore(Item, Var, Offset);
  if (St == NoNode || F->inst(St).G)
    return NoExpr;
  return value(St, F->inst(St).Ops[1]);
}

/// The returns and arguments lists of a call: `call (r), f, (a, b)`.
static std::pair<const Operand *, const Operand *>
callLists(const Instruction &I) {
  const Operand *Ret = nullptr, *Args = nullptr;
  bool SeenCallee = false;
  for (const Operand &O : I.Ops) {
    if (O.K != Operand::List) {
      SeenCallee = true;
      continue;
    }
    (SeenCallee ? Args : Ret) = &O;
    if (SeenCallee)
      break;
  }
  return {Ret, Args};
}

ExprId ThreadValues::callArgument(unsigned Item, unsigned K) {
  const Instruction &I = F->inst(Item);
  const Operand *Args = callLists(I).second;
  if (I.Op != Opcode::Call || !Args || K >= Args->Elems.size())
    return NoExpr;
  const Operand &A = Args->Elems[K];
  if (A.K != Operand::Reg && A.K != Operand::Symbol)
    return A.K == Operand::Imm ? P->constant(A.Value) : NoExpr;
  if (!A.Name.empty() && A.Name[0] == '%')
    return value(Item, A);
  return paramStore(Item, A.Name, 0);
}

ExprId ThreadValues::callArgumentLane(unsigned Item, unsigned K,
                                      unsigned Lane) {
  const Instruction &I = F->inst(Item);
  const Operand *Args = callLists(I).second;
  if (I.Op != Opcode::Call || !Args || K >= Args->Elems.size())
    return NoExpr;
  const Operand &A = Args->Elems[K];
  if (A.K != Operand::Reg || A.Name.empty() || A.Name[0] == '%')
    return Lane == 0 ? callArgument(Item, K) : NoExpr;
  unsigned St = F->paramStoreBefore(Item, A.Name, 0);
  if (St == NoNode || F->inst(St).G || F->inst(St).Ops.size() != 2)
    return NoExpr;
  const Operand &V = F->inst(St).Ops[1];
  if (V.K != Operand::Vector)
    return Lane == 0 ? value(St, V) : NoExpr;
  if (Lane >= V.Elems.size() || V.Elems[Lane].K == Operand::Symbol)
    return NoExpr;
  return value(St, V.Elems[Lane]);
}

ExprId ThreadValues::callResult(unsigned Item) {
  const Instruction &I = F->inst(Item);
  const Operand *Ret = callLists(I).first;
  if (I.Op != Opcode::Call || !Ret || Ret->Elems.size() != 1)
    return NoExpr;
  const std::string &Name = Ret->Elems[0].Name;
  const std::vector<unsigned> &Insts = F->blocks()[F->blockOf(Item)].Insts;
  auto At = std::find(Insts.begin(), Insts.end(), Item);
  for (++At; At != Insts.end(); ++At) {
    const Instruction &L = F->inst(*At);
    if (L.Op == Opcode::Call)
      break;
    if (L.Op == Opcode::Ld && L.ASpace == ptx::AddrSpace::Param &&
        L.Ops.size() >= 2 && L.Ops[1].K == Operand::Address &&
        L.Ops[1].Name == Name && L.Ops[1].Value == 0 &&
        L.Ops[0].K == Operand::Reg) {
      unsigned R = regOf(*At, L.Ops[0].Name);
      return R == NoNode ? NoExpr : defined(*At, R);
    }
  }
  return NoExpr;
}

//===-- Control -----------------------------------------------------------===//

ExprId ThreadValues::guard(unsigned Item) {
  const Instruction &I = F->inst(Item);
  if (!I.G)
    return P->boolConst(true);
  unsigned R = regOf(Item, I.G->Reg);
  ExprId V = R == NoNode ? opaque(Item, 95, "guard", true) : regBefore(R, Item);
  return I.G->Negated ? P->lnot(V) : V;
}

ExprId ThreadValues::edgeCond(unsigned From, unsigned To) {
  const BasicBlock &B = F->blocks()[From];
  if (B.Insts.empty())
    return P->boolConst(true);
  unsigned Last = B.Insts.back();
  const Instruction &I = F->inst(Last);
  if (!endsBlock(I) || !fallsThrough(I))
    return P->boolConst(true); // one way out, or a jump table
  unsigned Next = From + 1 < F->blocks().size() ? From + 1 : NoNode;
  unsigned Target = NoNode;
  if (I.Op == Opcode::Bra)
    for (const Operand &O : I.Ops)
      if (O.K == Operand::Label)
        Target = F->blockOfLabel(O.Name);
  if (I.Op == Opcode::Bra && Target == Next)
    return P->boolConst(true);
  if (I.Op == Opcode::CmpBra) {
    if (I.Ops.size() < 3)
      return P->boolConst(true);
    CmpKind K = I.Cmp == ptx::CmpOp::Eq   ? CmpKind::Eq
                : I.Cmp == ptx::CmpOp::Ne ? CmpKind::Ne
                : I.Cmp == ptx::CmpOp::Lt ? CmpKind::Lt
                : I.Cmp == ptx::CmpOp::Le ? CmpKind::Le
                : I.Cmp == ptx::CmpOp::Gt ? CmpKind::Gt
                                          : CmpKind::Ge;
    ExprId C = P->cmp(K, operand(Last, 0), operand(Last, 1), true);
    unsigned T = F->blockOfLabel(I.Ops[2].Name);
    return To == T ? C : P->lnot(C);
  }
  ExprId Taken = guard(Last); // guarded bra, ret, exit
  if (I.Op == Opcode::Bra && To == Target)
    return Taken;
  return P->lnot(Taken);
}

ExprId ThreadValues::pathCond(unsigned Block) {
  if (PathMemo[Block] != NoExpr)
    return PathMemo[Block];
  const DominatorTree &DT = F->dominators();
  if (!DT.reachable(Block))
    return P->boolConst(false);
  if (Block == F->entry())
    return PathMemo[Block] = P->boolConst(true);
  if (PathBusy[Block]) // a cycle that is not a natural loop
    return P->boolConst(true);
  PathBusy[Block] = 1;
  ExprId C;
  unsigned Loop = F->loops().loopWithHeader(Block);
  unsigned D = DT.idom(Block);
  if (Loop != NoNode) {
    C = loopEntryCond(Loop);
  } else if (D != NoNode && joins(D, Block)) {
    C = pathCond(D); // every way on from D passes Block
  } else {
    C = P->boolConst(false);
    for (unsigned Pd : F->cfg().preds(Block))
      if (DT.reachable(Pd))
        C = P->lor(C, P->land(pathCond(Pd), edgeCond(Pd, Block)));
  }
  PathBusy[Block] = 0;
  return PathMemo[Block] = C;
}

bool ThreadValues::joins(unsigned From, unsigned Block) const {
  // Every path from From that stays in the current iteration of Block's
  // innermost loop reaches Block: none leaves the loop, takes its back
  // edge or ends the thread first.
  unsigned L = F->loops().loopFor(Block);
  const Loop *Lp = L == NoNode ? nullptr : &F->loops().loops()[L];
  std::vector<char> Seen(F->blocks().size(), 0);
  std::vector<unsigned> Work = {From};
  Seen[From] = 1;
  while (!Work.empty()) {
    unsigned B = Work.back();
    Work.pop_back();
    const auto &Succs = F->cfg().succs(B);
    if (Succs.empty())
      return false;
    for (unsigned S : Succs) {
      if (S == Block)
        continue;
      if (Lp && (!Lp->contains(S) || S == Lp->Header))
        return false;
      if (!Seen[S]) {
        Seen[S] = 1;
        Work.push_back(S);
      }
    }
  }
  return true;
}

ExprId ThreadValues::execCond(unsigned Item) {
  return P->land(pathCond(F->blockOf(Item)), guard(Item));
}

ExprId ThreadValues::loopEntryCond(unsigned LoopIdx) {
  const Loop &L = F->loops().loops()[LoopIdx];
  const DominatorTree &DT = F->dominators();
  ExprId C = P->boolConst(false);
  for (unsigned Pd : F->cfg().preds(L.Header))
    if (DT.reachable(Pd) && !(L.contains(Pd) && isBackEdge(Pd, L.Header)))
      C = P->lor(C, P->land(pathCond(Pd), edgeCond(Pd, L.Header)));
  if (L.Header == F->entry())
    C = P->boolConst(true);
  return C;
}

ExprId ThreadValues::backEdgeCond(unsigned LoopIdx) {
  const Loop &L = F->loops().loops()[LoopIdx];
  ExprId C = P->boolConst(false);
  for (unsigned Lt : L.Latches)
    if (F->dominators().reachable(Lt))
      C = P->lor(C, P->land(pathCond(Lt), edgeCond(Lt, L.Header)));
  return C;
}

} // namespace incant::ir

namespace incant::ir {

std::vector<ThreadValues::StopPoint> ThreadValues::stopPoints(unsigned Loop) {
  std::vector<StopPoint> Out;
  std::vector<ExprId> Work = {backEdgeCond(Loop)};
  ExprId K = iter(Loop);
  while (!Work.empty()) {
    ExprId C = Work.back();
    Work.pop_back();
    const ExprNode &N = P->node(C);
    if (N.O == Op::BoolAnd) {
      Work.insert(Work.end(), N.Ops.begin(), N.Ops.end());
      continue;
    }
    if (N.O != Op::Cmp || N.Cmp != CmpKind::Ne)
      continue;
    AffineForm D = P->affine(P->sub(N.Ops[0], N.Ops[1]));
    auto It = D.Terms.find({K});
    if (It == D.Terms.end())
      continue;
    StopPoint S;
    S.Coeff = It->second;
    D.Terms.erase(It);
    S.Rest = P->fromAffine(D);
    if (P->mentions(S.Rest, [&](const Symbol &Y) { return variesIn(Y, Loop); }))
      continue;
    Out.push_back(S);
  }
  return Out;
}

} // namespace incant::ir
