//===- SymExpr.cpp - Symbolic values of a kernel's registers --------------===//
#include "incant/IR/SymExpr.h"

#include <algorithm>
#include <cassert>
#include <functional>

namespace incant::ir {

const char *symKindName(SymKind K) {
  switch (K) {
  case SymKind::Tid: return "tid";
  case SymKind::Ctaid: return "ctaid";
  case SymKind::Ntid: return "ntid";
  case SymKind::Nctaid: return "nctaid";
  case SymKind::Param: return "param";
  case SymKind::VarAddr: return "var";
  case SymKind::Iter: return "iter";
  case SymKind::LoopVar: return "loopvar";
  case SymKind::Opaque: return "opaque";
  }
  return "?";
}

bool Symbol::isGridUniform() const {
  switch (K) {
  case SymKind::Ntid:
  case SymKind::Nctaid:
  case SymKind::Param:
  case SymKind::VarAddr:
    return true;
  case SymKind::Opaque:
    return Uniform;
  default:
    return false;
  }
}

size_t ExprPool::NodeHash::operator()(const ExprNode &N) const {
  size_t H = std::hash<int>()(static_cast<int>(N.O)) * 31 + N.Signed;
  H = H * 31 + static_cast<size_t>(N.Cmp);
  H = H * 131 + N.Width;
  H = H * 1000003 + std::hash<int64_t>()(N.Value);
  H = H * 31 + N.Sym;
  for (ExprId E : N.Ops)
    H = H * 1000003 + E;
  return H;
}

ExprPool::ExprPool() = default;

ExprId ExprPool::make(ExprNode N) {
  auto It = Index.find(N);
  if (It != Index.end())
    return It->second;
  ExprId Id = static_cast<ExprId>(Nodes.size());
  Nodes.push_back(N);
  Index.emplace(std::move(N), Id);
  return Id;
}

bool ExprPool::isBool(ExprId E) const {
  const ExprNode &N = Nodes[E];
  switch (N.O) {
  case Op::BoolConst:
  case Op::Cmp:
  case Op::BoolAnd:
  case Op::BoolOr:
  case Op::BoolNot:
  case Op::BoolXor:
    return true;
  case Op::Sym:
    return Syms[N.Sym].IsBool;
  case Op::Select:
    return isBool(N.Ops[1]);
  default:
    return false;
  }
}

const Symbol *ExprPool::asSymbol(ExprId E) const {
  const ExprNode &N = Nodes[E];
  return N.O == Op::Sym ? &Syms[N.Sym] : nullptr;
}

std::optional<int64_t> ExprPool::asConst(ExprId E) const {
  const ExprNode &N = Nodes[E];
  if (N.O == Op::Const)
    return N.Value;
  return std::nullopt;
}

std::optional<bool> ExprPool::asBoolConst(ExprId E) const {
  const ExprNode &N = Nodes[E];
  if (N.O == Op::BoolConst)
    return N.Value != 0;
  return std::nullopt;
}

ExprId ExprPool::constant(int64_t V) {
  ExprNode N;
  N.O = Op::Const;
  N.Value = V;
  return make(std::move(N));
}

ExprId ExprPool::boolConst(bool B) {
  ExprNode N;
  N.O = Op::BoolConst;
  N.Value = B;
  return make(std::move(N));
}

ExprId ExprPool::sym(const Symbol &S) {
  std::string Key = std::to_string(static_cast<int>(S.K)) + ":" +
                    std::to_string(S.Dim) + ":" + std::to_string(S.IsBool) +
                    std::to_string(S.Uniform) + ":" + std::to_string(S.Loop) +
                    ":" + std::to_string(S.Reg) + ":" + std::to_string(S.Item) +
                    ":" + std::to_string(S.Part) + ":" +
                    std::to_string(S.Offset) + ":" + S.Name;
  auto [It, New] = SymIndex.emplace(Key, static_cast<unsigned>(Syms.size()));
  if (New)
    Syms.push_back(S);
  unsigned Idx = It->second;
  ExprNode N;
  N.O = Op::Sym;
  N.Sym = Idx;
  return make(std::move(N));
}

//===-- Affine forms ------------------------------------------------------===//

namespace {
bool addOv(int64_t A, int64_t B, int64_t &R) { return __builtin_add_overflow(A, B, &R); }
bool mulOv(int64_t A, int64_t B, int64_t &R) { return __builtin_mul_overflow(A, B, &R); }

/// Adds \p F * \p Scale to \p Acc; false on overflow.
bool accumulate(AffineForm &Acc, const AffineForm &F, int64_t Scale) {
  int64_t C;
  if (mulOv(F.Const, Scale, C) || addOv(Acc.Const, C, Acc.Const))
    return false;
  for (const auto &[M, K] : F.Terms) {
    int64_t T;
    if (mulOv(K, Scale, T))
      return false;
    int64_t &Slot = Acc.Terms[M];
    if (addOv(Slot, T, Slot))
      return false;
    if (Slot == 0)
      Acc.Terms.erase(M);
  }
  return true;
}

/// Product of two forms; false on overflow or when it grows too large.
bool multiply(const AffineForm &A, const AffineForm &B, AffineForm &Out) {
  Out = AffineForm();
  if (A.Terms.size() * B.Terms.size() > 256)
    return false;
  if (mulOv(A.Const, B.Const, Out.Const))
    return false;
  auto AddTerm = [&](std::vector<ExprId> M, int64_t K) {
    if (M.empty())
      return !addOv(Out.Const, K, Out.Const);
    std::sort(M.begin(), M.end());
    int64_t &Slot = Out.Terms[M];
    if (addOv(Slot, K, Slot))
      return false;
    if (Slot == 0)
      Out.Terms.erase(M);
    return true;
  };
  for (const auto &[MA, KA] : A.Terms) {
    int64_t K;
    if (mulOv(KA, B.Const, K) || !AddTerm(MA, K))
      return false;
    for (const auto &[MB, KB] : B.Terms) {
      std::vector<ExprId> M = MA;
      M.insert(M.end(), MB.begin(), MB.end());
      if (mulOv(KA, KB, K) || !AddTerm(std::move(M), K))
        return false;
    }
  }
  for (const auto &[MB, KB] : B.Terms) {
    int64_t K;
    if (mulOv(KB, A.Const, K) || !AddTerm(MB, K))
      return false;
  }
  return true;
}
} // namespace

AffineForm ExprPool::affine(ExprId E) const {
  const ExprNode &N = Nodes[E];
  AffineForm F;
  switch (N.O) {
  case Op::Const:
    F.Const = N.Value;
    return F;
  case Op::Add: {
    for (ExprId A : N.Ops)
      if (!accumulate(F, affine(A), 1))
        break;
    return F;
  }
  case Op::Mul: {
    F.Const = 1;
    for (ExprId A : N.Ops) {
      AffineForm P;
      if (!multiply(F, affine(A), P))
        break;
      F = std::move(P);
    }
    return F;
  }
  default:
    F.Terms[{E}] = 1;
    return F;
  }
}

ExprId ExprPool::fromAffine(const AffineForm &F) {
  std::vector<ExprId> Sum;
  for (const auto &[M, K] : F.Terms) {
    if (K == 0)
      continue;
    if (M.size() == 1 && K == 1) {
      Sum.push_back(M[0]);
      continue;
    }
    ExprNode P;
    P.O = Op::Mul;
    if (K != 1)
      P.Ops.push_back(constant(K));
    P.Ops.insert(P.Ops.end(), M.begin(), M.end());
    Sum.push_back(make(std::move(P)));
  }
  if (Sum.empty())
    return constant(F.Const);
  if (F.Const != 0)
    Sum.push_back(constant(F.Const));
  if (Sum.size() == 1)
    return Sum[0];
  ExprNode S;
  S.O = Op::Add;
  S.Ops = std::move(Sum);
  return make(std::move(S));
}

//===-- Arithmetic --------------------------------------------------------===//

ExprId ExprPool::flat(Op O, std::vector<ExprId> Ops) {
  ExprNode N;
  N.O = O;
  N.Ops = std::move(Ops);
  return make(std::move(N));
}

ExprId ExprPool::add(ExprId A, ExprId B) {
  AffineForm F = affine(A);
  if (accumulate(F, affine(B), 1))
    return fromAffine(F);
  return flat(Op::Add, {A, B});
}

ExprId ExprPool::sub(ExprId A, ExprId B) {
  AffineForm F = affine(A);
  if (accumulate(F, affine(B), -1))
    return fromAffine(F);
  return flat(Op::Add, {A, mul(B, constant(-1))});
}

ExprId ExprPool::mul(ExprId A, ExprId B) {
  AffineForm P;
  if (multiply(affine(A), affine(B), P))
    return fromAffine(P);
  return flat(Op::Mul, {A, B});
}

ExprId ExprPool::neg(ExprId A) { return sub(constant(0), A); }

ExprId ExprPool::div(ExprId A, ExprId B, bool Signed) {
  std::optional<int64_t> X = asConst(A), Y = asConst(B);
  if (Y == std::optional<int64_t>(1))
    return A;
  if (X && Y && *Y != 0 && !(*X == INT64_MIN && *Y == -1) &&
      (Signed || (*X >= 0 && *Y > 0)))
    return constant(*X / *Y);
  ExprNode N;
  N.O = Op::Div;
  N.Signed = Signed;
  N.Ops = {A, B};
  return make(std::move(N));
}

ExprId ExprPool::rem(ExprId A, ExprId B, bool Signed) {
  std::optional<int64_t> X = asConst(A), Y = asConst(B);
  if (Y == std::optional<int64_t>(1))
    return constant(0);
  if (X && Y && *Y != 0 && !(*X == INT64_MIN && *Y == -1) &&
      (Signed || (*X >= 0 && *Y > 0)))
    return constant(*X % *Y);
  ExprNode N;
  N.O = Op::Rem;
  N.Signed = Signed;
  N.Ops = {A, B};
  return make(std::move(N));
}

ExprId ExprPool::shl(ExprId A, ExprId B) {
  if (std::optional<int64_t> K = asConst(B); K && *K >= 0 && *K < 62)
    return mul(A, constant(int64_t(1) << *K));
  return flat(Op::Shl, {A, B});
}

ExprId ExprPool::shr(ExprId A, ExprId B, bool Signed) {
  std::optional<int64_t> X = asConst(A), K = asConst(B);
  if (K == std::optional<int64_t>(0))
    return A;
  if (X && K && *K >= 0 && *K < 63 && (Signed || *X >= 0))
    return constant(*X >> *K);
  ExprNode N;
  N.O = Op::Shr;
  N.Signed = Signed;
  N.Ops = {A, B};
  return make(std::move(N));
}

ExprId ExprPool::bitAnd(ExprId A, ExprId B) {
  std::optional<int64_t> X = asConst(A), Y = asConst(B);
  if (X && Y)
    return constant(*X & *Y);
  if (X == std::optional<int64_t>(0) || Y == std::optional<int64_t>(0))
    return constant(0);
  if (X == std::optional<int64_t>(-1))
    return B;
  if (Y == std::optional<int64_t>(-1) || A == B)
    return A;
  return flat(Op::And, A < B ? std::vector<ExprId>{A, B} : std::vector<ExprId>{B, A});
}

ExprId ExprPool::bitOr(ExprId A, ExprId B) {
  std::optional<int64_t> X = asConst(A), Y = asConst(B);
  if (X && Y)
    return constant(*X | *Y);
  if (X == std::optional<int64_t>(0))
    return B;
  if (Y == std::optional<int64_t>(0) || A == B)
    return A;
  return flat(Op::Or, A < B ? std::vector<ExprId>{A, B} : std::vector<ExprId>{B, A});
}

ExprId ExprPool::bitXor(ExprId A, ExprId B) {
  std::optional<int64_t> X = asConst(A), Y = asConst(B);
  if (X && Y)
    return constant(*X ^ *Y);
  if (X == std::optional<int64_t>(0))
    return B;
  if (Y == std::optional<int64_t>(0))
    return A;
  if (A == B)
    return constant(0);
  return flat(Op::Xor, A < B ? std::vector<ExprId>{A, B} : std::vector<ExprId>{B, A});
}

ExprId ExprPool::bitNot(ExprId A) {
  // ~a == -a - 1 in two's complement.
  return sub(constant(-1), A);
}

ExprId ExprPool::min(ExprId A, ExprId B, bool Signed) {
  std::optional<int64_t> X = asConst(A), Y = asConst(B);
  if (X && Y && (Signed || (*X >= 0 && *Y >= 0)))
    return constant(std::min(*X, *Y));
  if (A == B)
    return A;
  ExprNode N;
  N.O = Op::Min;
  N.Signed = Signed;
  N.Ops = A < B ? std::vector<ExprId>{A, B} : std::vector<ExprId>{B, A};
  return make(std::move(N));
}

ExprId ExprPool::max(ExprId A, ExprId B, bool Signed) {
  std::optional<int64_t> X = asConst(A), Y = asConst(B);
  if (X && Y && (Signed || (*X >= 0 && *Y >= 0)))
    return constant(std::max(*X, *Y));
  if (A == B)
    return A;
  ExprNode N;
  N.O = Op::Max;
  N.Signed = Signed;
  N.Ops = A < B ? std::vector<ExprId>{A, B} : std::vector<ExprId>{B, A};
  return make(std::move(N));
}

ExprId ExprPool::select(ExprId Cond, ExprId Then, ExprId Else) {
  if (std::optional<bool> C = asBoolConst(Cond))
    return *C ? Then : Else;
  if (Then == Else)
    return Then;
  if (isBool(Then)) {
    std::optional<bool> T = asBoolConst(Then), E = asBoolConst(Else);
    if (T == std::optional<bool>(true) && E == std::optional<bool>(false))
      return Cond;
    if (T == std::optional<bool>(false) && E == std::optional<bool>(true))
      return lnot(Cond);
  }
  return flat(Op::Select, {Cond, Then, Else});
}

//===-- Predicates --------------------------------------------------------===//

static CmpKind negated(CmpKind K) {
  switch (K) {
  case CmpKind::Eq: return CmpKind::Ne;
  case CmpKind::Ne: return CmpKind::Eq;
  case CmpKind::Lt: return CmpKind::Ge;
  case CmpKind::Le: return CmpKind::Gt;
  case CmpKind::Gt: return CmpKind::Le;
  case CmpKind::Ge: return CmpKind::Lt;
  }
  return K;
}

template <typename T> static bool compareAs(CmpKind K, T X, T Y) {
  switch (K) {
  case CmpKind::Eq: return X == Y;
  case CmpKind::Ne: return X != Y;
  case CmpKind::Lt: return X < Y;
  case CmpKind::Le: return X <= Y;
  case CmpKind::Gt: return X > Y;
  case CmpKind::Ge: return X >= Y;
  }
  return false;
}
static bool compare(CmpKind K, int64_t X, int64_t Y) {
  return compareAs(K, X, Y);
}
static bool compareUnsigned(CmpKind K, uint64_t X, uint64_t Y) {
  return compareAs(K, X, Y);
}

ExprId ExprPool::cmp(CmpKind K, ExprId A, ExprId B, bool Signed,
                     unsigned Width) {
  if (isBool(A) || isBool(B)) { // predicates compared: only == and !=
    ExprId X = lxor(A, B);
    return K == CmpKind::Eq ? lnot(X) : X;
  }
  if (Signed || Width >= 64)
    Width = 0;
  std::optional<int64_t> X = asConst(A), Y = asConst(B);
  if (Width && X && Y) {
    uint64_t M = (uint64_t(1) << Width) - 1;
    return boolConst(compareUnsigned(K, uint64_t(*X) & M, uint64_t(*Y) & M));
  }
  // A - B constant: the comparison is decided (no wrap-around).
  AffineForm D = affine(A);
  if (accumulate(D, affine(B), -1) && D.isConstant())
    return boolConst(compare(K, D.Const, 0));
  if (K == CmpKind::Eq || K == CmpKind::Ne)
    Signed = false;
  ExprNode N;
  N.O = Op::Cmp;
  N.Cmp = K;
  N.Signed = Signed;
  N.Width = static_cast<uint8_t>(Width);
  N.Ops = {A, B};
  return make(std::move(N));
}

bool ExprPool::complementary(ExprId A, ExprId B) const {
  const ExprNode &X = Nodes[A], &Y = Nodes[B];
  if (X.O == Op::BoolNot)
    return X.Ops[0] == B;
  if (Y.O == Op::BoolNot)
    return Y.Ops[0] == A;
  return X.O == Op::Cmp && Y.O == Op::Cmp && X.Ops == Y.Ops &&
         X.Signed == Y.Signed && negated(X.Cmp) == Y.Cmp;
}

ExprId ExprPool::land(ExprId A, ExprId B) {
  std::optional<bool> X = asBoolConst(A), Y = asBoolConst(B);
  if (X == std::optional<bool>(false) || Y == std::optional<bool>(false))
    return boolConst(false);
  if (X == std::optional<bool>(true))
    return B;
  if (Y == std::optional<bool>(true) || A == B)
    return A;
  if (complementary(A, B))
    return boolConst(false);
  return flat(Op::BoolAnd, A < B ? std::vector<ExprId>{A, B} : std::vector<ExprId>{B, A});
}

ExprId ExprPool::lor(ExprId A, ExprId B) {
  std::optional<bool> X = asBoolConst(A), Y = asBoolConst(B);
  if (X == std::optional<bool>(true) || Y == std::optional<bool>(true))
    return boolConst(true);
  if (X == std::optional<bool>(false))
    return B;
  if (Y == std::optional<bool>(false) || A == B)
    return A;
  if (complementary(A, B))
    return boolConst(true);
  return flat(Op::BoolOr, A < B ? std::vector<ExprId>{A, B} : std::vector<ExprId>{B, A});
}

ExprId ExprPool::lnot(ExprId A) {
  if (std::optional<bool> X = asBoolConst(A))
    return boolConst(!*X);
  const ExprNode &N = Nodes[A];
  if (N.O == Op::BoolNot)
    return N.Ops[0];
  if (N.O == Op::Cmp) {
    ExprNode M = N;
    M.Cmp = negated(N.Cmp);
    return make(std::move(M));
  }
  return flat(Op::BoolNot, {A});
}

ExprId ExprPool::lxor(ExprId A, ExprId B) {
  std::optional<bool> X = asBoolConst(A), Y = asBoolConst(B);
  if (X && Y)
    return boolConst(*X != *Y);
  if (X)
    return *X ? lnot(B) : B;
  if (Y)
    return *Y ? lnot(A) : A;
  if (A == B)
    return boolConst(false);
  return flat(Op::BoolXor, A < B ? std::vector<ExprId>{A, B} : std::vector<ExprId>{B, A});
}

//===-- Queries and printing ----------------------------------------------===//

std::vector<unsigned> ExprPool::symbolsOf(const std::vector<ExprId> &Es) const {
  std::vector<unsigned> Out;
  std::vector<char> Seen(Nodes.size(), 0);
  std::vector<ExprId> Work = Es;
  while (!Work.empty()) {
    ExprId X = Work.back();
    Work.pop_back();
    if (Seen[X])
      continue;
    Seen[X] = 1;
    const ExprNode &N = Nodes[X];
    if (N.O == Op::Sym)
      Out.push_back(N.Sym);
    for (ExprId A : N.Ops)
      Work.push_back(A);
  }
  std::sort(Out.begin(), Out.end());
  Out.erase(std::unique(Out.begin(), Out.end()), Out.end());
  return Out;
}

std::string ExprPool::symbolName(unsigned S) const {
  const Symbol &Y = Syms[S];
  static const char *Dims[] = {"x", "y", "z"};
  switch (Y.K) {
  case SymKind::Tid:
  case SymKind::Ctaid:
  case SymKind::Ntid:
  case SymKind::Nctaid:
    return std::string(symKindName(Y.K)) + "." + Dims[Y.Dim % 3];
  case SymKind::Param:
    return Y.Offset ? Y.Name + "+" + std::to_string(Y.Offset) : Y.Name;
  case SymKind::VarAddr:
    return "&" + Y.Name;
  case SymKind::Iter:
    return "iter" + std::to_string(Y.Loop);
  case SymKind::LoopVar:
    return Y.Name + "@loop" + std::to_string(Y.Loop);
  case SymKind::Opaque:
    return Y.Name + "#" + std::to_string(Y.Item) +
           (Y.Part ? "." + std::to_string(Y.Part) : "");
  }
  return "?";
}

static const char *cmpText(CmpKind K) {
  switch (K) {
  case CmpKind::Eq: return "==";
  case CmpKind::Ne: return "!=";
  case CmpKind::Lt: return "<";
  case CmpKind::Le: return "<=";
  case CmpKind::Gt: return ">";
  case CmpKind::Ge: return ">=";
  }
  return "?";
}

std::string ExprPool::str(ExprId E) const {
  const ExprNode &N = Nodes[E];
  auto Bin = [&](const char *Opr) {
    return "(" + str(N.Ops[0]) + " " + Opr + " " + str(N.Ops[1]) + ")";
  };
  switch (N.O) {
  case Op::Const:
    return std::to_string(N.Value);
  case Op::BoolConst:
    return N.Value ? "true" : "false";
  case Op::Sym:
    return symbolName(N.Sym);
  case Op::Add: {
    std::string S;
    for (ExprId A : N.Ops) {
      std::string T = str(A);
      if (S.empty())
        S = T;
      else if (T[0] == '-')
        S += " - " + T.substr(1);
      else
        S += " + " + T;
    }
    return N.Ops.size() > 1 ? "(" + S + ")" : S;
  }
  case Op::Mul: {
    std::string S;
    for (ExprId A : N.Ops) {
      std::string T = str(A);
      if (S.empty())
        S = T == "-1" ? "-" : T;
      else
        S += (S == "-" ? "" : "*") + T;
    }
    return S;
  }
  case Op::Div: return Bin("/");
  case Op::Rem: return Bin("%");
  case Op::Shl: return Bin("<<");
  case Op::Shr: return Bin(">>");
  case Op::And: return Bin("&");
  case Op::Or: return Bin("|");
  case Op::Xor: return Bin("^");
  case Op::Min: return "min(" + str(N.Ops[0]) + ", " + str(N.Ops[1]) + ")";
  case Op::Max: return "max(" + str(N.Ops[0]) + ", " + str(N.Ops[1]) + ")";
  case Op::Select:
    return "(" + str(N.Ops[0]) + " ? " + str(N.Ops[1]) + " : " +
           str(N.Ops[2]) + ")";
  case Op::Cmp: return Bin(cmpText(N.Cmp));
  case Op::BoolAnd: return Bin("&&");
  case Op::BoolOr: return Bin("||");
  case Op::BoolXor: return Bin("^^");
  case Op::BoolNot: return "!" + str(N.Ops[0]);
  }
  return "?";
}

} // namespace incant::ir
