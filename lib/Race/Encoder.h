//===- Encoder.h - IR expressions as SMT formulas for two threads ---------===//
//
// Turns ThreadValues expressions into integer SMT terms for one of two
// symbolic threads (0 = A, 1 = B), and a third (2 = C) that
// synchronisation through memory may bring in; threads 3 and up are
// copies of A or B at other iterations (named barriers). Thread-local symbols (tid, ctaid, loop
// counters, opaque values) get one variable per thread; grid-uniform ones
// (ntid, nctaid, parameters) one shared variable, or the constant the
// launch configuration gives.
//
// A frame may also stand for the previous iteration of a loop (for the
// constraint that iteration k exists only if the back edge was taken in
// iteration k-1): there, that loop's counter is k-1 and every value that
// changes with its iterations is a fresh variable.
//
// The formulas stay in linear integer arithmetic, which Z3 decides
// quickly: a product of two non-constant terms becomes a variable, and
// lemmas() gives the facts that relate such variables (signs, monotonicity,
// and for two products that differ in one factor, a*r - b*r >= r when
// a > b and r >= 0). Division and remainder get quotient and remainder
// variables; bitwise operations with constants are spelled with them.
// A model may violate a product; validModel() says whether it does.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_LIB_RACE_ENCODER_H
#define INCANT_LIB_RACE_ENCODER_H

#include "incant/IR/ThreadValues.h"
#include "incant/IR/Uniformity.h"
#include "incant/Race/Race.h"
#include "incant/SMT/Solver.h"

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace incant::race {

/// A thread and, optionally, the loop whose previous iteration the frame
/// describes.
struct Frame {
  unsigned Thread = 0;
  unsigned ShiftLoop = ir::NoNode;
  friend bool operator<(const Frame &A, const Frame &B) {
    return A.Thread != B.Thread ? A.Thread < B.Thread
                                : A.ShiftLoop < B.ShiftLoop;
  }
};

class Encoder {
public:
  Encoder(ir::ThreadValues &TV, const LaunchConfig &Launch);

  ir::ThreadValues &values() { return *TV; }
  ir::ExprPool &pool() { return TV->pool(); }

  /// The SMT term of \p E in frame \p Fr (Int, or Bool for predicates).
  smt::Expr encode(Frame Fr, ir::ExprId E);
  /// The variable of a symbol in a frame.
  smt::Expr symbolVar(Frame Fr, unsigned Sym);
  /// The iteration counter of \p Loop for thread \p Thread.
  smt::Expr iter(unsigned Thread, unsigned Loop);
  /// Thread \p T's ids, and the geometry.
  smt::Expr tid(unsigned T, unsigned Dim);
  smt::Expr ctaid(unsigned T, unsigned Dim);
  smt::Expr ntid(unsigned Dim);
  smt::Expr nctaid(unsigned Dim);
  /// The thread's linear id in its CTA and its warp number (id / 32).
  smt::Expr linearTid(unsigned T);
  smt::Expr warp(unsigned T);

  /// Facts every launch satisfies: geometry limits, ids within them (of
  /// threads 0 and 1).
  std::vector<smt::Expr> launchFacts();
  /// Thread \p T's ids in dimension \p D are within the geometry.
  smt::Expr idFacts(unsigned T, unsigned D);
  /// Iteration \p k of \p Loop exists for thread \p T: k == 0, or the back
  /// edge was taken in iteration k-1 (with the values of that iteration).
  smt::Expr iterationExists(unsigned T, unsigned Loop);
  /// The loops whose counters thread \p T's formulas mention (base frame).
  std::vector<unsigned> loopsUsed(unsigned T) const;

  /// Definitions collected while encoding (quotients, remainders, starting
  /// values of loop-carried variables, counters >= 0); take them after
  /// encoding a query.
  std::vector<smt::Expr> takeSideConditions();
  /// The lemmas of the products made since the last call (and between
  /// them and the older ones).
  std::vector<smt::Expr> lemmas();
  /// Whether \p M gives every product variable the product of its factors.
  bool validModel(const smt::Model &M) const;

  /// One thread's value of a loop-carried variable in one frame, and the
  /// iteration of its loop it belongs to.
  struct LoopVarInstance {
    unsigned Sym;
    Frame Fr;
    smt::Expr Var, Iter;
  };
  const std::vector<LoopVarInstance> &loopVarInstances() const {
    return Instances;
  }

  /// Symbols encoded in thread \p T's base frame (pool indices).
  const std::vector<unsigned> &symbolsUsed(unsigned T) const {
    return Used[T];
  }
  /// Whether a frame's formulas use values the analysis only bounds
  /// (loop-carried values other than induction variables, shifts by
  /// variables, bitwise operations with variables).
  bool approximated() const { return Approx; }
  /// The shifts by amounts only the solver knows that this encoder has
  /// encoded, by frame and node, with their amounts.
  const std::map<std::pair<Frame, ir::ExprId>, smt::Expr> &
  variableShifts() const {
    return ShiftAmounts;
  }
  /// Encode those shifts by the given amounts (each a side fact), which
  /// makes them products by constants.
  void fixShifts(std::map<std::pair<Frame, ir::ExprId>, int64_t> Amounts) {
    FixedShifts = std::move(Amounts);
  }

private:
  smt::Expr encodeNode(Frame Fr, ir::ExprId E);
  /// X << K or X >> K (\p Left) for an amount K only the solver knows (a
  /// geometric loop variable: start << c * iteration), node \p E of frame
  /// \p Fr: one exact case per amount, or the amount fixShifts() gave.
  smt::Expr variableShift(Frame Fr, ir::ExprId E, const smt::Expr &X,
                          const smt::Expr &K, bool Left);
  smt::Expr product(std::vector<smt::Expr> Factors);
  smt::Expr divRem(const smt::Expr &X, const smt::Expr &D, bool Signed,
                   bool WantRem);
  /// x & c, x | c, x ^ c; \p Known: the bits x may have, when bitsOf knows
  /// them.
  smt::Expr bitOp(ir::Op O, const smt::Expr &X, int64_t C,
                  std::optional<uint64_t> Known);
  /// x & y, x | y, x ^ y of two non-constant operands, exactly when one of
  /// them is known to have few possible one bits (bitsOf); else null.
  smt::Expr bitwise(ir::Op O, ir::ExprId EX, ir::ExprId EY, const smt::Expr &X,
                    const smt::Expr &Y);

public:
  /// The bits \p E may have set, when it is known to be non-negative and
  /// below 2^63: thread and block ids and sizes (the launch limits, or the
  /// launch given), constants, and what masks, shifts, sums, remainders
  /// and quotients by constants make of them.
  std::optional<uint64_t> bitsOf(ir::ExprId E);

private:
  smt::Expr fresh(const std::string &Name, bool Bool = false);
  /// Bounds \p V to what a parameter of PTX type \p Type holds (8, 16
  /// and 32 bits; wider ones are left unbounded).
  void boundToType(const smt::Expr &V, const std::string &Type);
  /// \p V (the encoding of \p E) as an unsigned comparison of Width-bit
  /// registers reads it: modulo 2^Width.
  smt::Expr asUnsigned(ir::ExprId E, const smt::Expr &V, unsigned Width);
  std::string frameKey(Frame Fr) const;

  ir::ThreadValues *TV;
  LaunchConfig Launch;
  /// variableShift()'s amounts by (frame, node), and those fixShifts()
  /// gave.
  std::map<std::pair<Frame, ir::ExprId>, smt::Expr> ShiftAmounts;
  std::map<std::pair<Frame, ir::ExprId>, int64_t> FixedShifts;
  std::map<std::pair<Frame, ir::ExprId>, smt::Expr> Memo;
  std::map<ir::ExprId, std::optional<uint64_t>> Bits;
  /// The 0/1 variables of a value's bits 0..Top (constant 0 outside the
  /// mask it was made for), by the value's term.
  const std::vector<smt::Expr> &bitsOfValue(const smt::Expr &V, unsigned Top,
                                            uint64_t M);
  std::map<std::pair<void *, unsigned>, std::vector<smt::Expr>> BitVars;
  struct BitResult {
    smt::Expr Value;
    std::vector<smt::Expr> Bits;
  };
  std::vector<BitResult> BitResults;
  std::map<std::pair<Frame, unsigned>, smt::Expr> SymVars;
  std::vector<smt::Expr> Side;
  struct Product {
    std::vector<smt::Expr> Factors; ///< Sorted by term identity.
    smt::Expr Var;
  };
  std::vector<Product> Products;
  size_t LemmasDone = 0;
  std::set<std::pair<unsigned, unsigned>> IterMade;
  std::map<std::vector<void *>, unsigned> ProductIndex;
  std::vector<unsigned> Used[3];
  std::vector<LoopVarInstance> Instances;
  std::vector<char> UsedLoops[3];
  bool Approx = false;
  unsigned Fresh = 0;
};

} // namespace incant::race

#endif // INCANT_LIB_RACE_ENCODER_H
