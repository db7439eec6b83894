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
// At the top level (co), refutes() tells from a partial coherence order
// whether no completion of it can be allowed: a check whose expression
// grows with co (acyclic/irreflexive/empty of a co-monotone relation) that
// already fails for a subset of the final co fails for it too; one whose
// expression shrinks as co grows and fails for a superset fails too.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_CAT_EVALUATOR_H
#define INCANT_CAT_EVALUATOR_H

#include "incant/Cat/Model.h"

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
  /// The verdict once every level is staged: computes the top level and
  /// tests every check and flag.
  Verdict finish(const Execution &X);
  /// With the top-level primitives of \p X set from a partial choice: true
  /// if a check that cannot recover fails. \p Upper: X holds a superset of
  /// every completion (test the checks that co shrinks); else a subset
  /// (test the ones co grows).
  bool refutes(const Execution &X, bool Upper);
  /// Whether refutes() can ever answer true for this layout (some check is
  /// monotone or antitone in the top level).
  bool canRefute(const Execution &X, bool Upper);

private:
  std::unique_ptr<EvaluatorImpl> Impl;
};

} // namespace incant::cat

#endif // INCANT_CAT_EVALUATOR_H
