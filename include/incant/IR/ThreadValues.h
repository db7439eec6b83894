//===- ThreadValues.h - What one thread computes, symbolically --*- C++ -*-===//
//
// Symbolic evaluation of a function's registers for one (symbolic) thread:
// the value of every register at every point as an expression over thread
// ids, block ids, the geometry, parameters, variable addresses and loop
// iteration counters (SymExpr.h); the condition under which each block runs
// in the current iterations of its loops; and, for each loop, the registers
// that change from iteration to iteration.
//
//   - A value merged from several definitions (after an if/else) is a
//     select over the conditions under which control came from each
//     predecessor; a guarded definition `@p mov r, x` is `p ? x : r`.
//   - At a loop header, a register that the loop redefines is an induction
//     variable when each iteration adds the same loop-invariant step to it:
//     its value is start + iter * step, iter being the loop's iteration
//     counter (Symbol Iter). Any other loop-carried value is a LoopVar
//     symbol, whose start value and update loopVars() gives.
//   - A loop's bound comes from its exit condition: iteration k+1 exists
//     only if the back edge is taken in iteration k (backEdgeCond), which
//     for `i += s; if (i < n) goto header` is start + (k+1)*s < n.
//   - Loads, atomics, calls, shuffles and the like give Opaque symbols, one
//     per thread and instruction (per iteration when in a loop).
//
// Everything is computed on demand and memoized; the expressions live in
// the ExprPool given to the constructor.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_IR_THREADVALUES_H
#define INCANT_IR_THREADVALUES_H

#include "incant/IR/FunctionIR.h"
#include "incant/IR/SymExpr.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace incant::ir {

/// A register that a loop changes from iteration to iteration.
struct LoopVarInfo {
  unsigned Loop = NoNode;
  unsigned Reg = NoNode;
  ExprId Sym = NoExpr;    ///< The LoopVar symbol (its value in an iteration).
  ExprId Init = NoExpr;   ///< Its value on entry (iteration 0).
  ExprId Update = NoExpr; ///< Its value at the back edge, in terms of Sym.
  /// For an induction variable, Update - Sym, invariant in the loop (the
  /// register's value is then Init + iter * Step and Sym is not used; a
  /// geometric one, Sym shifted by a constant, is Init shifted by iter
  /// times it, with no Step).
  ExprId Step = NoExpr;
};

class ThreadValues {
public:
  /// \p Module is the module \p F belongs to (for variable declarations);
  /// both must outlive this object.
  ThreadValues(const ptx::Module &Module, const FunctionIR &F, ExprPool &Pool);

  const FunctionIR &function() const { return *F; }
  ExprPool &pool() { return *P; }

  /// The iteration counter of loop \p Loop (an index in loops()).
  ExprId iter(unsigned Loop);

  /// The value of operand \p Idx of instruction \p Item as the instruction
  /// reads it (for an Address operand, the address).
  ExprId operand(unsigned Item, unsigned Idx);
  /// For an Address operand with coordinates (`[surf, {%r1, %r2}]`), the
  /// value of its base (the handle) and of its \p K-th coordinate
  /// (NoExpr when there is none).
  ExprId addressBase(unsigned Item, unsigned Idx);
  ExprId addressCoordinate(unsigned Item, unsigned Idx, unsigned K);
  /// A value each thread chooses for itself at instruction \p Item (a
  /// per-thread unknown, such as the row of a tile a lane touches); \p
  /// Part tells several apart.
  ExprId choice(unsigned Item, unsigned Part, const std::string &What) {
    return opaque(Item, Part, What);
  }
  /// The value call instruction \p Item passes as its argument \p K
  /// (what its call sequence stored into that parameter), or NoExpr.
  ExprId callArgument(unsigned Item, unsigned K);
  /// Lane \p Lane of a vector argument (`st.param.v2.b32 [param1+0],
  /// {%r1, %r2}`; lane 0 of a scalar one), or NoExpr.
  ExprId callArgumentLane(unsigned Item, unsigned K, unsigned Lane);
  /// The value call instruction \p Item returns, as the ld.param after it
  /// reads it, or NoExpr when nothing reads it.
  ExprId callResult(unsigned Item);
  /// The value register \p Reg holds just before body item \p Item.
  ExprId regBefore(unsigned Reg, unsigned Item);
  /// The value of \p Reg on entry to / at the end of block \p Block.
  ExprId regAtEntry(unsigned Reg, unsigned Block);
  ExprId regAtEnd(unsigned Reg, unsigned Block);
  /// The value instruction \p Item leaves in register \p Reg (one of its
  /// definitions).
  ExprId defined(unsigned Item, unsigned Reg);

  /// Whether instruction \p Item's guard holds (true when unguarded).
  ExprId guard(unsigned Item);
  /// The condition under which control passes from block \p From to its
  /// successor \p To.
  ExprId edgeCond(unsigned From, unsigned To);
  /// The condition under which block \p Block runs, in the current
  /// iteration of every loop around it (false if unreachable).
  ExprId pathCond(unsigned Block);
  /// pathCond of the instruction's block and its guard.
  ExprId execCond(unsigned Item);
  /// The condition under which loop \p Loop is entered (control reaches its
  /// header from outside the loop).
  ExprId loopEntryCond(unsigned Loop);
  /// The condition under which iteration iter(Loop) + 1 follows iteration
  /// iter(Loop): some latch runs and takes the back edge.
  ExprId backEdgeCond(unsigned Loop);

  /// A point where a loop stops: its back edge needs `X != Y`, and X - Y
  /// is Coeff * iter + Rest (Rest the same in every iteration), so the loop
  /// stops in the iteration j where Coeff * j + Rest == 0, if there is one
  /// (nvcc's `i != n` loops after unrolling).
  struct StopPoint {
    int64_t Coeff = 0;
    ExprId Rest = NoExpr;
  };
  std::vector<StopPoint> stopPoints(unsigned Loop);

  /// Every loop-carried register found so far (registers at headers of
  /// loops that redefine them), induction variables included.
  const std::vector<LoopVarInfo> &loopVars() const { return LoopVars; }
  /// The record of a LoopVar symbol, or null.
  const LoopVarInfo *loopVarOf(unsigned Symbol) const;

  /// Whether symbol \p S can have another value in each iteration of loop
  /// \p Loop: its iteration counter or that of a loop inside it, a
  /// loop-carried value of such a loop, or an opaque value made inside it.
  bool variesIn(const Symbol &S, unsigned Loop) const;
  /// The innermost loop whose iterations give \p S another value, or NoNode.
  unsigned ownerLoop(const Symbol &S) const;

  /// The register numbered by an operand name at an instruction (through
  /// the instruction's uses and definitions), or NoNode.
  unsigned regOf(unsigned Item, const std::string &Name) const;

  /// The variable declaration named \p Name (function body first, then
  /// module level), or null.
  const ptx::Variable *findVariable(const std::string &Name) const;
  /// Whether \p Name is a parameter of the function.
  bool isParam(const std::string &Name) const;

private:
  ExprId opaque(unsigned Item, unsigned Part, const std::string &What,
                bool IsBool = false, bool Uniform = false);
  ExprId special(const std::string &Name, unsigned Item);
  ExprId value(unsigned Item, const ptx::Operand &O);
  ExprId compute(unsigned Item, unsigned Reg);
  /// One result register of one instruction, while compute() gives it its
  /// value: which of the results it is, and whether it is a predicate.
  struct Def {
    unsigned Item;
    unsigned Part;  ///< Its place among the instruction's results.
    bool InList;    ///< The results are a vector or a list, not a pair.
    bool Bool;      ///< A .pred register.
    const ptx::Instruction &I;
  };
  Def defOf(unsigned Item, unsigned Reg) const;
  ExprId source(const Def &D, unsigned K);
  ExprId opaqueResult(const Def &D, const std::string &What);
  ExprId pureResult(const Def &D, const std::string &What);
  ExprId arithmeticValue(const Def &D);
  ExprId logicValue(const Def &D);
  ExprId compareValue(const Def &D);
  ExprId loadValue(const Def &D);
  ExprId otherValue(const Def &D);
  ExprId bitFieldInsertValue(const Def &D);
  ExprId merge(unsigned Block, const std::vector<unsigned> &Preds,
               const std::vector<ExprId> &Vals);
  ExprId headerValue(unsigned Reg, unsigned Loop);
  /// A loop-carried value whose back-edge value \p Update is \p Sym
  /// shifted by a constant: its value in iteration iter(Loop).
  std::optional<ExprId> geometric(ExprId Sym, ExprId Start, ExprId Update,
                                  unsigned Loop);
  /// The value stored by the latest st.param to \p Var + \p Offset before
  /// \p Item, or NoExpr.
  ExprId paramStore(unsigned Item, const std::string &Var, int64_t Offset);
  bool loopDefines(unsigned Loop, unsigned Reg) const;
  bool joins(unsigned From, unsigned Block) const;
  bool isBackEdge(unsigned From, unsigned To) const;
  void remember(std::pair<unsigned, unsigned> Key, ExprId V, bool Entry);

  const ptx::Module *M;
  const FunctionIR *F;
  ExprPool *P;
  std::map<std::pair<unsigned, unsigned>, ExprId> EntryMemo; ///< (reg, block)
  std::map<std::pair<unsigned, unsigned>, ExprId> DefMemo;   ///< (item, reg)
  /// Memo keys in the order they were added (bool: EntryMemo), so that the
  /// values computed while an induction variable was a placeholder can be
  /// dropped once it is known.
  std::vector<std::pair<std::pair<unsigned, unsigned>, bool>> Journal;
  /// (reg, block) being computed -> Placeholders when it started.
  std::map<std::pair<unsigned, unsigned>, unsigned> InProgress;
  unsigned Placeholders = 0;
  std::vector<ExprId> PathMemo;
  std::vector<char> PathBusy;
  std::vector<LoopVarInfo> LoopVars;
  std::map<unsigned, unsigned> LoopVarBySym;
  std::vector<std::vector<unsigned>> LoopNest; ///< Loops containing each loop
};

} // namespace incant::ir

#endif // INCANT_IR_THREADVALUES_H
