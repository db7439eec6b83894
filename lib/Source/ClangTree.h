//===- ClangTree.h - A parsed source file's syntax tree (libclang) -*- C++ -*-===//
//
// A CUDA (host side) or OpenCL C file parsed by libclang, and the cursors
// of the main file's declarations as a tree with parents, which libclang's
// C API does not give for expressions. Only with libclang
// (INCANT_HAVE_LIBCLANG).
//
// CUDA: clang 14 knows CUDA up to 11.5 and parses CUDA 13's headers but
// for what later CUDAs removed from them (texture references): the
// missing `texture_fetch_functions.h` that clang's CUDA wrapper includes
// is given as an empty in-memory file, and errors in the headers are
// ignored (only the main file's code is read) but for a header not found:
// that, or an error in the main file, leaves no tree (problem() quotes
// clang). The CUDA headers are those nvcc itself uses (`nvcc -dryrun`).
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_LIB_SOURCE_CLANGTREE_H
#define INCANT_LIB_SOURCE_CLANGTREE_H

#include "Libclang.h"

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace incant::source {

/// What clang should parse the file as.
enum class SourceKind { CudaHost, OpenCL };

class ClangTree {
public:
  struct Node {
    CXCursor C;
    CXCursorKind K;
    int Parent = -1;
    std::vector<int> Kids;
  };

  /// Parses \p Path; ok() is false (with problem()) when clang could not.
  ClangTree(const std::string &Path, SourceKind Kind,
            const std::vector<std::string> &CompilerArgs);
  ~ClangTree();
  ClangTree(const ClangTree &) = delete;
  ClangTree &operator=(const ClangTree &) = delete;

  bool ok() const { return TU != nullptr; }
  const std::string &problem() const { return Problem; }

  const std::vector<Node> &nodes() const { return Nodes; }
  const Node &node(int I) const { return Nodes[static_cast<size_t>(I)]; }
  /// The top-level declarations of the main file.
  const std::vector<int> &roots() const { return Roots; }

  /// The node of a declaration cursor in the tree, or -1.
  int nodeOf(CXCursor Decl) const;
  /// The nodes whose cursor references \p Decl (DeclRefExpr, MemberRef...).
  std::vector<int> referencesTo(CXCursor Decl) const;

  /// 1-based line and column of a cursor's location.
  static std::pair<uint32_t, uint32_t> lineOf(CXCursor C);
  /// A cursor's spelling.
  static std::string spelling(CXCursor C);
  /// The spelling of a cursor's type, canonical.
  static std::string typeName(CXCursor C);
  /// The source text of a node, on one line.
  std::string text(int I) const;
  /// The single punctuation token between the end of node \p A and the
  /// start of node \p B (an operator), or "".
  std::string tokenBetween(int A, int B) const;
  /// Every token of a node.
  std::vector<std::string> allTokens(int I) const {
    return tokens(lc().clang_getCursorExtent(node(I).C), nullptr);
  }
  /// The first and last tokens of a node ("" when none).
  std::string firstToken(int I) const;
  std::string lastToken(int I) const;
  /// Whether only blanks precede column \p Col (1-based) of line \p Line
  /// of the main file.
  bool firstOnLine(uint32_t Line, uint32_t Col) const;
  /// Byte offsets in the main file of a node's extent.
  std::pair<unsigned, unsigned> offsets(int I) const;
  static std::pair<unsigned, unsigned> offsetsOf(CXCursor C);

private:
  void build(CXCursor C, int Parent);
  std::vector<std::string> tokens(CXSourceRange R, std::vector<unsigned> *Offsets) const;

  CXIndex Index = nullptr;
  CXTranslationUnit TU = nullptr;
  std::string Problem;
  std::string Source; ///< The main file's text.
  std::vector<Node> Nodes;
  std::vector<int> Roots;
  std::unordered_multimap<unsigned, int> ByReferenced; // hash -> node
  std::unordered_multimap<unsigned, int> ByDecl;       // hash -> node
};

} // namespace incant::source

#endif // INCANT_LIB_SOURCE_CLANGTREE_H
