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
// after the loop). Each use reads the definitions that reach it, so a
// register given a thread's own value on one path and a uniform one again
// later is uniform after the second definition.
//
// Loads are Thread-variant (memory may differ between threads' reads),
// except ld.param and ld.const through a uniform address; a load of a
// body-level .param variable (an inlined call's argument or result) is as
// variant as the stores to that variable. A client that knows more of
// memory (what the kernel never writes, what a barrier publishes to every
// thread alike) says so through a LoadVariance: how far the value a load
// or atomic returns may differ between threads that give it one address. Control dependence comes from
// post-dominators: block B depends on branch block P
// when B post-dominates a successor of P but not P itself.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_IR_UNIFORMITY_H
#define INCANT_IR_UNIFORMITY_H

#include "incant/IR/FunctionIR.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <vector>

namespace incant::ir {

/// How far a value may differ between threads.
enum class Variance : uint8_t { Grid = 0, Block = 1, Thread = 2 };
/// "grid", "block", "thread".
const char *varianceName(Variance V);

class Uniformity {
public:
  /// For the load, ldu or atomic at body item Item: how far the value it
  /// returns may differ between threads whose addresses are equal, or none
  /// where nothing is known (the value is then Thread-variant). The
  /// result's variance is the worse of that and the address's.
  using LoadVariance = std::function<std::optional<Variance>(unsigned Item)>;

  explicit Uniformity(const FunctionIR &F, LoadVariance KnownLoad = nullptr);

  /// The worst over every definition of \p Reg.
  Variance reg(unsigned Reg) const { return Regs[Reg]; }
  /// The variance of \p Reg as instruction \p Item reads it: the worst
  /// over the definitions that reach it (a register nvcc reuses is only
  /// as variant as the definitions that reach each use).
  Variance at(unsigned Reg, unsigned Item) const;
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
  std::map<unsigned, std::optional<Variance>> KnownLoads;
  /// The variance of the value each defining instruction writes.
  std::map<unsigned, Variance> DefVar;
  /// Reaching definitions of registers with more than one, by (register,
  /// instruction), filled as uses are asked about.
  mutable std::map<std::pair<unsigned, unsigned>, std::vector<unsigned>>
      Reaching;
  std::vector<Variance> Regs, Branch, Control;
  std::vector<std::vector<unsigned>> Deps;
};

} // namespace incant::ir

#endif // INCANT_IR_UNIFORMITY_H
