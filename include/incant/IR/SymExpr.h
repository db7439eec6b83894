//===- SymExpr.h - Symbolic values of a kernel's registers ------*- C++ -*-===//
//
// What a register holds, as an expression over symbols that stand for what
// one thread of a launch knows: its thread and block ids, the launch
// geometry, the kernel's parameters, the addresses of variables, the
// iteration counters of the loops it is in, and values the analysis does
// not follow (loaded from memory, returned by calls). ThreadValues.h
// builds them from the IR; race checking turns them into SMT formulas for
// two symbolic threads (lib/Race).
//
// Values are mathematical integers: `add.s32` is +, `mul.wide` is *, `cvt`
// between integer types is the identity. That is exact as long as no
// arithmetic wraps around, which the analyses assume (docs/race.md).
// Predicates (setp, and.pred, ...) are boolean expressions.
//
// Expressions live in an ExprPool, hash-consed (one id per distinct
// expression) and simplified as they are built: constants fold, x + 0 and
// x * 1 vanish, sums and products are flattened and sorted, so that equal
// polynomials get one id. The affine view (AffineForm) writes an integer
// expression as a sum of coefficient * monomial, a monomial being a product
// of symbols and of "atoms" (non-polynomial subexpressions: a division, a
// select, ...).
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_IR_SYMEXPR_H
#define INCANT_IR_SYMEXPR_H

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace incant::ir {

using ExprId = unsigned;
inline constexpr ExprId NoExpr = ~0u;

enum class SymKind : uint8_t {
  Tid,    ///< %tid.x/y/z (Dim)
  Ctaid,  ///< %ctaid.x/y/z
  Ntid,   ///< %ntid.x/y/z (same for the whole grid)
  Nctaid, ///< %nctaid.x/y/z
  /// The value of kernel parameter Name (bytes [Offset, Offset+size) of it;
  /// 0 for a scalar).
  Param,
  /// The address of variable Name (.shared, .global, .const, .local).
  VarAddr,
  /// The iteration number (0, 1, ...) of loop Loop in the thread's current
  /// execution of it.
  Iter,
  /// The value register Reg holds at the header of loop Loop in the current
  /// iteration, when it changes from iteration to iteration (see
  /// ThreadValues::loopVar for its start value and update).
  LoopVar,
  /// A value the analysis does not follow, made by instruction Item (a
  /// load, an atomic, a call, a shuffle, %clock, ...): each thread has its
  /// own unless Uniform.
  Opaque,
};

/// "tid", "ctaid", ... ("param", "var", "iter", "loopvar", "opaque").
const char *symKindName(SymKind K);

struct Symbol {
  SymKind K = SymKind::Opaque;
  uint8_t Dim = 0;        ///< x, y, z: 0, 1, 2.
  bool IsBool = false;    ///< An opaque predicate.
  /// Opaque: the same for every thread of the grid (%nsmid,
  /// %dynamic_smem_size, a parameter-space load through a register).
  bool Uniform = false;
  unsigned Loop = ~0u;    ///< Iter, LoopVar: index in LoopInfo::loops().
  unsigned Reg = ~0u;     ///< LoopVar: the register.
  unsigned Item = ~0u;    ///< Opaque: the body index of its instruction.
  unsigned Part = 0;      ///< Opaque: which of the instruction's results.
  int64_t Offset = 0;     ///< Param: byte offset inside the parameter.
  std::string Name;       ///< Param, VarAddr; Opaque: what made it ("ld.global").
  friend bool operator==(const Symbol &, const Symbol &) = default;
  /// Whether every thread of the grid sees the same value.
  bool isGridUniform() const;
};

enum class Op : uint8_t {
  // Integer-valued.
  Const, Sym,
  Add, Mul, ///< n-ary, flattened, operands sorted
  Div, Rem, ///< truncating (C's) for Signed, else of non-negative values
  Shl, Shr, ///< Shr: arithmetic if Signed
  And, Or, Xor,
  Min, Max,
  Select,   ///< Ops: condition (bool), then, else
  // Boolean-valued.
  BoolConst, ///< Value 0 or 1
  Cmp,       ///< Ops: lhs, rhs; Cmp says which comparison
  BoolAnd, BoolOr, BoolNot, BoolXor,
};

enum class CmpKind : uint8_t { Eq, Ne, Lt, Le, Gt, Ge };

struct ExprNode {
  Op O = Op::Const;
  bool Signed = false;       ///< Div, Rem, Shr, Min, Max, Cmp (Lt..Ge)
  CmpKind Cmp = CmpKind::Eq; ///< Cmp
  /// Cmp, unsigned: the width in bits of the registers compared (0: as
  /// integers). The operands are compared modulo 2^Width, as the machine
  /// compares their bits: a value that is negative as an integer is large
  /// as an unsigned one (`b + threadIdx.x < n` with b = -2).
  uint8_t Width = 0;
  int64_t Value = 0;         ///< Const, BoolConst
  unsigned Sym = ~0u;        ///< Sym: index into the pool's symbols
  std::vector<ExprId> Ops;
  friend bool operator==(const ExprNode &, const ExprNode &) = default;
};

/// An integer expression as sum(Coeff * monomial) + Const. A monomial is a
/// sorted list of expression ids, each a symbol or an atom (an integer
/// expression that is not a sum, product or constant); [] is never a key.
struct AffineForm {
  std::map<std::vector<ExprId>, int64_t> Terms;
  int64_t Const = 0;
  bool isConstant() const { return Terms.empty(); }
};

class ExprPool {
public:
  ExprPool();

  const ExprNode &node(ExprId E) const { return Nodes[E]; }
  const Symbol &symbol(unsigned S) const { return Syms[S]; }
  unsigned symbolCount() const { return static_cast<unsigned>(Syms.size()); }
  size_t size() const { return Nodes.size(); }
  bool isBool(ExprId E) const;
  /// The symbol an expression is, or null.
  const Symbol *asSymbol(ExprId E) const;
  std::optional<int64_t> asConst(ExprId E) const;
  std::optional<bool> asBoolConst(ExprId E) const;

  // Builders (simplifying).
  ExprId constant(int64_t V);
  ExprId boolConst(bool B);
  ExprId sym(const Symbol &S);
  ExprId add(ExprId A, ExprId B);
  ExprId sub(ExprId A, ExprId B);
  ExprId mul(ExprId A, ExprId B);
  ExprId neg(ExprId A);
  ExprId div(ExprId A, ExprId B, bool Signed);
  ExprId rem(ExprId A, ExprId B, bool Signed);
  ExprId shl(ExprId A, ExprId B);
  ExprId shr(ExprId A, ExprId B, bool Signed);
  ExprId bitAnd(ExprId A, ExprId B);
  ExprId bitOr(ExprId A, ExprId B);
  ExprId bitXor(ExprId A, ExprId B);
  ExprId bitNot(ExprId A);
  ExprId min(ExprId A, ExprId B, bool Signed);
  ExprId max(ExprId A, ExprId B, bool Signed);
  ExprId select(ExprId Cond, ExprId Then, ExprId Else);
  ExprId cmp(CmpKind K, ExprId A, ExprId B, bool Signed, unsigned Width = 0);
  ExprId land(ExprId A, ExprId B);
  ExprId lor(ExprId A, ExprId B);
  ExprId lnot(ExprId A);
  ExprId lxor(ExprId A, ExprId B);

  /// The affine view of an integer expression.
  AffineForm affine(ExprId E) const;
  /// Builds the expression of an affine form.
  ExprId fromAffine(const AffineForm &F);

  /// Whether a symbol satisfying \p Pred occurs in \p E.
  template <typename P> bool mentions(ExprId E, P Pred) const {
    std::vector<char> Seen(Nodes.size(), 0);
    return mentionsImpl(E, Pred, Seen);
  }
  /// The symbols occurring in \p E (indices), in increasing order.
  std::vector<unsigned> symbolsOf(ExprId E) const {
    return symbolsOf(std::vector<ExprId>{E});
  }
  /// The symbols occurring in any of \p Es, each once, in increasing order.
  std::vector<unsigned> symbolsOf(const std::vector<ExprId> &Es) const;

  /// Readable text: "4*tid.x + s", "(tid.x < 32)", "ld.global@12".
  std::string str(ExprId E) const;
  std::string symbolName(unsigned S) const;

private:
  ExprId make(ExprNode N);
  bool complementary(ExprId A, ExprId B) const;
  ExprId flat(Op O, std::vector<ExprId> Ops);
  template <typename P>
  bool mentionsImpl(ExprId E, P &Pred, std::vector<char> &Seen) const {
    if (Seen[E])
      return false;
    Seen[E] = 1;
    const ExprNode &N = Nodes[E];
    if (N.O == Op::Sym)
      return Pred(Syms[N.Sym]);
    for (ExprId A : N.Ops)
      if (mentionsImpl(A, Pred, Seen))
        return true;
    return false;
  }

  struct NodeHash {
    size_t operator()(const ExprNode &N) const;
  };
  std::vector<ExprNode> Nodes;
  std::unordered_map<ExprNode, ExprId, NodeHash> Index;
  std::vector<Symbol> Syms;
  std::unordered_map<std::string, unsigned> SymIndex;
};

} // namespace incant::ir

#endif // INCANT_IR_SYMEXPR_H
