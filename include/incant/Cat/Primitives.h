//===- Primitives.h - The names an execution gives a cat model --*- C++ -*-===//
//
// The one list of primitive sets and relations a .cat model may use without
// defining them. The enumerator (model::) builds exactly these; the cat type
// checker accepts exactly these; docs/cat.md lists them with their meaning.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_CAT_PRIMITIVES_H
#define INCANT_CAT_PRIMITIVES_H

#include <optional>
#include <span>
#include <string_view>

namespace incant::cat {

struct PrimitiveInfo {
  std::string_view Name;
  bool IsSet; ///< A set of events; otherwise a relation.
  /// The interpreter computes it itself when the execution does not set it
  /// (e.g. `_`, `id`, `M`, `po-loc`, `rfe`, `fr`, `membar.cta`).
  bool Derivable;
};

/// Every primitive name, in a fixed order (indices are stable for a build).
std::span<const PrimitiveInfo> primitiveNames();

/// The index of \p Name in primitiveNames(), if it is one.
std::optional<unsigned> lookupPrimitive(std::string_view Name);

} // namespace incant::cat

#endif // INCANT_CAT_PRIMITIVES_H
