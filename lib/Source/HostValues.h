//===- HostValues.h - Values the host code fixes (libclang tree) -*- C++ -*-===//
//
// Integer and dim3 values of expressions in a ClangTree (HostLaunches.h
// says which are known), and how each use of a variable treats it (read,
// written with a value at a field path, or used in a way that may write).
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_LIB_SOURCE_HOSTVALUES_H
#define INCANT_LIB_SOURCE_HOSTVALUES_H

#include "ClangTree.h"
#include "incant/Source/HostLaunches.h"

namespace incant::source {

/// One use of a variable.
struct VarUse {
  enum Kind { Read, Write, Other } K = Other;
  /// The member/element path written (".gridDim.x", "[0].id"); "" for the
  /// variable itself.
  std::string Path;
  int Value = -1; ///< With Write by '=': the value's node.
  int Ref = -1;   ///< The reference's node.
};

class HostValues {
public:
  explicit HostValues(const ClangTree &T) : T(T) {}

  std::optional<int64_t> intOf(int Node, unsigned Depth = 0) const;
  /// dim3 (or uint3, or an integer converted to dim3) components.
  Dims dimOf(int Node, unsigned Depth = 0) const;
  /// \p Node without implicit casts, parentheses and explicit casts.
  int strip(int Node) const;
  /// The node of argument \p I of call \p Node, or -1 (absent: a default).
  int argNode(int Node, unsigned I) const;
  unsigned numArgs(int Node) const;
  /// The uses of the variable \p Var.
  std::vector<VarUse> usesOf(CXCursor Var) const;
  /// Nothing but reads after the initialiser (and this file defines it).
  bool unmodified(CXCursor Var) const;
  /// The initialiser's node of the variable \p Var, or -1.
  int initOf(CXCursor Var) const;
  /// The name of the function a call calls ("" if none).
  std::string calleeName(int Call) const;

private:
  std::optional<int64_t> binary(int Node, unsigned Depth) const;
  std::optional<int64_t> unary(int Node, unsigned Depth) const;
  VarUse useAt(int Ref) const;

  const ClangTree &T;
};

} // namespace incant::source

#endif // INCANT_LIB_SOURCE_HOSTVALUES_H
