//===- Witness.cpp - Witnesses and their replay ---------------------------===//
#include "Checker.h"

#include <fmt/format.h>

#include <algorithm>

namespace incant::race {

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
  for (unsigned Y : Pool.symbolsOf(Es)) {
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
          Sym.IsBool ? int64_t(Mo.evalBool(V).value_or(false))
                     : Mo.evalInt(V).value_or(0));
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

//===-- Replay ------------------------------------------------------------===//

namespace {
/// The kernel's values for one thread of a witness, computed concretely
/// from the model's ids, geometry, parameters, loop counters and loaded
/// values, with exact two's-complement bitwise operations: what the
/// encoder only bounded (a shift by a variable amount, a bitwise operation
/// it could not spell) is recomputed here.
class Concrete {
public:
  Concrete(ir::ExprPool &P, const smt::Model &Mo, Encoder &Enc, Frame Fr)
      : P(P), Mo(Mo), Enc(Enc), Fr(Fr) {}

  std::optional<__int128> eval(ExprId E) {
    if (auto It = Memo.find(E); It != Memo.end())
      return It->second;
    std::optional<__int128> V = compute(E);
    if (V && (*V > Limit || *V < -Limit))
      V.reset();
    Memo.emplace(E, V);
    return V;
  }

private:
  static constexpr __int128 Limit = static_cast<__int128>(1) << 100;

  std::optional<__int128> compute(ExprId E) {
    const ir::ExprNode N = P.node(E);
    std::vector<__int128> A;
    if (N.O != ir::Op::Sym)
      for (ExprId X : N.Ops) {
        std::optional<__int128> V = eval(X);
        if (!V)
          return std::nullopt;
        A.push_back(*V);
      }
    switch (N.O) {
    case ir::Op::Const:
    case ir::Op::BoolConst:
      return N.Value;
    case ir::Op::Sym: {
      const ir::Symbol &S = P.symbol(N.Sym);
      Expr V = Enc.symbolVar(Fr, N.Sym);
      if (S.IsBool) {
        std::optional<bool> B = Mo.evalBool(V);
        return B ? std::optional<__int128>(*B) : std::nullopt;
      }
      std::optional<int64_t> I = Mo.evalInt(V);
      return I ? std::optional<__int128>(*I) : std::nullopt;
    }
    case ir::Op::Add: {
      __int128 Sum = 0;
      for (__int128 X : A)
        Sum += X;
      return Sum;
    }
    case ir::Op::Mul: {
      __int128 Prod = 1;
      for (__int128 X : A) {
        Prod *= X;
        if (Prod > Limit || Prod < -Limit)
          return std::nullopt;
      }
      return Prod;
    }
    case ir::Op::Div:
    case ir::Op::Rem:
      if (A[1] == 0)
        return std::nullopt;
      return N.O == ir::Op::Div ? A[0] / A[1] : A[0] % A[1];
    case ir::Op::Shl:
      if (A[1] < 0 || A[1] > 62)
        return std::nullopt;
      return A[0] * (static_cast<__int128>(1) << static_cast<int>(A[1]));
    case ir::Op::Shr:
      if (A[1] < 0 || A[1] > 62)
        return std::nullopt;
      return A[0] >> static_cast<int>(A[1]); // arithmetic: floor
    case ir::Op::And: return A[0] & A[1];
    case ir::Op::Or: return A[0] | A[1];
    case ir::Op::Xor: return A[0] ^ A[1];
    case ir::Op::Min: return std::min(A[0], A[1]);
    case ir::Op::Max: return std::max(A[0], A[1]);
    case ir::Op::Select: return A[0] ? A[1] : A[2];
    case ir::Op::Cmp:
      if (N.Width) // the registers' bits, as unsigned numbers
        for (__int128 &V : A)
          V &= (__int128(1) << N.Width) - 1;
      switch (N.Cmp) {
      case ir::CmpKind::Eq: return A[0] == A[1];
      case ir::CmpKind::Ne: return A[0] != A[1];
      case ir::CmpKind::Lt: return A[0] < A[1];
      case ir::CmpKind::Le: return A[0] <= A[1];
      case ir::CmpKind::Gt: return A[0] > A[1];
      case ir::CmpKind::Ge: return A[0] >= A[1];
      }
      return std::nullopt;
    case ir::Op::BoolAnd: return A[0] && A[1];
    case ir::Op::BoolOr: return A[0] || A[1];
    case ir::Op::BoolNot: return !A[0];
    case ir::Op::BoolXor: return (A[0] != 0) != (A[1] != 0);
    }
    return std::nullopt;
  }

  ir::ExprPool &P;
  const smt::Model &Mo;
  Encoder &Enc;
  Frame Fr;
  std::map<ExprId, std::optional<__int128>> Memo;
};
} // namespace

bool Checker::launchFits(Encoder &Enc, const smt::Model &Mo) {
  // The encoding bounds the block's size through a product it makes
  // linear: a model may give a block more threads than CUDA launches.
  int64_t Threads = 1;
  for (unsigned D = 0; D < 3; ++D) {
    std::optional<int64_t> N = Mo.evalInt(Enc.ntid(D));
    if (!N || *N < 1 || *N > O.Launch.MaxThreads)
      return false;
    Threads *= *N;
  }
  return Threads <= O.Launch.MaxThreads;
}

bool Checker::replays(Encoder &Enc, const smt::Model &Mo, unsigned I,
                      unsigned J, ExprId PcX, ExprId PcY, bool WithAddress) {
  const ir::MemoryAccess &X = Items[I].A, &Y = Items[J].A;
  if (!launchFits(Enc, Mo))
    return false;
  Concrete A(Pool, Mo, Enc, Frame{0, NoNode}), B(Pool, Mo, Enc, Frame{1, NoNode});
  std::optional<__int128> RA = A.eval(PcX), RB = B.eval(PcY);
  if (!RA || !RB || !*RA || !*RB)
    return false; // a thread would not make its access
  if (!WithAddress)
    return true;
  std::optional<__int128> OA = A.eval(X.Offset), OB = B.eval(Y.Offset);
  if (!OA || !OB || !(*OA < *OB + Y.Bytes && *OB < *OA + X.Bytes))
    return false;
  for (size_t K = 0; K < X.Coords.size() && K < Y.Coords.size(); ++K) {
    std::optional<__int128> CA = A.eval(X.Coords[K]), CB = B.eval(Y.Coords[K]);
    if (!CA || !CB || *CA != *CB)
      return false;
  }
  return true;
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

} // namespace incant::race
