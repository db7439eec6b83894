//===- Evaluator.h - Evaluating a cat model in stages -----------*- C++ -*-===//
//
// An enumerator of candidate executions fixes their primitives in stages:
// most of them once per trace combination, rf per reads-from choice, co per
// coherence choice. A cat::Evaluator evaluates a model the same way: each
// relation a model computes has the level of the latest primitive it reads
// (Execution::setRelation's Level), and stage(X, L) computes only the
// registers of level L, keeping the lower ones from the previous stages.
// A check that fails at its own level forbids every execution that shares
// those primitives, so the enumerator can skip them all.
//
// While the primitives of the levels from L up are still being chosen,
// refutes() tells from bounds on them whether no completion can be
// allowed: a check whose expression grows with a level's primitives
// (acyclic/irreflexive/empty of a relation monotone in them) that already
// fails for a subset of every completion fails for them all; one whose
// expression shrinks as they grow and fails for a superset fails too.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_CAT_EVALUATOR_H
#define INCANT_CAT_EVALUATOR_H

#include "incant/Cat/Model.h"

#include <cstdint>
#include <memory>

namespace incant::cat {

class EvaluatorImpl;

class Evaluator {
public:
  explicit Evaluator(const Model &M);
  ~Evaluator();
  Evaluator(Evaluator &&) noexcept;
  Evaluator &operator=(Evaluator &&) noexcept;

  /// Computes the registers of level \p Level from \p X (the lower ones as
  /// the previous calls on this same X left them) and tests the checks of
  /// that level. False if one of them fails (the model forbids every
  /// execution with these primitives) or the model cannot be evaluated.
  bool stage(const Execution &X, unsigned Level);
  /// Takes the registers of the levels up to \p Level as the last stage()
  /// of them left them, for an X whose primitives of those levels have not
  /// changed since: the next finish() stages the levels above. False (and
  /// nothing kept) where they were not all staged for X's layout, or the
  /// model could not be evaluated: then stage again.
  bool keep(const Execution &X, unsigned Level);
  /// The verdict: stages the levels above the last one staged (a caller
  /// that changes a level's primitives stages it again first) and tests
  /// every check and flag.
  Verdict finish(const Execution &X);
  /// With the primitives of levels \p From and above set to bounds of a
  /// choice being made: true if a check that cannot recover fails. Bit L of
  /// \p UpperMask: level L holds a superset of every completion (else a
  /// subset). The levels below From are as the last stage() left them.
  bool refutes(const Execution &X, unsigned From, uint32_t UpperMask);
  /// Whether refutes() can ever answer true with these bounds for this
  /// layout (some check moves the right way with every level from From).
  bool canRefute(const Execution &X, unsigned From, uint32_t UpperMask);
  /// After stage(X, 0) of this X: adds to \p Out (sized to X's events)
  /// the pairs that every execution the model allows with these level-0
  /// primitives orders in co one way or the other, read from the model's
  /// checks `empty E \ (co | co^-1)` (co the primitive or its closure
  /// `co+`) whose E is of level 0. False, adding nothing, if it has none.
  bool coherenceOrdered(const Execution &X, Relation &Out);

private:
  std::unique_ptr<EvaluatorImpl> Impl;
};

} // namespace incant::cat

#endif // INCANT_CAT_EVALUATOR_H
