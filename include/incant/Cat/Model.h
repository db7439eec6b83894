//===- Model.h - A memory model written in the cat language -----*- C++ -*-===//
//
// A cat::Model is a parsed and resolved .cat file (with its includes). It is
// evaluated on an Execution: a number of events plus the primitive sets and
// relations that the enumerator (model::) computes. The interpreter knows
// nothing of PTX or litmus tests; docs/cat.md lists the primitive names.
//
// Usage:
//   DiagnosticEngine Diags(&std::cerr);
//   std::optional<cat::Model> M = cat::Model::load("models/ptx.cat", Diags);
//   cat::Execution X(NumEvents);
//   X.setSet("R", Reads); X.setRelation("po", Po); ...
//   cat::Verdict V = M->evaluate(X);
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_CAT_MODEL_H
#define INCANT_CAT_MODEL_H

#include "incant/Cat/Relation.h"
#include "incant/Support/Diagnostic.h"

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace incant::cat {

/// The primitive facts of one candidate execution.
class Execution {
public:
  explicit Execution(unsigned NumEvents) : N(NumEvents) {}
  unsigned numEvents() const { return N; }
  /// Gives the execution \p NumEvents events, every set and relation empty,
  /// keeping their names, levels and order (and so layoutKey()): an
  /// enumerator reuses one execution for executions of any size.
  void resize(unsigned NumEvents);
  void setSet(const std::string &Name, EventSet S);
  /// \p Level: the stage at which the enumerator fills this relation (0:
  /// fixed for the execution's events; higher: refilled more often, e.g.
  /// rf at 1 and co at 2). cat::Evaluator evaluates by these levels.
  /// \p Transitive: every value the enumerator gives is transitively
  /// closed, so `R+` is R (cat::Evaluator then keeps bounds on R tight).
  void setRelation(const std::string &Name, Relation R, uint8_t Level = 0,
                   bool Transitive = false);
  const EventSet *set(const std::string &Name) const;
  const Relation *relation(const std::string &Name) const;

  struct NamedSet {
    std::string Name;
    EventSet S;
  };
  struct NamedRelation {
    std::string Name;
    Relation R;
    uint8_t Level = 0;
    bool Transitive = false;
  };
  const std::vector<NamedSet> &sets() const { return Sets; }
  const std::vector<NamedRelation> &relations() const { return Rels; }
  /// Entry \p I of relations(), to refill in place between evaluations: the
  /// layout (and so a Model's binding) stays the same. The enumerator uses it
  /// for rf, co and what derives from them.
  Relation &relationAt(size_t I) { return Rels[I].R; }
  /// Entry \p I of sets(), likewise.
  EventSet &setAt(size_t I) { return Sets[I].S; }

  /// A hash of the names set so far, in order (sets and relations apart).
  /// Executions built with the same names in the same order share it; a
  /// Model binds primitive names to positions once per key. Setting a name
  /// that is already set appends a new entry, which wins over the old one.
  uint64_t layoutKey() const { return Key; }

private:
  unsigned N;
  uint64_t Key = 0x9e3779b97f4a7c15ull;
  std::vector<NamedSet> Sets;
  std::vector<NamedRelation> Rels;
};

/// What a model says of one execution.
struct Verdict {
  bool Allowed = true;
  /// Names (or "line:col" where unnamed) of the checks that failed.
  std::vector<std::string> FailedChecks;
  /// Names of `flag` checks that fired (do not affect Allowed).
  std::vector<std::string> Flags;
  /// Set when the model could not be evaluated on this execution (a
  /// primitive it needs is missing or has the wrong number of events, or a
  /// `let rec` did not converge); Allowed is then false.
  std::string Error;
};

class ModelImpl;

class Model {
public:
  /// Parses \p Path (and what it includes, searched beside it and in
  /// \p IncludeDirs). Reports errors to \p Diags and returns nullopt on any.
  static std::optional<Model> load(const std::string &Path,
                                   DiagnosticEngine &Diags,
                                   const std::vector<std::string> &IncludeDirs = {});
  /// Same, from text already in memory (used by tests and the fuzzer).
  static std::optional<Model> parse(std::shared_ptr<const SourceFile> File,
                                    DiagnosticEngine &Diags,
                                    const std::vector<std::string> &IncludeDirs = {});

  /// The model's title (the first quoted string of the file, if any).
  const std::string &name() const;

  /// Whether the model takes coherence order to be partial: it closes the
  /// primitive itself (`let co = co+`, as Dat3M's PTX models do), so the
  /// enumerator gives it every strict partial order of each location's
  /// writes (initial write first) instead of only the total ones.
  bool partialCoherence() const;
  /// Whether the model reads the primitive \p Name (after dead code is
  /// removed; derived primitives count as the ones they read).
  bool usesPrimitive(std::string_view Name) const;

  /// Evaluates the model on \p X. Every primitive the model uses must be set
  /// in \p X (or be one the interpreter derives itself); a missing one is a
  /// reported error the first time and makes the execution forbidden.
  Verdict evaluate(const Execution &X) const;

  /// Prints the compiled form (registers, operations, checks) for
  /// debugging models and the interpreter.
  void print(std::ostream &OS) const;

  Model(Model &&) noexcept;
  Model &operator=(Model &&) noexcept;
  ~Model();

private:
  friend class Evaluator;
  explicit Model(std::unique_ptr<ModelImpl> Impl);
  std::unique_ptr<ModelImpl> Impl;
};

} // namespace incant::cat

#endif // INCANT_CAT_MODEL_H
