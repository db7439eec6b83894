//===- Statements.h - Where a statement may go in a kernel's source -*- C++ -*-===//
//
// The statement structure of a CUDA or OpenCL C file (libclang), for
// placing a barrier the repair adds at a statement boundary: given the
// source position an instruction comes from (a PTX .loc's line and
// column), the start of the statement that holds it, among the statements
// of a block ({ ... }); or, for a position in a loop's header (a for
// loop's condition or increment, a do-while's condition), which run after
// the body, the end of that loop's body. Only positions where the
// statement (or the closing brace) is the first code on its line are
// given, so that the barrier goes on a line of its own.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_SOURCE_STATEMENTS_H
#define INCANT_SOURCE_STATEMENTS_H

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace incant::source {

struct Spot {
  /// The line to insert before (1-based).
  uint32_t Line = 0;
  /// The end of a loop's body (before its closing brace), not the start of
  /// a statement.
  bool LoopEnd = false;
};

/// The places around a loop whose header holds a position, for a barrier
/// that runs where the loop's control does: 0 where the place does not
/// start its line.
struct LoopSpots {
  uint32_t Start = 0;     ///< before the loop statement
  uint32_t BodyStart = 0; ///< before the first statement of its body
  uint32_t BodyEnd = 0;   ///< before the brace that closes its body
};

/// An expression statement `Lhs Op Rhs;` (Op `=` or a compound assignment
/// such as `+=`) alone on its line.
struct Assignment {
  uint32_t Line = 0;
  std::string Lhs, Op, Rhs;
  /// Lhs's type, canonical ("int"), for a temporary of C without `auto`.
  std::string Type;
};

class Statements {
public:
  /// Parses \p Path (CUDA when \p Cuda, else OpenCL C) with the compiler
  /// arguments \p Args (-I, -D, ...). ok() is false (problem() says why)
  /// when it could not, or this build has no libclang.
  Statements(const std::string &Path, bool Cuda,
             const std::vector<std::string> &Args);
  ~Statements();
  Statements(const Statements &) = delete;
  Statements &operator=(const Statements &) = delete;

  bool ok() const;
  const std::string &problem() const { return Problem; }

  /// Where a barrier before the code at \p Line : \p Col goes, or nullopt
  /// (no statement of a block holds it, or it does not start its line).
  std::optional<Spot> before(uint32_t Line, uint32_t Col) const;

  /// The innermost loop (for, while, do) whose header, not its body,
  /// holds \p Line : \p Col (its keyword, condition or increment), when
  /// its body is a block.
  std::optional<LoopSpots> loopAt(uint32_t Line, uint32_t Col) const;

  /// The assignment that the statement of a block holding \p Line : \p Col
  /// is, when it is one alone on its line: a barrier between its reads and
  /// its store splits it in two.
  std::optional<Assignment> assignmentAt(uint32_t Line, uint32_t Col) const;

private:
  struct Impl;
  std::unique_ptr<Impl> I;
  std::string Problem;
};

} // namespace incant::source

#endif // INCANT_SOURCE_STATEMENTS_H
