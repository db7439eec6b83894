//===- ModelImpl.h - A compiled model and its bindings to layouts -*- C++ -*-===//
//
// Private to lib/Cat. A ModelImpl holds the compiled Program; a Binding
// says, for one layout of Execution (its names and levels, in order), where
// each primitive is, at which level, and the level and polarity of every
// register, so that the evaluator's hot path does no string work.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_LIB_CAT_MODELIMPL_H
#define INCANT_LIB_CAT_MODELIMPL_H

#include "Program.h"

#include "incant/Cat/Model.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace incant::cat {

/// How a register's value moves when the top-level primitives grow.
enum class Polarity : uint8_t {
  None, ///< does not read them
  Up,   ///< grows (or stays) when they grow
  Down, ///< shrinks (or stays) when they grow
  Both, ///< neither
};

/// One layout's view of a model (see above).
struct Binding {
  uint64_t Key = 0;
  size_t NumSets = 0, NumRels = 0;
  std::vector<int32_t> Slot;      ///< Per primitive: index in sets()/relations(), or -1.
  std::vector<uint8_t> PrimLevel; ///< Per primitive (derived: its operands').
  std::vector<uint8_t> RegLevel;  ///< Per register.
  std::vector<uint8_t> InstrLevel; ///< Per instruction of the Program.
  /// Per register: a primitive the execution says is transitive.
  std::vector<bool> Transitive;
  /// RegPol[L][r]: how register r moves when the level-L primitives grow
  /// (L >= 1; RegPol[0] is unused).
  std::vector<std::vector<Polarity>> RegPol;
  uint8_t Top = 0;                ///< The highest level of the layout.
  /// Per level L (0..Top), so that staging L looks only at its own:
  /// [CodeBegin, CodeEnd) holds every instruction of level L (a let rec
  /// block lies whole in one level); LevelPrims the entries of
  /// Program::Prims at L; PrimsFrom the primitives at L or above.
  std::vector<uint32_t> CodeBegin, CodeEnd;
  std::vector<std::vector<uint32_t>> LevelPrims, PrimsFrom;
};

class ModelImpl {
public:
  explicit ModelImpl(Program P);
  Program P;
  /// Per primitive of primitiveNames(): whether the model reads it, derived
  /// primitives counting as the ones they read (worked out once: check asks
  /// per test).
  std::vector<bool> UsedPrims;
  /// Unique for the life of the process (unlike the object's address).
  const uint64_t Id = NextId++;
  /// The binding for \p X's layout, computed once and cached.
  std::shared_ptr<const Binding> bind(const Execution &X) const;

private:
  static inline std::atomic<uint64_t> NextId{1};
  std::shared_ptr<Binding> makeBinding(const Execution &X) const;
  void computeLevels(Binding &B) const;
  std::vector<Polarity> polarities(const Binding &B, unsigned Level) const;
  mutable std::mutex Mu;
  mutable std::vector<std::shared_ptr<const Binding>> Cache;
};

/// How the interpreter derives primitives the execution does not set.
enum class Recipe : uint8_t { None, Full, Ident, Or, And, InvSeq, FenceRel };
struct Derivation {
  Recipe How = Recipe::None;
  int A = -1, B = -1; ///< Primitive indices of the operands.
};
/// Per primitive of primitiveNames().
const std::vector<Derivation> &derivations();

} // namespace incant::cat

#endif // INCANT_LIB_CAT_MODELIMPL_H
