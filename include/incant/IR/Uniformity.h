//===- Uniformity.h - What depends on the thread ----------------*- C++ -*-===//
//
// A divergence analysis over the IR: for every register, whether all threads
// of the grid hold the same value (Grid: parameters, %ntid, %nctaid), all
// threads of one CTA do (Block: %ctaid and what follows from it), or it may
// differ from thread to thread (Thread: %tid, %laneid, loaded values,
// atomics' results, ...). A value is as variant as its operands, and as the
// branches that decide whether its definition runs (sync dependence: a
// register defined on one side of a thread-dependent branch differs after
// the join; one defined in a loop whose exit depends on the thread differs
// after the loop).
//
// Loads are Thread-variant (memory may differ between threads' reads),
// except ld.param and ld.const through a uniform address; a load of a
// body-level .param variable (an inlined call's argument or result) is as
// variant as the stores to that variable. Control dependence comes from
// post-dominators: block B depends on branch block P
// when B post-dominates a successor of P but not P itself.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_IR_UNIFORMITY_H
#define INCANT_IR_UNIFORMITY_H

#include "incant/IR/FunctionIR.h"

#include <cstdint>
#include <vector>

namespace incant::ir {

/// How far a value may differ between threads.
enum class Variance : uint8_t { Grid = 0, Block = 1, Thread = 2 };
/// "grid", "block", "thread".
const char *varianceName(Variance V);

class Uniformity {
public:
  explicit Uniformity(const FunctionIR &F);

  Variance reg(unsigned Reg) const { return Regs[Reg]; }
  /// The variance of the condition of the branch that ends block \p Block
  /// (Grid for an unconditional one).
  Variance branch(unsigned Block) const { return Branch[Block]; }
  /// The variance of whether block \p Block runs: the worst over the
  /// branches it is control dependent on, transitively.
  Variance control(unsigned Block) const { return Control[Block]; }
  /// The branch blocks \p Block is directly control dependent on.
  const std::vector<unsigned> &controlDeps(unsigned Block) const {
    return Deps[Block];
  }
  /// The variance of whether instruction \p Item runs: its block's
  /// control and its guard.
  Variance exec(unsigned Item) const;

private:
  Variance operandVariance(unsigned Item) const;
  /// Whether a load's address names one of the function's parameters.
  bool readsParameter(const ptx::Instruction &I) const;
  /// The variance of what a load from a body-level .param variable reads
  /// (an inlined call's argument or result): that of the latest store to
  /// the variable that dominates the load; Thread when a call writes it,
  /// the store is guarded, or there is none.
  Variance bodyParamVariance(unsigned LoadItem) const;

  const FunctionIR *F;
  std::vector<Variance> Regs, Branch, Control;
  std::vector<std::vector<unsigned>> Deps;
};

} // namespace incant::ir

#endif // INCANT_IR_UNIFORMITY_H
