//===- Compiler.h - Resolve, type-check and compile a cat model -*- C++ -*-===//
#ifndef INCANT_LIB_CAT_COMPILER_H
#define INCANT_LIB_CAT_COMPILER_H

#include "Program.h"

#include "incant/Support/Diagnostic.h"

#include <optional>
#include <string>
#include <vector>

namespace incant::cat {

/// Limits that keep hostile models from exhausting time or memory at load.
inline constexpr unsigned MaxIncludeDepth = 32;
inline constexpr unsigned MaxInlineDepth = 64;
inline constexpr size_t MaxInstructions = 100000;
inline constexpr uintmax_t MaxIncludeBytes = 16u << 20;

/// Parses \p File, follows its includes, checks names, kinds and arities,
/// and compiles it. Reports every error to \p Diags; nullopt on any.
std::optional<Program> compileModel(std::shared_ptr<const SourceFile> File,
                                    DiagnosticEngine &Diags,
                                    const std::vector<std::string> &IncludeDirs);

} // namespace incant::cat

#endif // INCANT_LIB_CAT_COMPILER_H
