//===- Expr.cpp - SMT expressions with constant-folding builders ----------===//
#include "incant/SMT/Expr.h"
#include "Context.h"

#include <algorithm>
#include <cassert>

namespace incant::smt {

//===-- The context -------------------------------------------------------===//

namespace {
std::string LastError;

void onError(Z3_context C, Z3_error_code E) {
  LastError = Z3_get_error_msg(C, E);
}
} // namespace

Z3_context ctx() {
  static Z3_context C = [] {
    Z3_config Cfg = Z3_mk_config();
    Z3_set_param_value(Cfg, "model", "true");
    Z3_context Made = Z3_mk_context_rc(Cfg);
    Z3_del_config(Cfg);
    Z3_set_error_handler(Made, onError);
    return Made;
  }();
  return C;
}

std::string takeError() {
  std::string E;
  E.swap(LastError);
  return E;
}

//===-- Handles -----------------------------------------------------------===//

Expr::Expr(_Z3_ast *Ast) : A(Ast) {
  if (A)
    Z3_inc_ref(ctx(), A);
}

Expr Expr::fromAst(_Z3_ast *Ast) { return Expr(Ast); }

Expr::Expr(const Expr &Other) : A(Other.A) {
  if (A)
    Z3_inc_ref(ctx(), A);
}

Expr &Expr::operator=(const Expr &Other) {
  if (Other.A)
    Z3_inc_ref(ctx(), Other.A);
  if (A)
    Z3_dec_ref(ctx(), A);
  A = Other.A;
  return *this;
}

Expr &Expr::operator=(Expr &&Other) noexcept {
  if (this != &Other) {
    if (A)
      Z3_dec_ref(ctx(), A);
    A = Other.A;
    Other.A = nullptr;
  }
  return *this;
}

Expr::~Expr() {
  if (A)
    Z3_dec_ref(ctx(), A);
}

//===-- Constants and sorts -----------------------------------------------===//

static Z3_sort z3Sort(Sort S) {
  switch (S.K) {
  case Sort::Bool: return Z3_mk_bool_sort(ctx());
  case Sort::Int: return Z3_mk_int_sort(ctx());
  case Sort::BV: return Z3_mk_bv_sort(ctx(), S.Bits);
  }
  return nullptr;
}

Expr Expr::mkBool(bool B) {
  return Expr(B ? Z3_mk_true(ctx()) : Z3_mk_false(ctx()));
}

Expr Expr::mkInt(int64_t V) {
  return Expr(Z3_mk_int64(ctx(), V, Z3_mk_int_sort(ctx())));
}

static uint64_t maskOf(unsigned Bits) {
  return Bits >= 64 ? ~0ull : ((1ull << Bits) - 1);
}

Expr Expr::mkBV(uint64_t V, unsigned Bits) {
  assert(Bits > 0 && Bits <= 64 && "mkBV takes 1 to 64 bits");
  return Expr(Z3_mk_unsigned_int64(ctx(), V & maskOf(Bits),
                                   Z3_mk_bv_sort(ctx(), Bits)));
}

Expr Expr::mkVar(std::string_view Name, Sort S) {
  std::string N(Name);
  return Expr(Z3_mk_const(ctx(), Z3_mk_string_symbol(ctx(), N.c_str()),
                          z3Sort(S)));
}

Expr Expr::mkFreshVar(std::string_view Prefix, Sort S) {
  std::string P(Prefix);
  return Expr(Z3_mk_fresh_const(ctx(), P.c_str(), z3Sort(S)));
}

Sort Expr::sort() const {
  assert(A);
  Z3_sort S = Z3_get_sort(ctx(), A);
  switch (Z3_get_sort_kind(ctx(), S)) {
  case Z3_BOOL_SORT: return Sort::boolean();
  case Z3_INT_SORT: return Sort::integer();
  case Z3_BV_SORT: return Sort::bv(Z3_get_bv_sort_size(ctx(), S));
  default: break;
  }
  assert(false && "lib/SMT makes only Bool, Int and BV terms");
  return Sort::boolean();
}

bool Expr::isBool() const { return A && sort().K == Sort::Bool; }
bool Expr::isInt() const { return A && sort().K == Sort::Int; }
bool Expr::isBV() const { return A && sort().K == Sort::BV; }
unsigned Expr::bits() const { return isBV() ? sort().Bits : 0; }

bool Expr::isConst() const {
  if (!A)
    return false;
  if (Z3_is_numeral_ast(ctx(), A))
    return true;
  return Z3_get_bool_value(ctx(), A) != Z3_L_UNDEF;
}

std::optional<bool> Expr::asBool() const {
  if (!A || !isBool())
    return std::nullopt;
  switch (Z3_get_bool_value(ctx(), A)) {
  case Z3_L_TRUE: return true;
  case Z3_L_FALSE: return false;
  default: return std::nullopt;
  }
}

std::optional<uint64_t> Expr::asUInt() const {
  if (!A || !Z3_is_numeral_ast(ctx(), A) || !isBV() || bits() > 64)
    return std::nullopt;
  uint64_t V = 0;
  if (!Z3_get_numeral_uint64(ctx(), A, &V))
    return std::nullopt;
  return V;
}

std::optional<int64_t> Expr::asInt() const {
  if (!A || !Z3_is_numeral_ast(ctx(), A))
    return std::nullopt;
  if (isBV()) {
    std::optional<uint64_t> U = asUInt();
    if (!U)
      return std::nullopt;
    unsigned B = bits();
    uint64_t V = *U;
    if (B < 64 && (V >> (B - 1)) & 1)
      V |= ~maskOf(B); // sign-extend
    return static_cast<int64_t>(V);
  }
  int64_t V = 0;
  if (!Z3_get_numeral_int64(ctx(), A, &V))
    return std::nullopt;
  return V;
}

bool Expr::isTrue() const { return asBool() == std::optional<bool>(true); }
bool Expr::isFalse() const { return asBool() == std::optional<bool>(false); }

std::string Expr::toString() const {
  return A ? std::string(Z3_ast_to_string(ctx(), A)) : std::string("<invalid>");
}

//===-- Helpers -----------------------------------------------------------===//

/// The declaration kind of an application term, or Z3_OP_UNINTERPRETED.
static Z3_decl_kind opOf(const Expr &E) {
  if (!E.isValid() || Z3_get_ast_kind(ctx(), E.ast()) != Z3_APP_AST)
    return Z3_OP_UNINTERPRETED;
  Z3_app App = Z3_to_app(ctx(), E.ast());
  return Z3_get_decl_kind(ctx(), Z3_get_app_decl(ctx(), App));
}

static Expr argOf(const Expr &E, unsigned I) {
  Z3_app App = Z3_to_app(ctx(), E.ast());
  return Expr::fromAst(Z3_get_app_arg(ctx(), App, I));
}

static bool bothValid(const Expr &L, const Expr &R) {
  return L.isValid() && R.isValid();
}

/// Both operands BV constants of at most 64 bits: their unsigned values.
static bool bvConsts(const Expr &L, const Expr &R, uint64_t &X, uint64_t &Y) {
  std::optional<uint64_t> A = L.asUInt(), B = R.asUInt();
  if (!A || !B)
    return false;
  X = *A;
  Y = *B;
  return true;
}

static int64_t signExtend(uint64_t V, unsigned Bits) {
  if (Bits < 64 && (V >> (Bits - 1)) & 1)
    V |= ~maskOf(Bits);
  return static_cast<int64_t>(V);
}

//===-- Booleans ----------------------------------------------------------===//

Expr Expr::operator!() const {
  if (!A)
    return {};
  assert(isBool());
  if (std::optional<bool> B = asBool())
    return mkBool(!*B);
  if (opOf(*this) == Z3_OP_NOT)
    return argOf(*this, 0);
  return Expr(Z3_mk_not(ctx(), A));
}

/// The conjunction (\p And) or disjunction of \p Args: the unit (true for
/// and, false for or) dropped, the absorbing constant returned, duplicates
/// removed.
static Expr junction(const std::vector<Expr> &Args, bool And) {
  std::vector<Z3_ast> Kept;
  for (const Expr &E : Args) {
    if (!E.isValid())
      return {};
    assert(E.isBool());
    if (And ? E.isTrue() : E.isFalse())
      continue;
    if (And ? E.isFalse() : E.isTrue())
      return Expr::mkBool(!And);
    if (std::find(Kept.begin(), Kept.end(), E.ast()) == Kept.end())
      Kept.push_back(E.ast());
  }
  if (Kept.empty())
    return Expr::mkBool(And);
  if (Kept.size() == 1)
    return Expr::fromAst(Kept[0]);
  unsigned N = static_cast<unsigned>(Kept.size());
  return Expr::fromAst(And ? Z3_mk_and(ctx(), N, Kept.data())
                          : Z3_mk_or(ctx(), N, Kept.data()));
}

Expr Expr::mkAnd(const std::vector<Expr> &Args) { return junction(Args, true); }
Expr Expr::mkOr(const std::vector<Expr> &Args) { return junction(Args, false); }

Expr operator&&(const Expr &L, const Expr &R) { return Expr::mkAnd({L, R}); }
Expr operator||(const Expr &L, const Expr &R) { return Expr::mkOr({L, R}); }

Expr Expr::implies(const Expr &Then) const { return !*this || Then; }

Expr Expr::ite(const Expr &Cond, const Expr &Then, const Expr &Else) {
  if (!Cond.isValid() || !bothValid(Then, Else))
    return {};
  assert(Cond.isBool() && Then.sort() == Else.sort());
  if (Cond.isTrue() || Then.same(Else))
    return Then;
  if (Cond.isFalse())
    return Else;
  if (Then.isBool()) {
    if (Then.isTrue() && Else.isFalse())
      return Cond;
    if (Then.isFalse() && Else.isTrue())
      return !Cond;
  }
  return Expr(Z3_mk_ite(ctx(), Cond.ast(), Then.ast(), Else.ast()));
}

//===-- Equality ----------------------------------------------------------===//

Expr Expr::eq(const Expr &R) const {
  if (!bothValid(*this, R))
    return {};
  assert(sort() == R.sort() && "eq of two sorts");
  if (same(R))
    return mkBool(true);
  if (isConst() && R.isConst())
    return mkBool(false); // distinct constants (terms are hash-consed)
  if (isBool()) {
    if (R.isTrue())
      return *this;
    if (R.isFalse())
      return !*this;
    if (isTrue())
      return R;
    if (isFalse())
      return !R;
  }
  return Expr(Z3_mk_eq(ctx(), A, R.A));
}

Expr Expr::ne(const Expr &R) const { return !eq(R); }

//===-- Arithmetic --------------------------------------------------------===//

Expr Expr::mkAdd(const std::vector<Expr> &Args) {
  if (Args.empty())
    return {};
  bool Bv = Args[0].isBV();
  unsigned Bits = Args[0].bits();
  int64_t IntSum = 0;
  uint64_t BvSum = 0;
  bool Overflow = false;
  std::vector<Z3_ast> Terms;
  for (const Expr &E : Args) {
    if (!E.isValid())
      return {};
    assert(E.sort() == Args[0].sort() && "add of two sorts");
    if (Bv) {
      if (std::optional<uint64_t> V = E.asUInt()) {
        BvSum += *V;
        continue;
      }
    } else if (std::optional<int64_t> V = E.asInt()) {
      if (!__builtin_add_overflow(IntSum, *V, &IntSum))
        continue;
      Overflow = true;
    }
    Terms.push_back(E.ast());
  }
  if (Overflow) { // leave the sum to Z3
    std::vector<Z3_ast> All;
    for (const Expr &E : Args)
      All.push_back(E.ast());
    return Expr(Z3_mk_add(ctx(), static_cast<unsigned>(All.size()), All.data()));
  }
  Expr C = Bv ? mkBV(BvSum, Bits) : mkInt(IntSum);
  bool Zero = Bv ? (BvSum & maskOf(Bits)) == 0 : IntSum == 0;
  if (!Zero || Terms.empty())
    Terms.push_back(C.ast());
  if (Terms.size() == 1)
    return Expr(Terms[0]);
  if (!Bv)
    return Expr(Z3_mk_add(ctx(), static_cast<unsigned>(Terms.size()), Terms.data()));
  Expr Sum(Terms[0]);
  for (size_t I = 1; I < Terms.size(); ++I)
    Sum = Expr(Z3_mk_bvadd(ctx(), Sum.ast(), Terms[I]));
  return Sum;
}

Expr operator+(const Expr &L, const Expr &R) { return Expr::mkAdd({L, R}); }

Expr Expr::operator-() const {
  if (!A)
    return {};
  if (isBV()) {
    if (std::optional<uint64_t> V = asUInt())
      return mkBV(~*V + 1, bits());
    return Expr(Z3_mk_bvneg(ctx(), A));
  }
  assert(isInt());
  if (std::optional<int64_t> V = asInt(); V && *V != INT64_MIN)
    return mkInt(-*V);
  return Expr(Z3_mk_unary_minus(ctx(), A));
}

Expr operator-(const Expr &L, const Expr &R) {
  if (!bothValid(L, R))
    return {};
  assert(L.sort() == R.sort() && "sub of two sorts");
  if (L.same(R))
    return L.isBV() ? Expr::mkBV(0, L.bits()) : Expr::mkInt(0);
  if (L.isBV()) {
    uint64_t X, Y;
    if (bvConsts(L, R, X, Y))
      return Expr::mkBV(X - Y, L.bits());
    if (R.asUInt() == std::optional<uint64_t>(0))
      return L;
    return Expr::fromAst(Z3_mk_bvsub(ctx(), L.ast(), R.ast()));
  }
  std::optional<int64_t> X = L.asInt(), Y = R.asInt();
  int64_t D;
  if (X && Y && !__builtin_sub_overflow(*X, *Y, &D))
    return Expr::mkInt(D);
  if (Y == std::optional<int64_t>(0))
    return L;
  Z3_ast Args[2] = {L.ast(), R.ast()};
  return Expr::fromAst(Z3_mk_sub(ctx(), 2, Args));
}

Expr operator*(const Expr &L, const Expr &R) {
  if (!bothValid(L, R))
    return {};
  assert(L.sort() == R.sort() && "mul of two sorts");
  if (L.isBV()) {
    unsigned B = L.bits();
    uint64_t X, Y;
    if (bvConsts(L, R, X, Y))
      return Expr::mkBV(X * Y, B);
    for (const Expr *C : {&L, &R}) {
      const Expr &Other = C == &L ? R : L;
      if (std::optional<uint64_t> V = C->asUInt()) {
        if (*V == 0)
          return Expr::mkBV(0, B);
        if (*V == 1)
          return Other;
      }
    }
    return Expr::fromAst(Z3_mk_bvmul(ctx(), L.ast(), R.ast()));
  }
  std::optional<int64_t> X = L.asInt(), Y = R.asInt();
  int64_t P;
  if (X && Y && !__builtin_mul_overflow(*X, *Y, &P))
    return Expr::mkInt(P);
  for (const Expr *C : {&L, &R}) {
    const Expr &Other = C == &L ? R : L;
    std::optional<int64_t> V = C == &L ? X : Y;
    if (V == std::optional<int64_t>(0))
      return Expr::mkInt(0);
    if (V == std::optional<int64_t>(1))
      return Other;
  }
  Z3_ast Args[2] = {L.ast(), R.ast()};
  return Expr::fromAst(Z3_mk_mul(ctx(), 2, Args));
}

//===-- Integers ----------------------------------------------------------===//

namespace {
/// A binary operation: its Z3 builder. Integer operations fold on the
/// operands' constant values (either may be absent); bit-vector operations
/// on constants of at most 64 bits (given the width).
using Z3Bin = Z3_ast (*)(Z3_context, Z3_ast, Z3_ast);
using OptInt = std::optional<int64_t>;
} // namespace

template <typename Fold>
static Expr intBinary(const Expr &L, const Expr &R, Z3Bin Make, Fold F) {
  if (!bothValid(L, R))
    return {};
  assert(L.isInt() && R.isInt());
  if (std::optional<Expr> Folded = F(L.asInt(), R.asInt()))
    return *Folded;
  return Expr::fromAst(Make(ctx(), L.ast(), R.ast()));
}

Expr Expr::lt(const Expr &R) const {
  bool Same = same(R);
  return intBinary(*this, R, Z3_mk_lt,
                   [Same](OptInt X, OptInt Y) -> std::optional<Expr> {
                     if (X && Y)
                       return mkBool(*X < *Y);
                     if (Same)
                       return mkBool(false);
                     return std::nullopt;
                   });
}

Expr Expr::le(const Expr &R) const {
  bool Same = same(R);
  return intBinary(*this, R, Z3_mk_le,
                   [Same](OptInt X, OptInt Y) -> std::optional<Expr> {
                     if (X && Y)
                       return mkBool(*X <= *Y);
                     if (Same)
                       return mkBool(true);
                     return std::nullopt;
                   });
}

/// SMT-LIB integer division: a = b * q + r with 0 <= r < |b|; nothing
/// when b is 0 or the quotient does not fit.
static std::optional<std::pair<int64_t, int64_t>> euclid(OptInt X, OptInt Y) {
  if (!X || !Y || *Y == 0 || (*X == INT64_MIN && *Y == -1))
    return std::nullopt;
  int64_t Q = *X / *Y, R = *X % *Y;
  if (R < 0) {
    if (*Y > 0) {
      Q -= 1;
      R += *Y;
    } else {
      Q += 1;
      R -= *Y;
    }
  }
  return std::make_pair(Q, R);
}

Expr Expr::div(const Expr &R) const {
  Expr L = *this;
  return intBinary(*this, R, Z3_mk_div,
                   [L](OptInt X, OptInt Y) -> std::optional<Expr> {
                     if (auto QR = euclid(X, Y))
                       return mkInt(QR->first);
                     if (Y == OptInt(1))
                       return L;
                     return std::nullopt;
                   });
}

Expr Expr::mod(const Expr &R) const {
  return intBinary(*this, R, Z3_mk_mod,
                   [](OptInt X, OptInt Y) -> std::optional<Expr> {
                     if (auto QR = euclid(X, Y))
                       return mkInt(QR->second);
                     if (Y == OptInt(1) || Y == OptInt(-1))
                       return mkInt(0);
                     return std::nullopt;
                   });
}

//===-- Bit-vectors -------------------------------------------------------===//

template <typename Fold>
static Expr bvBinary(const Expr &L, const Expr &R, Z3Bin Make, Fold F) {
  if (!bothValid(L, R))
    return {};
  assert(L.isBV() && L.sort() == R.sort() && "bit-vector operands of one width");
  uint64_t X, Y;
  if (bvConsts(L, R, X, Y))
    if (std::optional<Expr> Folded = F(X, Y, L.bits()))
      return *Folded;
  return Expr::fromAst(Make(ctx(), L.ast(), R.ast()));
}

Expr Expr::ult(const Expr &R) const {
  return bvBinary(*this, R, Z3_mk_bvult,
                  [](uint64_t X, uint64_t Y, unsigned) {
                    return std::optional<Expr>(mkBool(X < Y));
                  });
}
Expr Expr::ule(const Expr &R) const {
  return bvBinary(*this, R, Z3_mk_bvule,
                  [](uint64_t X, uint64_t Y, unsigned) {
                    return std::optional<Expr>(mkBool(X <= Y));
                  });
}
Expr Expr::slt(const Expr &R) const {
  return bvBinary(*this, R, Z3_mk_bvslt,
                  [](uint64_t X, uint64_t Y, unsigned B) {
                    return std::optional<Expr>(
                        mkBool(signExtend(X, B) < signExtend(Y, B)));
                  });
}
Expr Expr::sle(const Expr &R) const {
  return bvBinary(*this, R, Z3_mk_bvsle,
                  [](uint64_t X, uint64_t Y, unsigned B) {
                    return std::optional<Expr>(
                        mkBool(signExtend(X, B) <= signExtend(Y, B)));
                  });
}
// Division by zero is defined in SMT-LIB (all ones, or the dividend for
// the remainder); leave it to Z3 rather than fold it here.
Expr Expr::udiv(const Expr &R) const {
  return bvBinary(*this, R, Z3_mk_bvudiv,
                  [](uint64_t X, uint64_t Y, unsigned B) {
                    return Y ? std::optional<Expr>(mkBV(X / Y, B))
                             : std::nullopt;
                  });
}
Expr Expr::urem(const Expr &R) const {
  return bvBinary(*this, R, Z3_mk_bvurem,
                  [](uint64_t X, uint64_t Y, unsigned B) {
                    return Y ? std::optional<Expr>(mkBV(X % Y, B))
                             : std::nullopt;
                  });
}
Expr Expr::sdiv(const Expr &R) const {
  return bvBinary(*this, R, Z3_mk_bvsdiv,
                  [](uint64_t X, uint64_t Y, unsigned B) -> std::optional<Expr> {
                    int64_t SX = signExtend(X, B), SY = signExtend(Y, B);
                    if (SY == 0 || (SX == INT64_MIN && SY == -1))
                      return std::nullopt;
                    return mkBV(static_cast<uint64_t>(SX / SY), B);
                  });
}
Expr Expr::srem(const Expr &R) const {
  return bvBinary(*this, R, Z3_mk_bvsrem,
                  [](uint64_t X, uint64_t Y, unsigned B) -> std::optional<Expr> {
                    int64_t SX = signExtend(X, B), SY = signExtend(Y, B);
                    if (SY == 0 || (SX == INT64_MIN && SY == -1))
                      return std::nullopt;
                    return mkBV(static_cast<uint64_t>(SX % SY), B);
                  });
}
Expr Expr::bvand(const Expr &R) const {
  return bvBinary(*this, R, Z3_mk_bvand,
                  [](uint64_t X, uint64_t Y, unsigned B) {
                    return std::optional<Expr>(mkBV(X & Y, B));
                  });
}
Expr Expr::bvor(const Expr &R) const {
  return bvBinary(*this, R, Z3_mk_bvor,
                  [](uint64_t X, uint64_t Y, unsigned B) {
                    return std::optional<Expr>(mkBV(X | Y, B));
                  });
}
Expr Expr::bvxor(const Expr &R) const {
  return bvBinary(*this, R, Z3_mk_bvxor,
                  [](uint64_t X, uint64_t Y, unsigned B) {
                    return std::optional<Expr>(mkBV(X ^ Y, B));
                  });
}
Expr Expr::shl(const Expr &R) const {
  return bvBinary(*this, R, Z3_mk_bvshl,
                  [](uint64_t X, uint64_t Y, unsigned B) {
                    return std::optional<Expr>(mkBV(Y >= B ? 0 : X << Y, B));
                  });
}
Expr Expr::lshr(const Expr &R) const {
  return bvBinary(*this, R, Z3_mk_bvlshr,
                  [](uint64_t X, uint64_t Y, unsigned B) {
                    return std::optional<Expr>(mkBV(Y >= B ? 0 : X >> Y, B));
                  });
}
Expr Expr::ashr(const Expr &R) const {
  return bvBinary(*this, R, Z3_mk_bvashr,
                  [](uint64_t X, uint64_t Y, unsigned B) {
                    int64_t S = signExtend(X, B);
                    uint64_t Shift = Y >= B ? B - 1 : Y;
                    return std::optional<Expr>(
                        mkBV(static_cast<uint64_t>(S >> Shift), B));
                  });
}

Expr Expr::bvnot() const {
  if (!A)
    return {};
  assert(isBV());
  if (std::optional<uint64_t> V = asUInt())
    return mkBV(~*V, bits());
  return Expr(Z3_mk_bvnot(ctx(), A));
}

Expr Expr::zext(unsigned Extra) const {
  if (!A)
    return {};
  assert(isBV());
  if (Extra == 0)
    return *this;
  if (std::optional<uint64_t> V = asUInt(); V && bits() + Extra <= 64)
    return mkBV(*V, bits() + Extra);
  return Expr(Z3_mk_zero_ext(ctx(), Extra, A));
}

Expr Expr::sext(unsigned Extra) const {
  if (!A)
    return {};
  assert(isBV());
  if (Extra == 0)
    return *this;
  if (std::optional<uint64_t> V = asUInt(); V && bits() + Extra <= 64)
    return mkBV(static_cast<uint64_t>(signExtend(*V, bits())), bits() + Extra);
  return Expr(Z3_mk_sign_ext(ctx(), Extra, A));
}

Expr Expr::extract(unsigned High, unsigned Low) const {
  if (!A)
    return {};
  assert(isBV() && High >= Low && High < bits());
  if (Low == 0 && High + 1 == bits())
    return *this;
  if (std::optional<uint64_t> V = asUInt())
    return mkBV(*V >> Low, High - Low + 1);
  return Expr(Z3_mk_extract(ctx(), High, Low, A));
}

Expr Expr::concat(const Expr &Low) const {
  if (!bothValid(*this, Low))
    return {};
  assert(isBV() && Low.isBV());
  uint64_t X, Y;
  if (bits() + Low.bits() <= 64 && bvConsts(*this, Low, X, Y))
    return mkBV((X << Low.bits()) | Y, bits() + Low.bits());
  return Expr(Z3_mk_concat(ctx(), A, Low.A));
}

Expr Expr::bv2int() const {
  if (!A)
    return {};
  assert(isBV());
  if (std::optional<uint64_t> V = asUInt(); V && *V <= INT64_MAX)
    return mkInt(static_cast<int64_t>(*V));
  return Expr(Z3_mk_bv2int(ctx(), A, false));
}

Expr Expr::int2bv(unsigned Bits) const {
  if (!A)
    return {};
  assert(isInt());
  if (std::optional<int64_t> V = asInt(); V && Bits <= 64)
    return mkBV(static_cast<uint64_t>(*V), Bits);
  return Expr(Z3_mk_int2bv(ctx(), Bits, A));
}

} // namespace incant::smt
