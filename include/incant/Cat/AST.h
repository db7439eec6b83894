//===- AST.h - The syntax tree of a .cat file -------------------*- C++ -*-===//
//
// What the parser produces for one file, before includes are followed and
// names are resolved. Every node carries the source range it was parsed from.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_CAT_AST_H
#define INCANT_CAT_AST_H

#include "incant/Support/Diagnostic.h"

#include <memory>
#include <string>
#include <vector>

namespace incant::cat::ast {

enum class ExprKind {
  Name,     ///< Name: a let, a parameter or a primitive.
  Empty,    ///< 0
  Universe, ///< _ (all events, a set)
  Union,    ///< a | b
  Inter,    ///< a & b
  Diff,     ///< a \ b
  Seq,      ///< a ; b
  Product,  ///< S * T
  Compl,    ///< ~a
  Plus,     ///< r+ or r^+
  Star,     ///< r* or r^*
  Opt,      ///< r?
  Inverse,  ///< r^-1
  Bracket,  ///< [S]
  Call,     ///< Name(args...)
};

struct Expr {
  ExprKind Kind;
  SourceRange Range;
  /// The operator's own range (for binary and unary operators), for
  /// diagnostics that point at the operator.
  SourceRange OpRange;
  /// Name and Call: the name.
  std::string Name;
  /// Operands (binary: 2; unary: 1; Call: the arguments).
  std::vector<std::unique_ptr<Expr>> Ops;
  /// 1 + the largest height of an operand (the parser bounds it).
  unsigned Height = 1;
};

/// One `name = e` or `name(params) = e` of a let.
struct Binding {
  std::string Name;
  SourceRange NameRange;
  bool IsFunction = false;
  std::vector<std::string> Params;
  std::vector<SourceRange> ParamRanges;
  std::unique_ptr<Expr> Body;
};

enum class CheckKind { Acyclic, Irreflexive, Empty };

enum class StmtKind { Let, LetRec, Check, Include };

struct Stmt {
  StmtKind Kind;
  SourceRange Range;
  /// Let and LetRec: one or more bindings joined by `and`.
  std::vector<Binding> Bindings;
  /// Check.
  CheckKind Check = CheckKind::Acyclic;
  bool Negated = false;
  bool Flag = false;
  std::string CheckName; ///< After `as`; empty if none.
  std::unique_ptr<Expr> Operand;
  /// Include: the file name as written (without quotes).
  std::string Path;
};

struct Module {
  std::shared_ptr<const SourceFile> File;
  std::string Title;
  std::vector<Stmt> Stmts;
};

} // namespace incant::cat::ast

#endif // INCANT_CAT_AST_H
