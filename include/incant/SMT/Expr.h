//===- Expr.h - SMT terms: booleans, integers, bit-vectors ------*- C++ -*-===//
//
// The project's one wall around Z3 (only lib/SMT includes z3.h): a small
// value type for SMT terms, in the manner of Alive2's smt::expr. An Expr
// is a reference-counted handle on a Z3 term of one process-wide context;
// copying it is cheap. Builders fold constants and simplify the obvious
// (x + 0, x * 1, true && x, ite(true, a, b), x == x), so code that builds
// formulas from constants gets constants back and never asks the solver.
//
// Three sorts: Bool, Int (mathematical integers) and BV(n) (n-bit
// vectors, two's complement for the signed operations). Arithmetic needs
// both operands of one sort; mixing sorts is a programming error (assert).
// A default-constructed Expr is invalid (!isValid()); builders given an
// invalid operand return an invalid Expr.
//
// lib/SMT is not thread-safe: one thread at a time uses it (the context is
// shared).
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_SMT_EXPR_H
#define INCANT_SMT_EXPR_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct _Z3_ast;

namespace incant::smt {

/// The sort of an expression.
struct Sort {
  enum Kind : uint8_t { Bool, Int, BV } K = Bool;
  unsigned Bits = 0; ///< For BV.
  static Sort boolean() { return {Bool, 0}; }
  static Sort integer() { return {Int, 0}; }
  static Sort bv(unsigned Bits) { return {BV, Bits}; }
  friend bool operator==(const Sort &, const Sort &) = default;
};

class Expr {
public:
  Expr() = default;
  Expr(const Expr &Other);
  Expr(Expr &&Other) noexcept : A(Other.A) { Other.A = nullptr; }
  Expr &operator=(const Expr &Other);
  Expr &operator=(Expr &&Other) noexcept;
  ~Expr();

  // Constants and variables.
  static Expr mkBool(bool B);
  static Expr mkInt(int64_t V);
  /// The low \p Bits bits of \p V (Bits <= 64).
  static Expr mkBV(uint64_t V, unsigned Bits);
  /// A free variable (a constant symbol of Z3). Two calls with one name and
  /// sort give the same variable.
  static Expr mkVar(std::string_view Name, Sort S);
  /// A variable no other call returns: \p Prefix followed by a number.
  static Expr mkFreshVar(std::string_view Prefix, Sort S);

  bool isValid() const { return A != nullptr; }
  Sort sort() const;
  bool isBool() const;
  bool isInt() const;
  bool isBV() const;
  /// The width of a bit-vector (0 for other sorts).
  unsigned bits() const;

  // The value of a constant term.
  bool isConst() const;
  std::optional<bool> asBool() const;
  /// An Int constant that fits in 64 bits, or a BV constant read as
  /// signed.
  std::optional<int64_t> asInt() const;
  /// A BV constant of at most 64 bits read as unsigned.
  std::optional<uint64_t> asUInt() const;
  bool isTrue() const;
  bool isFalse() const;
  /// Whether the two handles denote the same term (structurally, after Z3's
  /// hash-consing).
  bool same(const Expr &Other) const { return A == Other.A; }

  // Booleans.
  Expr operator!() const;
  friend Expr operator&&(const Expr &L, const Expr &R);
  friend Expr operator||(const Expr &L, const Expr &R);
  Expr implies(const Expr &Then) const;
  static Expr mkAnd(const std::vector<Expr> &Args);
  static Expr mkOr(const std::vector<Expr> &Args);
  static Expr ite(const Expr &Cond, const Expr &Then, const Expr &Else);

  // Equality (any sort; both operands of one sort).
  Expr eq(const Expr &R) const;
  Expr ne(const Expr &R) const;

  // Arithmetic on Int, or on BV (modulo 2^n).
  friend Expr operator+(const Expr &L, const Expr &R);
  friend Expr operator-(const Expr &L, const Expr &R);
  friend Expr operator*(const Expr &L, const Expr &R);
  Expr operator-() const;
  static Expr mkAdd(const std::vector<Expr> &Args);

  // Int only: comparisons; division and remainder with SMT-LIB's
  // (Euclidean) semantics: 0 <= mod(a, b) < |b|.
  Expr lt(const Expr &R) const;
  Expr le(const Expr &R) const;
  Expr gt(const Expr &R) const { return R.lt(*this); }
  Expr ge(const Expr &R) const { return R.le(*this); }
  Expr div(const Expr &R) const;
  Expr mod(const Expr &R) const;

  // BV only.
  Expr ult(const Expr &R) const;
  Expr ule(const Expr &R) const;
  Expr slt(const Expr &R) const;
  Expr sle(const Expr &R) const;
  Expr ugt(const Expr &R) const { return R.ult(*this); }
  Expr uge(const Expr &R) const { return R.ule(*this); }
  Expr sgt(const Expr &R) const { return R.slt(*this); }
  Expr sge(const Expr &R) const { return R.sle(*this); }
  Expr udiv(const Expr &R) const;
  Expr urem(const Expr &R) const;
  Expr sdiv(const Expr &R) const;
  Expr srem(const Expr &R) const;
  Expr bvand(const Expr &R) const;
  Expr bvor(const Expr &R) const;
  Expr bvxor(const Expr &R) const;
  Expr bvnot() const;
  Expr shl(const Expr &R) const;
  Expr lshr(const Expr &R) const;
  Expr ashr(const Expr &R) const;
  Expr zext(unsigned ExtraBits) const;
  Expr sext(unsigned ExtraBits) const;
  /// Bits [Low, High] (inclusive).
  Expr extract(unsigned High, unsigned Low) const;
  Expr concat(const Expr &Low) const;
  /// Conversions between Int and BV: the unsigned value of a bit-vector;
  /// an integer modulo 2^Bits.
  Expr bv2int() const;
  Expr int2bv(unsigned Bits) const;

  /// Z3's SMT-LIB text of the term.
  std::string toString() const;

  /// The Z3 term (for lib/SMT's own use).
  _Z3_ast *ast() const { return A; }
  static Expr fromAst(_Z3_ast *A);

private:
  explicit Expr(_Z3_ast *A);
  _Z3_ast *A = nullptr;
};

} // namespace incant::smt

#endif // INCANT_SMT_EXPR_H
