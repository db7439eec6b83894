//===- Parser.h - Parse a litmus test ----------------------------*- C++ -*-===//
//
// Reads both litmus dialects (GPU_PTX and PTX, see AST.h and
// docs/litmus-format.md) into a litmus::Test. Syntax errors are reported to
// the DiagnosticEngine with file:line:col and what was expected; errors in
// program cells are all reported before giving up.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_LITMUS_PARSER_H
#define INCANT_LITMUS_PARSER_H

#include "incant/Litmus/AST.h"

#include <memory>
#include <optional>

namespace incant::litmus {

/// Parses \p File; nullopt if any error was reported.
std::optional<Test> parseTest(std::shared_ptr<const SourceFile> File,
                              DiagnosticEngine &Diags);

} // namespace incant::litmus

#endif // INCANT_LITMUS_PARSER_H
