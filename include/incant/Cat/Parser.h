//===- Parser.h - Parse one .cat file into its syntax tree ------*- C++ -*-===//
//
// The parser reads one file; `include` statements stay statements (the
// model loader follows them). `show`/`unshow` statements are read and
// dropped. Errors go to the DiagnosticEngine with file:line:col.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_CAT_PARSER_H
#define INCANT_CAT_PARSER_H

#include "incant/Cat/AST.h"
#include "incant/Support/Diagnostic.h"

#include <optional>

namespace incant::cat {

/// How deeply expressions may nest before the parser gives up (this bounds
/// the parser's recursion on hostile input).
inline constexpr unsigned MaxExprDepth = 200;
/// The tallest expression tree the parser builds (long operator chains such
/// as a|b|c|... or r+++... are trees as tall as they are long).
inline constexpr unsigned MaxExprHeight = 256;

std::optional<ast::Module> parseModule(std::shared_ptr<const SourceFile> File,
                                       DiagnosticEngine &Diags);

} // namespace incant::cat

#endif // INCANT_CAT_PARSER_H
