//===- Encoder.cpp - IR expressions as SMT formulas for two threads -------===//
#include "Encoder.h"

#include <algorithm>
#include <cassert>

namespace incant::race {

using ir::ExprId;
using ir::ExprNode;
using ir::NoNode;
using ir::Op;
using ir::SymKind;
using ir::Symbol;
using smt::Expr;

static const char *Dims[] = {"x", "y", "z"};

Encoder::Encoder(ir::ThreadValues &Values, const LaunchConfig &L)
    : TV(&Values), Launch(L) {
  size_t NL = TV->function().loops().loops().size();
  for (std::vector<char> &U : UsedLoops)
    U.assign(NL, 0);
}

namespace {
std::string threadKey(unsigned T) {
  // Threads 3 and up are copies of thread A or B at another iteration (the
  // named-barrier facts).
  return T == 0 ? "A" : T == 1 ? "B" : T == 2 ? "C" : "T" + std::to_string(T);
}
} // namespace

Expr Encoder::fresh(const std::string &Name, bool Bool) {
  return Expr::mkFreshVar(Name, Bool ? smt::Sort::boolean() : smt::Sort::integer());
}

std::string Encoder::frameKey(Frame Fr) const {
  std::string K = threadKey(Fr.Thread);
  if (Fr.ShiftLoop != NoNode)
    K += "@L" + std::to_string(Fr.ShiftLoop);
  return K;
}

//===-- Geometry and ids --------------------------------------------------===//

Expr Encoder::ntid(unsigned D) {
  if (Launch.Block[D])
    return Expr::mkInt(*Launch.Block[D]);
  return Expr::mkVar(std::string("ntid.") + Dims[D], smt::Sort::integer());
}

Expr Encoder::nctaid(unsigned D) {
  if (Launch.Grid[D])
    return Expr::mkInt(*Launch.Grid[D]);
  return Expr::mkVar(std::string("nctaid.") + Dims[D], smt::Sort::integer());
}

Expr Encoder::tid(unsigned T, unsigned D) {
  if (Launch.Block[D] == std::optional<int64_t>(1))
    return Expr::mkInt(0);
  return Expr::mkVar(std::string("tid.") + Dims[D] + "!" + threadKey(T),
                     smt::Sort::integer());
}

Expr Encoder::ctaid(unsigned T, unsigned D) {
  if (Launch.Grid[D] == std::optional<int64_t>(1))
    return Expr::mkInt(0);
  return Expr::mkVar(std::string("ctaid.") + Dims[D] + "!" + threadKey(T),
                     smt::Sort::integer());
}

Expr Encoder::linearTid(unsigned T) {
  Expr Y = tid(T, 1), Z = tid(T, 2);
  Expr Inner = Y;
  if (!Z.asInt() || *Z.asInt() != 0) {
    Expr NY = ntid(1);
    Inner = Y + (NY.isConst() || Z.isConst() ? NY * Z : product({NY, Z}));
  }
  Expr NX = ntid(0);
  Expr Outer = NX.isConst() || Inner.isConst() ? NX * Inner : product({NX, Inner});
  return tid(T, 0) + Outer;
}

Expr Encoder::warp(unsigned T) {
  return divRem(linearTid(T), Expr::mkInt(32), false, false);
}

std::vector<Expr> Encoder::launchFacts() {
  std::vector<Expr> F;
  static const int64_t MaxBlock[] = {1024, 1024, 64};
  static const int64_t MaxGrid[] = {2147483647, 65535, 65535};
  std::vector<Expr> NonConst;
  for (unsigned D = 0; D < 3; ++D) {
    Expr N = ntid(D), G = nctaid(D);
    F.push_back(N.ge(Expr::mkInt(1)) &&
                N.le(Expr::mkInt(std::min(MaxBlock[D], Launch.MaxThreads))));
    F.push_back(G.ge(Expr::mkInt(1)) && G.le(Expr::mkInt(MaxGrid[D])));
    if (!N.isConst())
      NonConst.push_back(N);
    for (unsigned T = 0; T < 2; ++T)
      F.push_back(idFacts(T, D));
  }
  // At most 1024 threads per CTA.
  int64_t Known = 1;
  for (unsigned D = 0; D < 3; ++D)
    if (std::optional<int64_t> V = ntid(D).asInt())
      Known *= *V;
  Expr Max = Expr::mkInt(Launch.MaxThreads);
  if (NonConst.size() >= 2)
    F.push_back((product(NonConst) * Expr::mkInt(Known)).le(Max));
  else if (NonConst.size() == 1)
    F.push_back((NonConst[0] * Expr::mkInt(Known)).le(Max));
  return F;
}

Expr Encoder::idFacts(unsigned T, unsigned D) {
  Expr F = tid(T, D).ge(Expr::mkInt(0)) && tid(T, D).lt(ntid(D)) &&
           ctaid(T, D).ge(Expr::mkInt(0)) && ctaid(T, D).lt(nctaid(D));
  if (Launch.BlockIdx[D])
    F = F && ctaid(T, D).eq(Expr::mkInt(*Launch.BlockIdx[D]));
  return F;
}

//===-- Symbols -----------------------------------------------------------===//

Expr Encoder::iter(unsigned T, unsigned Loop) {
  if (T < 3)
    UsedLoops[T][Loop] = 1;
  std::string Name = "iter" + std::to_string(Loop) + "!" + threadKey(T);
  Expr K = Expr::mkVar(Name, smt::Sort::integer());
  if (IterMade.insert({T, Loop}).second)
    Side.push_back(K.ge(Expr::mkInt(0)));
  return K;
}

std::vector<unsigned> Encoder::loopsUsed(unsigned T) const {
  std::vector<unsigned> Out;
  for (unsigned L = 0; L < UsedLoops[T].size(); ++L)
    if (UsedLoops[T][L])
      Out.push_back(L);
  return Out;
}

Expr Encoder::symbolVar(Frame Fr, unsigned SymIdx) {
  // A copy: encoding the start value below may add symbols to the pool.
  const Symbol S = pool().symbol(SymIdx);
  // A symbol that does not change with the shifted loop's iterations is
  // that of the thread's own frame.
  if (Fr.ShiftLoop != NoNode && !TV->variesIn(S, Fr.ShiftLoop))
    Fr.ShiftLoop = NoNode;
  auto Key = std::make_pair(Fr, SymIdx);
  if (auto It = SymVars.find(Key); It != SymVars.end())
    return It->second;
  if (Fr.ShiftLoop == NoNode && Fr.Thread < 3)
    Used[Fr.Thread].push_back(SymIdx);
  Expr V;
  std::string Suffix = "!" + frameKey(Fr);
  switch (S.K) {
  case SymKind::Tid:
    V = tid(Fr.Thread, S.Dim);
    break;
  case SymKind::Ctaid:
    V = ctaid(Fr.Thread, S.Dim);
    break;
  case SymKind::Ntid:
    V = ntid(S.Dim);
    break;
  case SymKind::Nctaid:
    V = nctaid(S.Dim);
    break;
  case SymKind::Param: {
    std::string Key = S.Offset ? S.Name + "+" + std::to_string(S.Offset) : S.Name;
    auto Given = Launch.Params.find(Key);
    if (Given == Launch.Params.end() && !S.Offset) {
      const auto &Params = TV->function().function().Params;
      for (unsigned I = 0; I < Params.size(); ++I)
        if (Params[I].Name == S.Name)
          Given = Launch.Params.find(std::to_string(I));
    }
    V = Given != Launch.Params.end()
            ? Expr::mkInt(Given->second)
            : Expr::mkVar("param:" + Key, smt::Sort::integer());
    if (Given == Launch.Params.end() && !S.Offset)
      for (const ptx::Variable &P : TV->function().function().Params)
        if (P.Name == S.Name)
          boundToType(V, P.Type);
    break;
  }
  case SymKind::VarAddr:
    V = Expr::mkVar("&" + S.Name, smt::Sort::integer());
    break;
  case SymKind::Iter:
    if (Fr.ShiftLoop == S.Loop)
      V = iter(Fr.Thread, S.Loop) - Expr::mkInt(1);
    else if (Fr.ShiftLoop != NoNode) {
      V = fresh("iter" + std::to_string(S.Loop) + Suffix);
      Side.push_back(V.ge(Expr::mkInt(0)));
    } else
      V = iter(Fr.Thread, S.Loop);
    break;
  case SymKind::LoopVar: {
    V = Expr::mkVar(pool().symbolName(SymIdx) + Suffix,
                    S.IsBool ? smt::Sort::boolean() : smt::Sort::integer());
    SymVars.emplace(Key, V); // before encoding the start value
    Approx = true;
    // In iteration 0 it holds its start value.
    Symbol IterSym;
    IterSym.K = SymKind::Iter;
    IterSym.Loop = S.Loop;
    Expr K = encode(Fr, pool().sym(IterSym));
    Instances.push_back({SymIdx, Fr, V, K});
    if (const ir::LoopVarInfo *LV = TV->loopVarOf(SymIdx))
      Side.push_back(K.eq(Expr::mkInt(0)).implies(V.eq(encode(Fr, LV->Init))));
    return V;
  }
  case SymKind::Opaque:
    if (S.Uniform)
      V = Expr::mkVar("opaque:" + pool().symbolName(SymIdx), S.IsBool ? smt::Sort::boolean()
                                                   : smt::Sort::integer());
    else
      V = Expr::mkVar(pool().symbolName(SymIdx) + Suffix,
                      S.IsBool ? smt::Sort::boolean() : smt::Sort::integer());
    break;
  }
  SymVars.emplace(Key, V);
  return V;
}

Expr Encoder::asUnsigned(ExprId E, const Expr &V, unsigned Width) {
  int64_t Range = int64_t(1) << Width;
  std::optional<int64_t> C = pool().asConst(E);
  std::optional<uint64_t> B = bitsOf(E);
  if (C ? (*C >= 0 && *C < Range) : (B && *B < uint64_t(Range)))
    return V;
  // Compared as integers (as if nothing wrapped around, the encoding's
  // limit) unless it is a linear expression of the thread's and block's
  // ids, the launch's sizes and the parameters, each of which has its
  // register's bits: a product of unknowns (blockIdx.x * blockDim.x) would
  // leave the solver a nonlinear remainder it does not decide, and a
  // loop-carried value or a loaded one, known only as a number, would take
  // any bits (k = 2^32 - 1 in `for (k = n; k > 0; k >>= 1) if (t < k)`).
  for (const auto &[Mono, Coeff] : pool().affine(E).Terms)
    if (Mono.size() > 1)
      return V;
  for (unsigned Y : pool().symbolsOf(E)) {
    ir::SymKind K = pool().symbol(Y).K;
    if (K != ir::SymKind::Tid && K != ir::SymKind::Ctaid &&
        K != ir::SymKind::Ntid && K != ir::SymKind::Nctaid &&
        K != ir::SymKind::Param)
      return V;
  }
  return V.mod(Expr::mkInt(Range));
}

void Encoder::boundToType(const Expr &V, const std::string &Type) {
  // A parameter of 8, 16 or 32 bits is its bits read as a two's
  // complement number (a comparison as unsigned reads them modulo 2^n).
  std::optional<ptx::Type> T = ptx::parseType(Type);
  if (!T || T->K == ptx::Type::Pred || T->Bits > 32)
    return;
  unsigned Bits = T->Bits;
  Side.push_back(V.ge(Expr::mkInt(-(int64_t(1) << (Bits - 1)))) &&
                 V.lt(Expr::mkInt(int64_t(1) << (Bits - 1))));
}

//===-- Expressions -------------------------------------------------------===//

Expr Encoder::encode(Frame Fr, ExprId E) {
  auto Key = std::make_pair(Fr, E);
  if (auto It = Memo.find(Key); It != Memo.end())
    return It->second;
  Expr V = encodeNode(Fr, E);
  Memo.emplace(Key, V);
  return V;
}

Expr Encoder::variableShift(Frame Fr, ExprId E, const Expr &X, const Expr &K,
                            bool Left) {
  // As the rest of the encoding, on unbounded integers: X * 2^K, or
  // floor(X / 2^K); from 62 on, as for values below 2^62 in magnitude.
  Expr Zero = Expr::mkInt(0), Big = Expr::mkInt(int64_t(1) << 62);
  auto Fixed = FixedShifts.find({Fr, E});
  if (Fixed != FixedShifts.end() && Fixed->second >= 0 &&
      (Fixed->second < 62 || !Left)) {
    Side.push_back(K.eq(Expr::mkInt(Fixed->second)));
    if (Fixed->second >= 62)
      return Expr::ite(X.ge(Zero), Zero, Expr::mkInt(-1));
    Expr Pow = Expr::mkInt(int64_t(1) << Fixed->second);
    return Left ? X * Pow : X.div(Pow);
  }
  ShiftAmounts.emplace(std::make_pair(Fr, E), K);
  Approx = true;
  Expr R = fresh(Left ? "shl" : "shr");
  for (int64_t J = 0; J < 62; ++J) {
    Expr Pow = Expr::mkInt(int64_t(1) << J);
    Side.push_back(K.eq(Expr::mkInt(J)).implies(R.eq(Left ? X * Pow : X.div(Pow))));
  }
  Expr Far = K.ge(Expr::mkInt(62));
  if (Left)
    Side.push_back(Far.implies(
        (X.gt(Zero).implies(R.ge(Big))) && (X.eq(Zero).implies(R.eq(Zero))) &&
        (X.lt(Zero).implies(R.le(-Big)))));
  else
    Side.push_back(Far.implies(R.eq(Expr::ite(X.ge(Zero), Zero, Expr::mkInt(-1)))));
  // A negative amount (no geometric variable has one): what was known.
  Side.push_back(X.ge(Zero).implies(R.ge(Zero)));
  if (!Left)
    Side.push_back(X.ge(Zero).implies(R.le(X)));
  return R;
}

Expr Encoder::encodeNode(Frame Fr, ExprId E) {
  // A copy, not a reference: encoding an operand may add nodes to the pool
  // (a loop-carried symbol's iteration counter), which moves its storage.
  const ExprNode N = pool().node(E);
  auto Sub = [&](unsigned I) { return encode(Fr, N.Ops[I]); };
  switch (N.O) {
  case Op::Const:
    return Expr::mkInt(N.Value);
  case Op::BoolConst:
    return Expr::mkBool(N.Value != 0);
  case Op::Sym:
    return symbolVar(Fr, N.Sym);
  case Op::Add: {
    std::vector<Expr> Terms;
    for (unsigned I = 0; I < N.Ops.size(); ++I)
      Terms.push_back(Sub(I));
    return Expr::mkAdd(Terms);
  }
  case Op::Mul: {
    Expr Coeff = Expr::mkInt(1);
    std::vector<Expr> Factors;
    for (unsigned I = 0; I < N.Ops.size(); ++I) {
      Expr F = Sub(I);
      if (F.isConst())
        Coeff = Coeff * F;
      else
        Factors.push_back(F);
    }
    if (Factors.empty())
      return Coeff;
    if (Factors.size() == 1)
      return Coeff * Factors[0];
    return Coeff * product(Factors);
  }
  case Op::Div:
  case Op::Rem:
    return divRem(Sub(0), Sub(1), N.Signed, N.O == Op::Rem);
  case Op::Shl: {
    Expr X = Sub(0), K = Sub(1);
    if (std::optional<int64_t> C = K.asInt(); C && *C >= 0 && *C < 62)
      return X * Expr::mkInt(int64_t(1) << *C);
    return variableShift(Fr, E, X, K, true);
  }
  case Op::Shr: {
    Expr X = Sub(0), K = Sub(1);
    if (std::optional<int64_t> C = K.asInt(); C && *C >= 0 && *C < 62)
      return X.div(Expr::mkInt(int64_t(1) << *C)); // floor: arithmetic shift
    return variableShift(Fr, E, X, K, false);
  }
  case Op::And:
  case Op::Or:
  case Op::Xor: {
    Expr X = Sub(0), Y = Sub(1);
    if (std::optional<int64_t> C = Y.asInt())
      return bitOp(N.O, X, *C, bitsOf(N.Ops[0]));
    if (std::optional<int64_t> C = X.asInt())
      return bitOp(N.O, Y, *C, bitsOf(N.Ops[1]));
    if (Expr B = bitwise(N.O, N.Ops[0], N.Ops[1], X, Y); B.isValid())
      return B;
    Approx = true;
    // Bounds that hold for non-negative operands: a & b is at most either,
    // a | b at least either; both | and ^ at most their sum.
    Expr R = fresh("bits");
    Expr Zero = Expr::mkInt(0);
    Expr NonNeg = X.ge(Zero) && Y.ge(Zero);
    if (N.O == Op::And)
      Side.push_back(NonNeg.implies(R.ge(Zero) && R.le(X) && R.le(Y)));
    else if (N.O == Op::Or)
      Side.push_back(NonNeg.implies(R.ge(X) && R.ge(Y) && R.le(X + Y)));
    else
      Side.push_back(NonNeg.implies(R.ge(Zero) && R.le(X + Y)));
    return R;
  }
  case Op::Min:
  case Op::Max: {
    Expr X = Sub(0), Y = Sub(1);
    Expr XLess = X.le(Y);
    return N.O == Op::Min ? Expr::ite(XLess, X, Y) : Expr::ite(XLess, Y, X);
  }
  case Op::Select:
    return Expr::ite(Sub(0), Sub(1), Sub(2));
  case Op::Cmp: {
    Expr X = Sub(0), Y = Sub(1);
    if (N.Width && !N.Signed) {
      // An unsigned comparison of Width-bit registers: each operand's low
      // Width bits (modulo 2^Width), left as it is where it is known to
      // fit. A signed one compares the integers (nothing wraps around).
      X = asUnsigned(N.Ops[0], X, N.Width);
      Y = asUnsigned(N.Ops[1], Y, N.Width);
    }
    switch (N.Cmp) {
    case ir::CmpKind::Eq: return X.eq(Y);
    case ir::CmpKind::Ne: return X.ne(Y);
    case ir::CmpKind::Lt: return X.lt(Y);
    case ir::CmpKind::Le: return X.le(Y);
    case ir::CmpKind::Gt: return X.gt(Y);
    case ir::CmpKind::Ge: return X.ge(Y);
    }
    return Expr();
  }
  case Op::BoolAnd:
    return Sub(0) && Sub(1);
  case Op::BoolOr:
    return Sub(0) || Sub(1);
  case Op::BoolNot:
    return !Sub(0);
  case Op::BoolXor:
    return Sub(0).ne(Sub(1));
  }
  return Expr();
}

Expr Encoder::divRem(const Expr &X, const Expr &D, bool Signed, bool WantRem) {
  (void)Signed; // C's truncating division; equal to floor for x >= 0
  std::optional<int64_t> C = D.asInt();
  if (C && *C == 0) {
    Approx = true;
    return fresh(WantRem ? "rem0" : "div0");
  }
  if (std::optional<int64_t> XV = X.asInt(); XV && C && *C != 0) {
    int64_t Q = *XV / *C, R = *XV % *C;
    return Expr::mkInt(WantRem ? R : Q);
  }
  Expr Q = fresh("q"), R = fresh("r");
  Expr QD = C ? Q * D : product({Q, D});
  Expr Zero = Expr::mkInt(0);
  Side.push_back(X.eq(QD + R));
  if (C) {
    Expr Abs = Expr::mkInt(*C < 0 ? -*C : *C);
    Side.push_back(X.ge(Zero).implies(R.ge(Zero) && R.lt(Abs)));
    Side.push_back(X.lt(Zero).implies(R.le(Zero) && R.gt(-Abs)));
  } else {
    Expr One = Expr::mkInt(1);
    Side.push_back((D.ge(One) && X.ge(Zero)).implies(R.ge(Zero) && R.lt(D)));
    Side.push_back((D.ge(One) && X.lt(Zero)).implies(R.le(Zero) && R.gt(-D)));
    Side.push_back((D.le(-One) && X.ge(Zero)).implies(R.ge(Zero) && R.lt(-D)));
    Side.push_back((D.le(-One) && X.lt(Zero)).implies(R.le(Zero) && R.gt(D)));
  }
  return WantRem ? R : Q;
}

/// X & C for C >= 0, exactly: a run of ones from bit b up to bit a-1 keeps
/// (X mod 2^a) - (X mod 2^b). Null when C has too many runs or reaches
/// bit 62.
static Expr andConstant(const Expr &X, uint64_t C) {
  std::vector<Expr> Terms = {Expr::mkInt(0)};
  unsigned Runs = 0;
  for (unsigned J = 0; J < 63;) {
    if (!(C >> J & 1)) {
      ++J;
      continue;
    }
    unsigned B = J;
    while (J < 63 && (C >> J & 1))
      ++J;
    if (J > 62 || ++Runs > 16)
      return Expr();
    Expr Hi = X.mod(Expr::mkInt(int64_t(1) << J));
    Terms.push_back(B == 0 ? Hi : Hi - X.mod(Expr::mkInt(int64_t(1) << B)));
  }
  return Expr::mkAdd(Terms);
}

Expr Encoder::bitOp(Op O, const Expr &X, int64_t C,
                    std::optional<uint64_t> Known) {
  Expr CE = Expr::mkInt(C);
  uint64_t U = static_cast<uint64_t>(C);
  if (Known) {
    // X has no bits outside Known (and is not negative): only C's bits
    // inside Known can meet X's. x & c is x when they are all of Known, 0
    // when none; x | c and x ^ c are x + c when none.
    uint64_t In = U & *Known;
    if (O == Op::And && In == *Known)
      return X;
    if (In == 0)
      return O == Op::And ? Expr::mkInt(0) : X + CE;
    U = In;
  }
  // Exact in two's complement for any X: x & c from runs of ones (x & c =
  // x - (x & ~c) for c < 0), x | c = x + c - (x & c), x ^ c = x + c -
  // 2 (x & c).
  bool Neg = static_cast<int64_t>(U) < 0;
  Expr And = Neg ? andConstant(X, ~U) : andConstant(X, U);
  if (And.isValid()) {
    if (Neg)
      And = X - And;
    if (O == Op::And)
      return And;
    if (O == Op::Or)
      return X + CE - And;
    return X + CE - And * Expr::mkInt(2);
  }
  Approx = true;
  Expr R = fresh("bits");
  if (O == Op::And && C >= 0)
    Side.push_back(R.ge(Expr::mkInt(0)) && R.le(Expr::mkInt(C)));
  return R;
}

std::optional<uint64_t> Encoder::bitsOf(ExprId E) {
  if (auto It = Bits.find(E); It != Bits.end())
    return It->second;
  // All ones up to the highest bit of V.
  auto Fill = [](uint64_t V) -> uint64_t {
    uint64_t M = 0;
    while (M < V)
      M = M << 1 | 1;
    return M;
  };
  const ExprNode N = pool().node(E);
  std::optional<uint64_t> Out;
  auto Sub = [&](unsigned I) { return bitsOf(N.Ops[I]); };
  switch (N.O) {
  case Op::Const:
    if (N.Value >= 0)
      Out = static_cast<uint64_t>(N.Value);
    break;
  case Op::Sym: {
    const Symbol &S = pool().symbol(N.Sym);
    static const int64_t MaxBlock[] = {1024, 1024, 64};
    static const int64_t MaxGrid[] = {2147483647, 65535, 65535};
    auto Given = [](const std::optional<int64_t> &V, int64_t Max) {
      return V ? *V : Max;
    };
    int64_t MaxB = std::min(MaxBlock[S.Dim], Launch.MaxThreads);
    if (S.K == SymKind::Tid)
      Out = Fill(Given(Launch.Block[S.Dim], MaxB) - 1);
    else if (S.K == SymKind::Ntid)
      Out = Fill(Given(Launch.Block[S.Dim], MaxB));
    else if (S.K == SymKind::Ctaid)
      Out = Fill(Given(Launch.Grid[S.Dim], MaxGrid[S.Dim]) - 1);
    else if (S.K == SymKind::Nctaid)
      Out = Fill(Given(Launch.Grid[S.Dim], MaxGrid[S.Dim]));
    break;
  }
  case Op::And: {
    std::optional<uint64_t> A = Sub(0), B = Sub(1);
    if (A && B)
      Out = *A & *B;
    else
      Out = A ? A : B;
    break;
  }
  case Op::Or:
  case Op::Xor:
  case Op::Select:
  case Op::Min:
  case Op::Max: {
    unsigned First = N.O == Op::Select ? 1 : 0;
    std::optional<uint64_t> A = Sub(First), B = Sub(First + 1);
    if (A && B)
      Out = *A | *B;
    break;
  }
  case Op::Add: {
    uint64_t Sum = 0;
    bool Ok = true;
    for (unsigned I = 0; I < N.Ops.size() && Ok; ++I) {
      std::optional<uint64_t> A = Sub(I);
      Ok = A && *A < (uint64_t(1) << 61) && Sum < (uint64_t(1) << 61);
      if (Ok)
        Sum += *A;
    }
    if (Ok)
      Out = Fill(Sum);
    break;
  }
  case Op::Mul: {
    // A product of known values: at most the product of their bounds; by
    // a constant power of two, a shift.
    uint64_t Bound = 1, Pow2 = 1;
    std::optional<uint64_t> One;
    unsigned Vars = 0;
    bool Ok = true;
    for (unsigned I = 0; I < N.Ops.size() && Ok; ++I) {
      std::optional<uint64_t> A = Sub(I);
      Ok = A && (*A == 0 || Bound <= (uint64_t(1) << 62) / *A);
      if (!Ok)
        break;
      Bound *= *A;
      if (pool().asConst(N.Ops[I]) && (*A & (*A - 1)) == 0)
        Pow2 *= *A;
      else
        One = A, ++Vars;
    }
    if (Ok)
      Out = Vars == 1 && Pow2 ? *One * Pow2 : Fill(Bound);
    break;
  }
  case Op::Shl:
  case Op::Shr: {
    std::optional<uint64_t> A = Sub(0);
    std::optional<int64_t> K = pool().asConst(N.Ops[1]);
    if (A && K && *K >= 0 && *K < 62) {
      if (N.O == Op::Shr)
        Out = *A >> *K;
      else if (*A < (uint64_t(1) << (62 - *K)))
        Out = *A << *K;
    }
    break;
  }
  case Op::Rem:
  case Op::Div: {
    std::optional<uint64_t> A = Sub(0);
    std::optional<int64_t> D = pool().asConst(N.Ops[1]);
    if (A && D && *D > 0)
      Out = N.O == Op::Div ? Fill(*A / static_cast<uint64_t>(*D))
                           : std::min(*A, Fill(static_cast<uint64_t>(*D) - 1));
    break;
  }
  default:
    break;
  }
  Bits.emplace(E, Out);
  return Out;
}

Expr Encoder::bitwise(Op O, ExprId EX, ExprId EY, const Expr &X,
                      const Expr &Y) {
  std::optional<uint64_t> MX = bitsOf(EX), MY = bitsOf(EY);
  if (MX && MY && (*MX & *MY) == 0) // no bit in common
    return O == Op::And ? Expr::mkInt(0) : X + Y;
  // Spell the operation over the bits of the operand with fewer possible
  // ones (at most 24 of them).
  const Expr *Few = nullptr, *Other = nullptr;
  uint64_t M = 0;
  auto Pop = [](uint64_t V) { return __builtin_popcountll(V); };
  if (MY && (!MX || Pop(*MY) <= Pop(*MX))) {
    Few = &Y, Other = &X, M = *MY;
  } else if (MX) {
    Few = &X, Other = &Y, M = *MX;
  }
  if (!Few || Pop(M) > 24)
    return Expr();
  // 0/1 variables for the bits (one set per value, shared by every
  // operation on it): Few is the sum of its bits in M, the low bits of
  // Other (up to M's highest) the sum of theirs, and so is the result's
  // low part, whose bits are the operation's on theirs.
  unsigned Top = 63 - static_cast<unsigned>(__builtin_clzll(M));
  Expr One = Expr::mkInt(1), Zero = Expr::mkInt(0);
  const std::vector<Expr> &FB = bitsOfValue(*Few, Top, M);
  const std::vector<Expr> &OB = bitsOfValue(*Other, Top, ~uint64_t(0));
  Expr Span = Expr::mkInt(int64_t(1) << (Top + 1));
  std::vector<Expr> RB, Sum = {O == Op::And ? Zero : *Other - Other->mod(Span)};
  for (unsigned J = 0; J <= Top; ++J) {
    Expr F1 = FB[J].eq(One), O1 = OB[J].eq(One);
    Expr Bit = O == Op::And ? Expr::ite(F1 && O1, One, Zero)
               : O == Op::Or ? Expr::ite(F1 || O1, One, Zero)
                             : Expr::ite(F1.ne(O1), One, Zero);
    Expr R = fresh("bit");
    Side.push_back(R.eq(Bit));
    RB.push_back(R);
    Sum.push_back(R * Expr::mkInt(int64_t(1) << J));
  }
  Expr Res = Expr::mkAdd(Sum);
  // Binary representations are unique: two results of Top+1 low bits
  // that are equal have equal bits.
  for (const BitResult &B : BitResults) {
    if (B.Bits.size() != RB.size())
      continue;
    std::vector<Expr> Eq;
    for (size_t J = 0; J < RB.size(); ++J)
      Eq.push_back(RB[J].eq(B.Bits[J]));
    Side.push_back(Res.eq(B.Value).implies(Expr::mkAnd(Eq)));
  }
  BitResults.push_back({Res, RB});
  return Res;
}

const std::vector<Expr> &Encoder::bitsOfValue(const Expr &V, unsigned Top,
                                              uint64_t M) {
  auto Key = std::make_pair(static_cast<void *>(V.ast()), Top);
  if (auto It = BitVars.find(Key); It != BitVars.end())
    return It->second;
  Expr One = Expr::mkInt(1), Zero = Expr::mkInt(0);
  std::vector<Expr> Bits, Sum = {Zero};
  for (unsigned J = 0; J <= Top; ++J) {
    Expr B = Zero;
    if (M >> J & 1) {
      B = fresh("bit");
      Side.push_back(B.ge(Zero) && B.le(One));
      Sum.push_back(B * Expr::mkInt(int64_t(1) << J));
    }
    Bits.push_back(B);
  }
  // A value whose bits lie in M (M below 2^(Top+1)) is the sum; for
  // another, its low bits are.
  Expr Low = M >> (Top + 1) ? V.mod(Expr::mkInt(int64_t(1) << (Top + 1))) : V;
  Side.push_back(Low.eq(Expr::mkAdd(Sum)));
  return BitVars.emplace(Key, std::move(Bits)).first->second;
}

//===-- Products ----------------------------------------------------------===//

Expr Encoder::product(std::vector<Expr> Factors) {
  std::sort(Factors.begin(), Factors.end(), [](const Expr &A, const Expr &B) {
    return A.ast() < B.ast();
  });
  std::vector<void *> Key;
  for (const Expr &F : Factors)
    Key.push_back(F.ast());
  if (auto It = ProductIndex.find(Key); It != ProductIndex.end())
    return Products[It->second].Var;
  Expr V = fresh("prod");
  ProductIndex.emplace(Key, static_cast<unsigned>(Products.size()));
  Products.push_back({Factors, V});
  return V;
}

std::vector<Expr> Encoder::lemmas() {
  std::vector<Expr> L;
  Expr Zero = Expr::mkInt(0), One = Expr::mkInt(1);
  // The product of all factors but the I-th (a factor or a product).
  auto Rest = [&](const std::vector<Expr> &F, size_t I) {
    std::vector<Expr> R;
    for (size_t J = 0; J < F.size(); ++J)
      if (J != I)
        R.push_back(F[J]);
    return R.size() == 1 ? R[0] : product(R);
  };
  // Rounds: Rest() may make products, whose lemmas come in the next round.
  while (LemmasDone < Products.size()) {
    size_t Old = LemmasDone, End = Products.size();
    for (size_t P = Old; P < End; ++P) {
      // Copies: product() may grow the vector.
      std::vector<Expr> F = Products[P].Factors;
      Expr V = Products[P].Var;
      std::vector<Expr> NonNeg, IsZero;
      for (const Expr &X : F) {
        NonNeg.push_back(X.ge(Zero));
        IsZero.push_back(X.eq(Zero));
      }
      L.push_back(Expr::mkAnd(NonNeg).implies(V.ge(Zero)));
      L.push_back(Expr::mkOr(IsZero).implies(V.eq(Zero)));
      for (size_t I = 0; I < F.size(); ++I) {
        Expr R = Rest(F, I);
        L.push_back((F[I].ge(One) && R.ge(Zero)).implies(V.ge(R)));
        L.push_back(F[I].eq(One).implies(V.eq(R)));
        L.push_back(F[I].eq(-One).implies(V.eq(-R)));
      }
    }
    // Two products that differ in one factor: a*r and b*r.
    for (size_t Q = Old; Q < End; ++Q)
      for (size_t P = 0; P < Q; ++P) {
        std::vector<Expr> FP = Products[P].Factors, FQ = Products[Q].Factors;
        if (FP.size() != FQ.size())
          continue;
        std::vector<void *> A, B;
        for (const Expr &X : FP)
          A.push_back(X.ast());
        for (const Expr &X : FQ)
          B.push_back(X.ast());
        std::vector<void *> OnlyA, OnlyB;
        std::set_difference(A.begin(), A.end(), B.begin(), B.end(),
                            std::back_inserter(OnlyA));
        std::set_difference(B.begin(), B.end(), A.begin(), A.end(),
                            std::back_inserter(OnlyB));
        if (OnlyA.size() != 1 || OnlyB.size() != 1)
          continue;
        size_t IA = std::find(A.begin(), A.end(), OnlyA[0]) - A.begin();
        size_t IB = std::find(B.begin(), B.end(), OnlyB[0]) - B.begin();
        Expr FA = FP[IA], FB = FQ[IB];
        Expr R = Rest(FP, IA);
        Expr VP = Products[P].Var, VQ = Products[Q].Var;
        L.push_back((R.ge(Zero) && FA.ge(FB + One)).implies((VP - VQ).ge(R)));
        L.push_back((R.ge(Zero) && FB.ge(FA + One)).implies((VQ - VP).ge(R)));
        L.push_back(FA.eq(FB).implies(VP.eq(VQ)));
      }
    LemmasDone = End;
  }
  return L;
}

bool Encoder::validModel(const smt::Model &M) const {
  for (const Product &P : Products) {
    std::optional<int64_t> V = M.evalInt(P.Var);
    __int128 Prod = 1;
    for (const Expr &F : P.Factors) {
      std::optional<int64_t> X = M.evalInt(F);
      if (!X)
        return false;
      Prod *= *X;
      if (Prod > INT64_MAX || Prod < INT64_MIN)
        return false;
    }
    if (!V || *V != static_cast<int64_t>(Prod))
      return false;
  }
  return true;
}

std::vector<Expr> Encoder::takeSideConditions() {
  std::vector<Expr> Out;
  Out.swap(Side);
  return Out;
}

Expr Encoder::iterationExists(unsigned T, unsigned Loop) {
  Expr K = iter(T, Loop);
  Expr One = Expr::mkInt(1), Zero = Expr::mkInt(0);
  std::vector<Expr> Cont = {K.ge(One),
                            encode(Frame{T, Loop}, TV->backEdgeCond(Loop))};
  // A loop that runs while `i != n` stops at the first iteration where
  // i == n: none of the iterations before k may be that one.
  for (const ir::ThreadValues::StopPoint &S : TV->stopPoints(Loop)) {
    Expr Minus = -encode(Frame{T, ir::NoNode}, S.Rest);
    Expr A = Expr::mkInt(S.Coeff);
    Expr J = Minus.div(A);
    Cont.push_back(!(Minus.mod(A).eq(Zero) && J.ge(Zero) && J.le(K - One)));
  }
  return K.eq(Zero) || Expr::mkAnd(Cont);
}

} // namespace incant::race
