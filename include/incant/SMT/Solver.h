//===- Solver.h - Satisfiability and weighted MaxSAT through Z3 -*- C++ -*-===//
//
// A solver answer is never a bool (Alive2's habit): a Result is sat with a
// Model, unsat, or unknown with the reason Z3 gave ("timeout", "canceled",
// "incomplete quantifiers", ...), or an error with Z3's message. Callers
// that prove something must treat unknown as "not proved".
//
//   smt::Solver S;
//   S.add(X.lt(Expr::mkInt(10)));
//   smt::Result R = S.check();
//   if (R.isSat()) use(R.model().evalInt(X));
//
// MaxSat: hard constraints that must hold and soft ones with weights; the
// answer is a model that satisfies every hard constraint and violates soft
// constraints of least total weight (weighted partial MaxSAT, Z3's
// Optimize). Barrier repair (GPURepair's algorithm) builds on it.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_SMT_SOLVER_H
#define INCANT_SMT_SOLVER_H

#include "incant/SMT/Expr.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct _Z3_model;
struct _Z3_solver;
struct _Z3_optimize;

namespace incant::smt {

/// An assignment of values to the variables of a satisfiable formula.
class Model {
public:
  Model() = default;
  Model(const Model &Other);
  Model &operator=(const Model &Other);
  ~Model();

  bool isValid() const { return M != nullptr; }
  /// The value of \p E in the model; variables the model leaves open get
  /// a default value (model completion). nullopt if E does not evaluate to
  /// a constant that fits.
  std::optional<int64_t> evalInt(const Expr &E) const;
  std::optional<uint64_t> evalUInt(const Expr &E) const;
  std::optional<bool> evalBool(const Expr &E) const;
  /// The term \p E evaluates to.
  Expr eval(const Expr &E) const;
  std::string toString() const;

  explicit Model(_Z3_model *M);

private:
  _Z3_model *M = nullptr;
};

class Result {
public:
  enum Kind { Sat, Unsat, Unknown, Error };

  static Result sat(Model M, uint64_t Cost = 0);
  static Result unsat();
  static Result unknown(std::string Reason);
  static Result error(std::string Message);

  Kind kind() const { return K; }
  bool isSat() const { return K == Sat; }
  bool isUnsat() const { return K == Unsat; }
  bool isUnknown() const { return K == Unknown; }
  bool isError() const { return K == Error; }
  /// Whether Z3 gave up because of the time limit.
  bool isTimeout() const;
  /// With Sat.
  const Model &model() const { return M; }
  /// With MaxSat's Sat: the total weight of the violated soft constraints.
  uint64_t cost() const { return Cost; }
  /// With Unknown: why; with Error: the message.
  const std::string &reason() const { return Reason; }
  /// "sat", "unsat", "unknown (timeout)", "error (...)".
  std::string str() const;

private:
  Kind K = Unknown;
  Model M;
  uint64_t Cost = 0;
  std::string Reason;
};

struct Limits {
  /// Wall-clock limit of one check, in milliseconds; 0: none.
  unsigned TimeoutMs = 0;
  /// Z3's deterministic resource limit (rlimit) of one check; 0: none.
  /// Unlike a timeout it gives the same answer on a slow machine.
  uint64_t ResourceLimit = 0;
};

/// An incremental solver for quantifier-free formulas.
class Solver {
public:
  explicit Solver(Limits L = {});
  Solver(const Solver &) = delete;
  Solver &operator=(const Solver &) = delete;
  ~Solver();

  void add(const Expr &E);
  /// Opens a scope; pop() removes what was added since the matching push.
  void push();
  void pop(unsigned Scopes = 1);
  unsigned scopes() const { return Depth; }
  void setLimits(Limits L);

  Result check();
  /// Checks with \p Assumptions (boolean terms) holding for this check only.
  Result check(const std::vector<Expr> &Assumptions);

private:
  _Z3_solver *S = nullptr;
  unsigned Depth = 0;
  Limits Lim;
};

/// Weighted partial MaxSAT (and MaxSMT: constraints may be any boolean
/// terms, over any sorts).
class MaxSat {
public:
  explicit MaxSat(Limits L = {});
  MaxSat(const MaxSat &) = delete;
  MaxSat &operator=(const MaxSat &) = delete;
  ~MaxSat();

  void addHard(const Expr &E);
  /// A constraint that should hold; violating it costs \p Weight (> 0).
  void addSoft(const Expr &E, uint64_t Weight = 1);
  /// Sat: a model of the hard constraints with least cost (Result::cost);
  /// Unsat: the hard constraints contradict each other.
  Result check();

private:
  _Z3_optimize *O = nullptr;
  Limits Lim;
  std::vector<std::pair<Expr, uint64_t>> Soft;
};

/// The Z3 version linked in: "4.8.12".
std::string z3Version();

} // namespace incant::smt

#endif // INCANT_SMT_SOLVER_H
